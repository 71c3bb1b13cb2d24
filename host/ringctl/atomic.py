"""Output files written whole or not at all: a temp file beside the target, fsync, rename.

A full disk, a read-only folder or a missing folder is one UserError naming the file and
the fix, and leaves no half-written file behind (nor a changed old one).
"""
import contextlib
import os
import tempfile
from pathlib import Path

from .crash import OS_FIXES
from .errors import UserError


def check_target(path, flag="-o"):
    """UserError unless `path` can be a file in an existing folder."""
    p = Path(path)
    if p.is_dir():
        raise UserError(f"{flag} {path} is a folder; give a file name in it (e.g. {p / 'out'})")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise UserError(f"{flag} {path}: folder {parent} does not exist; create it (mkdir -p "
                        f"{parent}) or choose another path")


def os_problem(exc, path, flag="-o"):
    """An OSError while writing `path` -> the one-line UserError for it."""
    fix = OS_FIXES.get(exc.errno, "check the path and the disk")
    return UserError(f"cannot write {flag} {path} ({exc.strerror or exc}): {fix}; nothing was "
                     "written", code=1)


@contextlib.contextmanager
def atomic_output(path, mode="w", flag="-o", **open_kw):
    """with atomic_output(path) as f: f.write(...) -> path appears only if all of it was written."""
    check_target(path, flag)
    p = Path(path)
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix="." + p.name + ".", suffix=".part",
                                   dir=str(p.parent) if str(p.parent) else ".")
        with os.fdopen(fd, mode, **open_kw) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, p)
        tmp = None
    except OSError as exc:
        raise os_problem(exc, path, flag) from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def write_atomic(path, data, flag="-o"):
    """Write str or bytes to `path` whole or not at all."""
    with atomic_output(path, "wb" if isinstance(data, bytes) else "w", flag,
                       **({} if isinstance(data, bytes) else {"encoding": "utf-8"})) as f:
        f.write(data)


def check_writable_dir(folder, flag):
    """A folder we will write into: create it, and prove it takes a write (read-only and full
    disks fail here, before any work is done)."""
    d = Path(folder)
    if d.exists() and not d.is_dir():
        raise UserError(f"{flag} {folder} is a file, not a folder; give a folder (created if "
                        "missing)")
    made = []
    try:
        for parent in reversed([d, *d.parents]):
            if not parent.exists():
                parent.mkdir()
                made.append(parent)
        fd, probe = tempfile.mkstemp(prefix=".write-test", dir=str(d))
        try:
            os.write(fd, b"\0" * 65536)
            os.fsync(fd)
        finally:
            os.close(fd)
            os.unlink(probe)
    except OSError as exc:
        for m in reversed(made):            # leave no empty folder behind either
            with contextlib.suppress(OSError):
                m.rmdir()
        raise UserError(f"cannot write into {flag} {folder} ({exc.strerror or exc}): "
                        f"{OS_FIXES.get(exc.errno, 'check the path and the disk')}", code=1) from None
