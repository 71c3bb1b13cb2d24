"""RingHost: one ring's live loop — link events recorded then acked, spins adjudicated, light set.

The same class runs `ring run` (real board, real camera) and `ring demo` (simulated board
under `micropython`, simulated camera). Order of duties for every device event: record it
durably in the audit log, then acknowledge it on the link (so nothing acknowledged is ever
lost), then act on it. The host decides the final outcome; the board has already barred
the spin on its own when a sensor said so (rule 7.2: before the coins come to rest).
"""
import time

import cv2

from ..errors import UserError
from ..fw import ringmsg as rm
from ..game.adjudicate import AdjudicationError, SpinAdjudicator
from ..record.rebuild import record_op
from ..record.spins import record_event, record_spin

# Coins count as still once the camera has seen no motion for this long (the board's quiet
# time after the last impact is the other, independent half of "at rest").
STILL_WINDOW_S = 0.15


class Spin:
    """What the host knows about the spin in progress."""

    def __init__(self, number):
        self.number = number
        self.adj = SpinAdjudicator(number)
        self.t_first_impact = None
        self.t_rest = None           # host clock when the board said "at rest"
        self.t_result = None
        self.phase = rm.PH_ARMED
        self.lights = []             # (light name, edge-to-light us or -1)
        self.barred = []             # reasons the board barred the spin
        self.board_restarted = False
        self.outcome = None
        self.finished = False       # the result was applied to the table (6.9)
        self.verdicts = []


