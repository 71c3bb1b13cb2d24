"""Host side of the Two-Up ring controller (the `ring` command)."""
import os

__version__ = "0.1.0"

# OpenCV prints "[ WARN ...]" lines of its own when a camera cannot be opened; the ring
# commands say what is wrong in one line instead.
os.environ.setdefault("OPENCV_LOG_LEVEL", "ERROR")
