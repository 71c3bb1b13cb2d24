"""Provision: make a fresh 32-byte device key, install it on the board as /key.bin, keep the host copy 0600;
and the audit-log witness key: on the board as /witness.key, its one other copy written where
the technician says (the surveillance office's medium), never kept on the host.

Keys are never printed or logged; only a short fingerprint (sha256 of a label and the key)
is shown so a technician can tell two keys apart.
"""
import hashlib
import os

from ..errors import UserError
from ..fw import witness
from ..fw.ringlink import hmac_key
from ..link.keys import ring_home
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


def check_witness_copy(path, force=False):
    """UserError if the surveillance copy would land on the host or overwrite a key."""
    p = os.path.abspath(path)
    home = os.path.abspath(str(ring_home()))
    if p == home or p.startswith(home + os.sep):
        raise UserError("--witness-copy %s is inside RING_HOME (%s): the witness key must not be "
                        "kept on the host; write it to the surveillance office's medium" % (path, home))
    if os.path.exists(p) and not force:
        raise UserError("%s exists; pass --force to replace it (the old witness key then no "
                        "longer checks this board's new receipts)" % path)
    return p


def _key(random_bytes):
    key = random_bytes(keys.KEY_LEN)
    if not isinstance(key, bytes) or len(key) != keys.KEY_LEN:
        raise UserError("random source returned a bad key; nothing was written", code=1)
    return key


def provision(target, device_id, force=False, random_bytes=os.urandom, witness_copy=None):
    """Install a new key on `target` and store the host copy -> (host path, fingerprint,
    witness fingerprint or None). With `witness_copy`, also a new witness key: written there
    first, then onto the board with a fresh (signed, empty) witness state."""
    path = check_free(device_id, force)
    key = _key(random_bytes)
    items = [(key, BOARD_KEY)]
    wfp = None
    if witness_copy is not None:
        wkey = _key(random_bytes)
        # The surveillance copy first: a board key nobody else holds could never be checked.
        keys.write_private(check_witness_copy(witness_copy, force), wkey)
        items += [(wkey, witness.KEY_FILE),
                  (witness.pack_state(hmac_key, wkey, 0, witness.GENESIS), witness.STATE_FILE)]
        wfp = fingerprint(wkey)
    # Board first: if the copy fails the old host key still matches the old board key.
    target.write_many(items, private=True)
    keys.write_private(path, key)
    return path, fingerprint(key), wfp

