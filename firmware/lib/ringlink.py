# Ring link protocol: COBS framing, CRC-32, HMAC-SHA256 auth, exactly-once delivery (sans-I/O, both runtimes).
"""The ONE implementation of the ring link, in the MicroPython/CPython common subset.

Wire format, state machines and numbers: firmware/LINK.md. No I/O in here: the caller
moves bytes and passes the time in (now_ms, e.g. time.ticks_ms() on the board, monotonic
ms on the host; differences are taken modulo 2**30 so ticks_ms wrap-around is harmless).

API
  s = Session(key, role, info=None, ring_slots=32, window=8, auto_ack=None, rx_slots=16)
      key: 32 bytes. role: ROLE_DEVICE or ROLE_HOST ("device"/"host").
      info (device): {"fw": str, "image": bytes(8) or hex str, "boot_id": int u32,
                      "reset": int, "device_id": str, "interp": str}
      info (host):   {"name": str}  (optional)
      auto_ack: default True on the device (ack at delivery), False on the host (the app
                calls ack(seq) after durably recording the message).
  s.start(now_ms)          (re)start: host sends HELLO; device forgets the session and adverts.
                           Call after every (re)open of the line.
  s.feed(data, now_ms)     bytes read from the line.
  s.recv()                 -> (mtype, payload_bytes, seq) or None, in order, exactly once.
                           seq only grows for the Session's life (also across reconnects
                           and peer reboots), so it is a safe handle for ack().
  s.send(mtype, payload, now_ms) -> seq, or -1 when the preallocated ring is full (the
                           device app must then report EV_OVERFLOW; nothing is dropped silently).
  s.ack(seq)               cumulative: everything delivered up to and including seq is durable.
  s.rx_acked               every recv() seq below this has been acknowledged.
  s.poll(now_ms)           -> bytes to write (one encoded frame) or None; call until None.
  s.connected              True when the session is up (both nonces exchanged and confirmed).
  s.peer_info              dict from the peer's HELLO (host side: proto, fw, image, boot_id,
                           reset, device_id, interp) or None.
  s.peer_silent_ms(now)    ms since the peer last PROVED it holds the session now (echoed a
                           fresh challenge of ours in an ACK; at the handshake, our nonce).
                           HELLOs, duplicates and replays never count (LINK.md section 8).
  s.host_lost(now)         device: True when not connected or the host is silent > 2000 ms.
  s.repl_detected(now)     True when the bytes between frames look like the MicroPython REPL
                           ("board is at the REPL, not running the controller").
  s.error                  host: why the peer was refused (incompatible major version), else None.
  s.unacked                messages queued or in flight and not yet acknowledged by the peer.
  s.tx_free                free slots in the send ring (ring_slots - unacked).
  s.stats()                dict of counters (alarms, crc_errors, repl_seen, retransmits,
                           duplicates, stale, ...). Keys never appear in repr() or stats().
  s.peer_alarms, s.peer_key_errors  the peer's own counts, from its latest ACK (None before)
  s.alarms                 security alarms: good CRC, bad tag once a session exists (forged,
                           tampered, reflected, replayed). Never from a reconnect or a host
                           restart: a device that answered a new HELLO sends nothing more
                           under the old keys until the new ones are confirmed or the live
                           host speaks again (a replayed HELLO only pauses it).
  s.key_errors             HELLOs failing the HELLO key outside a live session: a wrong key.
  s.alarm_news(now), s.report_text()   device app: when to send EV_LINK, and its text.
Message types: MT_EVENT (device->host), MT_CMD (host->device); link-internal MT_HELLO, MT_ACK.
Lower level (used by `ring link dump`): Deframer, cobs_encode/cobs_decode, seal, parse_header,
verify, hello_keys, session_keys, parse_hello_host, parse_hello_device, parse_ack.
Board only: use_codec(...) swaps in machine-code COBS and tag compare (fastlink.py).
Parsers raise ValueError only; a Session never raises on what it is fed.
"""
import struct
import hashlib
import binascii
import os

try:
    import micropython
    from micropython import const
except ImportError:  # CPython: const() is the value and the decorators below change nothing
    class micropython:
        """CPython's stand-in for @micropython.native: the function as it is."""
        @staticmethod
        def native(f):
            return f

    def const(x):
        return x

# @micropython.native (machine code on the board and under the unix port; plain Python on
# CPython) marks the few functions a command's link pass spends most of its bytecode in,
# chosen by time saved per byte of ARMv6-M code (rp2 loads an .mpy's machine code into the
# heap): seal and emit a frame, take one, feed, the HMAC, the send poll. Not send(): its
# slice store would allocate a slice object in machine code (the VM's does not), and send()
# must stay allocation-free (mp_test_link). The build compiles this module per target
# (`ring device build --target`; firmware/README.md).

PROTO_MAJOR = const(2)      # 2.0: ACK carries the liveness challenge and echo (was empty in 1.x)
PROTO_MINOR = const(0)     # appended fields only (parsers ignore trailing bytes)

ROLE_DEVICE = "device"
ROLE_HOST = "host"

# ---- frame layout -----------------------------------------------------------------------
# decoded frame = header(10) | payload(0..98) | tag(16) | crc32(4)   (<= 128 bytes)
HDR_FMT = "<BBII"          # mtype, flags, seq, ack
HDR_LEN = const(10)        # mtype, flags, seq, ack
TAG_LEN = const(16)        # HMAC-SHA256 output cut to 16 bytes
CRC_LEN = const(4)         # CRC-32, u32 LE
MAX_FRAME = const(128)     # fits the RP2040 USB-CDC buffers
MIN_FRAME = const(30)      # HDR_LEN + TAG_LEN + CRC_LEN
MAX_PAYLOAD = const(98)    # MAX_FRAME - MIN_FRAME
MAX_ENCODED = const(129)   # COBS adds one byte per 254

MT_HELLO = const(1)        # handshake; seq = sender's stream id, ack = sender's oldest unacked seq
MT_ACK = const(2)          # ack-only frame, also the heartbeat; payload ACK_FMT (liveness, alarms)
MT_EVENT = const(0x10)     # device -> host, payload = ringmsg event
MT_CMD = const(0x11)       # host -> device, payload = ringmsg command
MT_RELIABLE = const(0x10)  # every mtype >= this is sequenced, acked and retransmitted
MT_NAMES = {MT_HELLO: "hello", MT_ACK: "ack", MT_EVENT: "event", MT_CMD: "cmd"}

FL_ADVERT = const(1)       # device HELLO without a host nonce: "I have no session, say HELLO"
FL_GAP = const(2)          # ACK sent because a frame arrived out of order (fast retransmit)

