# The outgoing event ring (firmware/lib/events.py): FIFO through many wrap-arounds, text kept intact, overflow reported, put/pop allocation-free.
import micropython
import mptest
import events as EVM
import ringmsg as M


class FixedClock:
    def now(self):
        return 123456789

    def at(self, ticks):
        return ticks


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


mptest.main(globals())
