"""Load a device key for the link: a key file given by path, or $RING_HOME/keys/<device>.key."""
import os
import re
import stat
from pathlib import Path

from ..errors import UserError

KEY_LEN = 32


def ring_home():
    return Path(os.environ.get("RING_HOME") or Path.home() / ".local" / "share" / "ringctl")


def check_device_id(device_id):
    if not device_id or not re.fullmatch(r"[A-Za-z0-9_-]{4,64}", device_id):
        raise UserError(f"device id {device_id!r} is not valid (4-64 letters, digits, _ or -); "
                        "it is the board's USB serial number, see `ring device list`")
    return device_id


def key_path(device_id):
    """$RING_HOME/keys/<device-id>.key: the one place that knows where a board's host key lives."""
    return ring_home() / "keys" / (check_device_id(device_id) + ".key")


def load_key_file(path):
    """32-byte key from a file holding the raw bytes or 64 hex digits. Never prints the key."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise UserError(f"cannot read key file {p}: {exc.strerror}; pass the board's key "
                        "file ($RING_HOME/keys/<device-id>.key)") from None
    if len(data) != KEY_LEN:
        text = data.decode("ascii", "replace").strip()
        if re.fullmatch(r"[0-9a-fA-F]{64}", text):
            data = bytes.fromhex(text)
        else:
            raise UserError(f"key file {p} holds {len(data)} bytes, not a {KEY_LEN}-byte key "
                            "(raw or 64 hex digits); re-run `ring device provision`")
    return data


def key_is_private(path):
    """False if group/other can read the key file (the CLI warns; it is not fatal)."""
    try:
        return not (stat.S_IMODE(os.stat(path).st_mode) & 0o077)
    except OSError:
        return True


def load_key(device_or_path):
    """Key by file path (anything with a '/' or ending .key/.bin) or by device id."""
    s = str(device_or_path)
    # An existing file is a key file whatever its name (`--key notes.txt` is a file with the
    # wrong content, not an invalid device id).
    if "/" in s or s.endswith((".key", ".bin")) or os.path.lexists(s):
        return load_key_file(s)
    return load_key_file(key_path(s))
