# Golden link vectors (tests/vectors/link_vectors.json) checked under micropython AND CPython.
# pytest runs this file under `micropython` (tests/conftest.py); tests/link/test_link_vectors.py
# imports it and runs the same functions under CPython; tests/link/make_vectors.py uses the
# gen_* functions to write the JSON (once, under CPython).
import json
import hashlib
import binascii
import ringlink as rl
import mptest

VECTORS = "tests/vectors/link_vectors.json"
KEY = bytes(range(32))
DEV_INFO = {"fw": "0.1.0", "image": b"\x01\x02\x03\x04\x05\x06\x07\x08", "boot_id": 0xB0071D,
            "reset": 1, "device_id": "E6614C311B7A4C2D",
            "interp": "micropython 1.29.0 rp2"}
_V = None


def h(b):
    return binascii.hexlify(bytes(b)).decode()


def uh(s):
    return binascii.unhexlify(s)


def vectors():
    global _V
    if _V is None:
        with open(VECTORS) as f:
            _V = json.load(f)
    return _V


class FakeRandom:
    """Deterministic stand-in for os.urandom so a whole session is reproducible."""

    def __init__(self):
        self.n = 0

    def __call__(self, k):
        self.n += 1
        return hashlib.sha256(b"vector nonce %d" % self.n).digest()[:k]


def transcript():
    """A scripted session: handshake, events, a command, acks, heartbeats, forgeries."""
    saved = rl._urandom
    rl._urandom = FakeRandom()
    try:
        host = rl.Session(KEY, rl.ROLE_HOST, {"name": "vectors"})
        dev = rl.Session(KEY, rl.ROLE_DEVICE, DEV_INFO, ring_slots=8, window=4)
        wire = []
        got = []
        host.start(0)
        dev.start(0)
        last_d2h = None
        last_h2d = None
        for t in range(0, 700, 5):
            if t == 20:
                for i in range(6):
                    dev.send(rl.MT_EVENT, b"event %d" % i, t)
            if t == 25:
                host.send(rl.MT_CMD, b"\x08\x01\x00\x00\x00", t)
            if t == 400 and last_h2d is not None:
                host.feed(last_h2d, t)                      # reflected: alarm
                forged = bytearray(rl.seal(rl._keypair(bytes(32)), rl.MT_EVENT, 0, 7, 0, b"x"))
                host.feed(rl.encode(forged), t)              # wrong key: alarm
            for src, dst, name in ((host, dev, "h2d"), (dev, host, "d2h")):
                while True:
                    out = src.poll(t)
                    if out is None:
                        break
                    wire.append([t, name, h(out)])
                    if name == "h2d":
                        last_h2d = out
                    else:
                        last_d2h = out
                    dst.feed(out, t)
            while True:
                m = host.recv()
                if m is None:
                    break
                got.append(["host", m[0], h(m[1]), m[2]])
                if t >= 100:                               # the app records slowly
                    host.ack(m[2])
                else:
                    host.ack(m[2]) if m[2] % 2 == 0 else None
            while True:
                m = dev.recv()
                if m is None:
                    break
                got.append(["dev", m[0], h(m[1]), m[2]])
        hs = host.stats()
        ds = dev.stats()
        keep = ("alarms", "frames_rx", "frames_tx", "duplicates", "retransmits", "handshakes",
                "stale", "unacked")
        return {"wire": wire, "got": got,
                "host": dict((k, hs[k]) for k in keep), "dev": dict((k, ds[k]) for k in keep),
                "peer_info": host.peer_info, "last_d2h": h(last_d2h)}
    finally:
        rl._urandom = saved


def fuzz_digest(seed=12345, rounds=150):
    """Random frames + damage + garbage through the Deframer; digest of everything it yields.

    The same digest on both interpreters shows the decoder behaves identically on junk.
    """
    x = [seed]

    def rnd(n):
        x[0] = (x[0] * 1103515245 + 12345) & 0x7FFFFFFF
        return (x[0] >> 8) % n

    kp = rl.session_keys(KEY, b"F" * 16, b"Z" * 16)[1]
    d = rl.Deframer()
    hs = hashlib.sha256()
    good = 0
    for i in range(rounds):
        junk = bytes(rnd(256) for _ in range(rnd(4) * rnd(90)))
        pl = bytes(rnd(256) for _ in range(rnd(rl.MAX_PAYLOAD + 1)))
        w = bytearray(rl.encode(rl.seal(kp, rl.MT_EVENT, 0, i, 0, pl)))
        k = rnd(4)
        if k == 1:
            w[1 + rnd(len(w) - 2)] ^= 1 << rnd(8)
        elif k == 2:                       # truncated (MicroPython: no del on bytearray)
            cut = 1 + rnd(len(w) - 2)
            w = w[:cut] + b"\x00"
        stream = junk + bytes(w)
        j = 0
        while j < len(stream):
            n = 1 + rnd(60)
            for fr in d.feed(stream[j:j + n]):
                good += 1
                hs.update(fr)
            j += n
    hs.update(b"%d %d %d %d %d" % (good, d.crc_errors, d.malformed, d.oversize, d.repl_seen))
    return h(hs.digest()), good


