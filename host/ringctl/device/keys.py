"""Host copies of device keys: $RING_HOME/keys/<device-id>.key, 32 bytes, readable only by the owner."""
import os
import stat
from pathlib import Path

from ..errors import UserError
from ..link.keys import KEY_LEN, check_device_id, key_path  # noqa: F401  (the layout lives there)


def write_private(path, data):
    """Write `data` to `path` atomically, mode 0600 from creation (never world-readable)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp%d" % os.getpid())
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.fchmod(fd, 0o600)  # umask cannot widen it, but be explicit
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def key_problem(device_id):
    """Why the host key for this device is unusable, or None if it is fine."""
    p = key_path(device_id)
    if not p.exists():
        return f"no host key {p}; run `ring device provision`"
    mode = stat.S_IMODE(p.stat().st_mode)
    if mode & 0o077:
        return f"host key {p} has mode {mode:04o}; run `chmod 600 {p}`"
    if p.stat().st_size != KEY_LEN:
        return f"host key {p} is not {KEY_LEN} bytes; re-run `ring device provision --force`"
    return None


def load_key(device_id):
    problem = key_problem(device_id)
    if problem:
        raise UserError(problem, code=1)
    return key_path(device_id).read_bytes()
