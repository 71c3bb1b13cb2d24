"""What RingHost announces: HostEvent, and the bus that hands each one to every subscriber without ever waiting.

Each subscriber has its own bounded queue. When a slow subscriber's queue is full the oldest
event is dropped, and the next `get()` returns a `gap` event saying how many were lost (the
subscriber can then re-read `RingHost.snapshot()`). Publishing takes one short lock per
subscriber and never blocks on a reader, so a stuck screen cannot delay a spin.

Kinds: phase, light, link, spin-started, verdict, result, settlement, call, lost-coin, alarm,
alarm-acked, table, board-event, log-down, gap (see docs/ARCHITECTURE.md for each one's data).
"""
import collections
import threading
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class HostEvent:
    seq: int            # 1, 2, 3 ... in publishing order (a gap's seq is the last one dropped)
    t: float            # wall clock, epoch seconds
    kind: str
    data: dict          # JSON-able

    def as_json(self):
        return {"seq": self.seq, "t": self.t, "kind": self.kind, "data": self.data}


class Subscription:
    """One reader's queue: `get(timeout=None) -> HostEvent or None` (None: timed out, or
    closed), `close()`. Iterable until closed."""

    def __init__(self, bus, maxlen):
        if maxlen < 1:
            raise ValueError("maxlen must be at least 1")
        self._bus = bus
        self._queue = collections.deque()
        self._maxlen = maxlen
        self._cond = threading.Condition()
        self._dropped = 0
        self._dropped_first = self._dropped_last = None
        self.closed = False

    def _put(self, event):
        with self._cond:
            if self.closed:
                return
            if len(self._queue) >= self._maxlen:
                lost = self._queue.popleft()
                if not self._dropped:
                    self._dropped_first = lost.seq
                self._dropped += 1
                self._dropped_last = lost.seq
            self._queue.append(event)
            self._cond.notify()

    def get(self, timeout=None):
        with self._cond:
            self._cond.wait_for(lambda: self._queue or self._dropped or self.closed, timeout)
            if self._dropped:
                gap = HostEvent(self._dropped_last, time.time(), "gap",
                                {"dropped": self._dropped, "first_seq": self._dropped_first,
                                 "last_seq": self._dropped_last})
                self._dropped = 0
                return gap
            return self._queue.popleft() if self._queue else None

    def close(self):
        self._bus._remove(self)
        with self._cond:
            self.closed = True
            self._queue.clear()
            self._cond.notify_all()

    def __iter__(self):
        while not self.closed:
            ev = self.get()
            if ev is not None:
                yield ev

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class EventBus:
    def __init__(self):
        self._lock = threading.Lock()
        self._subs = []
        self._seq = 0

    def subscribe(self, maxlen=256):
        sub = Subscription(self, maxlen)
        with self._lock:
            self._subs.append(sub)
        return sub

    def _remove(self, sub):
        with self._lock:
            if sub in self._subs:
                self._subs.remove(sub)

    def publish(self, kind, data):
        """Hand one event to every subscriber (never waits on one). -> the HostEvent."""
        with self._lock:
            self._seq += 1
            event = HostEvent(self._seq, time.time(), kind, data)
            subs = list(self._subs)
        for sub in subs:
            sub._put(event)
        return event