def gen_all():
    v = {"key": h(KEY)}
    v["hmac_rfc4231"] = [
        {"key": h(b"\x0b" * 20), "data": h(b"Hi There"),
         "mac": "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"},
        {"key": h(b"Jefe"), "data": h(b"what do ya want for nothing?"),
         "mac": "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
        {"key": h(b"\xaa" * 131),
         "data": h(b"Test Using Larger Than Block-Size Key - Hash Key First"),
         "mac": "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"},
    ]
    cobs_in = [b"", b"\x00", b"\x00\x00", b"\x11\x22\x00\x33", b"\x11\x22\x33\x44",
               b"\x11\x00\x00\x00", bytes(range(1, 255)), bytes(range(0, 255)),
               bytes(range(1, 256)), bytes(range(2, 256)) + b"\x00",
               bytes(range(3, 256)) + b"\x00\x01"]
    v["cobs"] = [{"in": h(x), "out": h(rl.cobs_encode(x))} for x in cobs_in]
    v["crc32"] = [{"in": h(x), "crc": rl.crc32(x)} for x in (b"", b"123456789", bytes(128))]
    h2d, d2h = rl.session_keys(KEY, b"N" * 16, b"D" * 16)
    hh, hd = rl.hello_keys(KEY)
    v["frames"] = []
    for name, kp in (("h2d", h2d), ("d2h", d2h), ("hello_h2d", hh), ("hello_d2h", hd)):
        for mtype, flags, seq, ack, pl in ((rl.MT_EVENT, 0, 1, 0, b"hello"),
                                           (rl.MT_ACK, 2, 5, 9, b""),
                                           (rl.MT_CMD, 0, 0xFFFFFFFF, 3, bytes(98))):
            fr = rl.seal(kp, mtype, flags, seq, ack, pl)
            v["frames"].append({"keys": name, "nh": h(b"N" * 16), "nd": h(b"D" * 16),
                                "mtype": mtype, "flags": flags, "seq": seq, "ack": ack,
                                "payload": h(pl), "frame": h(fr), "wire": h(rl.encode(fr))})
    v["hello_device"] = h(rl.build_hello_device(b"N" * 16, b"D" * 16, DEV_INFO))
    v["hello_host"] = h(rl.build_hello_host(b"N" * 16, "vectors"))
    good = rl.encode(rl.seal(h2d, rl.MT_EVENT, 0, 1, 0, b"ok"))
    bad = bytearray(good)
    bad[5] ^= 0x40
    stream = (b"MicroPython v1.29.0 on 2026-07-05; Raspberry Pi Pico with RP2040\r\n>>> "
              + good + b"\xff" * 300 + good + bytes(bad) + b"junk\x00\x01\x00" + good[:-1])
    d = rl.Deframer()
    frames = d.feed(stream)
    v["deframe"] = {"stream": h(stream), "frames": [h(f) for f in frames],
                    "counts": {"crc_errors": d.crc_errors, "malformed": d.malformed,
                               "oversize": d.oversize, "repl_seen": d.repl_seen,
                               "frames": d.frames}}
    v["transcript"] = transcript()
    v["fuzz"] = list(fuzz_digest())
    return v


# ---- tests (both runtimes) ----------------------------------------------------------
def test_hmac_rfc4231():
    for c in vectors()["hmac_rfc4231"]:
        assert h(rl.hmac_key(uh(c["key"]), uh(c["data"]))) == c["mac"], c["mac"]


def test_cobs_roundtrip():
    for c in vectors()["cobs"]:
        enc = rl.cobs_encode(uh(c["in"]))
        assert h(enc) == c["out"], c["in"]
        assert 0 not in enc
        assert rl.cobs_decode(enc) == uh(c["in"])


def test_crc32():
    for c in vectors()["crc32"]:
        assert rl.crc32(uh(c["in"])) == c["crc"]


def test_frames_seal_and_verify():
    v = vectors()
    for c in v["frames"]:
        h2d, d2h = rl.session_keys(KEY, uh(c["nh"]), uh(c["nd"]))
        hh, hd = rl.hello_keys(KEY)
        kp = {"h2d": h2d, "d2h": d2h, "hello_h2d": hh, "hello_d2h": hd}[c["keys"]]
        fr = rl.seal(kp, c["mtype"], c["flags"], c["seq"], c["ack"], uh(c["payload"]))
        assert h(fr) == c["frame"]
        assert h(rl.encode(fr)) == c["wire"]
        assert rl.verify(kp, fr)
        other = d2h if kp is h2d else h2d
        assert not rl.verify(other, fr)                # wrong direction fails
        got = rl.Deframer().feed(uh(c["wire"]))
        assert len(got) == 1 and h(got[0]) == c["frame"]
        mtype, flags, seq, ack, pl = rl.parse_header(got[0])
        assert (mtype, flags, seq, ack, h(pl)) == (c["mtype"], c["flags"], c["seq"], c["ack"],
                                                   c["payload"])


def test_hello_payloads():
    v = vectors()
    assert h(rl.build_hello_device(b"N" * 16, b"D" * 16, DEV_INFO)) == v["hello_device"]
    assert h(rl.build_hello_host(b"N" * 16, "vectors")) == v["hello_host"]
    d = rl.parse_hello_device(uh(v["hello_device"]))
    assert d["fw"] == "0.1.0" and d["device_id"] == DEV_INFO["device_id"]
    assert d["interp"] == DEV_INFO["interp"] and d["image"] == "0102030405060708"
    assert len(uh(v["hello_device"])) <= rl.MAX_PAYLOAD


def test_deframer_resync_and_repl():
    v = vectors()["deframe"]
    d = rl.Deframer()
    frames = d.feed(uh(v["stream"]))
    assert [h(f) for f in frames] == v["frames"]
    got = {"crc_errors": d.crc_errors, "malformed": d.malformed, "oversize": d.oversize,
           "repl_seen": d.repl_seen, "frames": d.frames}
    assert got == v["counts"], got
    assert len(frames) == 2 and d.repl_seen >= 1


def test_deframer_bytewise_same_result():
    v = vectors()["deframe"]
    d = rl.Deframer()
    frames = []
    for b in uh(v["stream"]):
        frames += d.feed(bytes([b]))
    assert [h(f) for f in frames] == v["frames"]


def test_deframer_fuzz_identical_on_both_runtimes():
    digest, good = fuzz_digest()
    assert [digest, good] == vectors()["fuzz"]
    assert 0 < good < 150


def test_session_transcript():
    want = vectors()["transcript"]
    got = transcript()
    for i in range(min(len(got["wire"]), len(want["wire"]))):
        assert got["wire"][i] == want["wire"][i], "wire frame %d differs" % i
    assert len(got["wire"]) == len(want["wire"])
    assert got["got"] == want["got"]
    assert got["host"] == want["host"], got["host"]
    assert got["dev"] == want["dev"], got["dev"]
    assert got["peer_info"] == want["peer_info"]
    assert want["host"]["alarms"] == 2 and want["host"]["unacked"] == 0


def test_session_keys_not_in_repr():
    s = rl.Session(KEY, rl.ROLE_DEVICE, DEV_INFO)
    text = repr(s) + repr(s.stats())
    assert h(KEY) not in text and "\\x00\\x01\\x02" not in text


MICROPYTHON_ONLY = ("test_device_send_is_allocation_free",   # heap_lock exists only there
                    "test_tag_compare_is_allocation_free_and_checks_every_byte")


def test_device_send_is_allocation_free():
    """The unacked ring is preallocated: send() (also when full) allocates nothing."""
    import micropython               # micropython only: CPython runs skip it (MICROPYTHON_ONLY)
    s = rl.Session(KEY, rl.ROLE_DEVICE, DEV_INFO, ring_slots=16)
    pl = bytearray(40)
    res = bytearray(20)
    micropython.heap_lock()
    try:
        for i in range(20):
            res[i] = s.send(rl.MT_EVENT, pl, i) & 0xFF
    finally:
        micropython.heap_unlock()
    assert list(res[:16]) == list(range(1, 17)) and res[16] == 0xFF and s.unacked == 16


def test_tag_compare_is_allocation_free_and_checks_every_byte():
    """verify()'s tag compare: no allocation (heap locked), and a difference in any one of the
    16 bytes, or in several, is caught (the frame's tag sits at an offset)."""
    import micropython               # micropython only
    d = bytes(range(100, 132))
    fr = bytearray(b"\xaa" * 7) + d[:16] + b"\xbb" * 4
    ok = bytearray(18)
    micropython.heap_lock()
    try:
        ok[0] = rl._tag_ok(d, fr, 7)
        for i in range(16):
            fr[7 + i] ^= 0x80
            ok[1 + i] = rl._tag_ok(d, fr, 7)
            fr[7 + i] ^= 0x80
        fr[7] ^= 1
        fr[22] ^= 1
        ok[17] = rl._tag_ok(d, fr, 7)
    finally:
        micropython.heap_unlock()
    assert ok[0] == 1 and list(ok[1:]) == [0] * 17


def test_session_feed_decodes_in_place_and_keeps_nothing_of_the_buffer():
    """Session.feed hands frames over as views of the Deframer's buffer: what recv() returns
    must be its own bytes, unchanged by the frames decoded after it."""
    dev, host = _connected_pair()
    for i in range(3):
        host.send(rl.MT_CMD, bytes([i + 1]) * (10 + i), 10)
    wire = b""
    while True:
        out = host.poll(10)
        if out is None:
            break
        wire += out
    dev.feed(wire, 10)              # three frames in one feed: one buffer, three views
    got = [dev.recv() for _ in range(3)]
    assert [g[1] for g in got] == [bytes([i + 1]) * (10 + i) for i in range(3)]
    assert all(isinstance(g[1], bytes) for g in got)


def _connected_pair():
    dev = rl.Session(KEY, rl.ROLE_DEVICE, DEV_INFO)
    host = rl.Session(KEY, rl.ROLE_HOST, {"name": "t"})
    dev.start(0)
    host.start(0)
    for t in range(1, 6):
        for a, b in ((host, dev), (dev, host), (host, dev), (dev, host)):
            while True:
                out = a.poll(t)
                if out is None:
                    break
                b.feed(out, t)
    assert dev.connected and host.connected
    return dev, host


def test_crc_residue_is_the_crc_check():
    """The Deframer checks a frame's CRC as the CRC-32 of the whole frame, CRC included: the
    same constant (CRC_RESIDUE) for any intact frame; any one bit flipped changes it."""
    kp = rl._keypair(KEY)
    for n in (0, 1, 5, 37, 98):
        fr = rl.seal(kp, rl.MT_EVENT, 0, n, 7, bytes((i * 7 + n) & 0xFF for i in range(n)))
        assert binascii.crc32(fr) == rl.CRC_RESIDUE
        assert rl.crc32(fr[:-4]) == int.from_bytes(fr[-4:], "little")
        for i in range(len(fr)):
            for bit in (1, 0x80):
                bad = bytearray(fr)
                bad[i] ^= bit
                assert binascii.crc32(bad) != rl.CRC_RESIDUE, (n, i, bit)


def _runs(on_whole):
    """Good, corrupt and odd inputs through Deframer.feed with a frame callback: each either
    whole in one call (on_whole: the board's one-frame fast path where it applies) or a byte
    at a time (the general loop). -> (frames handed over, counters, _chunk calls)."""
    kp = rl._keypair(KEY)
    good = rl.encode(rl.seal(kp, rl.MT_CMD, 0, 3, 9, b"\x02\x00\x00\x00\x05"))
    bad_crc = bytearray(good)
    bad_crc[12] ^= 0x40 if bad_crc[12] != 0x40 else 0x41
    zero_in = bytearray(good)
    zero_in[20] = 0                          # two runs, neither a frame
    bad_code = bytearray(good)
    bad_code[1] = 0xF0                       # first block runs past the end
    short = rl.encode(b"\x10" * 12)
    oversize = b"\x00" + b"\x01" * 140 + b"\x00"
    no_lead = good[1:]                       # completes a pending run
    inputs = [good, bytes(bad_crc), bytes(zero_in), bytes(bad_code), short, oversize, good,
              b"abc", good, b"\x00", no_lead, b"MicroPython v1.2", good,
              b"MicroPython v1.28.0 on rp2\r\n>>> \x00", good]
    d = rl.Deframer()
    calls = [0]
    chunk = d._chunk

    def counting(*a):
        calls[0] += 1
        return chunk(*a)
    d._chunk = counting
    got = []

    def on_frame(fr, arg):
        got.append((bytes(fr), arg))
    for k, data in enumerate(inputs):
        if on_whole:
            d.feed(data, on_frame, k)
        else:
            for b in data:
                d.feed(bytes([b]), on_frame, k)
    counts = (d.frames, d.crc_errors, d.malformed, d.oversize, d.repl_seen, d.garbage_bytes,
              d.repl, d.repl_maybe)
    return got, counts, calls[0]


def test_one_frame_read_takes_the_fast_path_and_counts_like_the_loop():
    """A read of exactly one whole frame (0x00 | COBS | 0x00, nothing pending) skips the
    Deframer's loop; everything it is given must come out as from the loop: the same frames
    in the same calls, the same counters for what is corrupt, oversize or REPL text."""
    whole, counts_w, calls_w = _runs(True)
    bytewise, counts_b, calls_b = _runs(False)
    assert whole == bytewise, (whole, bytewise)
    assert counts_w == counts_b, (counts_w, counts_b)
    assert counts_w[0] == 6 and counts_w[1] == 1 and counts_w[2] >= 2 and counts_w[3] == 1
    # the loop runs every run through _chunk; the fast path only what fails its checks
    assert calls_b > calls_w, (calls_w, calls_b)
    d = rl.Deframer()
    d._chunk = None                  # a good whole frame never reaches the loop's helper
    got = []
    d.feed(rl.encode(rl.seal(rl._keypair(KEY), rl.MT_ACK, 0, 1, 1, bytes(16))),
           lambda fr, arg: got.append(len(fr)), None)
    assert got == [46] and d.frames == 1


def test_header_fields_read_over_the_whole_u32_range():
    """The session reads seq and ack byte by byte: values past 2^30 and 2^31 (a 32-bit port's
    small-int limit, the sign bit) must arrive as they were sent."""
    dev, host = _connected_pair()
    for seq in (0x3FFFFFFF, 0x40000001, 0x80000001, 0xFFFFFFF0):
        dev._una = dev._snd = dev._next = seq
        host._rx_next = host._rx_acked = seq - host._rx_off
        host._una = host._snd = host._next = seq ^ 0x5A5A5A5A
        dev._rx_next = dev._rx_acked = (seq ^ 0x5A5A5A5A) - dev._rx_off
        assert dev.send(rl.MT_EVENT, b"ev", 20) == seq
        while True:
            out = dev.poll(20)
            if out is None:
                break
            host.feed(out, 20)
        m = host.recv()
        assert m is not None and m[0] == rl.MT_EVENT and m[2] - host._rx_off == seq, m
        host.ack(m[2])
        host.send(rl.MT_CMD, b"\x02\x01\x00\x00\x00", 20)   # carries the ack of seq
        while True:
            out = host.poll(20)
            if out is None:
                break
            dev.feed(out, 20)
        c = dev.recv()
        assert c is not None and c[2] - dev._rx_off == seq ^ 0x5A5A5A5A, (c, seq)
        assert dev._una == seq + 1 and dev.unacked == 0, (hex(dev._una), hex(seq))


def test_rtt_estimate_is_rfc6298_in_integer_ms():
    """Each ack of a frame sent once is an RTT sample (Karn); srtt and rttvar are kept x8 in
    integer ms and the RTO is clamped to RTO_MIN..RTO_MAX (RFC 6298): the session's estimate
    after each sample equals this reference, for first, growing, shrinking, zero and clamped
    samples and across the ticks_ms wrap (2**30)."""
    dev, host = _connected_pair()
    s8 = v8 = 0
    t = 10
    delays = [0, 0, 1, 1, 1, 1, 2, 5, 40, 3, 120, 0, 7, 900, 15, 15, 15, 60, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 250]
    for k, d in enumerate(delays):
        if k == len(delays) - 6:
            t = 0x3FFFFFFF - 2       # the last samples straddle the ticks_ms wrap
        seq = dev.send(rl.MT_EVENT, b"x%d" % k, t)
        while True:
            out = dev.poll(t)
            if out is None:
                break
            host.feed(out, t)
        m = host.recv()
        assert m is not None and m[2] - host._rx_off == seq, (k, m)
        host.ack(m[2])
        t2 = (t + d) & 0x3FFFFFFF
        while True:
            out = host.poll(t2)
            if out is None:
                break
            dev.feed(out, t2)
        assert dev.unacked == 0, k
        if s8 == 0:
            s8 = d * 8 + 1
            v8 = d * 4
        else:
            v8 += abs(s8 - d * 8) // 4 - v8 // 4
            s8 += d - s8 // 8
        rto = max(rl.RTO_MIN, min(rl.RTO_MAX, (s8 + max(8, 4 * v8)) // 8))
        assert (dev.rtt_ms, dev.rto_ms) == (s8 // 8, rto), (k, d, dev.rtt_ms, dev.rto_ms, rto)
        t = (t2 + 1) & 0x3FFFFFFF
    assert rl.RTO_MIN < dev.rto_ms < rl.RTO_MAX


if __name__ == "__main__":
    mptest.main(globals())
