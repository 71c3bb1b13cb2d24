"""Property tests of the link decoder: garbage, bit flips, truncation, insertion, oversize runs."""
from hypothesis import given, settings, strategies as st, HealthCheck

from ringctl.fw import ringlink as rl

KP = rl.session_keys(bytes(range(32)), b"N" * 16, b"D" * 16)[1]

payloads = st.binary(min_size=0, max_size=rl.MAX_PAYLOAD)
garbage = st.one_of(
    st.binary(max_size=64),
    st.binary(min_size=1, max_size=8).map(lambda b: bytes(x or 1 for x in b) * 60),  # oversize run
    st.sampled_from([b"MicroPython v1.29.0 on 2026; Raspberry Pi Pico\r\n>>> ",
                     b"Traceback (most recent call last):\r\n  File \"main.py\"", b""]),
)
# what happens to one frame on the wire
damage = st.one_of(
    st.just(("none",)),
    st.tuples(st.just("flip"), st.integers(0, 1000), st.integers(0, 7)),
    st.tuples(st.just("truncate"), st.integers(1, 1000)),
    st.tuples(st.just("insert"), st.integers(1, 1000), st.binary(min_size=1, max_size=4)),
    st.tuples(st.just("delete"), st.integers(1, 1000)),
)


def _apply(wire, d):
    w = bytearray(wire)
    body = len(w) - 2           # keep the delimiters: damage the frame body only
    if d[0] == "none":
        return bytes(w), True
    if d[0] == "flip":
        w[1 + d[1] % body] ^= 1 << d[2]
    elif d[0] == "truncate":
        del w[1 + d[1] % body:-1]
    elif d[0] == "insert":            # strictly inside the COBS bytes (at the edges a 0x00
        i = 2 + d[1] % (body - 1)     # would only be one more delimiter)
        w[i:i] = d[2]
    elif d[0] == "delete":
        del w[1 + d[1] % body]
    # an insertion can repeat the frame's own last bytes: the frame then still arrives whole
    return bytes(w), bytes(w).startswith(wire)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(garbage, payloads, damage), min_size=1, max_size=8),
       garbage, st.lists(st.integers(1, 200), min_size=1, max_size=6))
def test_decoder_yields_exactly_the_intact_frames(items, tail, splits):
    stream = b""
    want = []
    for junk, pl, d in items:
        fr = rl.seal(KP, rl.MT_EVENT, 0, len(want) + 1, 0, pl)
        wire, intact = _apply(rl.encode(fr), d)
        stream += junk + wire
        if intact:
            want.append(fr)
    stream += tail
    d = rl.Deframer()
    got = []
    i = 0
    k = 0
    while i < len(stream):                    # arbitrary read sizes
        n = splits[k % len(splits)]
        got += d.feed(stream[i:i + n])
        i += n
        k += 1
        assert len(d._buf) <= rl.MAX_ENCODED and len(d._junk) <= 200
    # never a corrupted frame, never a lost intact one, in order
    assert got == want
    for fr in got:
        assert rl.verify(KP, fr)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2000))
def test_session_survives_arbitrary_bytes(data):
    host = rl.Session(bytes(32), rl.ROLE_HOST)
    host.start(0)
    host.feed(data, 1)
    assert host.recv() is None
    dev = rl.Session(bytes(32), rl.ROLE_DEVICE, {"boot_id": 1})
    dev.start(0)
    dev.feed(data, 1)
    assert dev.recv() is None and dev.state == rl.ST_IDLE


@settings(max_examples=100, deadline=None)
@given(st.binary(min_size=1, max_size=rl.MAX_PAYLOAD), st.integers(0, 200), st.integers(0, 7))
def test_good_crc_bad_tag_is_an_alarm(pl, pos, bit):
    """A tampered frame whose CRC is recomputed (as a forger would) is a security alarm."""
    import struct
    key = bytes(range(32))
    host = rl.Session(key, rl.ROLE_HOST)
    dev = rl.Session(key, rl.ROLE_DEVICE, {"boot_id": 9})
    host.start(0)
    dev.start(0)
    for t in range(1, 5):
        for a, b in ((host, dev), (dev, host)):
            while (out := a.poll(t)) is not None:
                b.feed(out, t)
    assert host.connected and dev.connected
    fr = bytearray(rl.seal(dev._tx, rl.MT_EVENT, 0, 1, 0, pl))
    fr[pos % (len(fr) - 4)] ^= 1 << bit
    fr[-4:] = struct.pack("<I", rl.crc32(bytes(fr[:-4])))
    host.feed(rl.encode(bytes(fr)), 5)
    assert host.alarms == 1 and host.recv() is None


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300), st.binary(max_size=5), st.binary(max_size=5),
       st.integers(0, 10_000), st.sampled_from([bytes, bytearray, memoryview]))
def test_decode_of_a_run_where_it_lies(data, before, after, at, kind):
    """ringlink._cobs_decode_at (the twin of the board's viper decoder, fastlink.py, which
    mp_test_fastlink checks against it): the COBS bytes of any data, decoded from inside a
    longer read, give the data back; a 0x00 put anywhere inside the run makes it malformed."""
    enc = rl.cobs_encode(data)
    wire = before + enc + after
    s, e = len(before), len(before) + len(enc)
    out = bytearray(len(enc))
    assert rl._cobs_decode_at(kind(wire), s, e, out) == len(data)
    assert bytes(out[:len(data)]) == data
    bad = bytearray(wire)
    bad[s + at % len(enc)] = 0
    assert rl._cobs_decode_at(kind(bytes(bad)), s, e, bytearray(len(enc))) == -1
