"""An attempt's conversation in the app: who said what, each tool call folded to one line."""
