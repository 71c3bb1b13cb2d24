# Drivers on fake pins (machine.PinBase subclasses): IRQ paths allocation-free under heap_lock, glitch filter, debounce, piezo, light.
import time
import micropython
import asyncio
import machine
import mptest
import sensors
import guard
import light as L
import ringmsg as M
from board_sim import SimPin, SimADC
from config import defaults
from pins import DEFAULTS as PIN_DEFAULTS


class CountPin(machine.PinBase):
    """A minimal fake output: counts writes (proves Light only writes on change)."""

    def __init__(self):
        super().__init__()
        self.v = 0
        self.writes = 0

    def value(self, v=None):
        if v is None:
            return self.v
        self.v = v
        self.writes += 1


def test_fake_pins_are_pinbase():
    assert isinstance(SimPin("X"), machine.PinBase)
    assert isinstance(CountPin(), machine.PinBase)


def test_heap_lock_really_catches_allocation():
    caught = False
    micropython.heap_lock()
    try:
        bytearray(64)
    except MemoryError:
        caught = True
    finally:
        micropython.heap_unlock()
    assert caught, "heap_lock is a no-op in this build: the no-allocation tests prove nothing"


def test_irq_handler_does_not_allocate():
    # the beam handlers disarmed (idle): record and queue only
    flag = asyncio.ThreadSafeFlag()
    q = sensors.EdgeQueue(flag)
    g = guard.Guard(q, L.Light([CountPin() for _ in range(4)], time.ticks_ms), 300)
    pins = [SimPin("BEAM%d" % i) for i in range(8)]
    for i, p in enumerate(pins):
        p.irq(guard.BeamIrq(g, i, p, True).irq)
    micropython.heap_lock()
    try:
        for _ in range(3):
            for p in pins:
                p.set(0)      # beam broken -> IRQ -> timestamp into the preallocated ring
                p.set(1)
    finally:
        micropython.heap_unlock()
    n = 0
    while q.pop() >= 0:
        i = q.tail
        assert q.lvl[i] == (1 if n % 2 == 0 else 0), "level order"
        q.done()
        n += 1
    assert n == 48, n
    assert q.lost == 0


def test_edge_queue_overflow_is_counted_not_silent():
    q = sensors.EdgeQueue(None)
    micropython.heap_lock()
    try:
        for i in range(sensors.QLEN + 10):
            q.push(1, i & 1, i)
    finally:
        micropython.heap_unlock()
    assert q.lost == 11, q.lost      # ring keeps QLEN-1 entries


def test_wall_and_button_irq_no_alloc():
    q = sensors.EdgeQueue(asyncio.ThreadSafeFlag())
    g = guard.Guard(q, L.Light([CountPin() for _ in range(4)], time.ticks_ms), 300)
    wall = SimPin("WALL_TRIG", 0)
    btn = SimPin("BTN_NOSPIN")
    wall.irq(guard.WallIrq(g, sensors.SRC_WALL, wall, False).irq, 8)
    btn.irq(guard.PinIrq(q, sensors.SRC_NOSPIN, btn, True).irq)
    micropython.heap_lock()
    try:
        wall.set(1)
        wall.set(0)
        btn.set(0)
    finally:
        micropython.heap_unlock()
    i = q.pop()
    assert q.src[i] == sensors.SRC_WALL and q.lvl[i] == 1
    q.done()
    i = q.pop()
    assert q.src[i] == sensors.SRC_NOSPIN and q.lvl[i] == 1


def test_beam_filter_glitch_vs_break():
    got = []
    f = sensors.BeamFilter(300, lambda s, t: got.append(("b", s, t)),
                           lambda s, t, d: got.append(("c", s, d)))
    micropython.heap_lock()
    try:
        f.edge(2, 1, 1000)
        f.edge(2, 0, 1100)     # 100 us: glitch, no callback, no allocation
    finally:
        micropython.heap_unlock()
    assert got == [] and f.glitches == 1
    f.edge(4, 1, 5000)
    assert f.poll(5200) == 1 << 4 and got == []     # not yet confirmed
    f.poll(5300)
    assert got == [("b", 4, 5000)], got
    f.edge(4, 0, 9000)
    assert got[-1] == ("c", 4, 4000), got


