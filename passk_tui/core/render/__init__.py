"""Renderers: results, comparisons, plans, costs and extents put into the words every face prints."""
