"""RingHost: one ring's live loop, and the only writer during play — it owns the spin from arm to settlement.

The same class runs `ring run` (real board, real cameras) and `ring demo` (simulated board under
`micropython`, simulated cameras); the cameras are its watcher's (`runner.rigwatch.RigWatcher`:
one camera is a rig of one). Consoles are thin clients of its API:

    host.start()                      # its own thread runs the loop (or call host.step())
    reply = host.submit(cmd)          # typed Command (runner.commands) -> Reply; any thread
    sub = host.subscribe(maxlen=256)  # sub.get(timeout) -> HostEvent (runner.events)
    host.snapshot()                   # JSON-able state: phase, light, spinner, results, ...
    host.camera_view()                # (latest frame, t_s, coins) for a screen
    host.stop()

Order of duties, always: record durably (record.records), then act on the board, then
announce (publish). Every board event is recorded, then acknowledged on the link, then acted
on; a light command, an arm, a settlement and every published event follow the record that
justifies them. The host decides the outcome; the board has already barred the spin on its
own when a sensor said so (rule 7.2: before the coins come to rest).
"""
import collections
import logging
import queue
import re
import threading
import time

from ..fw import ringmsg as rm
from ..game.adjudicate import AdjudicationError, SpinAdjudicator
from ..link.alarms import BoardAlarms
from ..game.engine import MalformedOp
from ..link.client import LinkError
from ..record import records
from ..record.log import LogWriteError
from ..record.rebuild import last_spin_number, rebuild_engine
from ..record.witness import WitnessFeed
from . import commands as C
from . import faults
from .events import EventBus

logger = logging.getLogger("ringctl.runner")

PLAY_EVENTS = (rm.EV_PHASE, rm.EV_BEAM, rm.EV_WALL, rm.EV_MAT, rm.EV_BUTTON, rm.EV_IMPACT,
               rm.EV_REST, rm.EV_BARRED)
NO_SPIN_SETTLE_S = 2.0         # a barred/called spin: decided once the ring is this quiet
RESULTS_KEPT = 20              # snapshot()["results"]: the newest results, newest last
ARM_ROLES = ("boxer", "supervisor")
TABLE_ROLES = ("boxer", "supervisor")
ACK_ROLES = ("boxer", "supervisor", "technician", "surveillance")
LINK_LOST = "LINK LOST: the board shows link-lost; calls are manual"
FAULT_ACK_ROLES = ("supervisor",)     # a board fault is back in play only on a supervisor's word
CLEAR_ROLES = ("boxer", "supervisor", "technician")
RULE_AT_START = re.compile(r"^(\d+(?:\.\d+)*)\s")
STILL_WAIT_S = 0.02            # waiting for still verdicts: board events are handled this often


class Refused(Exception):
    """A command the host will not carry out: the rule and one line why."""

    def __init__(self, rule, reason):
        super().__init__(reason)
        self.rule = rule
        self.reason = reason


class Spin:
    """What the host knows about the spin in progress."""

    def __init__(self, number):
        self.number = number
        self.adj = SpinAdjudicator(number)
        self.t_armed = time.monotonic()
        self.t_last_play = self.t_armed    # last beam, impact, wall, mat, phase... event
        self.t_first_impact = None
        self.t_rest = None           # host clock when the board said "at rest"
        self.t_result = None         # host clock when the spin was decided
        self.t_evidence = None       # host clock when its evidence (JPEG) was ready to record
        self.t_recorded = None       # host clock when that decision's record was durable
        self.phase = rm.PH_ARMED
        self.lights = []             # (light name, edge-to-light us or -1)
        self.barred = []             # reasons the board barred the spin
        self.board_restarted = False
        self.outcome = None
        self.finished = False        # the result was applied to the table (6.9)

    @property
    def state(self):
        if self.finished:
            return "settled"
        if self.outcome is not None:
            return "unsure" if self.outcome.result == "unsure" else "decided"
        return rm.PHASE_NAMES[self.phase] if 0 <= self.phase < len(rm.PHASE_NAMES) else "armed"


