# The audit-log witness on the board (issue 16): chain, receipts, persistence, refusals.
# pytest runs this file under `micropython` (tests/conftest.py); tests/record/test_witness.py
# runs the same functions under CPython and checks the vectors against the stdlib's hmac.
import binascii
import json
import os
import struct

import mptest
import ringlink
import ringmsg as M
import witness as W

VECTORS = "tests/vectors/witness_vectors.json"
KEY = bytes(range(32))
HMAC = ringlink.hmac_key


def h(b):
    return binascii.hexlify(b).decode()


def uh(s):
    return binascii.unhexlify(s)


def digests(n, salt=b"rec"):
    import hashlib
    return [hashlib.sha256(salt + struct.pack("<I", i)).digest() for i in range(n)]


def gen_all():
    """What tests/vectors/witness_vectors.json holds (written by make_witness_vectors)."""
    ds = digests(5)
    heads = []
    head = W.GENESIS
    for d in ds:
        head = W.extend(head, d)
        heads.append(h(head))
    return {"key": h(KEY), "digests": [h(d) for d in ds], "heads": heads,
            "receipt_mac": h(W.receipt_mac(HMAC, KEY, 5, head)),
            "head_mac": h(W.head_mac(HMAC, KEY, b"N" * 16, 5, head)),
            "feed": W.pack_feed(4, ds[3:5], commit=True)}


def vectors():
    with open(VECTORS) as f:
        return json.load(f)


def tmpdir(name):
    # TMPDIR: the run's own directory (tests/mprun.py), removed after it
    d = "%s/mpwit_%s_%s" % (os.getenv("TMPDIR") or "/tmp", name,
                            os.getpid() if hasattr(os, "getpid") else id(name))
    try:
        os.mkdir(d)
    except OSError:
        pass
    for n in os.listdir(d):
        os.remove(d + "/" + n)
    return d


def board(name, key=KEY):
    root = tmpdir(name)
    if key is not None:
        with open(root + "/" + W.KEY_FILE, "wb") as f:
            f.write(key)
    return root, (lambda n: root + "/" + n)


def feed_all(w, ds, first=1, commit=True):
    r = None
    for i in range(0, len(ds), W.FEED_MAX):
        part = ds[i:i + W.FEED_MAX]
        last = i + W.FEED_MAX >= len(ds)
        r = w.feed(W.pack_feed(first + i, part, commit and last))
        if not last:
            assert r is None, r
    return r


def test_vectors():
    v = vectors()
    head = W.GENESIS
    for d, want in zip(v["digests"], v["heads"]):
        head = W.extend(head, uh(d))
        assert h(head) == want
    assert h(W.receipt_mac(HMAC, uh(v["key"]), 5, head)) == v["receipt_mac"]
    assert h(W.head_mac(HMAC, uh(v["key"]), b"N" * 16, 5, head)) == v["head_mac"]
    first, flags, ds = W.unpack_feed(v["feed"])
    assert (first, flags, [h(d) for d in ds]) == (4, W.F_COMMIT, v["digests"][3:5])
    assert len(v["feed"]) <= 93          # one command frame: MAX_PAYLOAD 98 - CMD_HDR 5


def test_feed_commit_receipt_and_persist():
    root, path = board("w1")
    w = W.Witness(path, HMAC)
    ds = digests(5)
    b, a, mac = feed_all(w, ds)
    v = vectors()
    assert (b, a) == (W.W_RECEIPT, 5) and mac == v["receipt_mac"]
    assert h(w.head) == v["heads"][-1]
    with open(path(W.STATE_FILE), "rb") as f:
        seq, head, smac = W.unpack_state(f.read())
    assert seq == 5 and h(head) == v["heads"][-1] and h(smac) == mac
    # a reset: the board resumes from its flash and extends from there
    w2 = W.Witness(path, HMAC)
    assert (w2.seq, w2.head) == (5, w.head) and w2.problem is None
    assert w2.feed(W.pack_feed(6, digests(1, b"more"), True))[:2] == (W.W_RECEIPT, 6)


def test_flash_written_only_on_commit():
    root, path = board("w2")
    w = W.Witness(path, HMAC)
    assert feed_all(w, digests(4), commit=False) is None
    assert w.seq == 4 and W.STATE_FILE not in os.listdir(root)
    # a reset before the commit loses the RAM head: the host resends from the flash's seq
    w = W.Witness(path, HMAC)
    assert w.seq == 0
    assert w.feed(W.pack_feed(1, [], True))[:2] == (W.W_RECEIPT, 0)
    assert W.STATE_FILE not in os.listdir(root)      # nothing moved, nothing written


def test_refuses_a_head_that_does_not_extend_its_own():
    root, path = board("w3")
    w = W.Witness(path, HMAC)
    feed_all(w, digests(3))
    head = w.head
    for first in (1, 3, 5):          # a rewrite from the start, an overlap, a gap
        b, a, why = w.feed(W.pack_feed(first, digests(2, b"forged"), True))
        assert (b, a) == (W.W_REFUSED, 3) and "send from 4" in why, why
    assert w.seq == 3 and w.head == head
    b, a, why = w.feed("not base64!")
    assert b == W.W_REFUSED and w.seq == 3


def test_no_key_and_forged_state_refused():
    root, path = board("w4", key=None)
    w = W.Witness(path, HMAC)
    b, a, why = w.feed(W.pack_feed(1, digests(1), True))
    assert b == W.W_REFUSED and "ring device provision" in why
    assert w.answer("00" * 16)[0] == W.W_REFUSED
    # state written under another key (or edited): refused, never silently restarted
    root, path = board("w5")
    with open(path(W.STATE_FILE), "wb") as f:
        f.write(W.pack_state(HMAC, b"K" * 32, 9, bytes(32)))
    w = W.Witness(path, HMAC)
    assert w.key is None and "not signed" in w.problem
    assert w.feed(W.pack_feed(10, digests(1), True))[0] == W.W_REFUSED
    with open(path(W.STATE_FILE), "wb") as f:
        f.write(b"short")
    assert "unreadable" in W.Witness(path, HMAC).problem


def test_answer_signs_the_live_head_over_the_nonce():
    root, path = board("w6")
    w = W.Witness(path, HMAC)
    feed_all(w, digests(3), commit=False)
    b, a, mac = w.answer("ab" * 16)
    assert (b, a) == (W.W_HEAD, 3)
    assert mac == h(W.head_mac(HMAC, KEY, b"\xab" * 16, 3, w.head)) + " ababab" and len(mac) <= 72
    assert w.answer("zz")[0] == W.W_REFUSED and w.answer("ab")[0] == W.W_REFUSED


def test_command_codes():
    """What app.py hands over: CMD_WITNESS feeds, CMD_WITNESS_HEAD answers."""
    w = W.Witness(board("w7")[1], HMAC)
    assert w.command(M.CMD_WITNESS, W.pack_feed(1, digests(2), True))[:2] == (W.W_RECEIPT, 2)
    assert w.command(M.CMD_WITNESS_HEAD, "01" * 8)[:2] == (W.W_HEAD, 2)
    assert W.FEED_CMD == M.CMD_WITNESS
    # during a spin the board hashes nothing and writes no flash: refused with its seq
    assert w.command(M.CMD_WITNESS, W.pack_feed(3, digests(1), True), busy=True) == (W.W_REFUSED, 2, W.BUSY)
    assert w.seq == 2


if __name__ == "__main__":
    mptest.main(globals())
