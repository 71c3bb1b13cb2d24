# Outgoing event queue (preallocated slots, never silent on overflow) and the 64-bit microsecond clock for event times.
import time
from array import array
from ringmsg import pack_event_into, EVENT_HDR, EV_OVERFLOW

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

SLOTS = const(48)
TEXT_MAX = const(72)      # ringlink MAX_PAYLOAD 98 - EVENT_HDR 25 (longer text is cut)
_TMASK = const(0x3FFFFFFF)
_THALF = const(0x20000000)


class Clock:
    """Extends ticks_us (30-bit wrap) to microseconds since boot. now() must be called at least
    every ~8 minutes (the supervisor does it every 0.5 s)."""

    def __init__(self):
        self.last = time.ticks_us()
        self.ext = 0

    def now(self):
        t = time.ticks_us()
        self.ext += ((t - self.last + _THALF) & _TMASK) - _THALF
        self.last = t
        return self.ext

    def at(self, ticks):
        """Extended time of a ticks_us value taken in the last ~8 minutes."""
        now = self.now()
        return now - (((self.last - ticks + _THALF) & _TMASK) - _THALF)


class EventQueue:
    """Events packed with ringmsg into fixed slots until the link accepts them.

    put() numbers events (event_id) in order; when the queue is full the event is counted in
    `overflow` and an EV_OVERFLOW event goes out as soon as a slot frees (ringmsg: never silent).
    """

    def __init__(self, boot_id, clock):
        self.boot_id = boot_id
        self.clock = clock
        self.buf = [bytearray(EVENT_HDR + TEXT_MAX) for _ in range(SLOTS)]
        self.ln = array("H", [0] * SLOTS)
        self.head = 0
        self.tail = 0
        self.count = 0
        self.next_id = 1
        self.overflow = 0
        self.overflow_reported = 0

    def put(self, code, t_ticks, a=0, b=0, text=None):
        if self.count >= SLOTS - 1 and code != EV_OVERFLOW:
            self.overflow += 1
            return False
        if self.count >= SLOTS:
            return False
        slot = self.buf[self.head]
        t = self.clock.at(t_ticks) if t_ticks is not None else self.clock.now()
        pack_event_into(slot, self.boot_id, self.next_id, code, t, a, b)
        n = EVENT_HDR
        if text:
            raw = text.encode() if isinstance(text, str) else text
            raw = raw[:TEXT_MAX]
            slot[EVENT_HDR:EVENT_HDR + len(raw)] = raw
            n += len(raw)
        self.ln[self.head] = n
        self.next_id += 1
        self.head = (self.head + 1) % SLOTS
        self.count += 1
        return True

    def peek(self):
        """-> memoryview of the oldest packed event, or None."""
        if not self.count:
            return None
        return memoryview(self.buf[self.tail])[:self.ln[self.tail]]

    def pop(self):
        self.tail = (self.tail + 1) % SLOTS
        self.count -= 1
        if self.overflow != self.overflow_reported:
            # a slot is free again: say how many were lost (one slot is kept for this)
            self.put(EV_OVERFLOW, None, self.overflow - self.overflow_reported, 0)
            self.overflow_reported = self.overflow