NONCE_LEN = const(16)      # Nh, Nd
IMAGE_LEN = const(8)       # firmware image hash prefix in the device HELLO
ACK_FMT = "<IIII"          # ACK payload: challenge, echo of the peer's latest, alarms, key_errors
ACK_LEN = const(16)        # challenge, echo, sender's alarms, sender's key_errors: u32 each

# ---- timing (ms) ------------------------------------------------------------------------
HB_MS = const(200)             # send an ACK (heartbeat) at least this often while up
HOST_LINK_LOST_MS = const(1000)   # host: peer silent this long -> link lost, re-handshake
DEVICE_HOST_LOST_MS = const(2000)  # device: disarm + fault light (app's job, host_lost())
HELLO_RETRY_MS = const(250)  # host: HELLO again until a reply echoes the current Nh
ADVERT_MS = const(500)     # device without a session: ADVERT this often
RTO_INIT = const(200)      # retransmission timeout before any RTT sample
RTO_MIN = const(30)        # RTO clamp (RFC 6298 from the smoothed RTT)
RTO_MAX = const(2000)      # RTO clamp; also the backoff ceiling
OLD_KEYS = const(2)            # recent sessions whose late frames count as stale, not alarms
CH_MS = const(100)             # an ACK carries a new challenge when the current one is this old
CH_KEEP = const(16)            # challenges whose issue time is remembered (>= 1.5 s of them)
REPORT_MS = const(1000)        # alarm_news(): at most one report per this long

_TMASK = const(0x3FFFFFFF)     # time.ticks_ms() period on MicroPython
_THALF = const(0x20000000)

# REPL output between frames means the board is not running the controller.
REPL_PATTERNS = (b"MicroPython v", b">>> ", b"Traceback (most recent call last)", b"raw REPL")

ST_IDLE = const(0)      # nothing yet (device: adverting)
ST_HELLO = const(1)     # host: HELLO sent, waiting for the device's HELLO
ST_PENDING = const(2)   # device: replied to HELLO, waiting for the host's first sealed frame
ST_UP = const(3)
ST_REFUSED = const(4)   # host: incompatible protocol major
STATE_NAMES = ("idle", "hello", "pending", "up", "refused")


def _tdiff(a, b):
    """a - b in ms, wrap-safe (both runtimes)."""
    return ((a - b + _THALF) & _TMASK) - _THALF


# ---- COBS -------------------------------------------------------------------------------
# By runs between zeros (bytes.find and slice copies, in C), never per byte in Python: on an
# RP2040 a per-byte loop costs ~40 us a byte, 2-4 ms a frame (issue 18).
# A frame (< 254 bytes) never holds a full 0xFF block, so in COBS every byte keeps its place
# shifted by one and each zero becomes a code: one C copy, then one step per zero.
def _cobs_encode_into(data, out, oi, n=-1):
    """COBS-encode data[:n] (n < 0: all of it) into out from index oi (room: n + n//254 + 1).
    -> index after the last byte written. data: bytes or bytearray (it needs find)."""
    if n < 0:
        n = len(data)
    if n >= 254:
        return _cobs_encode_long(data[:n], out, oi)
    out[oi + 1:oi + 1 + n] = data if n == len(data) else memoryview(data)[:n]
    find = data.find
    zeros = data.startswith
    p = oi                             # where the current block's code goes
    i = 0
    while True:
        z = find(b"\x00", i, n)
        if z == i and zeros(b"\x00\x00\x00", i, n):    # the high bytes of a small u32
            out[p:p + 3] = b"\x01\x01\x01"
            p += 3
            i += 3
            continue
        if z < 0:
            out[p] = oi + 1 + n - p
            return oi + 1 + n
        q = oi + 1 + z                 # the zero's place in out: the next block's code
        out[p] = q - p
        p = q
        i = z + 1


def _cobs_encode_long(data, out, oi):
    n = len(data)
    mv = memoryview(data)
    i = 0
    while True:
        z = data.find(b"\x00", i)
        end = n if z < 0 else z
        while end - i >= 254:          # a full block: code 0xFF, no zero implied
            out[oi] = 0xFF
            out[oi + 1:oi + 255] = mv[i:i + 254]
            oi += 255
            i += 254
        k = end - i
        out[oi] = k + 1
        out[oi + 1:oi + 1 + k] = mv[i:end]
        oi += k + 1
        if z < 0:
            return oi
        i = z + 1


def _cobs_decode_at(enc, s, e, out):
    """Decode the COBS bytes enc[s:e] into out (room: e - s). -> length, or -1 if malformed (a
    zero byte, a zero code or a block past the end)."""
    n = e - s
    if n <= 0:
        return 0
    if not isinstance(enc, bytes):
        enc = bytes(enc[s:e])     # one copy in C: find() needs bytes
        s = 0
        e = n
    if enc.find(b"\x00", s, e) >= 0:
        return -1
    out[0:n - 1] = memoryview(enc)[s + 1:e]
    i = 0
    while True:
        code = enc[s + i]
        if code == 0:
            return -1                  # (excluded by the find above: never a loop without end)
        if code == 0xFF:
            return _cobs_decode_long(memoryview(enc)[s:e], out)
        i += code
        if i >= n:
            return n - 1 if i == n else -1
        out[i - 1] = 0                 # the next code stands where the zero was


def _cobs_decode_long(enc, out):
    mv = memoryview(enc)
    i = 0
    o = 0
    n = len(enc)
    while i < n:
        code = enc[i]
        if code == 0:
            return -1
        i += 1
        end = i + code - 1
        if end > n:
            return -1
        out[o:o + code - 1] = mv[i:end]
        o += code - 1
        i = end
        if code < 0xFF and i < n:
            out[o] = 0
            o += 1
    return o


def _u32(b, i):
    """b[i:i + 4] as a little-endian u32 (a frame's seq / ack)."""
    return b[i] | b[i + 1] << 8 | b[i + 2] << 16 | b[i + 3] << 24


