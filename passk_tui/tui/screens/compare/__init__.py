"""The Compare screen and one case compared."""
