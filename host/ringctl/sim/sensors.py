"""Ring sensors synthesised from a simulated toss, and a feeder that plays them to the board.

`timeline(toss)` -> sorted [(t_s, kind, channel, value)], t = 0 at the release:
- ("beam", sector, 1|0): boundary curtain sector broken / clear again (7.3.1). Only where a
  coin's body passes through the curtain (r = R, 0..curtain height above the layout): a coin
  flying high over the edge breaks nothing, as on the real ring.
- ("impact", channel, level): a coin-layout or coin-coin contact onset as seen by layout piezo
  `channel`: envelope peak in adc_u16 counts, from the impact speed, fading with distance;
  also the rumble of a coin rolling or wobbling on the layout (50 Hz, weaker: it keeps the
  envelope above the rest threshold while a coin still rolls fast, as a real piezo would).
- ("wall", 0, level): wall piezo peak from a coin hitting the wall above the layout (7.3.2).
- ("mat", 0, 1|0): spinner on / off the mat (7.3.3); on from t = -1 s.
Levels use the firmware's units (ringctl.fw.pins.DEFAULTS thresholds: impact 6000, rest
1500, wall 8000).

`SensorFeeder(socket_path).play(timeline, t0)` sends it in real time to the simulated
board's sensor socket; `encode()` / `wire_lines()` are all that know its line format
(firmware/SIM.md).
"""
import socket
import threading
import time

import numpy as np

ADC_MAX = 65535
IMPACT_GAIN = 20000.0      # counts per m/s of impact speed at the piezo
WALL_GAIN = 100000.0       # counts per m/s: physics.STRIKE_MIN_SPEED (0.08) x this = the 8000 threshold
RUMBLE_GAIN = 4000.0       # counts per m/s of a rolling coin's speed (rest threshold: 1500)
RUMBLE_HZ = 50
GUTTER_GAIN = 0.2          # a coin in the gutter shakes the layout a little
PEAK_WINDOW_S = 0.003      # >= 2 ADC periods (adc_period_us 1000): one envelope peak per window
DEFAULT_FLOOR = 1200        # the simulated board's default piezo noise floor (SIM.md `floor`)
MIN_LEVEL = 1300           # below the board's default noise floor (1200 ± 40, SIM.md): not emitted
MAT_ON_T = -1.0


def _falloff(d, ring):
    # amplitude decays with distance through the layout board; length ~ half the radius
    return float(np.exp(-d / (0.5 * ring.layout_radius_m)))


def impact_levels(speed, xyz, ring):
    """Peak level on each layout piezo for a contact at xyz with normal speed `speed` (m/s)."""
    out = []
    for px, py in ring.piezos():
        d = float(np.hypot(xyz[0] - px, xyz[1] - py))
        out.append(int(min(ADC_MAX, IMPACT_GAIN * speed * _falloff(d, ring))))
    return out


def rumble(toss):
    """[(t, "impact", ch, level)] while a coin rolls or wobbles on the layout."""
    ring, coin = toss.ring, toss.coin
    step = max(1, int(round((len(toss.t) / max(toss.duration_s, 1e-9)) / RUMBLE_HZ)))
    out = []
    for k in range(0, len(toss.t), step):
        for i in range(2):
            p = toss.pos[k, i]
            if p[2] > coin.radius_m + 0.002 or p[2] < -0.002:
                continue                       # in the air, or off the layout
            if np.hypot(p[0], p[1]) > ring.layout_radius_m:
                continue
            speed = np.linalg.norm(toss.vel[k, i]) + coin.radius_m * np.linalg.norm(toss.angvel[k, i])
            for ch, (px, py) in enumerate(ring.piezos()):
                lvl = int(min(ADC_MAX, RUMBLE_GAIN * speed *
                              _falloff(np.hypot(p[0] - px, p[1] - py), ring)))
                if lvl >= MIN_LEVEL:
                    out.append((float(toss.t[k]), "impact", ch, lvl))
    return out


