# Outgoing event queue (one preallocated byte ring, never silent on overflow) and the 64-bit microsecond event clock built from small ints.
import time
from struct import pack_into
from ringmsg import EVENT_HDR, EV_OVERFLOW

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

# Events are packed back to back ([len][event]) in one bytearray instead of fixed 97-byte
# slots: most events carry no text (26 bytes here), so 8 KB holds ~315 of them (at least 83
# with full text). Sized for a burst: every beam break is two events (start, end) and an
# RP2040 sends ~100-200 event frames/s (`ring bench firmware`: events_per_s), so a burst of
# 150 breaks at 100/s is held while the link catches up (3 KB lost a third of such a
# burst). The link's own ring (16 frames) holds the events in flight.
RING_BYTES = const(8192)
TEXT_MAX = const(72)      # ringlink MAX_PAYLOAD 98 - EVENT_HDR 25 (longer text is cut)
RESERVE = const(26)       # room always kept for the EV_OVERFLOW report (EVENT_HDR + 1)
_TMASK = const(0x3FFFFFFF)
# the u64 time lo | w << 30 from small ints only: bytes 0-2 of lo, byte 3 = lo's top 6 bits
# and w's low 2, bytes 4-7 = w >> 2
TIME_FMT = "<HBBI"
# one record: length byte + ringmsg.EVENT_FMT "<IIBqii" with the q written as TIME_FMT
RECORD_FMT = "<BIIBHBBIii"


class Clock:
    """Microseconds since the clock was made, as (wraps, ticks) and never as one int: ticks_us
    wraps every 2^30 us (17.9 min) and on a 32-bit port any int past 2^30 is a heap object,
    so a single counter would make every event allocate after 18 minutes of uptime. pack()
    writes the 64-bit value's bytes from the two small ints. update() must run at least every
    ~8 minutes (the supervisor calls it every 0.5 s)."""

    def __init__(self):
        self.base = time.ticks_us()
        self.last = self.base
        self.wraps = 0
        self.w = 0                # split()'s result (attributes made here: no allocation later)
        self.lo = 0

    def update(self):
        t = time.ticks_us()
        if t < self.last:         # ticks_us came round (it only grows between wraps)
            self.wraps += 1
        self.last = t

    def split(self, ticks=None):
        """us since start of a ticks_us value taken in the last ~8 minutes (None = now) as
        two small ints: self.w (wraps of 2^30 us) and self.lo (us within it). No allocation."""
        t = time.ticks_us()          # update(), inlined: this runs for every event
        if t < self.last:
            self.wraps += 1
        self.last = t
        w = self.wraps
        if ticks is None:
            ticks = t
        elif ticks > t and w:
            w -= 1                 # taken before the last wrap
        lo = ticks - self.base
        if lo < 0:
            lo = (lo + _TMASK) + 1     # borrow one wrap (stays a small int on 32 bits)
            w -= 1
        if w < 0:
            w = 0
            lo = 0
        self.w = w
        self.lo = lo

    def pack(self, buf, off, ticks=None):
        """8 little-endian bytes at buf[off]: split(ticks) as a u64. Allocation-free."""
        self.split(ticks)
        lo = self.lo
        w = self.w
        pack_into(TIME_FMT, buf, off, lo & 0xFFFF, (lo >> 16) & 0xFF,
                  ((lo >> 24) & 0x3F) | ((w & 3) << 6), w >> 2)


class EventQueue:
    """Events packed with ringmsg's layout into one byte ring until the link accepts them.

    Record = 1 length byte + packed event; a length byte 0 (or the end of the buffer) means
    "continue at offset 0", so every record is contiguous and peek() can hand out a view.
    put() numbers events (event_id) in order; when the ring is full the event is counted in
    `overflow` and an EV_OVERFLOW event goes out as soon as room frees (ringmsg: never
    silent; RESERVE bytes are kept for it). put/pop allocate nothing (text as bytes).
    """

    def __init__(self, boot_id, clock, size=RING_BYTES):
        self.boot_id = boot_id
        self.clock = clock
        self.buf = bytearray(size)
        self.mv = memoryview(self.buf)
        self.size = size
        self.head = 0         # next write offset
        self.tail = 0         # oldest record's offset
        self.count = 0
        self.next_id = 1
        self.overflow = 0
        self.overflow_reported = 0

    def _room(self, need):
        """Offset where `need` contiguous bytes fit, or -1 (wrapping the head if it must)."""
        h = self.head
        t = self.tail
        if self.count == 0:
            self.head = self.tail = 0
            return 0 if need <= self.size else -1
        if h > t:
            if h + need <= self.size:
                return h
            return 0 if need <= t else -1     # wrap: the reader skips the end
        if h < t and h + need <= t:
            return h
        return -1

    def put(self, code, t_ticks, a=0, b=0, text=None):
        raw = None
        n = EVENT_HDR
        if text:
            raw = text.encode() if isinstance(text, str) else text
            n += len(raw) if len(raw) < TEXT_MAX else TEXT_MAX
        over = code == EV_OVERFLOW
        o = self._room(n + 1 + (0 if over else RESERVE))
        if o < 0:
            if not over:
                self.overflow += 1
            return False
        if o != self.head and self.head < self.size:
            self.buf[self.head] = 0           # wrap marker
        c = self.clock
        c.split(t_ticks)
        lo = c.lo
        w = c.w
        pack_into(RECORD_FMT, self.buf, o, n, self.boot_id, self.next_id, code, lo & 0xFFFF,
                  (lo >> 16) & 0xFF, ((lo >> 24) & 0x3F) | ((w & 3) << 6), w >> 2, a, b)
        if raw is not None:
            k = n - EVENT_HDR
            self.mv[o + 1 + EVENT_HDR:o + 1 + n] = raw if k == len(raw) else memoryview(raw)[:k]
        self.head = o + 1 + n
        self.next_id += 1
        self.count += 1
        return True

    def _first(self):
        t = self.tail
        if t >= self.size or self.buf[t] == 0:
            t = self.tail = 0
        return t

    def peek(self):
        """-> memoryview of the oldest packed event, or None."""
        if not self.count:
            return None
        t = self._first()
        return self.mv[t + 1:t + 1 + self.buf[t]]

    def pop(self):
        t = self._first()
        self.tail = t + 1 + self.buf[t]
        self.count -= 1
        if self.overflow != self.overflow_reported:
            # room again: say how many were lost (RESERVE bytes are kept for this)
            self.put(EV_OVERFLOW, None, self.overflow - self.overflow_reported, 0)
            self.overflow_reported = self.overflow