class RingHost:
    def __init__(self, link, log, engine, camera=None, ring_model=None, face_model=None,
                 quiet_s=1.0, stills=3, still_timeout_s=2.5, camera_stale_s=1.0, say=print):
        self.link = link
        self.log = log
        self.engine = engine
        self.camera = camera
        self.ring_model = ring_model
        self.face_model = face_model
        self.quiet_s = quiet_s
        self.stills = stills
        self.still_timeout_s = still_timeout_s
        self.camera_stale_s = camera_stale_s
        self.say = say
        self.spin = None
        self.spins = 0
        self.light = "off"
        self.phase = "idle"
        self.boot_id = None
        self.edge_to_light_us = []
        self.watcher = None
        self.camera_fault = False
        self.alarms_recorded = 0
        self._alarm_check_t = 0.0

    # ---- table ops -----------------------------------------------------------------------
    def apply(self, op):
        """Apply one table op to the rules engine, record it, -> the engine's events."""
        events = self.engine.apply(op)
        record_op(self.log, op, events)
        return events

    # ---- link events ---------------------------------------------------------------------
    def pump(self, timeout=0.05):
        """Handle the device events that arrive within `timeout` s. -> number handled."""
        n = 0
        now = time.monotonic()
        if now - self._alarm_check_t > 0.5:
            self._alarm_check_t = now
            self.check_alarms()
        deadline = now + timeout
        while True:
            ev = self.link.get_event(timeout=max(0.0, deadline - time.monotonic()))
            if ev is None:
                return n
            self.handle(ev)
            n += 1

    def check_alarms(self):
        """Record every new link security alarm (a frame with a good CRC and a bad tag) so the
        regulator sees it in the audit log, not only in the host's console."""
        stats = self.link.stats() if hasattr(self.link, "stats") else {}
        alarms = int(stats.get("alarms", 0) or 0)
        if alarms > self.alarms_recorded:
            self.log.append("security-alarm", {"alarms_total": alarms,
                                               "new": alarms - self.alarms_recorded,
                                               "link": {k: v for k, v in stats.items()
                                                        if isinstance(v, (int, float, str))}})
            self.say("  ! SECURITY ALARM: %d frame(s) with a bad authentication tag on the link"
                     % (alarms - self.alarms_recorded))
            self.alarms_recorded = alarms

    def handle(self, ev):
        extra = {"spin": self.spin.number} if self.spin is not None else {}
        record_event(self.log, ev, **extra)                                # durable first
        self.link.ack(ev)                                                  # then acknowledged
        code = ev.code
        if self.boot_id is not None and ev.boot_id != self.boot_id:
            self._board_restarted(ev)
        self.boot_id = ev.boot_id
        if code == rm.EV_LIGHT:
            name = rm.LIGHT_NAMES[ev.a] if 0 <= ev.a < len(rm.LIGHT_NAMES) else str(ev.a)
            self.light = name
            if ev.b >= 0:
                self.edge_to_light_us.append(ev.b)
            if self.spin is not None:
                self.spin.lights.append((name, ev.b))
        elif code == rm.EV_PHASE and 0 <= ev.a < len(rm.PHASE_NAMES):
            self.phase = rm.PHASE_NAMES[ev.a]
        spin = self.spin
        if code == rm.EV_PHASE and ev.a == rm.PH_ARMED and (spin is None or spin.outcome is not None):
            # Armed from the boxer's "come in spinner" button on the board itself.
            self.spins += 1
            spin = self.spin = Spin(self.spins)
            self.log.append("arm", {"spin": self.spins, "by": "board button"})
            if self.watcher is not None:
                self.watcher.reset()
        if spin is None or spin.outcome is not None:
            return
        spin.adj.feed(ev)
        if code == rm.EV_PHASE:
            spin.phase = ev.a
            if ev.a == rm.PH_LANDED and spin.t_first_impact is None:
                spin.t_first_impact = time.monotonic()
            elif ev.a == rm.PH_AT_REST and spin.t_rest is None:
                spin.t_rest = time.monotonic()
        elif code == rm.EV_REST and spin.t_rest is None:
            spin.t_rest = time.monotonic()
        elif code == rm.EV_BARRED:
            spin.barred.append(rm.BAR_NAMES.get(ev.a, "barred"))

    def _board_restarted(self, ev):
        spin = self.spin
        if spin is not None and spin.outcome is None and not spin.board_restarted:
            spin.board_restarted = True
            self.say("  ! ring board restarted mid-spin (boot %08x): the spin is void" % ev.boot_id)

    # ---- a spin --------------------------------------------------------------------------
    def arm(self, check_table=True):
        """'No more bets, come in spinner' (6.3): arm the board for the next spin.

        Refused (UserError naming the rule) while a spin is still undecided or unsettled, or
        while the table is not ready for a spin: the light must never show a result the
        rules would then refuse."""
        if self.spin is not None and not self.spin.finished:
            raise UserError("spin %d is not finished yet: decide and settle it first (6.9)"
                            % self.spin.number)
        if check_table:
            if self.engine.spinning is None:
                raise UserError("no spinner: call one in first (4.2), e.g. "
                                "{\"op\": \"spinner\", \"calls\": \"heads\"}")
            if self.engine.betting != "closed":
                raise UserError("betting is not closed: call 'no more bets, come in spinner' "
                                "first (6.3), i.e. {\"op\": \"bets-closed\"}")
        self.spins += 1
        self.spin = Spin(self.spins)
        if self.camera is not None and self.ring_model is not None:
            if self.watcher is None:
                self.watcher = CameraWatcher(self.camera, self.ring_model, self.face_model,
                                             keep=self.stills)
            self.watcher.reset()
        self.link.send_cmd(rm.CMD_ARM, "")
        self.log.append("arm", {"spin": self.spins})
        return self.spin

    def wait_armed(self, timeout=3.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.spin.phase != rm.PH_ARMED or self.phase in ("armed", "in-flight"):
                return True
            self.pump(0.02)
        return False

    def wait_rest(self, timeout):
        """Pump events until the board says the coins are at rest (or `timeout` s)."""
        deadline = time.monotonic() + timeout
        spin = self.spin
        while time.monotonic() < deadline:
            self.pump(0.01)
            if spin.t_rest is not None or spin.board_restarted:
                return True
        return False

    def still_verdicts(self):
        """Verdicts of the newest still frames once the board says "at rest": (frames, verdicts).

        The watcher has been looking (and judging still frames) since the arm, so normally
        they are ready at once; otherwise wait up to `still_timeout_s`. ([], []) when the
        camera stalls: the boxer calls the spin."""
        watcher = self.watcher
        if watcher is None:
            return [], []
        deadline = time.monotonic() + self.still_timeout_s
        while True:
            got = watcher.judged(self.stills)
            if len(got) >= self.stills:
                break
            if watcher.stalled(self.camera_stale_s):
                return [], []
            if time.monotonic() > deadline:
                break
            self.pump(0.005)
        return [f for f, _ in got], [v for _, v in got]

    def adjudicate(self):
        """Decide the spin from the board's events and the still frames; set the light."""
        spin = self.spin
        if spin.board_restarted:
            spin.adj.call_no_spin("boxer", "7.1.1", "ring board restarted during the spin: "
                                  "no reliable record of it")
        # A no-spin already called by a person or barred by a ring sensor stands whatever the
        # coins show (7.3, 7.6): no need to wait for still frames.
        certain_no_spin = bool(spin.adj.calls or spin.barred)
        if certain_no_spin:
            # whatever the camera has already judged still adds its reasons (7.3.1, 7.3.4)
            got = self.watcher.judged(self.stills) if self.watcher is not None else []
            frames, spin.verdicts = [f for f, _ in got], [v for _, v in got]
            if not frames and self.watcher is not None:
                frames = self.watcher.latest()      # for the record only
        else:
            frames, spin.verdicts = self.still_verdicts()
        self.camera_fault = self.watcher is not None and self.watcher.stalled(self.camera_stale_s)
        if not certain_no_spin and spin.verdicts and len(spin.verdicts) < self.stills:
            # Several agreeing still frames are required (issue 4): fewer is not a call.
            spin.verdicts.append({"result": "unsure", "coins": [], "reasons": [
                "unsure: only %d still frame(s) of the coins on camera, need %d"
                % (len(spin.verdicts), self.stills)]})
        outcome = spin.adj.decide(spin.verdicts if spin.verdicts else None)
        spin.outcome = outcome
        spin.t_result = time.monotonic()
        # A stalled camera is a fault the boxer must see (fault light); the boxer then calls it.
        light = rm.LIGHT_FAULT if self.camera_fault else outcome.light
        self.link.send_cmd(rm.CMD_LIGHT, str(light))
        # Every still frame that decided the spin is kept (JPEG), then the spin record.
        jpegs = []
        for i, frame in enumerate(f for f in frames if f is not None):
            ok, jpg = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 90])
            if ok:
                jpegs.append((jpg.tobytes(), spin.verdicts[i] if i < len(spin.verdicts) else None))
        record_spin(self.log, spin.number, spin.adj, frames=jpegs, verdicts=spin.verdicts,
                    lights=spin.lights, barred=spin.barred, camera_fault=self.camera_fault)
        return outcome

    def boxer_call(self, result, reason, actor="boxer"):
        """The boxer confirms or overrides the outcome (recorded with the reason)."""
        spin = self.spin
        try:
            outcome = spin.adj.resolve(actor, result, reason)
        except AdjudicationError as exc:
            self.log.append("override-refused", {"spin": spin.number, "rule": exc.rule,
                                                 "reason": exc.reason, "actor": actor})
            raise
        spin.outcome = outcome
        self.link.send_cmd(rm.CMD_LIGHT, str(outcome.light))
        self.log.append("override", {"spin": spin.number, "actor": actor, "result": result,
                                     "reason": reason, "outcome": outcome.as_json()})
        return outcome

    def finish(self):
        """Announce the result to the table (6.9): apply it to the rules engine."""
        spin = self.spin
        self.link.send_cmd(rm.CMD_SPIN_DONE, "")
        events = []
        if spin.outcome.result in ("heads", "tails", "odds", "no-spin"):
            events = self.apply({"op": "spin", "result": spin.outcome.result})
        spin.finished = True
        return events

    def close(self):
        if self.watcher is not None:
            self.watcher.stop()


