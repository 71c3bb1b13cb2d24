"""The `ring` command's last line of defence: an unexpected error becomes one line plus a report file.

Known causes are named where they happen (UserError); this only catches what nobody
foresaw. An OSError still says which file and what the system said (disk full, read-only,
permission), since that is what the technician can act on; everything else is written with
its traceback to a report file for the developers, and the line says where it is.
"""
import errno
import os
import sys
import tempfile
import time
import traceback
from pathlib import Path

OS_FIXES = {
    errno.ENOSPC: "the disk is full: free space there or choose another folder",
    errno.EDQUOT: "the disk quota is used up: free space there or choose another folder",
    errno.EROFS: "that file system is read-only: choose a writable folder",
    errno.EACCES: "permission denied: check the file's owner and mode, or choose another path",
    errno.EPERM: "operation not permitted: check the file's owner and mode",
    errno.ENOENT: "no such file or folder: check the path",
    errno.EISDIR: "that is a folder, not a file: give a file path",
    errno.ENOTDIR: "a part of that path is a file, not a folder: check the path",
}


def report_dir():
    home = os.environ.get("RING_HOME") or str(Path.home() / ".local" / "share" / "ringctl")
    return Path(home) / "reports"


def write_report(argv, exc):
    """Traceback and command line to a report file -> its path (None if nothing is writable)."""
    text = "ring %s\n%s\n%s" % (" ".join(argv), time.strftime("%Y-%m-%d %H:%M:%S %z"),
                               "".join(traceback.format_exception(exc)))
    for d in (report_dir(), Path(tempfile.gettempdir())):
        try:
            d.mkdir(parents=True, exist_ok=True)
            fd, path = tempfile.mkstemp(prefix="ring-error-%s-" % time.strftime("%Y%m%d-%H%M%S"),
                                        suffix=".txt", dir=d)
            with os.fdopen(fd, "w") as f:
                f.write(text)
            return path
        except OSError:
            continue
    return None


def report_unexpected(argv, exc):
    """-> the one line to print for an exception no command turned into a UserError."""
    path = write_report(list(argv or sys.argv[1:]), exc)
    where = f"; details in {path}" if path else ""
    if isinstance(exc, OSError) and exc.errno in OS_FIXES:
        name = f" {exc.filename}" if exc.filename else ""
        return f"{os.strerror(exc.errno).lower()}{name}: {OS_FIXES[exc.errno]}{where}"
    msg = str(exc).splitlines()[0] if str(exc) else ""
    if "database or disk is full" in msg:
        return f"the disk is full (SQLite: {msg}): free space and run it again{where}"
    return (f"unexpected {type(exc).__name__}{': ' + msg[:200] if msg else ''}; this is a "
            f"bug: please report it with{' ' + path if path else ' the command line'}")
