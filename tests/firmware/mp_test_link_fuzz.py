# Parser fuzz under micropython (tests/link/test_link_parser_fuzz.py does it with hypothesis on CPython):
# random and mutated payloads through every parser; only ValueError may escape (LINK.md "Errors").
import ringlink as rl
import ringmsg as M
import mptest

KEY = bytes(range(32))
PARSERS = (rl.parse_hello_host, rl.parse_hello_device, rl.parse_ack, rl.parse_header,
           M.unpack_event, M.unpack_cmd, M.describe_event)


class Lcg:
    def __init__(self, seed):
        self.x = seed

    def below(self, n):
        self.x = (self.x * 1103515245 + 12345) & 0x7FFFFFFF
        return (self.x >> 8) % n

    def bytes(self, n):
        return bytes(self.below(256) for _ in range(n))


def seeds():
    """Valid payloads to mutate: the parsers' happy paths."""
    info = {"fw": "0.4.0", "image": b"\x01" * 8, "boot_id": 1, "reset": 1,
            "device_id": "E6614C311B7A4C2D", "interp": "micropython 1.29.0 rp2"}
    return [rl.build_hello_host(bytes(16), "ring run"),
            rl.build_hello_device(bytes(16), bytes(16), info),
            M.pack_event(1, 2, M.EV_PHASE, 3, 1, 0, "text"), M.pack_cmd(M.CMD_LIGHT, 9, "5"),
            rl.seal(rl.hello_keys(KEY)[0], rl.MT_ACK, 0, 1, 1, bytes(8))]


def test_parsers_raise_only_value_error():
    rng = Lcg(15)
    base = seeds()
    n_err = 0
    for i in range(3000):
        if i % 2:
            p = bytearray(base[rng.below(len(base))])
            for _ in range(1 + rng.below(4)):          # flip, cut or extend
                k = rng.below(3)
                if k == 0 and p:
                    p[rng.below(len(p))] = rng.below(256)
                elif k == 1:
                    p = p[:rng.below(len(p) + 1)]
                else:
                    p += rng.bytes(rng.below(8))
            p = bytes(p)
        else:
            p = rng.bytes(rng.below(140))
        for fn in PARSERS:
            try:
                fn(p)
            except ValueError:
                n_err += 1
        r = rl.cobs_decode(p)
        assert r is None or isinstance(r, bytes)
    assert n_err > 0, "the fuzz reached the error paths"


def test_truncated_device_hello_is_a_value_error():
    e = mptest.raises(ValueError, rl.parse_hello_device, bytes(43) + b"\xff\x00\x00")
    assert "HELLO" in str(e)


def test_sessions_never_raise_on_fuzzed_authentic_frames():
    rng = Lcg(99)
    h2d, d2h = rl.hello_keys(KEY)
    for role, kp in ((rl.ROLE_HOST, d2h), (rl.ROLE_DEVICE, h2d)):
        s = rl.Session(KEY, role, {"boot_id": 3, "name": "f"})
        s.start(0)
        for i in range(300):
            mt = (rl.MT_HELLO, rl.MT_ACK, rl.MT_EVENT, rl.MT_CMD, rng.below(256))[rng.below(5)]
            p = rng.bytes(rng.below(rl.MAX_PAYLOAD + 1))
            s.feed(rl.encode(rl.seal(kp, mt, rng.below(4), rng.below(9), rng.below(9), p)), i)
            s.feed(rng.bytes(rng.below(40)), i)
            while s.poll(i) is not None:
                pass
        st = s.stats()
        assert st["bad_frames"] > 0 or st["stale"] > 0


if __name__ == "__main__":
    mptest.main(globals())
