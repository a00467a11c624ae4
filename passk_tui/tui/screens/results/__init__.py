"""The Results screen: its table's columns and cells, and their orders."""
