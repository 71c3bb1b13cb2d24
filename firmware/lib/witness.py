# Audit-log witness: the board keeps its own copy of the host log's hash chain, persists its head and signs receipts (issue 16).
# Shared by the firmware and the host (imported there as ringctl.fw.witness): stdlib only,
# MicroPython/CPython common subset. The host's audit log defines each record's hash with
# extend() below, so the head the board computes IS the log's hash at that seq: the board
# never takes a head from the host, only the digests of record bodies, and chains them itself.
# Whoever later holds the witness key (the surveillance office; never the host) can check a
# receipt, the persisted head, or a live answer to a fresh nonce against any copy of the log.
import hashlib
import binascii
import struct
import os


try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

KEY_FILE = "witness.key"       # 32 bytes, written by `ring device provision`
STATE_FILE = "witness.bin"     # seq (u32 LE) | head (32) | receipt mac (32)
STATE_TMP = "witness.tmp"
KEY_LEN = const(32)
STATE_LEN = const(68)
GENESIS = bytes(32)
TAG_RECEIPT = b"ring-witness-receipt-v1\x00"
TAG_HEAD = b"ring-witness-head-v1\x00"

FEED_CMD = const(10)           # ringmsg.CMD_WITNESS (the other code is CMD_WITNESS_HEAD)
# CMD_WITNESS payload (base64 text, fits one frame): <IB first seq, flags> + n x 32-byte digests
FEED_FMT = "<IB"
FEED_HDR = const(5)
FEED_MAX = const(2)            # digests per command: 5 + 64 bytes = 92 base64 characters
F_COMMIT = const(1)            # persist the head and answer with a receipt

# EV_WITNESS b: what the event carries (a = the board's witnessed seq, text = mac hex or why)
W_RECEIPT = const(0)           # after a commit: mac = receipt_mac(key, seq, head)
W_HEAD = const(1)              # answer to CMD_WITNESS_HEAD: "mac-hex nonce-prefix", mac = head_mac(key, nonce, seq, head)
W_REFUSED = const(2)           # text says why (no key, not the next seq, bad payload, busy)
BUSY = "spin in progress: send after it"


def extend(head, digest):
    """The chain step, here and in the host's log: sha256(previous hash || record body digest)."""
    h = hashlib.sha256(head)
    h.update(digest)
    return h.digest()


# `hmac(key, msg) -> 32 bytes` is handed in (ringlink.hmac_key, the one HMAC-SHA256 with
# RFC 4231 vectors): a shared module imports no sibling by name (the host has no `ringlink`).
def receipt_mac(hmac, key, seq, head):
    return hmac(key, TAG_RECEIPT + struct.pack("<I", seq) + head)


def head_mac(hmac, key, nonce, seq, head):
    return hmac(key, TAG_HEAD + nonce + struct.pack("<I", seq) + head)


def pack_feed(first_seq, digests, commit=False):
    """Host side: one CMD_WITNESS text (base64, <= 93 bytes)."""
    if len(digests) > FEED_MAX:
        raise ValueError("at most %d digests per command" % FEED_MAX)
    raw = struct.pack(FEED_FMT, first_seq, F_COMMIT if commit else 0) + b"".join(digests)
    return binascii.b2a_base64(raw).decode().strip()