def cobs_encode(data):
    """COBS-encode data (no delimiter). The result never contains 0x00."""
    data = bytes(data)
    out = bytearray(len(data) + len(data) // 254 + 1)
    return bytes(out[:_cobs_encode_into(data, out, 0, len(data))])


def cobs_decode(enc):
    """Inverse of cobs_encode; None if malformed (zero byte or a block past the end)."""
    out = bytearray(len(enc))
    n = _cobs_decode_at(enc, 0, len(enc), out)
    return None if n < 0 else bytes(out[:n])


def crc32(data):
    return binascii.crc32(data) & 0xFFFFFFFF


# CRC-32 of a frame *with* its CRC appended (u32 LE): the same constant for every intact
# frame (the CRC's residue), so the check is one C call over the whole frame, with no slice
# and no unpack. Below 2**30: a small int on a 32-bit port (no allocation either).
CRC_RESIDUE = const(0x2144DF1C)   # CRC-32 of any intact frame, its CRC included
_crc = binascii.crc32


class Deframer:
    """Bytes in, CRC-checked decoded frames out; resyncs at every 0x00; spots REPL text.

    feed(data) -> list of frames (bytes, CRC already checked and stripped of nothing).
    With verbose=True it returns (kind, bytes) items instead, kind in "frame", "crc",
    "malformed", "oversize" (for `ring link dump`).
    """

    def __init__(self, verbose=False):
        self.verbose = verbose
        self._buf = bytearray()
        self._drop = False        # inside an oversize run: skip to the next 0x00
        self._junk = bytearray()  # recent bytes that were not frames (REPL scan)
        self._dec = bytearray(MAX_ENCODED)   # decoded frame (a frame is shorter than its COBS)
        self._dmv = memoryview(self._dec)
        self.crc_errors = 0
        self.malformed = 0
        self.oversize = 0
        self.garbage_bytes = 0
        self.frames = 0
        self.repl_seen = 0        # REPL banners/tracebacks seen between frames
        self.repl = False         # last thing seen between frames was REPL text
        self.repl_maybe = False   # an unfinished chunk contains REPL text

    def reset(self):
        self._buf = bytearray()
        self._drop = False
        self.repl_maybe = False

    def _junked(self, chunk):
        self.garbage_bytes += len(chunk)
        j = self._junk
        j += chunk
        for pat in REPL_PATTERNS:
            if pat in j:
                self.repl_seen += 1
                self.repl = True
                self._junk = bytearray()
                return
        if len(j) > 40:           # keep a tail so a pattern split across chunks still matches
            self._junk = j[-40:]

    def feed(self, data, on_frame=None, arg=None):
        """-> list of frames (see the class). With on_frame, calls on_frame(frame, arg) for
        each good frame instead and returns None: the frame is then a memoryview of the
        Deframer's own decode buffer, valid during the call only (no copy, no allocation
        per frame: the board's receive path)."""
        n = len(data)
        if (on_frame is not None and 2 < n <= MAX_ENCODED + 2 and data[0] == 0
                and data[n - 1] == 0 and not self._buf and not self._drop):
            # the board's usual read: one whole good frame, 0x00 | COBS | 0x00, decoded in
            # place in one call (machine code on the board: no copy, no allocation); anything
            # else, or a bad frame, goes through the loop, which does the same and counts
            # what is wrong. (Small on purpose: a function with more than 11 words of locals
            # and stack gets its call frame from the heap, every call.)
            n = _cobs_decode_at(data, 1, n - 1, self._dec)
            if MIN_FRAME <= n <= MAX_FRAME:
                fr = self._dmv[:n]
                if _crc(fr) == CRC_RESIDUE:
                    self.repl_maybe = False
                    self.frames += 1
                    self.repl = False
                    on_frame(fr, arg)
                    return None
        return self._feed(data, on_frame, arg)

    def _feed(self, data, on_frame, arg):
        out = None if on_frame is not None else []
        if not data:
            return out
        if not isinstance(data, bytes):
            data = bytes(data)      # one copy in C: find() needs bytes
        n = len(data)
        start = 0
        while start <= n:
            z = data.find(b"\x00", start)
            if z < 0:
                if start == n:
                    break             # ended on a delimiter (a whole frame): nothing left
                piece = data[start:]
                if self._drop:
                    self._junked(piece)
                elif len(self._buf) + len(piece) > MAX_ENCODED:
                    self._junked(bytes(self._buf) + piece)
                    self._buf = bytearray()
                    self._drop = True
                else:
                    self._buf += piece
                    if not self.repl_maybe:
                        # only where the new bytes could complete a pattern: O(piece) per feed
                        st = len(self._buf) - len(piece) - 33
                        st = st if st > 0 else 0
                        for pat in REPL_PATTERNS:
                            if self._buf.find(pat, st) >= 0:
                                self.repl_maybe = True
                break
            if self._buf:
                chunk = bytes(self._buf) + data[start:z]
                self._buf = bytearray()
            else:
                chunk = None
            if self._drop:
                self._drop = False
                self.oversize += 1
                piece = chunk or data[start:z]
                self._junked(piece)
                if self.verbose:
                    out.append(("oversize", piece))
                start = z + 1
                continue
            self.repl_maybe = False
            if chunk is None:
                m = z - start
                if m == 0:
                    start = z + 1
                    continue          # back-to-back delimiters
                # a run of the input, viewed in place: only the bad ones get copied
                chunk = memoryview(data)[start:z]
            else:
                m = len(chunk)
            start = z + 1
            self._chunk(chunk, m, on_frame, arg, out)
        return out

    def _chunk(self, chunk, m, on_frame, arg, out):
        """One run between delimiters (m bytes): decode, check, hand over or count."""
        if m > MAX_ENCODED:
            self.oversize += 1
            self._junked(chunk)
            if self.verbose:
                out.append(("oversize", bytes(chunk)))
            return
        k = _cobs_decode_at(chunk, 0, m, self._dec)
        if k < MIN_FRAME or k > MAX_FRAME:
            self.malformed += 1
            self._junked(chunk)
            if self.verbose:
                out.append(("malformed", bytes(chunk)))
            return
        fr = self._dmv[:k]
        if _crc(fr) != CRC_RESIDUE:
            self.crc_errors += 1
            self._junked(chunk)
            if self.verbose:
                out.append(("crc", bytes(fr)))
            return
        self.frames += 1
        self.repl = False
        if on_frame is not None:
            on_frame(fr, arg)
        else:
            out.append(("frame", bytes(fr)) if self.verbose else bytes(fr))


# ---- HMAC-SHA256 (MicroPython has no hmac module) ------------------------------------
# A key's inner and outer padded blocks are built once per key (session keys: once per
# handshake), by one big-integer XOR each rather than a loop over 64 bytes. MicroPython's
# hashlib has no copy(), so each tag still hashes the two blocks (C, ~2 compressions).
_IPAD = int.from_bytes(b"\x36" * 64, "big")
_OPAD = int.from_bytes(b"\x5c" * 64, "big")


def _keypair(key):
    """Precomputed HMAC pads for a key (never printed)."""
    k = bytes(key)
    if len(k) > 64:
        k = hashlib.sha256(k).digest()
    k = int.from_bytes(k + bytes(64 - len(k)), "big")
    return ((k ^ _IPAD).to_bytes(64, "big"), (k ^ _OPAD).to_bytes(64, "big"))


_sha256 = hashlib.sha256


@micropython.native
def hmac_sha256(kp, data):
    """HMAC-SHA256 with a keypair from _keypair (RFC 2104)."""
    h = _sha256(kp[0])
    h.update(data)
    o = _sha256(kp[1])
    o.update(h.digest())
    return o.digest()


def hmac_key(key, msg):
    """Plain HMAC-SHA256(key, msg) -> 32 bytes (for test vectors / key derivation)."""
    return hmac_sha256(_keypair(key), msg)


def ct_equal(a, b):
    """Constant-time compare of two byte strings."""
    if len(a) != len(b):
        return False
    r = 0
    for i in range(len(a)):
        r |= a[i] ^ b[i]
    return r == 0


def _tag_ok(d, fr, i):
    """d[:16] == fr[i:i + 16] in constant time, without a loop or an allocation (small ints
    only): every byte is looked at whatever the first difference."""
    return (d[0] ^ fr[i] | d[1] ^ fr[i + 1] | d[2] ^ fr[i + 2] | d[3] ^ fr[i + 3]
            | d[4] ^ fr[i + 4] | d[5] ^ fr[i + 5] | d[6] ^ fr[i + 6] | d[7] ^ fr[i + 7]
            | d[8] ^ fr[i + 8] | d[9] ^ fr[i + 9] | d[10] ^ fr[i + 10] | d[11] ^ fr[i + 11]
            | d[12] ^ fr[i + 12] | d[13] ^ fr[i + 13] | d[14] ^ fr[i + 14]
            | d[15] ^ fr[i + 15]) == 0


PY_CODEC = (_cobs_encode_into, _cobs_decode_at, _tag_ok, _u32)


def use_codec(cobs_encode_into, cobs_decode_at, tag_ok, u32):
    """Board hook: equivalents of _cobs_encode_into(data, out, oi, n), _cobs_decode_at(enc, s,
    e, out), _tag_ok(d, fr, i) and _u32(b, i) in machine code (firmware/lib/fastlink.py,
    viper), used by every Session and Deframer from now on; use_codec(*PY_CODEC) puts these
    back."""
    global _cobs_encode_into, _cobs_decode_at, _tag_ok, _u32
    _cobs_encode_into = cobs_encode_into
    _cobs_decode_at = cobs_decode_at
    _tag_ok = tag_ok
    _u32 = u32


def _derive(kp, label):
    return _keypair(hmac_sha256(kp, label))


def hello_keys(key, kp=None):
    """-> (h2d, d2h) keypairs authenticating HELLO frames under the device key (kp: the
    key's own keypair, if already built)."""
    kp = kp or _keypair(key)
    return (_derive(kp, b"ring-link hello h2d"), _derive(kp, b"ring-link hello d2h"))


def session_keys(key, nh, nd, kp=None):
    """-> (h2d, d2h) per-session, per-direction keypairs from both nonces."""
    kp = kp or _keypair(key)
    return (_derive(kp, b"ring-link h2d" + nh + nd), _derive(kp, b"ring-link d2h" + nh + nd))


@micropython.native
def seal_into(buf, kp, mtype, flags, seq, ack, payload, mv=None):
    """Build one decoded frame (header|payload|tag|crc) at the start of buf (room: MAX_FRAME;
    mv: a memoryview of buf, if the caller keeps one). -> its length."""
    end = HDR_LEN + len(payload)
    struct.pack_into(HDR_FMT, buf, 0, mtype, flags, seq, ack)
    buf[HDR_LEN:end] = payload
    if mv is None:
        mv = memoryview(buf)
    buf[end:end + TAG_LEN] = memoryview(hmac_sha256(kp, mv[:end]))[:TAG_LEN]
    struct.pack_into("<I", buf, end + TAG_LEN, _crc(mv[:end + TAG_LEN]))   # unsigned on both
    return end + TAG_LEN + CRC_LEN


def seal(kp, mtype, flags, seq, ack, payload):
    """Build one decoded frame (header|payload|tag|crc)."""
    buf = bytearray(MIN_FRAME + len(payload))
    seal_into(buf, kp, mtype, flags, seq, ack, payload)
    return bytes(buf)


def encode(frame):
    """Decoded frame -> bytes for the wire: 0x00 | COBS | 0x00 (the lead zero flushes junk)."""
    frame = bytes(frame)
    out = bytearray(len(frame) + len(frame) // 254 + 3)
    n = _cobs_encode_into(frame, out, 1, len(frame))
    return bytes(out[:n + 1])       # out[0] and out[n] are the zeros bytearray() started with


def parse_header(fr):
    """-> (mtype, flags, seq, ack, payload) of a CRC-checked frame. ValueError if shorter
    than MIN_FRAME."""
    if len(fr) < MIN_FRAME:
        raise ValueError("frame shorter than %d bytes" % MIN_FRAME)
    mtype, flags, seq, ack = struct.unpack_from(HDR_FMT, fr, 0)
    return mtype, flags, seq, ack, fr[HDR_LEN:len(fr) - TAG_LEN - CRC_LEN]


def verify(kp, fr):
    """True if the frame's tag is valid under keypair kp (constant-time compare)."""
    if kp is None or len(fr) < MIN_FRAME:
        return False
    end = len(fr) - TAG_LEN - CRC_LEN
    return _tag_ok(hmac_sha256(kp, memoryview(fr)[:end]), fr, end)


# ---- HELLO payloads -------------------------------------------------------------------
def _lp(s, room):
    """One length byte then UTF-8, cut to fit `room` bytes in all, never inside a character."""
    b = s.encode() if isinstance(s, str) else bytes(s)
    n = min(len(b), max(0, min(room - 1, 255)))
    while 0 < n < len(b) and b[n] & 0xC0 == 0x80:   # continuation byte: back off
        n -= 1
    return bytes([n]) + b[:n]


def _rd_lp(p, i):
    """-> (str, next index). ValueError when the string runs past the payload or is not UTF-8."""
    if i >= len(p):
        raise ValueError("HELLO string length byte missing at %d" % i)
    n = p[i]
    if i + 1 + n > len(p):
        raise ValueError("HELLO string runs past the payload (%d bytes at %d)" % (n, i))
    return bytes(p[i + 1:i + 1 + n]).decode(), i + 1 + n   # UnicodeError is a ValueError


def build_hello_host(nh, name=""):
    return nh + bytes([PROTO_MAJOR, PROTO_MINOR]) + _lp(name or "", MAX_PAYLOAD - NONCE_LEN - 2)


def parse_hello_host(p):
    """-> dict(nh, proto_major, proto_minor, name). Raises ValueError only (short, bad string)."""
    if len(p) < NONCE_LEN + 3:
        raise ValueError("host HELLO too short")
    name, _ = _rd_lp(p, NONCE_LEN + 2)
    return {"nh": bytes(p[:NONCE_LEN]), "proto_major": p[NONCE_LEN],
            "proto_minor": p[NONCE_LEN + 1], "name": name}


def build_hello_device(nh, nd, info):
    image = info.get("image", b"")
    if isinstance(image, str):
        image = binascii.unhexlify(image[:IMAGE_LEN * 2])
    image = (bytes(image) + bytes(IMAGE_LEN))[:IMAGE_LEN]
    p = nh + nd + bytes([PROTO_MAJOR, PROTO_MINOR, info.get("reset", 0) & 0xFF]) + image
    # strings share what is left of the 98-byte payload; truncated, never overflowing
    p += _lp(info.get("fw", ""), 16)
    p += _lp(info.get("device_id", ""), 24)
    p += _lp(info.get("interp", ""), MAX_PAYLOAD - len(p))
    return p


def parse_hello_device(p):
    """-> dict(nh, nd, proto_major, proto_minor, reset, image, fw, device_id, interp).
    Raises ValueError only (short, a string past the end, bad UTF-8)."""
    base = 2 * NONCE_LEN + 3 + IMAGE_LEN
    if len(p) < base + 3:
        raise ValueError("device HELLO too short")
    d = {"nh": bytes(p[:NONCE_LEN]), "nd": bytes(p[NONCE_LEN:2 * NONCE_LEN]),
         "proto_major": p[2 * NONCE_LEN], "proto_minor": p[2 * NONCE_LEN + 1],
         "reset": p[2 * NONCE_LEN + 2],
         "image": binascii.hexlify(bytes(p[2 * NONCE_LEN + 3:base])).decode()}
    i = base
    d["fw"], i = _rd_lp(p, i)
    d["device_id"], i = _rd_lp(p, i)
    d["interp"], i = _rd_lp(p, i)
    return d


def parse_ack(p):
    """ACK payload -> (challenge, echo, alarms, key_errors). ValueError if short (trailing
    bytes are ignored)."""
    if len(p) < ACK_LEN:
        raise ValueError("ACK payload too short")
    return struct.unpack_from(ACK_FMT, p, 0)


def _urandom(n):
    return os.urandom(n)


class Session:
    """One end of the ring link (see the module docstring for the API)."""

    def __init__(self, key, role, info=None, ring_slots=32, window=8, auto_ack=None,
                 rx_slots=16):
        if len(key) != 32:
            raise ValueError("ring link key must be 32 bytes")
        if role not in (ROLE_DEVICE, ROLE_HOST):
            raise ValueError("role must be 'device' or 'host'")
        self.role = role
        self._host = role == ROLE_HOST
        self._kp = _keypair(key)   # the device key's HMAC pads, built once
        h2d, d2h = hello_keys(key, self._kp)
        self._hello_tx, self._hello_rx = (h2d, d2h) if self._host else (d2h, h2d)
        self.info = info or {}
        if self._host:
            self.stream_id = struct.unpack("<I", _urandom(4))[0]
        else:
            self.stream_id = self.info.get("boot_id", 0) & 0xFFFFFFFF
        self.auto_ack = (not self._host) if auto_ack is None else auto_ack
        self.window = max(1, min(window, ring_slots))
        self.rx_slots = rx_slots
        # preallocated tx ring: payload buffers, lengths, types, send times, send counts
        n = ring_slots
        self._slots = n
        self._sbuf = [bytearray(MAX_PAYLOAD) for _ in range(n)]
        self._smv = [memoryview(b) for b in self._sbuf]
        self._slen = bytearray(n)
        self._stype = bytearray(n)
        self._stime = [0] * n
        self._stries = bytearray(n)
        self._una = 1     # oldest unacked seq
        self._snd = 1     # next seq to transmit
        self._next = 1    # next seq to assign
        # rx
        self._rx_next = 1
        self._rx_acked = 1
        self._rx_q = []
        self._rx_off = 0      # recv()/ack() seqs = wire seq + offset: never reused after a peer reset
        self._peer_stream = None
        # session
        self.state = ST_IDLE
        self._tx = None
        self._rx = None
        self._old_rx = []     # rx keys of the last OLD_KEYS sessions (stale, not alarms)
        self._new_tx = None   # device in PENDING: keys waiting for the host's first frame
        self._new_rx = None
        self._new_peer = None
        self._offer = None    # device: (nh, reply payload) of the pending offer
        self._hold = False    # device: answered a new HELLO while up; quiet under the old keys
        self._nh = None
        self._reply = None
        self._want_hello = False
        self._hello_at = 0
        self._hello_sent = 0
        self._advert_at = 0
        self._last_rx = 0     # last authenticated in-session frame (REPL heuristic only)
        self._alive_at = 0    # liveness: when the peer last PROVED it holds the session now
        self._heard = False   # _alive_at is set
        self._offer_t = 0     # device: when the pending offer's Nd was drawn
        # challenges (liveness): ours numbered 1, 2, ... per session, issue times kept
        self._ch = 0
        self._ch_t = [0] * CH_KEEP
        self._peer_ch = 0     # the peer's latest challenge seen this session (echoed in ACKs)
        self._echo_due = False  # a new peer challenge: answer it with the next frame
        self._last_ack_tx = 0
        self._ack_dirty = False
        self._gap = False
        self._fast_una = 0
        # RTO (RFC 6298, integer ms, srtt and rttvar scaled by 8)
        self._srtt8 = 0
        self._var8 = 0
        self._rto_base = RTO_INIT
        self._rto = RTO_INIT
        self._rto_at = None
        self.peer_info = None
        self.error = None
        self.deframer = Deframer()
        self._frame_cb = self._on_frame     # bound once: not a new bound method per feed
        self._fbuf = bytearray(MAX_FRAME)          # the frame being sent, then its COBS form
        self._fmv = memoryview(self._fbuf)
        self._wbuf = bytearray(MAX_ENCODED + 2)
        self._wmv = memoryview(self._wbuf)
        self._ackp = bytearray(ACK_LEN)             # an ACK's payload (sealed at once)
        self.frames_rx = 0
        self.frames_tx = 0
        self.alarms = 0
        self.stale = 0
        self.duplicates = 0
        self.out_of_order = 0
        self.retransmits = 0
        self.timeouts = 0
        self.handshakes = 0
        self.link_losses = 0
        self.version_errors = 0
        self.peer_resets = 0
        self.bad_frames = 0
        self.key_errors = 0   # HELLO failing the hello key outside a session: wrong key
        self.peer_alarms = None      # the peer's own alarms / key_errors (from its ACKs)
        self.peer_key_errors = None
        self._reported = -1   # alarm_news(): alarms + key_errors at the last report
        self._report_at = 0

    def __repr__(self):
        return "<ringlink.Session %s %s una=%d next=%d rx_next=%d>" % (
            self.role, STATE_NAMES[self.state], self._una, self._next, self._rx_next)

    # ---- public state ------------------------------------------------------------
    @property
    def connected(self):
        return self.state == ST_UP

    @property
    def unacked(self):
        return self._next - self._una

    @property
    def tx_free(self):
        return self._slots - (self._next - self._una)

    @property
    def rtt_ms(self):
        return self._srtt8 // 8

    @property
    def rto_ms(self):
        return self._rto

    def peer_silent_ms(self, now_ms):
        """ms since the peer last proved it holds the session now: it echoed one of our
        challenges (or, at the handshake, our fresh nonce) under the session key. Replayed
        or delayed frames only prove an older time, so they never make this smaller."""
        if not self._heard:
            return 0x3FFFFFFF
        return _tdiff(now_ms, self._alive_at)

    def _proved(self, t):
        if not self._heard or _tdiff(t, self._alive_at) > 0:
            self._alive_at = t
            self._heard = True
            return True
        return False

    def _in_session(self, now):
        lost = HOST_LINK_LOST_MS if self._host else DEVICE_HOST_LOST_MS
        return self.state == ST_UP and self.peer_silent_ms(now) <= lost

    def alarm_news(self, now_ms):
        """Device app: True when alarms or key_errors rose since the last True and the last
        True is REPORT_MS old (a flood of forgeries makes one report a second, not a flood of
        events). The app then reports report_text() (EV_LINK)."""
        n = self.alarms + self.key_errors
        if n == self._reported or (self._reported >= 0 and
                                   _tdiff(now_ms, self._report_at) < REPORT_MS):
            return False
        if self._reported < 0 and n == 0:
            self._reported = 0
            return False
        self._reported = n
        self._report_at = now_ms
        return True

    def report_text(self):
        """'k=v' line of the other receive counters (EV_LINK text; alarms and key_errors
        travel in its a and b): line noise, stale, duplicates, handshakes, link losses."""
        d = self.deframer
        return "crc=%d mal=%d ovr=%d stale=%d dup=%d hs=%d lost=%d" % (
            d.crc_errors, d.malformed, d.oversize, self.stale, self.duplicates,
            self.handshakes, self.link_losses)

    def host_lost(self, now_ms):
        return self.state != ST_UP or self.peer_silent_ms(now_ms) > DEVICE_HOST_LOST_MS

    def repl_detected(self, now_ms=None):
        """True when the bytes between frames look like a MicroPython REPL."""
        d = self.deframer
        if d.repl:
            return True
        return d.repl_maybe and (now_ms is None or not self._heard
                                 or _tdiff(now_ms, self._last_rx) > 300)

    def stats(self):
        d = self.deframer
        return {"state": STATE_NAMES[self.state], "frames_rx": self.frames_rx,
                "frames_tx": self.frames_tx, "alarms": self.alarms,
                "crc_errors": d.crc_errors, "malformed": d.malformed,
                "oversize": d.oversize, "garbage_bytes": d.garbage_bytes,
                "repl_seen": d.repl_seen, "stale": self.stale,
                "duplicates": self.duplicates, "out_of_order": self.out_of_order,
                "retransmits": self.retransmits, "timeouts": self.timeouts,
                "handshakes": self.handshakes, "link_losses": self.link_losses,
                "version_errors": self.version_errors, "peer_resets": self.peer_resets,
                "bad_frames": self.bad_frames, "key_errors": self.key_errors,
                "peer_alarms": self.peer_alarms, "peer_key_errors": self.peer_key_errors,
                "unacked": self.unacked,
                "rtt_ms": self.rtt_ms, "rto_ms": self._rto}

    # ---- app side ----------------------------------------------------------------
    def start(self, now_ms):
        """(Re)start on a freshly opened line: nothing unacked is forgotten."""
        self.deframer.reset()
        self._drop_session()
        self._snd = self._una
        self._rto_at = None
        if self._host:
            self.state = ST_HELLO
            self.error = None
            self._want_hello = True
        else:
            self.state = ST_IDLE
            self._advert_at = now_ms
        self._last_ack_tx = now_ms

    def _retire(self, kp):
        if kp is not None:
            self._old_rx.append(kp)
            if len(self._old_rx) > OLD_KEYS:
                self._old_rx.pop(0)

    def _drop_session(self):
        self._retire(self._rx)
        self._retire(self._new_rx)    # the host may already use keys we never confirmed
        self._tx = None
        self._rx = None
        self._new_tx = None
        self._new_rx = None
        self._reply = None
        self._offer = None
        self._hold = False
        self._new_challenges()

    def _new_challenges(self):
        """Challenges belong to one session's keys: start over with every new session."""
        self._ch = 0
        self._peer_ch = 0
        self._echo_due = False

    def send(self, mtype, payload, now_ms=0):
        if mtype < MT_RELIABLE or mtype > 255:
            raise ValueError("mtype must be 16..255")
        n = len(payload)
        if n > MAX_PAYLOAD:
            raise ValueError("payload too long for one frame")
        if self._next - self._una >= self._slots:
            return -1
        seq = self._next
        i = seq % self._slots
        self._sbuf[i][:n] = payload
        self._slen[i] = n
        self._stype[i] = mtype
        self._stries[i] = 0
        self._next = seq + 1
        return seq

    @micropython.native
    def recv(self):
        if self._rx_q:
            return self._rx_q.pop(0)
        return None

    def ack(self, seq):
        w = seq - self._rx_off
        if self._rx_acked <= w < self._rx_next:
            self._rx_acked = w + 1
            self._ack_dirty = True

    @property
    def rx_acked(self):
        """Every recv() seq below this is acknowledged to the peer."""
        return self._rx_acked + self._rx_off

    # ---- line side ---------------------------------------------------------------
    @micropython.native
    def feed(self, data, now_ms):
        self.deframer.feed(data, self._frame_cb, now_ms)

    def _on_frame(self, fr, now):
        # (the Deframer checked the CRC and the length: parse_header without its checks, and
        # no tuple; seq and the payload's view only where they are used)
        mtype = fr[0]
        flags = fr[1]
        end = len(fr) - TAG_LEN - CRC_LEN
        if mtype == MT_HELLO:
            seq = _u32(fr, 2)
            ack = _u32(fr, 6)
            payload = fr[HDR_LEN:end]
            if not verify(self._hello_rx, fr):
                # Outside a session this is a key that does not match (configuration), not
                # an attack on a session: counted apart, the host says so once. Our own
                # HELLO sent back to us is an attack whatever the state.
                if self._in_session(now) or verify(self._hello_tx, fr):
                    self.alarms += 1
                else:
                    self.key_errors += 1
                return
            # A HELLO proves nothing about liveness: anyone can replay one.
            self.frames_rx += 1
            try:
                if self._host:
                    self._on_hello_device(flags, seq, ack, payload, now)
                else:
                    self._on_hello_host(seq, ack, payload, now)
            except (ValueError, IndexError):
                self.bad_frames += 1
            return
        if self._new_rx is not None and verify(self._new_rx, fr):
            # device: the host's first sealed frame confirms the new session
            self._retire(self._rx)
            self._tx, self._rx = self._new_tx, self._new_rx
            self._new_tx = self._new_rx = None
            self._reply = None
            self._offer = None
            self._hold = False
            self._new_challenges()
            # only the host that got our fresh Nd can seal this: it was alive when we drew Nd
            self._proved(self._offer_t)
            self._rx_continue(self._new_peer[0], self._new_peer[1])
            self._snd = self._una         # resend everything unacked under the new keys
            self._rto_at = None
            self.state = ST_UP
            self.handshakes += 1
        elif self._rx is None or not _tag_ok(hmac_sha256(self._rx, fr[:end]), fr, end):
            # (verify() inlined: fr is the Deframer's view, longer than MIN_FRAME)
            if self._rx is None and not self._old_rx and self._new_rx is None:
                self.stale += 1      # no session yet: nothing to check it against
                return
            for kp in self._old_rx:
                if verify(kp, fr):
                    self.stale += 1  # authentic leftover of a recent session
                    if self._host and self.state == ST_UP:
                        self._ack_dirty = True   # board still on old keys: confirm again
                    return
            self.alarms += 1         # good CRC, bad tag: forged, replayed or reflected
            return
        if self.state != ST_UP:
            self.stale += 1
            return
        # device: an authentic frame under the live keys after we offered new ones means
        # that host may still be there (the HELLO was replayed): talk to it again (and
        # challenge it: only a fresh echo counts as alive)
        self._hold = False
        self.frames_rx += 1
        self._last_rx = now
        ack = _u32(fr, 6)
        if self._una < ack <= self._next or flags & FL_GAP:    # else _on_ack does nothing
            self._on_ack(ack, flags, now)
        if mtype < MT_RELIABLE:
            if mtype == MT_ACK:
                self._on_challenge(fr[HDR_LEN:end])
            return
        seq = _u32(fr, 2)
        if seq == self._rx_next and len(self._rx_q) < self.rx_slots:
            self._rx_q.append((mtype, bytes(fr[HDR_LEN:end]), seq + self._rx_off))
            self._rx_next = seq + 1
            if self.auto_ack:
                self._rx_acked = self._rx_next
                self._ack_dirty = True    # else the ack goes out when the app calls ack()
        elif seq < self._rx_next:
            self.duplicates += 1
            self._ack_dirty = True
        else:
            self.out_of_order += 1
            self._ack_dirty = True
            self._gap = True

    def _on_ack(self, ack, flags, now):
        una = self._una
        if una < ack <= self._next:
            snd = self._snd
            if ack > snd:                   # acked before a reconnect made us rewind
                self._snd = snd = ack
            i = (ack - 1) % self._slots
            if self._stries[i] == 1:        # Karn: only never-retransmitted frames
                # RTT sample r: RFC 6298 in integer ms, srtt and rttvar scaled by 8. Inline,
                # without abs / min / max: this runs for most frames the board receives
                # (every command acks the board's last answer), ~2.6 us here as a method
                r = ((now - self._stime[i] + _THALF) & _TMASK) - _THALF
                if r >= 0:
                    s8 = self._srtt8
                    if s8 == 0:
                        s8 = r * 8 + 1
                        v8 = r * 4
                    else:
                        v8 = s8 - r * 8
                        if v8 < 0:
                            v8 = -v8
                        v8 = self._var8 + v8 // 4 - self._var8 // 4
                        s8 += r - s8 // 8
                    self._srtt8 = s8
                    self._var8 = v8
                    r = (s8 + (v8 * 4 if v8 > 2 else 8)) // 8      # max(8, 4 * rttvar8)
                    self._rto_base = RTO_MIN if r < RTO_MIN else (RTO_MAX if r > RTO_MAX else r)
            self._una = ack
            self._rto = self._rto_base
            self._rto_at = (now + self._rto) & _TMASK if ack < snd else None
        elif (flags & FL_GAP and ack == una and una < self._snd and self._fast_una != una):
            self._fast_una = una            # one fast go-back-N per hole
            self._snd = una

    def _on_challenge(self, payload):
        """ACK payload: note the peer's challenge (to echo); credit its echo of ours."""
        try:
            ch, echo, alarms, key_errors = parse_ack(payload)
        except ValueError:
            self.bad_frames += 1
            return
        if ch > self._peer_ch:            # replays carry older challenges: ignored
            self._peer_ch = ch
            self._echo_due = True
        if ch >= self._peer_ch:           # the peer's own counts, as fresh as its challenge
            self.peer_alarms = alarms
            self.peer_key_errors = key_errors
        # Our challenge `echo` was issued at _ch_t[echo % CH_KEEP]: the peer held the
        # session then. Older than CH_KEEP issues, or not issued: no credit.
        if 0 < echo <= self._ch and self._ch - echo < CH_KEEP:
            self._proved(self._ch_t[echo % CH_KEEP])

    def _rx_continue(self, stream, tx_base):
        """Keep dedup state across sessions with the same peer stream (boot)."""
        if stream == self._peer_stream and tx_base <= self._rx_next:
            return
        if self._peer_stream is not None:
            self.peer_resets += 1
        self._peer_stream = stream
        self._rx_off = self._rx_next + self._rx_off - tx_base
        self._rx_next = tx_base
        self._rx_acked = tx_base

    def _on_hello_device(self, flags, stream, tx_base, payload, now):
        d = parse_hello_device(payload)
        info = {"proto": "%d.%d" % (d["proto_major"], d["proto_minor"]),
                "proto_major": d["proto_major"], "proto_minor": d["proto_minor"],
                "fw": d["fw"], "image": d["image"], "boot_id": stream,
                "reset": d["reset"], "device_id": d["device_id"], "interp": d["interp"]}
        self.peer_info = info
        if d["proto_major"] != PROTO_MAJOR:
            if self.state != ST_REFUSED:
                self.version_errors += 1
            self.state = ST_REFUSED
            self._drop_session()
            self.error = ("board %s speaks ring link protocol %s, this host speaks %d.%d: "
                          "deploy matching firmware ('ring device deploy') or update the host"
                          % (d["device_id"] or "?", info["proto"], PROTO_MAJOR, PROTO_MINOR))
            return
        if flags & FL_ADVERT:
            if self.state == ST_REFUSED:
                return
            if self.state != ST_HELLO:
                if self.state == ST_UP:
                    self.link_losses += 1
                self._drop_session()
                self.state = ST_HELLO
                self._want_hello = True
            elif _tdiff(now, self._hello_sent) > 100:   # else a reply is probably on its way
                self._want_hello = True
            return
        if self.state != ST_HELLO or self._nh is None or not ct_equal(d["nh"], self._nh):
            self.stale += 1                # late or replayed reply to an old HELLO
            return
        h2d, d2h = session_keys(None, self._nh, d["nd"], self._kp)
        self._nh = None
        self._drop_session()
        self._proved(self._hello_sent)    # the reply echoes the Nh we sent then
        self._tx, self._rx = h2d, d2h
        self._rx_continue(stream, tx_base)
        self.state = ST_UP
        self.handshakes += 1
        self._snd = self._una
        self._rto_at = None
        self._ack_dirty = True            # confirms the session to the device at once

    def _on_hello_host(self, stream, tx_base, payload, now):
        d = parse_hello_host(payload)
        self.peer_info = {"proto": "%d.%d" % (d["proto_major"], d["proto_minor"]),
                          "proto_major": d["proto_major"], "proto_minor": d["proto_minor"],
                          "name": d["name"], "stream": stream}
        if (self._new_rx is not None and self._offer is not None
                and ct_equal(self._offer[0], d["nh"])):
            # the same HELLO again (duplicated on the line): the same answer, not a second
            # offer the host would never use (its first reply already set its keys)
            self._reply = self._offer[1]
            return
        nd = _urandom(NONCE_LEN)
        self._offer_t = now
        self._retire(self._new_rx)        # an earlier offer the host never confirmed
        self._offer = None
        self._new_tx = self._new_rx = None
        self._reply = build_hello_device(d["nh"], nd, self.info)
        if d["proto_major"] != PROTO_MAJOR:
            self.version_errors += 1      # reply anyway: the host tells the technician
            return
        # Offer new keys but keep a live session until the host uses them: a replayed
        # HELLO then costs nothing (nobody can confirm its keys) instead of a link drop.
        h2d, d2h = session_keys(None, d["nh"], nd, self._kp)
        self._new_tx, self._new_rx = d2h, h2d
        self._new_peer = (stream, tx_base)
        self._offer = (bytes(d["nh"]), self._reply)
        if self.state != ST_UP:
            self.state = ST_PENDING
        else:
            # Say nothing more under the live keys until the host confirms the new ones
            # or shows it is still on the live ones: a new host process has no old keys,
            # so every such frame would be a (false) security alarm there.
            self._hold = True

    # ---- output ------------------------------------------------------------------
    @micropython.native
    def _emit(self, kp, mtype, flags, seq, ack, payload, now):
        """Sealed and COBS-encoded in the session's own buffers: one allocation, the result."""
        self.frames_tx += 1
        f = self._fbuf
        n = seal_into(f, kp, mtype, flags, seq, ack, payload, self._fmv)
        w = self._wbuf
        w[0] = 0
        m = _cobs_encode_into(f, w, 1, n)
        w[m] = 0
        return bytes(self._wmv[:m + 1])

    @micropython.native
    def poll(self, now_ms):
        now = now_ms
        if self._host:
            if self.state == ST_UP and self.peer_silent_ms(now) > HOST_LINK_LOST_MS:
                self.link_losses += 1
                self._drop_session()
                self.state = ST_HELLO
                self._want_hello = True
            if self.state == ST_HELLO and (self._want_hello or _tdiff(now, self._hello_at) >= 0):
                self._want_hello = False
                self._hello_at = (now + HELLO_RETRY_MS) & _TMASK
                self._hello_sent = now
                self._nh = _urandom(NONCE_LEN)
                return self._emit(self._hello_tx, MT_HELLO, 0, self.stream_id, self._una,
                                  build_hello_host(self._nh, self.info.get("name", "")), now)
        else:
            if self._reply is not None:
                r = self._reply
                self._reply = None
                # no ADVERT ("no session") until the host has had time to confirm this
                # reply: one right behind it would make the host drop the new session
                self._advert_at = (now + ADVERT_MS) & _TMASK
                return self._emit(self._hello_tx, MT_HELLO, 0, self.stream_id, self._una,
                                  r, now)
            # (peer_silent_ms and _tdiff inlined: this runs on every link pass of the board)
            st = self.state
            if ((st == ST_IDLE or (st == ST_UP and (not self._heard or (
                    (now - self._alive_at + _THALF) & _TMASK) - _THALF > DEVICE_HOST_LOST_MS)))
                    and _tdiff(now, self._advert_at) >= 0):
                self._advert_at = (now + ADVERT_MS) & _TMASK
                z = bytes(NONCE_LEN)
                return self._emit(self._hello_tx, MT_HELLO, FL_ADVERT, self.stream_id,
                                  self._una, build_hello_device(z, z, self.info), now)
        if self.state != ST_UP or self._hold:
            return None
        # retransmission timeout: go back to the oldest unacked frame, double the RTO
        if self._rto_at is not None and ((now - self._rto_at + _THALF) & _TMASK) >= _THALF:
            self.timeouts += 1
            self._snd = self._una
            self._rto = min(self._rto * 2, RTO_MAX)
            self._rto_at = None
        # liveness first: a heartbeat every HB_MS even while data flows, and a new peer
        # challenge answered at once
        if self._echo_due or ((now - self._last_ack_tx + _THALF) & _TMASK) - _THALF >= HB_MS:
            return self._ack_frame(now)
        if self._snd < self._next and self._snd - self._una < self.window:
            seq = self._snd
            i = seq % self._slots
            if self._stries[i]:
                self.retransmits += 1
            if self._stries[i] < 255:
                self._stries[i] += 1
            self._stime[i] = now
            self._snd = seq + 1
            if seq == self._una or self._rto_at is None:
                self._rto_at = (now + self._rto) & _TMASK
            self._ack_dirty = False
            self._gap = False
            return self._emit(self._tx, self._stype[i], 0, seq, self._rx_acked,
                              self._smv[i][:self._slen[i]], now)
        if self._ack_dirty:
            return self._ack_frame(now)
        return None

    def _ack_frame(self, now):
        """ACK: cumulative ack, our current challenge (a new one if it is CH_MS old) and the
        echo of the peer's latest challenge."""
        if self._ch == 0 or _tdiff(now, self._ch_t[self._ch % CH_KEEP]) >= CH_MS:
            self._ch += 1
            self._ch_t[self._ch % CH_KEEP] = now
        flags = FL_GAP if self._gap else 0
        self._ack_dirty = False
        self._gap = False
        self._echo_due = False
        self._last_ack_tx = now
        p = self._ackp
        struct.pack_into(ACK_FMT, p, 0, self._ch, self._peer_ch,
                         self.alarms & 0xFFFFFFFF, self.key_errors & 0xFFFFFFFF)
        return self._emit(self._tx, MT_ACK, flags, self._snd, self._rx_acked, p, now)
