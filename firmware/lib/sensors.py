# Sensor drivers: the IRQ edge queue, beam glitch filter, debounced contacts, piezo floor/impact/rest tracking.
# EdgeQueue.push runs inside hard IRQ handlers (guard.py) and never allocates (proved under
# micropython.heap_lock() in tests/firmware): timestamps into preallocated arrays, one flag set.
import time
from array import array

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

QLEN = const(64)          # edge ring size (power of two)
QMASK = const(63)
_TMASK = const(0x3FFFFFFF)   # ticks_us / ticks_ms period on MicroPython
_THALF = const(0x20000000)


def tdiff(a, b):
    """a - b for ticks values (wrap-safe, no allocation)."""
    return ((a - b + _THALF) & _TMASK) - _THALF


class EdgeQueue:
    """Edges from pin IRQs: (source, level, ticks_us) in a preallocated ring.

    Written only by IRQ handlers (head), read only by the fast task (tail). `lost` counts
    edges that did not fit (reported, never silent).
    """

    def __init__(self, wake=None):
        self.t = array("i", [0] * QLEN)
        self.src = bytearray(QLEN)
        self.lvl = bytearray(QLEN)
        self.head = 0
        self.tail = 0
        self.lost = 0
        self.wake = wake          # asyncio.ThreadSafeFlag (or anything with .set())

    def push(self, src, level, t):
        h = self.head
        n = (h + 1) & QMASK
        if n == self.tail:
            self.lost += 1
        else:
            self.t[h] = t
            self.src[h] = src
            self.lvl[h] = level
            self.head = n
        w = self.wake
        if w is not None:
            w.set()

    def pop(self):
        """-> index of the oldest edge (read .src/.lvl/.t at it) or -1; then call done()."""
        if self.tail == self.head:
            return -1
        return self.tail

    def done(self):
        self.tail = (self.tail + 1) & QMASK


# Edge sources in the one queue
SRC_BEAM0 = const(0)      # 0..7 beam sectors
SRC_NOSPIN = const(8)
SRC_ARM = const(9)
SRC_MAT = const(10)
SRC_WALL = const(11)


class BeamFilter:
    """Glitch filter for the 8 beams: a break counts once it lasted >= glitch_us.

    edge(sector, broken, t_us) feeds recorded edges; poll(now_us) confirms breaks that are still
    going. Confirmed breaks call on_break(sector, t_start_us); their end calls
    on_clear(sector, t_start_us, duration_us). Shorter breaks only bump `glitches`.
    """

    def __init__(self, glitch_us, on_break, on_clear, live=None):
        self.glitch_us = glitch_us
        self.live = live              # live(s) -> 1 while the pin reads broken (or None)
        self.on_break = on_break
        self.on_clear = on_clear
        self.state = bytearray(8)     # 0 clear, 1 broken (unconfirmed), 2 broken (confirmed)
        self.t0 = array("i", [0] * 8)
        self.glitches = 0
        self.pending = 0              # bitmask of unconfirmed breaks

    def edge(self, s, broken, t):
        """broken: 0 clear, 1 broken, 2 broken and already timed >= glitch_us by the hard IRQ
        (guard.CONFIRMED: the handler barred on it; confirm now, same edge time)."""
        st = self.state[s]
        if broken == 2:
            if st != 2:
                self.state[s] = 2
                self.pending &= ~(1 << s)
                self.t0[s] = t
                self.on_break(s, t)
            return
        if broken:
            if st == 0:
                self.state[s] = 1
                self.t0[s] = t
                self.pending |= 1 << s
                self.poll(t)
            return
        if st == 1:
            if tdiff(t, self.t0[s]) >= self.glitch_us:
                self.state[s] = 2      # lasted long enough: a real break that already ended
                self.pending &= ~(1 << s)
                self.on_break(s, self.t0[s])
                self.state[s] = 0
                self.on_clear(s, self.t0[s], tdiff(t, self.t0[s]))
            else:
                self.glitches += 1
                self.state[s] = 0
                self.pending &= ~(1 << s)
        elif st == 2:
            self.state[s] = 0
            self.on_clear(s, self.t0[s], tdiff(t, self.t0[s]))

    def poll(self, now):
        """Confirm breaks still going after glitch_us. -> remaining pending bitmask."""
        p = self.pending
        if p:
            live = self.live
            for s in range(8):
                if p & (1 << s) and tdiff(now, self.t0[s]) >= self.glitch_us:
                    if live is not None and not live(s):
                        continue      # already clear: its edge (queued) decides glitch or not
                    self.state[s] = 2
                    self.pending &= ~(1 << s)
                    self.on_break(s, self.t0[s])
        return self.pending


