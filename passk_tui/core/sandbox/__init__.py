"""Sandboxes: model-written code run under bubblewrap, never with the user's rights on the host."""
