"""Fault-injecting relay between two pseudo-terminals (device side, host side) for link tests.

Frames (chunks between 0x00 bytes) are dropped, duplicated, corrupted, reordered and
delayed; garbage is inserted; writes are split; the line blacks out; the host side is
"unplugged" (its pty closed and replaced, a symlink re-pointed like a udev by-id link).
Security probes (forged, reflected, replayed frames) are written cleanly and counted.
"""
import heapq
import os
import pty
import random
import select
import threading
import time
import tty


class Pty:
    def __init__(self):
        self.master, self.slave = pty.openpty()
        tty.setraw(self.slave)
        os.set_blocking(self.master, False)
        self.path = os.ttyname(self.slave)

    def close(self):
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass


class Direction:
    """Splits one byte stream into frames and applies faults to each."""

    def __init__(self, name, rng, faults):
        self.name = name
        self.rng = rng
        self.f = faults
        self.buf = b""
        self.held = None          # frame held back to be sent after the next (reorder)
        self.counts = dict.fromkeys(
            ("frames", "dropped", "duplicated", "corrupted", "reordered", "delayed",
             "garbage", "split", "blackout_dropped"), 0)

    def frames(self, data):
        self.buf += data
        parts = self.buf.split(b"\x00")
        self.buf = parts.pop()
        return [p for p in parts if p]


