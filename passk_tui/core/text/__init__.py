"""Text both faces share: the plain table, comparison text, glyphs, terminal-safe outside text."""
