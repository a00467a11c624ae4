"""Modal dialogs: confirm, copy, export, more attempts, help."""
