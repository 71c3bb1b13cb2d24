"""In-memory lossy line between two ringlink Sessions, for deterministic delivery tests."""
import random

from ringctl.fw import ringlink as rl

KEY = bytes(range(32))
DEV_INFO = {"fw": "0.1.0", "image": b"\x01\x02\x03\x04\x05\x06\x07\x08", "boot_id": 0xB007,
            "reset": 1, "device_id": "SIM0001", "interp": "micropython 1.29.0 linux"}


class Line:
    """One direction: frames are delayed, dropped, duplicated, reordered, corrupted."""

    def __init__(self, rng, drop=0.0, dup=0.0, corrupt=0.0, delay=(1, 1)):
        self.rng, self.drop, self.dup, self.corrupt, self.delay = rng, drop, dup, corrupt, delay
        self.q = []  # (due_ms, bytes)

    def put(self, data, now):
        r = self.rng
        if r.random() < self.drop:
            return
        copies = 2 if r.random() < self.dup else 1
        for _ in range(copies):
            b = bytearray(data)
            if r.random() < self.corrupt:
                b[r.randrange(len(b))] ^= 1 << r.randrange(8)
            self.q.append((now + r.randint(*self.delay), bytes(b)))

    def take(self, now):
        due = [x for x in self.q if x[0] <= now]
        self.q = [x for x in self.q if x[0] > now]
        due.sort(key=lambda x: x[0])
        return [b for _, b in due]

    def clear(self):
        self.q = []


def pump(a, b, ab, ba, now):
    """Move everything each side wants to send onto its line, deliver what is due."""
    for s, line in ((a, ab), (b, ba)):
        for _ in range(64):
            out = s.poll(now)
            if out is None:
                break
            line.put(out, now)
    for data in ab.take(now):
        b.feed(data, now)
    for data in ba.take(now):
        a.feed(data, now)


def run(seed, n_events=300, n_cmds=50, ms=60000, cut_every=0, **faults):
    """Device sends n_events, host n_cmds; returns (events_got, cmds_got, host, dev)."""
    rng = random.Random(seed)
    dev = rl.Session(KEY, rl.ROLE_DEVICE, DEV_INFO, ring_slots=32, window=8)
    host = rl.Session(KEY, rl.ROLE_HOST, {"name": "test"}, ring_slots=32)
    h2d, d2h = Line(rng, **faults), Line(rng, **faults)
    host.start(0)
    dev.start(0)
    ev_sent = cmd_sent = 0
    events, cmds = [], []
    for now in range(1, ms):
        if cut_every and now % cut_every == 0:
            h2d.clear()
            d2h.clear()
            host.start(now)
            dev.start(now)
        if ev_sent < n_events and rng.random() < 0.3:
            if dev.send(rl.MT_EVENT, b"ev%d" % ev_sent, now) >= 0:
                ev_sent += 1
        if cmd_sent < n_cmds and rng.random() < 0.05:
            if host.send(rl.MT_CMD, b"cmd%d" % cmd_sent, now) >= 0:
                cmd_sent += 1
        pump(host, dev, h2d, d2h, now)
        while (m := host.recv()) is not None:
            events.append(m[1])
            host.ack(m[2])
        while (m := dev.recv()) is not None:
            cmds.append(m[1])
        if (len(events) == n_events and len(cmds) == n_cmds and dev.unacked == 0
                and host.unacked == 0):
            break
    return events, cmds, host, dev