def beam_edges(toss):
    """[(t, sector, 1|0)] from the per-step curtain masks of both coins."""
    mask = np.bitwise_or(toss.curtain_mask[:, 0], toss.curtain_mask[:, 1])
    out = []
    prev = 0
    for t, m in zip(toss.curtain_t, mask):
        m = int(m)
        if m != prev:
            for s in range(toss.ring.sectors):
                was, now = prev >> s & 1, m >> s & 1
                if was != now:
                    out.append((float(t), "beam", s, now))
            prev = m
    return out


def timeline(toss):
    """All sensor events of a toss, sorted by time (see module doc)."""
    ring = toss.ring
    ev = [(t, "mat", 0, 1 if on else 0) for t, on in toss.mat]
    ev += beam_edges(toss)
    for c in toss.contacts:
        other = c["other"]
        if other in ("layout", "coin", "gutter"):
            gain = GUTTER_GAIN if other == "gutter" else 1.0
            for ch, lvl in enumerate(impact_levels(c["speed"] * gain, c["xyz"], ring)):
                if lvl >= MIN_LEVEL:
                    ev.append((c["t"], "impact", ch, lvl))
        elif other == "wall" and c["above_layout"]:
            lvl = int(min(ADC_MAX, WALL_GAIN * c["speed"]))
            if lvl >= MIN_LEVEL:
                ev.append((c["t"], "wall", 0, lvl))
    ev += rumble(toss)
    order = {"mat": 0, "beam": 1, "wall": 2, "impact": 3}
    ev.sort(key=lambda e: (e[0], order[e[1]], e[2]))
    return _one_peak_per_window([(round(float(t), 6), k, int(ch), int(v)) for t, k, ch, v in ev])


def _one_peak_per_window(ev):
    """A piezo envelope shows one peak per PEAK_WINDOW_S: merge pulses on the same channel
    that close together, keeping the largest. (The board holds a `piezo` level only until its
    next ADC read, so a weak pulse sent just after a strong one would hide the strong one.)"""
    out = []
    last = {}                              # (kind, ch) -> index in out of the open peak
    for e in ev:
        t, kind, ch, v = e
        if kind in ("impact", "wall"):
            i = last.get((kind, ch))
            if i is not None and t - out[i][0] <= PEAK_WINDOW_S:
                if v > out[i][3]:
                    out[i] = (out[i][0], kind, ch, v)
                continue
            last[(kind, ch)] = len(out)
        out.append(e)
    return out


def summary(tl):
    """Counts and first times per kind, for printing and tests."""
    out = {}
    for t, kind, ch, v in tl:
        s = out.setdefault(kind, {"n": 0, "first_t": t, "last_t": t})
        s["n"] += 1
        s["last_t"] = t
    return out


# ---- the wire: the board's sensor socket (firmware/SIM.md) ---------------------------------
PULSE_MAX_S = 0.05         # shorter beam breaks go as one `beam s pulse us` line, timed by the board


def encode(event):
    """One timeline event -> the SIM.md line (no newline)."""
    t, kind, ch, value = event
    if kind == "beam":
        return f"beam {ch} {1 if value else 0}"
    if kind == "impact":
        return f"piezo {ch} {value}"
    if kind == "wall":
        return f"wall {value}"
    if kind == "mat":
        return f"mat {1 if value else 0}"
    raise ValueError(f"unknown sensor event kind {kind!r}")


def wire_lines(tl):
    """Timeline -> [(t, line)]. A beam break cleared within PULSE_MAX_S becomes one `pulse`
    line, so its length does not depend on how promptly this process wakes up."""
    out = []
    skip = set()
    for i, ev in enumerate(tl):
        if i in skip:
            continue
        t, kind, ch, value = ev
        if kind == "beam" and value:
            j = next((j for j in range(i + 1, len(tl))
                      if tl[j][1] == "beam" and tl[j][2] == ch), None)
            if j is not None and tl[j][3] == 0 and tl[j][0] - t <= PULSE_MAX_S:
                us = max(1, int(round((tl[j][0] - t) * 1e6)))
                out.append((t, f"beam {ch} pulse {us}"))
                skip.add(j)
                continue
        out.append((t, encode(ev)))
    return out