def unpack_feed(text):
    """-> (first seq, flags, [digest, ...]); ValueError if malformed."""
    try:
        raw = binascii.a2b_base64(text)
    except Exception:
        raise ValueError("witness payload is not base64")
    n = len(raw) - FEED_HDR
    if n < 0 or n % 32 or n // 32 > FEED_MAX:
        raise ValueError("witness payload has %d bytes" % len(raw))
    first, flags = struct.unpack_from(FEED_FMT, raw, 0)
    return first, flags, [raw[FEED_HDR + 32 * i:FEED_HDR + 32 * (i + 1)] for i in range(n // 32)]


def pack_state(hmac, key, seq, head):
    return struct.pack("<I", seq) + head + receipt_mac(hmac, key, seq, head)


def unpack_state(raw):
    """-> (seq, head, mac); ValueError if the file is not a witness state."""
    if len(raw) != STATE_LEN:
        raise ValueError("witness state is %d bytes, expected %d" % (len(raw), STATE_LEN))
    return struct.unpack_from("<I", raw, 0)[0], bytes(raw[4:36]), bytes(raw[36:68])


class Witness:
    """The board's side. `path(name)` maps a flash file name to its path (board.path).

    The head lives in RAM while a spin's records arrive and is written to flash only on a
    commit (at most once per spin, the host's choice), so flash wear stays negligible. After a
    reset the board resumes from its last persisted head and the host resends from there."""

    def __init__(self, path, hmac):
        self.path = path
        self.hmac = hmac
        self.key = None
        self.problem = None
        self.seq = 0
        self.head = GENESIS
        self.saved = 0
        try:
            with open(path(KEY_FILE), "rb") as f:
                key = f.read()
        except OSError:
            self.problem = "no witness key: run 'ring device provision'"
            return
        if len(key) != KEY_LEN:
            self.problem = "witness key is %d bytes: re-run 'ring device provision'" % len(key)
            return
        self.key = key
        try:
            with open(path(STATE_FILE), "rb") as f:
                raw = f.read()
        except OSError:
            return                      # fresh board: the chain starts at genesis
        try:
            seq, head, mac = unpack_state(raw)
        except ValueError as e:
            self.key = None
            self.problem = "witness state unreadable (%s): the board refuses to witness" % e
            return
        if receipt_mac(hmac, self.key, seq, head) != mac:
            self.key = None
            self.problem = "witness state not signed by this key: the board refuses to witness"
            return
        self.seq = self.saved = seq
        self.head = head

    def feed(self, text):
        """One CMD_WITNESS. -> (b, a, text) for an EV_WITNESS, or None (fed, nothing to say).

        Refuses a batch that does not start right after the board's own head: the board
        extends only its own chain, whatever the host claims."""
        if self.key is None:
            return W_REFUSED, self.seq, self.problem
        try:
            first, flags, digests = unpack_feed(text)
        except ValueError as e:
            return W_REFUSED, self.seq, str(e)
        if digests and first != self.seq + 1:
            return W_REFUSED, self.seq, "witness is at seq %d: send from %d" % (self.seq, self.seq + 1)
        head = self.head
        for d in digests:
            head = extend(head, d)
        self.head = head
        self.seq += len(digests)
        if not flags & F_COMMIT:
            return None
        try:
            return W_RECEIPT, self.seq, self.commit()
        except OSError as e:            # flash full or worn: say so, keep the head in RAM
            return W_REFUSED, self.seq, "cannot persist the witness head: %s" % e

    def commit(self):
        """Persist the head (if it moved) -> receipt mac hex."""
        if self.seq != self.saved:
            raw = pack_state(self.hmac, self.key, self.seq, self.head)
            tmp = self.path(STATE_TMP)
            with open(tmp, "wb") as f:
                f.write(raw)
            os.rename(tmp, self.path(STATE_FILE))   # atomic on littlefs and POSIX
            self.saved = self.seq
        return binascii.hexlify(receipt_mac(self.hmac, self.key, self.seq, self.head)).decode()

    def command(self, code, text, busy=False):
        """CMD_WITNESS (feed) or CMD_WITNESS_HEAD (answer) -> EV_WITNESS (b, a, text) or None.
        `busy`: a spin is armed or in the air: hashing and flash writes wait until it is over
        (the light's timing comes first; the host resends from the seq given)."""
        if code != FEED_CMD:
            return self.answer(text)
        if busy:
            return W_REFUSED, self.seq, BUSY
        return self.feed(text)

    def answer(self, nonce_hex):
        """CMD_WITNESS_HEAD: -> (b, a, text): the live head signed over the asker's nonce."""
        if self.key is None:
            return W_REFUSED, self.seq, self.problem
        try:
            nonce = binascii.unhexlify(nonce_hex)
        except Exception:
            return W_REFUSED, self.seq, "nonce must be hex"
        if not 8 <= len(nonce) <= 32:
            return W_REFUSED, self.seq, "nonce must be 8..32 bytes"
        mac = head_mac(self.hmac, self.key, nonce, self.seq, self.head)
        # the nonce's first bytes say which question this answers (an older answer may be resent)
        return W_HEAD, self.seq, binascii.hexlify(mac).decode() + " " + nonce_hex[:6]