def test_beam_filter_live_pin_defers_confirmation():
    got = []
    live = [1]
    f = sensors.BeamFilter(300, lambda s, t: got.append(s), lambda s, t, d: None,
                           lambda s: live[0])
    f.edge(0, 1, 0)
    live[0] = 0                  # pin already clear, its edge not processed yet
    f.poll(1000)
    assert got == [], "must wait for the clear edge's timestamp"
    f.edge(0, 0, 200)            # it was a 200 us glitch
    assert got == [] and f.glitches == 1


def test_beam_filter_handles_ticks_wrap():
    got = []
    f = sensors.BeamFilter(300, lambda s, t: got.append(s), lambda s, t, d: got.append(d))
    f.edge(1, 1, 0x3FFFFF00)
    f.edge(1, 0, 0x00000F00)     # wrapped: 0x100 + 0xF00 = 4096 us later
    assert got == [1, 4096], got


def test_debouncer_leading_and_settle():
    b = sensors.Debouncer(20, True)
    assert b.update(1, 1000) and b.stable == 1          # acts on the first edge
    assert not b.update(0, 1002)                        # chatter inside the window ignored
    assert not b.update(1, 1004)
    assert not b.update(0, 1010)
    assert b.update(0, 1025) and b.stable == 0          # settled release accepted later
    m = sensors.Debouncer(20, False)
    assert not m.update(1, 0)
    assert not m.update(0, 5)                           # bounced back: nothing
    assert not m.update(1, 10)
    assert not m.update(1, 29)
    assert m.update(1, 30) and m.stable == 1            # held 20 ms


def test_piezo_floor_impact_hysteresis():
    cfg = defaults(PIN_DEFAULTS)
    p = sensors.Piezo(0, cfg)
    a = SimADC(1200, 40)
    for t in range(200):
        assert p.sample(a.read_u16(), t) == -1
    assert 1150 <= p.floor() <= 1250, p.floor()
    a.peak = 20000
    lvl = p.sample(a.read_u16(), 200)
    assert lvl > 15000, lvl
    assert p.sample(15000, 201) == -1        # same hump: not a second impact
    assert p.sample(1200, 202) == -1         # back under rest_threshold: re-armed
    assert p.sample(20000, 203) > 0
    assert p.impacts == 2
    assert 1150 <= p.floor() <= 1250, "impacts must not raise the floor"
    assert p.last_loud == 203


def test_light_show_allocation_free_and_patterns():
    pins = [CountPin() for _ in range(4)]
    t = [0]
    lt = L.Light(pins, lambda: t[0])
    micropython.heap_lock()
    try:
        lt.show(M.LIGHT_BARRED)
    finally:
        micropython.heap_unlock()
    assert [p.v for p in pins] == [1, 0, 0, 1], "barred = red + buzzer"
    t[0] = 1001
    lt.tick()
    assert [p.v for p in pins] == [1, 0, 0, 0], "buzzer 1 s then off"
    lt.show(M.LIGHT_FAULT)
    for ms, buzz in ((0, 1), (1499, 1), (1999, 1), (2000, 0)):
        t[0] = 1001 + ms
        lt.tick()
        assert pins[3].v == buzz, "fault buzzer at %d ms" % ms
    writes = pins[0].writes
    lt.tick()
    assert pins[0].writes == writes, "no rewrite without a change"


def test_every_light_state_has_a_pattern_and_faults_buzz_long():
    for st in range(len(M.LIGHT_NAMES)):
        assert st in L.PATTERNS, M.LIGHT_NAMES[st]
    for st in (M.LIGHT_FAULT, M.LIGHT_LINK_LOST):
        assert L.PATTERNS[st][3] >= 1500, M.LIGHT_NAMES[st]
    looks = {}
    for st in (M.LIGHT_ARMED, M.LIGHT_IN_FLIGHT, M.LIGHT_BARRED, M.LIGHT_HEADS, M.LIGHT_TAILS,
               M.LIGHT_ODDS, M.LIGHT_UNSURE, M.LIGHT_FAULT, M.LIGHT_LINK_LOST):
        key = L.PATTERNS[st][:3]
        assert key not in looks, "%s looks like %s" % (M.LIGHT_NAMES[st], looks.get(key))
        looks[key] = M.LIGHT_NAMES[st]


mptest.main(globals())
