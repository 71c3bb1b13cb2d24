"""Parser fuzz: every link and message parser raises only the documented ValueError (LINK.md "Errors"), and a Session never raises on any input."""
import struct

from hypothesis import HealthCheck, given, settings, strategies as st

from ringctl.fw import ringlink as rl, ringmsg

KEY = bytes(range(32))
FAST = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def only_value_error(fn, data):
    try:
        fn(data)
    except ValueError:        # UnicodeError is a ValueError: documented
        pass


def test_issue_example_truncated_device_hello():
    # 43 bytes of fixed fields, then an fw string claiming 255 bytes: was an IndexError
    for p in (bytes(43) + b"\xff\x00\x00", bytes(43) + b"\x00\x00", bytes(43) + b"\x00\x00\x05ab"):
        try:
            rl.parse_hello_device(p)
        except ValueError as exc:
            assert "HELLO" in str(exc)
        else:
            raise AssertionError("parsed a truncated HELLO: %r" % p)


@FAST
@given(st.binary(max_size=140))
def test_payload_parsers_raise_only_value_error(data):
    for fn in (rl.parse_hello_host, rl.parse_hello_device, rl.parse_ack, rl.parse_header,
               ringmsg.unpack_event, ringmsg.unpack_cmd, ringmsg.describe_event):
        only_value_error(fn, data)
    r = rl.cobs_decode(data)
    assert r is None or isinstance(r, bytes)


@FAST
@given(st.binary(min_size=43, max_size=98))
def test_device_hello_with_strings_anywhere(data):
    # the fixed part valid, the strings fuzzed: still only ValueError
    only_value_error(rl.parse_hello_device, data)
    only_value_error(rl.parse_hello_host, data)


@FAST
@given(st.lists(st.binary(max_size=200), max_size=8))
def test_deframer_never_raises(chunks):
    d = rl.Deframer(verbose=True)
    for c in chunks:
        for kind, fr in d.feed(c):
            assert kind in ("frame", "crc", "malformed", "oversize")


def _sealed(kp, mtype, flags, payload):
    return rl.encode(rl.seal(kp, mtype, flags, 1, 1, payload))


@FAST
@given(st.sampled_from([rl.ROLE_HOST, rl.ROLE_DEVICE]), st.integers(0, 255),
       st.integers(0, 255), st.binary(max_size=rl.MAX_PAYLOAD), st.binary(max_size=64))
def test_session_never_raises_on_authentic_or_random_frames(role, mtype, flags, payload, junk):
    """Authentic HELLOs with fuzzed payloads reach the HELLO parsers; anything else the
    framing, tag and state machine. The session counts, never raises."""
    s = rl.Session(KEY, role, {"name": "f"} if role == rl.ROLE_HOST else {"boot_id": 1})
    s.start(0)
    h2d, d2h = rl.hello_keys(KEY)
    peer_hello = d2h if role == rl.ROLE_HOST else h2d
    s.feed(_sealed(peer_hello, rl.MT_HELLO, flags, payload), 1)
    s.feed(_sealed(peer_hello, mtype, flags, payload), 2)
    s.feed(junk, 3)
    s.feed(rl.encode(rl.seal(peer_hello, mtype, flags, 1, 1, payload)[:-4] + b"\0\0\0\0"), 4)
    while s.poll(5) is not None:
        pass
    st_ = s.stats()
    assert st_["frames_rx"] + st_["alarms"] + st_["key_errors"] + st_["stale"] >= 1


@FAST
@given(st.binary(max_size=rl.MAX_PAYLOAD - 8))
def test_short_or_long_ack_payloads_in_a_session(tail):
    """Authentic in-session ACKs with any payload: credited, counted as bad, never raised."""
    host = rl.Session(KEY, rl.ROLE_HOST, {"name": "f"})
    dev = rl.Session(KEY, rl.ROLE_DEVICE, {"boot_id": 7})
    host.start(0)
    dev.start(0)
    for t in range(5):
        for a, b in ((host, dev), (dev, host)):
            while (out := a.poll(t)) is not None:
                b.feed(out, t)
    assert host.connected and dev.connected
    kp = host._tx                         # the live h2d key: as if the host sent it
    for p in (tail[:7], struct.pack("<II", 1, 1) + tail):
        dev.feed(rl.encode(rl.seal(kp, rl.MT_ACK, 0, 1, 1, p)), 10)
    assert dev.alarms == 0