def still_broken(tl):
    """Sectors a coin still blocks at the end (lying on the boundary)."""
    state = {}
    for t, kind, ch, value in tl:
        if kind == "beam":
            state[ch] = value
    return sorted(s for s, v in state.items() if v)


def socket_lines(sock):
    """The lines (str) the board writes on its sensor socket (firmware/SIM.md), until it closes."""
    buf = b""
    while True:
        try:
            data = sock.recv(4096)
        except OSError:
            return
        if not data:
            return
        buf += data
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            yield line.decode(errors="replace")


class SensorFeeder:
    """Plays a timeline to the simulated board's sensors, in real time.

    `target`: the AF_UNIX socket path (own connection; the board's reply lines are read on
    a thread into `.replies`, `.light`, `.phase`), or a callable taking one line (e.g.
    `SimBoard.send_sensor`) when someone else holds the connection.
    """

    def __init__(self, target, connect_timeout_s=5.0):
        self.sock = None
        self.sent = 0
        self.dropped = 0
        self.replies = []
        self.light = None
        self.phase = None
        self._stop = threading.Event()
        self._thread = None
        self._lock = threading.Lock()
        if callable(target):
            self._send = target
            return
        self.path = str(target)
        self._connect(connect_timeout_s)
        self._send = lambda line: self.sock.sendall(line.encode() + b"\n")

    def _connect(self, timeout_s):
        deadline = time.monotonic() + timeout_s
        while True:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(self.path)
                break
            except OSError:
                sock.close()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        self.sock = sock
        threading.Thread(target=self._read, args=(sock,), daemon=True).start()

    def _read(self, sock):
        for text in socket_lines(sock):
            self.replies.append(text)
            if len(self.replies) > 1000:
                del self.replies[:500]
            parts = text.split()
            if parts and parts[0] == "light" and len(parts) >= 2:
                self.light = parts[1]
            elif parts and parts[0] == "phase" and len(parts) >= 2:
                self.phase = parts[1]

    def send_line(self, line):
        """Send one line. A board that restarted (fault drill) is reconnected once; if it
        is down, the line is counted in `dropped` (a sensor edge with nobody listening)."""
        with self._lock:
            try:
                self._send(line)
                self.sent += 1
                return True
            except OSError:
                pass
            if self.sock is not None:
                try:
                    self.sock.close()
                    self._connect(0.5)
                    self._send(line)
                    self.sent += 1
                    return True
                except OSError:
                    pass
            self.dropped += 1
            return False

    def send(self, event):
        self.send_line(encode(event))

    def play(self, tl, t0=None, speed=1.0, stop=None):
        """Send each event at t0 + t/speed (time.monotonic clock); ones already due go at
        once. Returns {"sent", "late_ms_max"} (lateness of the due ones). `stop`: this
        play's own stop flag (each start() makes one, so a play that outlived its stop()
        under load can never resume and mix an old toss into the next one)."""
        stop = self._stop if stop is None else stop
        t0 = time.monotonic() if t0 is None else t0
        late = []
        for t, line in wire_lines(tl):
            if stop.is_set():
                break
            due = t0 + t / speed
            now = time.monotonic()
            if due > now:
                stop.wait(due - now)
                if stop.is_set():
                    break
            if t >= 0:
                late.append((time.monotonic() - due) * 1000)
            self.send_line(line)
        return {"sent": len(late), "late_ms_max": max(late) if late else 0.0}

    def start(self, tl, t0=None, speed=1.0):
        """play() on a background thread; join with wait()."""
        self.stop()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self.play, args=(tl, t0, speed, self._stop),
                                        daemon=True)
        self._thread.start()
        return self._thread

    def wait(self, timeout=None):
        if self._thread is not None:
            self._thread.join(timeout)

    def stop(self):
        self._stop.set()
        self.wait(1.0)

    def close(self):
        self.stop()
        if self.sock is not None:
            try:                       # shutdown first: it also wakes the reader thread
                self.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            try:
                self.sock.close()
            except OSError:
                pass
            self.sock = None
