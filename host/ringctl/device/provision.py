"""Provision: make a fresh 32-byte device key, install it on the board as /key.bin, keep the host copy 0600.

The key is never printed or logged; only a short fingerprint (sha256 of a label and the key)
is shown so a technician can tell two keys apart.
"""
import hashlib
import os

from ..errors import UserError
from . import keys

BOARD_KEY = "key.bin"


def fingerprint(key):
    """8 hex digits that identify a key without revealing it."""
    return hashlib.sha256(b"ring-key-fingerprint\0" + key).hexdigest()[:8]


def check_free(device_id, force=False):
    """UserError if the device already has a host key and --force was not given."""
    path = keys.key_path(device_id)
    if path.exists() and not force:
        raise UserError(f"device {device_id} already has a host key ({path}); "
                        "pass --force to replace it (the old key stops working on this board)")
    return path


def provision(target, device_id, force=False, random_bytes=os.urandom):
    """Install a new key on `target` and store the host copy -> (host path, fingerprint)."""
    path = check_free(device_id, force)
    key = random_bytes(keys.KEY_LEN)
    if not isinstance(key, bytes) or len(key) != keys.KEY_LEN:
        raise UserError("random source returned a bad key; nothing was written", code=1)
    # Board first: if the copy fails the old host key still matches the old board key.
    target.write_many([(key, BOARD_KEY)], private=True)
    keys.write_private(path, key)
    return path, fingerprint(key)