class RingHost:
    def __init__(self, link, log, engine, watcher=None, quiet_s=1.0, stills=3, still_timeout_s=2.5,
                 camera_stale_s=1.0, rest_timeout_s=15.0, vision=None):
        self.link = link
        self.log = log
        if vision:   # which calibration and model judge the spins, before any of them
            records.record_vision(log, vision)
        self.engine = engine
        self.quiet_s = quiet_s
        self.stills = stills
        self.still_timeout_s = still_timeout_s
        self.camera_stale_s = camera_stale_s
        self.rest_timeout_s = rest_timeout_s   # landed but no "at rest" this long: decide anyway
        self.spin = None
        self.spins = last_spin_number(log)       # numbered once per log, never reused
        self.light = "off"
        self.phase = "unknown"                  # the board's phase, as it last reported it
        self.fault = None                       # the board's fault while it holds one (faults.py)
        self.boot_id = None
        self.watcher = watcher          # the cameras (runner.rigwatch.RigWatcher), or None: manual calls
        self.camera_fault = False
        self.link_up = None
        self._link_state = None
        self.alarms_recorded = 0
        self.board_alarms = BoardAlarms()       # the board's own (EV_LINK)
        self.alarms = {}                        # id (seq of its record) -> alarm, unacknowledged
        self.results = collections.deque(maxlen=RESULTS_KEPT)
        self.bus = EventBus()
        self._alarm_check_t = 0.0
        self._lock = threading.RLock()          # held while the host changes its state
        self._inbox = queue.Queue()             # commands from other threads, in order
        self._thread = None
        self._stopping = threading.Event()
        self._last_error = None
        self._sent = collections.OrderedDict()  # cmd id -> (code, spin): awaiting EV_RESULT
        self.witness = WitnessFeed(log, link, alarm=self._alarm)   # the board witnesses the log
        self.log_down = None        # the one line saying why the log cannot be written

    # ==== the API for consoles ================================================================
    def subscribe(self, maxlen=256):
        """A new Subscription to every HostEvent from now on (bounded; see runner.events)."""
        return self.bus.subscribe(maxlen)

    def submit(self, cmd, timeout=30.0):
        """Carry out one Command, in order with the host's own loop -> Reply. Callable from
        any thread: with the loop on its own thread (start()) the command waits its turn."""
        if not isinstance(cmd, C.Command):
            raise TypeError("submit() takes a runner.commands.Command, not %r" % (cmd,))
        if self._thread is None or threading.get_ident() == self._thread.ident:
            with self._lock:
                return self._execute(cmd)
        done, box = threading.Event(), []
        self._inbox.put((cmd, done, box))
        if not done.wait(timeout):
            return C.Reply(False, "the host did not take the command within %g s" % timeout)
        return box[0]

    def snapshot(self):
        """The state a screen shows, JSON-able (a copy: safe to keep)."""
        with self._lock:
            eng = self.engine
            spin = self.spin
            state = eng.state()
            state["open_wagers"] = state.pop("wagers")   # the engine keeps only open wagers
            spinner = None
            if eng.spinning is not None:
                spinner = {"by": eng.spinning, "name": eng.game.name if eng.game else None,
                           "side": eng.game.calls if eng.game else None}
            return {
                "phase": self.phase, "light": self.light,
                "fault": None if self.fault is None else dict(self.fault),
                "link": {"up": bool(self.link_up)},
                "camera": ("none" if self.watcher is None else
                           "stalled" if self.camera_fault else "ok"),
                "spinner": spinner,
                "results": list(self.results),
                "spin": None if spin is None else {
                    "number": spin.number, "state": spin.state,
                    "result": spin.outcome.result if spin.outcome is not None else None},
                "table": state,
                "alarms": [dict(a) for a in self.alarms.values()],
                "log_down": self.log_down,
            }

    def camera_view(self):
        """(latest frame or None, its t_s, coins [{center, radius, face, flat, inside,
        confidence, moving}]): from the camera thread's last look; never waits on a spin."""
        if self.watcher is None:
            return None, None, []
        return self.watcher.view()

    def start(self):
        """Run the loop on a thread of its own (until stop())."""
        if self._thread is None:
            self._stopping.clear()
            self._thread = threading.Thread(target=self._run, name="ring-host", daemon=True)
            self._thread.start()
        return self

    def stop(self):
        self._stopping.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(5.0)
        self._thread = None

    def close(self):
        self.stop()
        if self.watcher is not None:
            self.watcher.stop()

    # ==== the loop ============================================================================
    def _run(self):
        while not self._stopping.is_set():
            try:
                self.step(0.02)
            except Exception as exc:        # the loop must outlive a bug: say so, keep going
                logger.exception("ring host: error in the loop")
                self._loop_error(exc)
                time.sleep(0.1)

    def _loop_error(self, exc):
        text = "host error: %s: %s (the ring keeps running; see the host's log)" % (
            type(exc).__name__, exc)
        if text == self._last_error:
            return                          # once per distinct error, not once per turn
        self._last_error = text
        try:
            with self._lock:
                self._alarm("host-error", text)
        except Exception:                   # cannot even record it: still show it
            self._publish("alarm", {"id": None, "kind": "host-error", "text": text,
                                    "spin": None, "t": time.time()})

    def step(self, timeout=0.02):
        """One turn: queued commands, board events (up to `timeout` s), alarms, the spin.
        Once the log cannot be written, only commands are taken (and refused, saying why)."""
        self._take_commands()
        if self.log_down:
            time.sleep(timeout)
            return
        try:
            self.pump(timeout)
            self._watch_link()
            spin = self.spin
            if spin is not None and spin.outcome is None and self._ready_to_decide(spin):
                self.adjudicate()
            if spin is not None and spin.outcome is not None and spin.outcome.result != "unsure" \
                    and not spin.finished:
                with self._lock:
                    self._settle()
        except LogWriteError as exc:
            self._log_failed(exc)

    def _log_failed(self, exc):
        """Record, then announce: the log cannot be written, so nothing more is announced.
        The board shows the fault light, the boxer gets one line saying why and what to do,
        board events stay unacknowledged on the board (recorded after the restart), and the
        table state goes back to what the log holds."""
        with self._lock:
            if self.log_down:
                return
            self.log_down = str(exc)
            self.engine = rebuild_engine(self.log)      # nothing in memory ahead of the log
            try:
                self.link.send_cmd(rm.CMD_LIGHT, str(rm.LIGHT_FAULT))   # a fault: no decision
            except Exception:           # the link too: the board goes link-lost by itself
                pass
            self._publish("log-down", {"text": self.log_down,
                                       "spin": self.spin.number if self.spin else None})

    def _take_commands(self):
        while True:
            try:
                cmd, done, box = self._inbox.get_nowait()
            except queue.Empty:
                return
            with self._lock:
                box.append(self._execute(cmd))
            done.set()

    def _ready_to_decide(self, spin):
        """At rest (or the board restarted, or a coin thrown out: 7.4.1 is no spin now) -- or,
        when no at-rest report comes: a spin already barred or called no spin (certain, 7.3 /
        7.6) once the ring has been quiet a while, and any landed spin after rest_timeout_s (the
        adjudicator then says what is missing)."""
        if spin.t_rest is not None or spin.board_restarted or spin.adj.lost is not None:
            return True
        now = time.monotonic()
        if (spin.barred or spin.adj.calls) and \
                now - spin.t_last_play > self.quiet_s + NO_SPIN_SETTLE_S:
            return True
        return spin.t_first_impact is not None and now - spin.t_first_impact > self.rest_timeout_s

    def pump(self, timeout=0.05):
        """Handle the board events that arrive within `timeout` s. -> number handled."""
        n = 0
        now = time.monotonic()
        if now - self._alarm_check_t > 0.5:
            self._alarm_check_t = now
            self.check_alarms()
            if self.spin is None or self.spin.finished:
                with self._lock:
                    self.witness.sync(commit=False)      # catch up a backlog, between spins
        deadline = now + timeout
        while True:
            ev = self.link.get_event(timeout=max(0.0, deadline - time.monotonic()))
            if ev is None:
                return n
            self.handle(ev)
            n += 1
            spin = self.spin
            if spin is not None and spin.outcome is None and (spin.t_rest is not None
                                                              or spin.board_restarted):
                return n                # at rest: decide now, not at the end of the wait

    def wait_rest(self, timeout):
        """Pump events until the board says the coins are at rest (or `timeout` s)."""
        deadline = time.monotonic() + timeout
        spin = self.spin
        while time.monotonic() < deadline:
            self.pump(0.01)
            if spin.t_rest is not None or spin.board_restarted:
                return True
        return False

    # ==== board events ========================================================================
    def handle(self, ev):
        """One board event: recorded, then acknowledged, then acted on and announced."""
        with self._lock:
            spin = self.spin
            extra = {"spin": spin.number} if spin is not None else {}
            records.record_event(self.log, ev, **extra)                    # durable first
            board_alarm = self.board_alarms.note(self.log, ev)
            self.link.ack(ev)                                              # then acknowledged
            if board_alarm is not None:
                self._show_alarm(board_alarm[0], "security", board_alarm[1])
            self._publish("board-event", dict(
                {"name": ev.name, "code": ev.code, "boot_id": ev.boot_id, "event_id": ev.event_id,
                 "t_us": ev.t_us, "a": ev.a, "b": ev.b, "text": ev.text}, **extra))
            if self.boot_id is not None and ev.boot_id != self.boot_id:
                self._board_restarted(ev)
            if ev.boot_id != self.boot_id:
                self.witness.start()                # where does the board's chain stand?
            self.boot_id = ev.boot_id
            self.witness.on_event(ev)
            if ev.code == rm.EV_LIGHT:
                name = rm.LIGHT_NAMES[ev.a] if 0 <= ev.a < len(rm.LIGHT_NAMES) else str(ev.a)
                self.light = name
                if spin is not None:
                    spin.lights.append((name, ev.b))
                self._publish("light", dict({"light": name, "edge_to_light_us": ev.b}, **extra))
            elif ev.code == rm.EV_PHASE and 0 <= ev.a < len(rm.PHASE_NAMES):
                self.phase = rm.PHASE_NAMES[ev.a]
                self._publish("phase", dict({"phase": self.phase, "light": self.light}, **extra))
            elif ev.code == rm.EV_FAULT:
                self._board_fault(ev)
            elif ev.code == rm.EV_SELFTEST:
                self._board_selftest(ev)
            elif ev.code == rm.EV_STATS:
                self._board_status(ev)
            elif ev.code == rm.EV_RESULT and ev.a in self._sent:
                code, spin_no = self._sent.pop(ev.a)
                if ev.b != rm.R_OK:
                    self._board_refused(code, spin_no, ev)
                    spin = self.spin
            if ev.code == rm.EV_PHASE and ev.a == rm.PH_ARMED and (spin is None
                                                                   or spin.outcome is not None):
                # Armed from the boxer's "come in spinner" button on the board itself.
                spin = self._new_spin()
                records.record_arm(self.log, spin.number, by="board button")
                self._publish("spin-started", {"spin": spin.number, "by": "board button"})
            if spin is None or spin.outcome is not None:
                return
            calls = len(spin.adj.calls)
            if ev.code in PLAY_EVENTS:
                spin.t_last_play = time.monotonic()
            spin.adj.feed(ev)
            for step in spin.adj.calls[calls:]:        # the boxer's no-spin button (7.2)
                self._publish("call", {"spin": spin.number, "actor": step["actor"], "user": None,
                                       "role": "boxer", "result": "no-spin", "rule": step["rule"],
                                       "reason": step["reason"], "source": step["source"]})
            if ev.code == rm.EV_PHASE:
                spin.phase = ev.a
                if ev.a == rm.PH_LANDED and spin.t_first_impact is None:
                    spin.t_first_impact = time.monotonic()
                elif ev.a == rm.PH_AT_REST and spin.t_rest is None:
                    spin.t_rest = time.monotonic()
            elif ev.code == rm.EV_REST and spin.t_rest is None:
                spin.t_rest = time.monotonic()
            elif ev.code == rm.EV_BARRED:
                spin.barred.append(rm.BAR_NAMES.get(ev.a, "barred"))

    def _board_refused(self, code, spin_no, ev):
        """The board said no to one of our commands: the boxer must see it. A refused arm
        (e.g. during its self-test) means that spin never started: nothing to decide."""
        name = rm.CMD_NAMES.get(code, str(code))
        self._alarm("board-refused", "the board refused %s: %s" % (name, ev.text or ev.b),
                    spin=spin_no)
        spin = self.spin
        if code == rm.CMD_ARM and spin is not None and spin.number == spin_no \
                and spin.outcome is None and spin.t_first_impact is None:
            self.spin = None

    def _board_status(self, ev):
        """The board's status answer (EV_STATS, "... f=<fault bits hex>"): a board found in its
        fault phase when the host connects has sent no EV_FAULT to this host; its bits are
        here, so the fault is named and cleared the same way."""
        m = faults.STATUS_FAULT.search(ev.text or "")
        mask = int(m.group(1), 16) & ~rm.FAULT_HOST if m else 0
        # no bits: the board is still in its boot self-test (it starts in the fault phase)
        if self.phase == "fault" and self.fault is None and mask:
            self._board_fault(ev, mask, "reported by the board's status")

    def _board_fault(self, ev, mask=None, text=None):
        """The board holds a fault (fault phase, fault light, arming refused): say what it is
        and how to clear it. A fault outside the fault phase (e.g. a bad config value at
        boot) is an alarm only."""
        mask = (ev.a if mask is None else mask) & ~rm.FAULT_HOST
        text = ev.text if text is None else text
        what = faults.what(mask, text)
        if self.phase != "fault":
            self._alarm("board-fault", "ring board reports: %s" % (text or what))
            return
        f = self.fault
        if f is not None and f["mask"] == mask and f["alarm"] in self.alarms:
            f["cleared"] = False                  # the same fault again (a failed re-test)
            self._publish("fault", dict(f))
            return
        seq = records.record_alarm(self.log, "board-fault", "ring board FAULT: %s (%s). To clear: "
                                   "%s" % (what, text or "no detail", faults.how_to_clear(mask)))
        self.fault = {"mask": mask, "what": what, "text": text, "alarm": seq,
                      "clear": faults.how_to_clear(mask, seq), "cleared": False}
        self._show_alarm(seq, "board-fault", "ring board FAULT: %s. To clear: %s"
                         % (what, self.fault["clear"]))
        self._publish("fault", dict(self.fault))

    def _board_selftest(self, ev):
        passed = ev.a == 0
        self._publish("selftest", {"pass": passed, "mask": ev.b,
                                   "what": "pass" if passed else faults.what(ev.b, ev.text)})
        f = self.fault
        if passed and f is not None and not f["cleared"] and not f["mask"] & rm.FAULT_INTEGRITY:
            f["cleared"] = True
            self._publish("fault-cleared", {"alarm": f["alarm"], "what": f["what"]})

    def _board_restarted(self, ev):
        spin = self.spin
        if spin is not None and spin.outcome is None and not spin.board_restarted:
            spin.board_restarted = True
            self._alarm("board-restarted", "ring board restarted mid-spin (boot %08x): the spin "
                        "is void" % ev.boot_id, spin=spin.number)

    def check_alarms(self):
        """Record every new link security alarm (a frame with a good CRC and a bad tag) so the
        regulator sees it in the audit log, then show it."""
        stats = self.link.stats() if hasattr(self.link, "stats") else {}
        alarms = int(stats.get("alarms", 0) or 0)
        if alarms > self.alarms_recorded:
            with self._lock:
                new = alarms - self.alarms_recorded
                seq = records.record_security_alarm(self.log, alarms, new, stats)
                self.alarms_recorded = alarms
                self._show_alarm(seq, "security", "SECURITY ALARM: %d frame(s) with a bad "
                                 "authentication tag on the link" % new)

    def _watch_link(self):
        up = bool(getattr(self.link, "link_up", False))
        repl = bool(getattr(self.link, "at_repl", False))
        if (up, repl) == self._link_state:
            return
        with self._lock:
            was, self.link_up = self.link_up, up
            self._link_state = (up, repl)
            info = getattr(self.link, "peer_info", None) or {}
            lost = None
            if was and not up:            # the alarm's record comes before either announcement
                lost = records.record_alarm(self.log, "link-lost", LINK_LOST)
            self._publish("link", {"up": up, "at_repl": repl, "firmware": info.get("fw"),
                                   "image": info.get("image")})
            if lost is not None:
                self._show_alarm(lost, "link-lost", LINK_LOST)
            if up and not was:
                self._tell_board(rm.CMD_STATUS, "")     # the board's phase is the truth: ask it

    def _alarm(self, kind, text, spin=None):
        seq = records.record_alarm(self.log, kind, text, spin=spin)        # durable first
        self._show_alarm(seq, kind, text, spin)

    def _show_alarm(self, seq, kind, text, spin=None):
        alarm = {"id": seq, "kind": kind, "text": text, "spin": spin, "t": time.time()}
        self.alarms[seq] = alarm
        self._publish("alarm", dict(alarm))

    # ==== a spin ==============================================================================
    def _new_spin(self):
        self.spins += 1
        self.spin = Spin(self.spins)
        if self.watcher is not None:
            self.watcher.reset()
        return self.spin

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
            # woken the moment the still window closes (no polling interval in the result's
            # time); board events meanwhile wait at most STILL_WAIT_S to be recorded
            got = watcher.wait_judged(self.stills, STILL_WAIT_S)
            if len(got) >= self.stills:
                break
            if watcher.stalled(self.camera_stale_s):
                return [], []
            if time.monotonic() > deadline:
                break
            self.pump(0)
        return [f for f, _ in got], [v for _, v in got]

    def adjudicate(self):
        """Decide the spin from the board's events and the still frames; record it, then set
        the light, then announce it. -> Outcome."""
        spin = self.spin
        if spin.board_restarted:
            with self._lock:
                spin.adj.call_no_spin("boxer", "7.1.1", "ring board restarted during the spin: "
                                      "no reliable record of it")
        # A no-spin already called by a person or barred by a ring sensor stands whatever the
        # coins show (7.3, 7.6): no need to wait for still frames.
        certain_no_spin = bool(spin.adj.calls or spin.barred)
        if certain_no_spin:
            # whatever the camera has already judged still adds its reasons (7.3.1, 7.3.4)
            got = self.watcher.judged(self.stills) if self.watcher is not None else []
            frames, verdicts = [f for f, _ in got], [v for _, v in got]
            if not frames and self.watcher is not None:
                frames = self.watcher.latest()      # for the record only
        else:
            frames, verdicts = self.still_verdicts()    # waits: not under the lock
        with self._lock:
            was_fault = self.camera_fault
            self.camera_fault = self.watcher is not None and self.watcher.stalled(self.camera_stale_s)
            outcome = spin.adj.decide(verdicts or None,
                                      need=1 if certain_no_spin else self.stills)
            t_result = time.monotonic()
            # A stalled camera is a fault the boxer must see (fault light); the boxer then calls it.
            light = rm.LIGHT_FAULT if self.camera_fault else outcome.light
            # each still moment's evidence, then its annotated copy (ring, coins, verdict drawn
            # on: what a person looks at; frame meta "annotated"), encoded by the watcher while
            # the still window ran
            jpegs = []
            for i, frame in enumerate(f for f in frames if f is not None):
                jpegs += self.watcher.evidence_jpegs(frame, verdicts[i] if i < len(verdicts) else None)
            spin.t_evidence = time.monotonic()
            records.record_spin(self.log, spin.number, spin.adj, frames=jpegs, verdicts=verdicts,
                                lights=spin.lights, barred=spin.barred,
                                camera_fault=self.camera_fault)          # durable first
            spin.outcome, spin.t_result, spin.t_recorded = outcome, t_result, time.monotonic()
            self._tell_board(rm.CMD_LIGHT, str(light))                     # then the board
            if self.camera_fault and not was_fault:
                self._alarm("camera-stalled", "camera stalled: the fault light is on; the boxer "
                            "calls the spin", spin=spin.number)
            self._publish("verdict", {
                "spin": spin.number, "result": outcome.result, "reasons": outcome.reasons,
                "rules": _rules(outcome.reasons), "unsure": outcome.result == "unsure",
                "decided_by": outcome.decided_by, "camera": [_verdict_json(v) for v in verdicts],
                "camera_fault": self.camera_fault, "board_restarted": spin.board_restarted,
                "camera_decided": not certain_no_spin,
                "light": rm.LIGHT_NAMES[light], "t_mono": self._timings(spin)})
            if outcome.result != "unsure":
                self._announce_result(spin)
            return outcome

    def _timings(self, spin):
        """Host monotonic clock (s) of the spin's milestones, for latency figures."""
        return {"armed": spin.t_armed, "landed": spin.t_first_impact, "rest": spin.t_rest,
                "result": spin.t_result, "evidence": spin.t_evidence, "recorded": spin.t_recorded}

    def _announce_result(self, spin):
        out = spin.outcome
        entry = {"spin": spin.number, "result": out.result, "decided_by": out.decided_by,
                 "t": time.time()}
        self.results.append(entry)
        self._publish("result", dict(entry, reasons=out.reasons, rules=_rules(out.reasons),
                                     override=out.override))

    def _settle(self):
        """Announce the result to the table (6.9): the board ends the spin, the rules engine
        settles the wagers (recorded, then announced)."""
        spin = self.spin
        events = []
        if spin.outcome.result in ("heads", "tails", "odds", "no-spin"):
            events = self._apply_op({"op": "spin", "result": spin.outcome.result})  # durable first
        self._tell_board(rm.CMD_SPIN_DONE, "")         # then the board
        spin.finished = True
        self.witness.sync()                     # once per spin: one flash write on the board
        self._publish("settlement", {"spin": spin.number, "result": spin.outcome.result,
                                     "events": events})
        return events

    def _tell_board(self, code, text):
        """Send a command to the board. The link queues it across a reconnect; only a full
        queue refuses it, and then the boxer must know (an alarm) while the host goes on."""
        try:
            cmd_id = self.link.send_cmd(code, text)
            self._sent[cmd_id] = (code, self.spin.number if self.spin is not None else None)
            while len(self._sent) > 64:
                self._sent.popitem(last=False)
            return True
        except LinkError as exc:
            self._alarm("board-command", "the board was not sent %s (%s)" % (
                rm.CMD_NAMES.get(code, code), exc), spin=self.spin.number if self.spin else None)
            return False

    def _apply_op(self, op, user=None, role=None):
        events = self.engine.apply(op)
        records.record_op(self.log, op, events, user=user, role=role)      # durable first
        return events

    def _publish(self, kind, data):
        self.bus.publish(kind, data)

    # ==== commands ============================================================================
    def _execute(self, cmd):
        """Carry out one command (under the lock) -> Reply. A refusal is recorded with its rule."""
        spin = self.spin
        if self.log_down:
            return C.Reply(False, self.log_down)           # cannot even record the refusal
        try:
            if cmd.role is None:
                raise Refused(None, "the command has no role: say who is asking (boxer, "
                              "supervisor, ...)")
            handler = getattr(self, "_do_" + cmd.name.replace("-", "_"))
            return handler(cmd)
        except (Refused, AdjudicationError) as exc:
            try:
                records.record_refused(self.log, cmd.as_json(), exc.rule, exc.reason,
                                       user=cmd.user, role=cmd.role,
                                       spin=spin.number if spin is not None else None)
            except LogWriteError as down:
                self._log_failed(down)
                return C.Reply(False, self.log_down)
            return C.Reply(False, exc.reason, exc.rule)
        except LogWriteError as exc:
            self._log_failed(exc)
            return C.Reply(False, self.log_down)

    def _need_role(self, cmd, roles, rule, what):
        if cmd.role not in roles:
            raise Refused(rule, "a %s may not %s (only %s)" % (cmd.role, what, " or ".join(roles)))

    def _do_arm(self, cmd):
        """'No more bets, come in spinner' (6.3): arm the board for the next spin. Refused while
        a spin is undecided or unsettled, or while the table is not ready for a spin: the light
        must never show a result the rules would then refuse."""
        self._need_role(cmd, ARM_ROLES, "6.3", "arm the ring")
        if self.spin is not None and not self.spin.finished:
            raise Refused("6.9", "spin %d is not finished yet: decide and settle it first"
                          % self.spin.number)
        if self.engine.spinning is None:
            raise Refused("4.2", "no spinner: call one in first, e.g. "
                          "{\"op\": \"spinner\", \"calls\": \"heads\"}")
        if self.engine.betting != "closed":
            raise Refused("6.3", "betting is not closed: call 'no more bets, come in spinner' "
                          "first, i.e. {\"op\": \"bets-closed\"}")
        if self.phase == "fault" or self.fault is not None:
            raise Refused(None, "not armed: " + self._fault_line())
        refusal = self.engine.spin_refusal()        # the rules engine's own precondition
        if refusal is not None:
            raise Refused(refusal[0], "not armed: %s" % refusal[1])
        before = self.spin
        spin = self._new_spin()
        records.record_arm(self.log, spin.number, user=cmd.user, role=cmd.role)   # durable first
        if not self._tell_board(rm.CMD_ARM, ""):                                  # then the board
            self.spin = before                # never armed: its number stays used, on record
            raise Refused(None, "the board could not be told to arm: see the alarm")
        self._publish("spin-started", {"spin": spin.number, "by": cmd.user, "role": cmd.role})
        return C.Reply(True, "spin %d: no more bets, come in spinner (arm sent; the board's "
                             "phase says when it is armed)" % spin.number, "6.3",
                       {"spin": spin.number})

    def _do_nospin(self, cmd):
        return self._call(cmd, "no-spin", cmd.reason)

    def _do_call(self, cmd):
        return self._call(cmd, cmd.result, cmd.reason)

    def _call(self, cmd, result, reason):
        spin = self.spin
        actor = cmd.role
        if spin is None:
            raise Refused("6.9", "nothing to call: no spin")
        if spin.outcome is None:
            if result != "no-spin":
                raise Refused("6.9", "spin %d is not decided yet: only a no-spin call can come "
                              "before the verdict (7.2)" % spin.number)
            step = spin.adj.call_no_spin(actor, "7.1.1", reason or "%s called no spin" % actor)
            records.record_call(self.log, spin.number, step, cmd.user, cmd.role)
            self._publish("call", {"spin": spin.number, "actor": actor, "user": cmd.user,
                                   "role": cmd.role, "result": "no-spin", "rule": step["rule"],
                                   "reason": step["reason"]})
            return C.Reply(True, "no spin called by the %s (7.2; final, 7.6)" % actor, "7.2",
                           {"spin": spin.number})
        if spin.finished and not spin.outcome.final:
            raise Refused("6.9", "spin %d was already announced and settled; a correction is a "
                          "supervisor matter outside the ring" % spin.number)
        reason = reason or "%s's call" % actor
        outcome = spin.adj.resolve(actor, result, reason)     # refuses players (7.5), 7.6 ...
        step = spin.adj.steps[-1]
        records.record_override(self.log, spin.number, actor, result, reason, outcome.as_json(),
                                user=cmd.user, role=cmd.role)              # durable first
        spin.outcome = outcome
        self._tell_board(rm.CMD_LIGHT, str(outcome.light))                # then the board
        self._publish("call", {"spin": spin.number, "actor": actor, "user": cmd.user,
                               "role": cmd.role, "result": result, "rule": step["rule"],
                               "reason": reason, "kind": step["step"]})
        self._announce_result(spin)
        if not spin.finished:
            self._settle()
        return C.Reply(True, "spin %d: %s (%s's call, recorded)" % (spin.number, result.upper(),
                                                                     actor), step["rule"],
                       {"spin": spin.number, "result": result})

    def _lost_step(self, cmd, act):
        spin = self.spin
        if spin is None:
            raise Refused("7.4", "no spin: the lost-coin procedure belongs to a spin")
        if spin.adj.lost is None and not isinstance(cmd, C.Lost):
            raise Refused("7.4", "start with 'lost N' (N coins thrown out of the ring)")
        act(spin.adj)
        step = spin.adj.steps[-1]
        records.record_lost_coin(self.log, spin.number, step, user=cmd.user, role=cmd.role)
        todo = spin.adj.lost.missing
        message = "%s %s recorded; %s" % (step.get("rule", "7.4"),
                                          step.get("what", step.get("reason", "")),
                                          "still to do: " + "; ".join(todo) if todo
                                          else "play may resume")
        self._publish("lost-coin", {"spin": spin.number, "step": step, "todo": todo,
                                    "user": cmd.user, "role": cmd.role})
        return C.Reply(True, message, step.get("rule"), {"spin": spin.number, "todo": todo})

    def _do_lost(self, cmd):
        """7.4.1: the boxer calls no spin; a spin already decided (unsure) is voided for good
        (7.6) and settled as no spin. A spin already settled keeps its result."""
        spin = self.spin
        if spin is not None and spin.finished and spin.outcome.result != "no-spin":
            raise Refused("7.4.1", "spin %d was already settled as %s before the coin was lost; "
                          "its result stands (call the game supervisor)"
                          % (spin.number, spin.outcome.result.upper()))
        was = spin.outcome if spin is not None else None
        reply = self._lost_step(cmd, lambda adj: adj.coin_out_of_ring(cmd.n, actor=cmd.role))
        if was is not None and spin.adj.outcome is not was:
            out = spin.outcome = spin.adj.outcome
            records.record_override(self.log, spin.number, cmd.role, "no-spin",
                                    out.override["reason"], out.as_json(),
                                    user=cmd.user, role=cmd.role)            # durable first
            self.link.send_cmd(rm.CMD_LIGHT, str(out.light))                 # then the board
            self._publish("call", {"spin": spin.number, "actor": cmd.role, "user": cmd.user,
                                   "role": cmd.role, "result": "no-spin", "rule": "7.4.1",
                                   "reason": out.override["reason"], "kind": "void"})
            self._announce_result(spin)
            self._settle()
        return reply

    def _do_lost_found(self, cmd):
        return self._lost_step(cmd, lambda adj: adj.lost.retrieve(cmd.n))

    def _do_lost_check(self, cmd):
        return self._lost_step(cmd, lambda adj: adj.lost.check_found(cmd.ok, actor=cmd.role))

    def _do_lost_offer(self, cmd):
        return self._lost_step(cmd, lambda adj: adj.lost.offer(cmd.choice))

    def _do_lost_newset(self, cmd):
        return self._lost_step(cmd, lambda adj: adj.lost.bring_new_set(
            cmd.set_name, current_spinner_continues=cmd.continues))

    def _do_table(self, cmd):
        self._need_role(cmd, TABLE_ROLES, "6.2", "enter table ops")
        try:
            events = self._apply_op(cmd.op, user=cmd.user, role=cmd.role)
        except MalformedOp as exc:
            raise Refused(None, str(exc))
        self._publish("table", {"op": cmd.op, "events": events, "user": cmd.user,
                                "role": cmd.role})
        refused = [e for e in events if e.get("event") == "rejected"]
        if refused:
            return C.Reply(False, refused[0]["reason"], refused[0]["rule"], {"events": events})
        return C.Reply(True, "%s done" % cmd.op.get("op"), None, {"events": events})

    def _fault_line(self):
        f = self.fault
        if self.phase == "fault":
            if f is None:
                return "the ring board is in FAULT; type 'clear' to re-test its sensors"
            return "the ring board is in FAULT: %s. To clear: %s" % (f["what"], f["clear"])
        return ("the ring board passed its re-test; a game supervisor acknowledges fault alarm %d "
                "first ('sup ack %d')" % (f["alarm"], f["alarm"]))

    def _do_clear_fault(self, cmd):
        """Re-test the ring sensors (the board's self-test) to clear its fault, without a
        restart; a supervisor then acknowledges the fault's alarm (faults.py)."""
        self._need_role(cmd, CLEAR_ROLES, None, "re-test the ring sensors")
        if self.phase != "fault":
            raise Refused(None, "the ring board is not in fault (phase %s): nothing to clear"
                          % self.phase)
        if self.fault is not None and self.fault["mask"] & rm.FAULT_INTEGRITY:
            raise Refused(None, self._fault_line())
        records.record_fault_clear(self.log, self.fault, user=cmd.user, role=cmd.role)
        self._tell_board(rm.CMD_SELFTEST, "")
        self._publish("fault-clearing", {"user": cmd.user, "role": cmd.role,
                                         "fault": None if self.fault is None else dict(self.fault)})
        return C.Reply(True, "re-testing the ring sensors (the board's self-test): the result "
                             "follows")

    def _do_ack_alarm(self, cmd):
        self._need_role(cmd, ACK_ROLES, None, "acknowledge alarms")
        if cmd.id not in self.alarms:
            raise Refused(None, "no unacknowledged alarm %d (see snapshot()['alarms'])" % cmd.id)
        if self.fault is not None and cmd.id == self.fault["alarm"]:
            self._need_role(cmd, FAULT_ACK_ROLES, None, "acknowledge a ring board fault")
            if self.phase == "fault" or not self.fault["cleared"]:
                raise Refused(None, "the ring board has not passed its re-test yet: "
                              + self._fault_line())
            self.fault = None
        records.record_alarm_ack(self.log, cmd.id, cmd.user, cmd.role)
        del self.alarms[cmd.id]
        self._publish("alarm-acked", {"id": cmd.id, "user": cmd.user, "role": cmd.role})
        return C.Reply(True, "alarm %d acknowledged" % cmd.id)


def _rules(reasons):
    """The rule numbers the reasons cite, in order, each once."""
    found = (RULE_AT_START.match(r) for r in reasons)
    return list(dict.fromkeys(m.group(1) for m in found if m))


def _verdict_json(v):
    if not isinstance(v, dict):
        return v
    return {"result": v.get("result"), "reasons": v.get("reasons", []), "coins": v.get("coins", [])}