class CameraWatcher:
    """Reads the camera on its own thread, runs the per-frame motion check (issue 4) and
    judges frames as they come, so verdicts are ready when the board says "at rest".

    Frames are judged while no coin moves; once the motion check has seen the coins still
    for its window, every frame inside that still period counts as a still frame (they
    were still all along), so the stills are there the moment the window closes."""

    def __init__(self, camera, ring_model, face_model, keep=3, window_s=STILL_WINDOW_S):
        import threading
        from ..vision import MotionCheck
        self.camera = camera
        self.ring_model = ring_model
        self.face_model = face_model
        self.motion = MotionCheck(ring_model, window_s=window_s)
        self.keep = keep
        self.lock = threading.Lock()
        self.recent = []            # (host time, frame, verdict) while nothing moves
        self.still_since = None     # host time the coins were first seen still, once confirmed
        self.last_frame_t = time.monotonic()
        self.errors = 0
        self.frames = 0
        self.last_frame = None
        self._stop = False
        self.thread = threading.Thread(target=self._run, name="camera", daemon=True)
        self.thread.start()

    def reset(self):
        with self.lock:
            self.recent = []
            self.still_since = None

    def _run(self):
        from ..vision import classify
        while not self._stop:
            try:
                frame, t_s = self.camera.read()
            except Exception:           # a camera that throws is a stalled camera
                self.errors += 1
                frame = None
            if frame is None:
                time.sleep(0.01)
                continue
            now = time.monotonic()
            self.last_frame_t = now
            self.frames += 1
            self.last_frame = frame
            state = self.motion.update(frame, now)
            coins = state.get("coins") or []
            if not coins or any(c.get("moving") for c in coins):
                with self.lock:
                    self.recent = []    # something moved: earlier frames are stale
                    self.still_since = None
                continue
            verdict = classify(frame, self.ring_model, self.face_model)
            with self.lock:
                self.recent.append((now, frame, verdict))
                del self.recent[:-4 * self.keep]
                if state.get("still"):
                    self.still_since = now - float(state.get("still_s", 0.0))

    def judged(self, n):
        """The newest n (frame, verdict) pairs seen inside the confirmed still period."""
        with self.lock:
            if self.still_since is None:
                return []
            got = [(f, v) for (t, f, v) in self.recent if t >= self.still_since - 1e-6]
            return got[-n:]

    def latest(self):
        return [self.last_frame] if self.last_frame is not None else []

    def stalled(self, stale_s):
        return time.monotonic() - self.last_frame_t > stale_s

    def stop(self):
        self._stop = True
        self.thread.join(2.0)
