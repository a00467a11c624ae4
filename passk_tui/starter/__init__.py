"""The starter files `passk-tui init` writes (cases.toml, agents.toml), as package data."""
