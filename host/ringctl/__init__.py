"""Host side of the Two-Up ring controller (the `ring` command)."""
__version__ = "0.1.0"
