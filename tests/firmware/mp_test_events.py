# The outgoing event ring and clock (firmware/lib/events.py): FIFO through many wrap-arounds, text kept intact, overflow reported, put/pop allocation-free, time past the 2^30 us small-int limit.
import struct
import micropython
import mptest
import events as EVM
import ringmsg as M


class FixedClock:
    def __init__(self):
        self.w = self.lo = 0

    def split(self, ticks=None):
        v = 123456789 if ticks is None else ticks
        self.lo = v & 0x3FFFFFFF
        self.w = v >> 30


class FakeTime:
    """ticks_us as the chip gives it: 30 bits, wrapping every 17.9 minutes."""

    def __init__(self, us):
        self.us = us

    def ticks_us(self):
        return self.us & 0x3FFFFFFF


def _ev(view):
    return M.unpack_event(bytes(view))


def test_fifo_with_mixed_text_through_many_wraps():
    q = EVM.EventQueue(0xABCD, FixedClock(), size=400)
    model = []
    seed = 7
    n_put = 0
    last_id = 0
    lost_reported = 0
    for step in range(3000):
        seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
        if seed % 3 and len(model) < 40:
            k = (seed >> 8) % 90                      # 0..89 bytes: some cut at TEXT_MAX
            text = bytes((65 + (step + i) % 26) for i in range(k)) if k % 4 else None
            if q.put(M.EV_BEAM, step, step % 8, step, text):
                model.append((step, (text or b"")[:EVM.TEXT_MAX]))
                n_put += 1
        elif model:
            boot, eid, code, t, a, b, txt = _ev(q.peek())
            want = model.pop(0)
            assert eid == last_id + 1, "ids consecutive"
            last_id = eid
            if want is None:                          # the overflow report, in its place
                assert code == M.EV_OVERFLOW and a > 0
                lost_reported += a
            else:
                assert (boot, code, t, b) == (0xABCD, M.EV_BEAM, want[0], want[0])
                assert txt.encode() == want[1], (txt, want[1])
            before = q.overflow_reported
            q.pop()
            if q.overflow_reported != before:
                model.append(None)
        assert q.count == len(model), (q.count, len(model))
    assert n_put > 400, n_put      # records average ~70 bytes: the 400-byte ring wrapped ~70 times
    assert q.overflow > 0, "the test also ran the ring full"
    assert lost_reported <= q.overflow


def test_overflow_is_counted_then_reported_in_order():
    q = EVM.EventQueue(1, FixedClock(), size=300)
    put = 0
    while q.put(M.EV_IMPACT, 0, 0, put):
        put += 1
    assert q.overflow == 1 and put >= 9
    q.put(M.EV_IMPACT, 0, 0, 999)
    assert q.overflow == 2
    ids = []
    codes = []
    while q.count:
        e = _ev(q.peek())
        ids.append(e[1])
        codes.append((e[2], e[4]))
        q.pop()
    assert ids == list(range(1, len(ids) + 1)), "event ids consecutive: no silent gap"
    assert (M.EV_OVERFLOW, 2) in codes, codes


def test_put_and_pop_do_not_allocate():
    q = EVM.EventQueue(0x7FFFFFF0, FixedClock(), size=256)
    text = b"sector 3 bar"
    micropython.heap_lock()
    try:
        for i in range(40):
            q.put(M.EV_BEAM, 100 + i, 3, i)
            q.put(M.EV_RESULT, 100 + i, 1, 0, text)
            q.pop()
            q.pop()
    finally:
        micropython.heap_unlock()
    assert q.count == 0 and q.next_id == 81


def _small(v):
    # the 31-bit small-int range of a 32-bit port (the unix port's are 63-bit: it cannot
    # show the allocation, so the test checks every value the clock keeps stays inside it)
    return -(1 << 30) <= v < (1 << 30)


def test_clock_runs_past_the_small_int_wrap():
    real = EVM.time
    ft = FakeTime(0x3FFF0000)          # 65 ms before ticks_us wraps
    EVM.time = ft
    try:
        start = ft.us
        clock = EVM.Clock()
        q = EVM.EventQueue(0x12345678, clock, size=256)
        buf = bytearray(8)
        for step in range(2000):        # 2000 x 7.3 s = 4 hours of uptime, ~13 wraps
            ft.us += 7300001
            clock.update()
            since = ft.us - start
            earlier = ft.ticks_us() - 5000000          # a ticks_us value from 5 s ago
            if earlier < 0:
                earlier += 1 << 30
            clock.pack(buf, 0)
            assert struct.unpack("<q", buf)[0] == since, (step, since)
            clock.pack(buf, 0, earlier)
            assert struct.unpack("<q", buf)[0] == since - 5000000, step
            for v in (clock.base, clock.last, clock.wraps):
                assert _small(v), "clock holds %d: a heap int on a 32-bit port" % v
            micropython.heap_lock()
            try:
                q.put(M.EV_BEAM, earlier, 1, 2)
            finally:
                micropython.heap_unlock()
            e = _ev(q.peek())
            q.pop()
            assert e[3] == since - 5000000 and e[4:6] == (1, 2)
        assert since > 4 * 3600 * 1000000 and clock.wraps >= 13
    finally:
        EVM.time = real


mptest.main(globals())
