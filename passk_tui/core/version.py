"""The package's version, in a module of its own: the faces and reports print it without importing
the package's front door (``passk_tui/__init__.py``, whose public names load the Python API)."""

__version__ = "0.1.0"
