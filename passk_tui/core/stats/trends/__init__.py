"""Across stored evaluations of one agent: which cases flip with nothing changed, which moved."""
