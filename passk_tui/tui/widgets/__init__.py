"""Widgets of our own: the attempts grid and the glyphs it draws."""