class Debouncer:
    """One contact. leading=True: act on the first edge after a quiet period (buttons: the
    no-spin call must not wait), then ignore chatter for debounce_ms. leading=False: a new
    level must hold debounce_ms before it counts (the mat: weight shifts must not bar)."""

    def __init__(self, debounce_ms, leading, level=0):
        self.ms = debounce_ms
        self.leading = leading
        self.stable = level
        self.raw = level
        self.t_raw = 0        # ticks_ms of the last raw change
        self.t_acc = -100000  # ticks_ms of the last accepted change
        self.t_edge_us = 0

    def update(self, raw, now_ms, t_us=0):
        """Feed the current raw level; -> True when the stable level changed (read .stable)."""
        if raw != self.raw:
            self.raw = raw
            self.t_raw = now_ms
            self.t_edge_us = t_us
        if raw == self.stable:
            return False
        if self.leading:
            if tdiff(now_ms, self.t_acc) >= self.ms:
                self.stable = raw
                self.t_acc = now_ms
                return True
            return False
        if tdiff(now_ms, self.t_raw) >= self.ms:
            self.stable = raw
            self.t_acc = now_ms
            return True
        return False


class Piezo:
    """One envelope channel: noise-floor tracking, impact detection, quiet tracking.

    sample(v, now_ms) -> level above the floor if this sample starts an impact, else -1.
    Floor: slow average of quiet samples only (an impact never raises it). Impacts re-arm
    once the envelope drops below rest_threshold (hysteresis, so one bounce = one impact).
    """

    def __init__(self, ch, cfg):
        self.ch = ch
        self.cfg = cfg
        self.floor16 = -1     # floor x16 (fixed point), -1 = no sample yet
        self.in_impact = False
        self.peak = 0
        self.last_loud = 0    # ticks_ms of the last sample above rest_threshold
        self.impacts = 0
        # self-test statistics (reset by stats_reset, gathered while collect is set)
        self.collect = False
        self.n = 0
        self.sum = 0
        self.vmin = 65535
        self.vmax = 0

    def stats_reset(self):
        self.n = 0
        self.sum = 0
        self.vmin = 65535
        self.vmax = 0

    def floor(self):
        return self.floor16 >> 4 if self.floor16 >= 0 else 0

    def sample(self, v, now_ms):
        if self.collect:          # only during the self-test window (sum stays a small int)
            self.n += 1
            self.sum += v
            if v < self.vmin:
                self.vmin = v
            if v > self.vmax:
                self.vmax = v
        if self.floor16 < 0:
            self.floor16 = v << 4
        lvl = v - (self.floor16 >> 4)
        cfg = self.cfg
        if lvl >= cfg["rest_threshold"]:
            self.last_loud = now_ms
        else:
            # quiet sample: track the floor (time constant ~64 samples)
            self.floor16 += ((v << 4) - self.floor16) >> 6
        if self.in_impact:
            if lvl > self.peak:
                self.peak = lvl
            if lvl < cfg["rest_threshold"]:
                self.in_impact = False
            return -1
        if lvl >= cfg["impact_threshold"]:
            self.in_impact = True
            self.peak = lvl
            self.impacts += 1
            return lvl
        return -1