class FaultProxy:
    def __init__(self, dev_pty, host_link, seed=1, faults=None, unplug_every=(2.5, 3.5),
                 blackout_every=(3.0, 5.0), blackout_ms=300, probe=None, tag=None):
        self.dev = dev_pty
        self.host_link = host_link
        self.host = Pty()
        self._point(self.host.path)
        self.rng = random.Random(seed)
        f = {"drop": 0.03, "dup": 0.03, "corrupt": 0.02, "reorder": 0.03, "delay": 0.05,
             "garbage": 0.01, "split": 0.05}
        f.update(faults or {})
        self.d2h = Direction("d2h", self.rng, f)
        self.h2d = Direction("h2d", self.rng, f)
        self.unplug_every = unplug_every
        self.blackout_every = blackout_every
        self.blackout_ms = blackout_ms
        self.probe = probe            # callable(proxy, now) -> [(direction, bytes)]
        self.tag = tag                # callable() -> value stored with each frame seen
        self.unplugs = 0
        self.blackouts = 0
        self.write_drops = 0
        self._heap = []               # (due, n, fd_getter, bytes)
        self._n = 0
        self._stop = False
        now = time.monotonic()
        self.next_unplug = now + self.rng.uniform(*unplug_every) if unplug_every else None
        self.next_blackout = now + self.rng.uniform(*blackout_every) if blackout_every else None
        self.blackout_until = 0
        self.replug_at = None
        self.history = {"d2h": [], "h2d": []}   # (t, frame as sent, tag()) for probes
        self.thread = threading.Thread(target=self._run, name="fault-proxy", daemon=True)

    def _point(self, path):
        tmp = self.host_link + ".tmp"
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        os.symlink(path, tmp)
        os.replace(tmp, self.host_link)

    def start(self):
        self.thread.start()
        return self

    def _unpoint(self):
        """The link goes before its pty closes, as udev removes a by-id link on unplug: the
        kernel gives a freed pty number to the next pty made anywhere on the machine (another
        test's simulated board), and a host reopening a link still pointing at it took and
        locked that board's line (two CI failures of 2026-12-04)."""
        try:
            os.unlink(self.host_link)
        except FileNotFoundError:
            pass

    def stop(self):
        self._stop = True
        self.thread.join(2)
        self._unpoint()
        if self.host:
            self.host.close()

    # ---- output ------------------------------------------------------------------
    def _fd(self, direction):
        if direction == "d2h":
            return self.host.master if self.host else None
        return self.dev.master

    def _write(self, direction, data):
        fd = self._fd(direction)
        if fd is None:
            return
        try:
            os.write(fd, data)
        except (BlockingIOError, OSError):
            self.write_drops += 1

    def _later(self, due, direction, data):
        self._n += 1
        heapq.heappush(self._heap, (due, self._n, direction, data))

    def inject(self, direction, data):
        """Security probe: written as whole frames, never subject to faults."""
        self._write(direction, data)

    # ---- fault model ---------------------------------------------------------------
    def _forward(self, d, frames, now):
        r = self.rng
        f = d.f
        for fr in frames:
            d.counts["frames"] += 1
            self.history[d.name].append((now, fr, self.tag() if self.tag else None))
            if now < self.blackout_until:
                d.counts["blackout_dropped"] += 1
                continue
            if r.random() < f["drop"]:
                d.counts["dropped"] += 1
                continue
            copies = 2 if r.random() < f["dup"] else 1
            if copies == 2:
                d.counts["duplicated"] += 1
            for _ in range(copies):
                b = bytearray(fr)
                if r.random() < f["corrupt"]:
                    b[r.randrange(len(b))] ^= 1 << r.randrange(8)
                    d.counts["corrupted"] += 1
                out = b"\x00" + bytes(b) + b"\x00"
                if r.random() < f["garbage"]:
                    d.counts["garbage"] += 1
                    out = bytes(r.randrange(256) for _ in range(r.randint(1, 40))) + out
                if d.held is None and r.random() < f["reorder"]:
                    d.counts["reordered"] += 1
                    d.held = out
                    continue
                if r.random() < f["delay"]:
                    d.counts["delayed"] += 1
                    self._later(now + r.uniform(0.005, 0.04), d.name, out)
                elif r.random() < f["split"]:
                    d.counts["split"] += 1
                    k = r.randint(1, len(out) - 1)
                    self._write(d.name, out[:k])
                    self._later(now + 0.001, d.name, out[k:])
                else:
                    self._write(d.name, out)
                if d.held is not None:
                    self._write(d.name, d.held)
                    d.held = None

    def _unplug(self, now):
        self.unplugs += 1
        self._unpoint()
        self.host.close()
        self.host = None
        self.replug_at = now + self.rng.uniform(0.2, 0.4)

    def _replug(self):
        self.host = Pty()
        self._point(self.host.path)
        self.replug_at = None
        self.h2d.buf = b""

    def _run(self):
        while not self._stop:
            now = time.monotonic()
            fds = [self.dev.master] + ([self.host.master] if self.host else [])
            try:
                r, _, _ = select.select(fds, [], [], 0.002)
            except (OSError, ValueError):
                r = []
            for fd in r:
                try:
                    data = os.read(fd, 65536)
                except OSError:
                    data = b""
                if not data:
                    continue
                if fd == self.dev.master:
                    self._forward(self.d2h, self.d2h.frames(data), now)
                elif self.host and fd == self.host.master:
                    self._forward(self.h2d, self.h2d.frames(data), now)
            while self._heap and self._heap[0][0] <= now:
                _, _, direction, data = heapq.heappop(self._heap)
                self._write(direction, data)
            if self.next_blackout and now >= self.next_blackout:
                self.blackouts += 1
                self.blackout_until = now + self.blackout_ms / 1000
                self.next_blackout = now + self.rng.uniform(*self.blackout_every)
            if self.next_unplug and now >= self.next_unplug and self.host:
                self._unplug(now)
                self.next_unplug = now + self.rng.uniform(*self.unplug_every)
            if self.replug_at and now >= self.replug_at:
                self._replug()
            if self.probe:
                for direction, data in self.probe(self, now):
                    self.inject(direction, data)

    def counts(self):
        return {"d2h": dict(self.d2h.counts), "h2d": dict(self.h2d.counts),
                "unplugs": self.unplugs, "blackouts": self.blackouts,
                "write_drops": self.write_drops}
