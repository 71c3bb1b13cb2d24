"""An in-test stand-in for RingHost's command/event API (submit, subscribe, snapshot,
camera_view) taking the real commands (runner.commands): enough to drive the console's pages and refusals without a board. It writes
real audit records (arm, events, frames, spin, commands) so the spin pages read a real log."""
import collections
import dataclasses
import threading
import time

import cv2
import numpy as np

from ringctl.fw import ringmsg as rm
from ringctl.game.engine import Engine
from ringctl.record.log import AuditLog


@dataclasses.dataclass
class Reply:
    ok: bool
    message: str = ""
    rule: str = None
    data: dict = None


@dataclasses.dataclass
class HostEvent:
    seq: int
    t: float
    kind: str
    data: dict


class Subscription:
    def __init__(self, host, maxlen):
        self.host = host
        self.q = collections.deque()
        self.maxlen = maxlen
        self.cv = threading.Condition()
        self.closed = False

    def put(self, ev):
        with self.cv:
            if len(self.q) >= self.maxlen:
                self.q.popleft()
            self.q.append(ev)
            self.cv.notify()

    def get(self, timeout=None):
        with self.cv:
            if not self.q:
                self.cv.wait(timeout)
            return self.q.popleft() if self.q else None

    def close(self):
        self.closed = True
        self.host.subs.discard(self)


def still_frame(faces=("heads", "tails")):
    img = np.full((240, 320, 3), 90, np.uint8)
    cv2.circle(img, (160, 120), 100, (200, 200, 200), 2)
    coins = []
    for i, face in enumerate(faces):
        c = (120 + 80 * i, 120)
        cv2.circle(img, c, 14, (40, 180, 220) if face == "heads" else (200, 120, 40), -1)
        coins.append({"center": list(c), "radius": 14.0, "face": face, "flat": True, "inside": True,
                      "confidence": 0.97})
    return img, coins


class FakeHost:
    def __init__(self, log_path):
        self.log_path = log_path
        self.lock = threading.RLock()
        self.subs = set()
        self.seq = 0
        self.engine = Engine()
        self.results = []
        self.phase, self.light = "idle", "idle"
        self.spin = None
        self.spins = 0
        self.alarms = []
        self.submitted = []
        self.frame, self.coins = still_frame()

    def _append(self, kind, data, blob=None):
        with AuditLog(self.log_path) as log:
            return log.append(kind, data, blob=blob)

    # ---- the contract ------------------------------------------------------------------------
    def subscribe(self, maxlen=256):
        s = Subscription(self, maxlen)
        with self.lock:
            self.subs.add(s)
        return s

    def publish(self, kind, data):
        with self.lock:
            self.seq += 1
            ev = HostEvent(self.seq, time.time(), kind, data)
            for s in list(self.subs):
                s.put(ev)
        return ev

    def snapshot(self):
        with self.lock:
            return {"phase": self.phase, "light": self.light, "spinner": self.engine.spinning,
                    "results": [dict(r) for r in self.results], "spin": self._spin_view(),
                    "table": self.engine.state(),
                    "alarms": [dict(a) for a in self.alarms if not a["acked"]]}

    def _spin_view(self):
        s = self.spin
        if s is None:
            return None
        state = "settled" if s["finished"] else "unsure" if s["result"] == "unsure" else \
            "decided" if s["result"] else "armed"
        return {"number": s["number"], "state": state, "result": s["result"]}

    def camera_view(self):
        return self.frame, time.time(), self.coins

    def submit(self, cmd):
        with self.lock:
            self.submitted.append(cmd)
            self._append("command", dict(cmd.as_json(), spin=(self.spin or {}).get("number")))
            return getattr(self, "_cmd_" + cmd.name.replace("-", "_"))(cmd)

    # ---- commands ----------------------------------------------------------------------------
    def _cmd_table(self, cmd):
        events = self.engine.apply(cmd.op)
        self._append("op", {"op": cmd.op, "events": events, "user": cmd.user})
        self.publish("table", {"op": cmd.op, "events": events})
        bad = [e for e in events if e["event"] == "rejected"]
        if bad:
            return Reply(False, bad[0]["reason"], bad[0]["rule"], {"events": events})
        return Reply(True, "ok", None, {"events": events})

    def _cmd_call(self, cmd):
        spin = self.spin
        if spin is None or spin.get("finished"):
            return Reply(False, "nothing to call: no decided spin", "6.9")
        result = cmd.result
        self._append("override", {"spin": spin["number"], "actor": cmd.role, "user": cmd.user,
                                  "result": result, "reason": cmd.reason,
                                  "outcome": {"result": result, "reasons": [cmd.reason],
                                              "decided_by": cmd.role,
                                              "override": {"actor": cmd.role, "from": spin["result"],
                                                           "reason": cmd.reason}}})
        self.publish("call", {"spin": spin["number"], "result": result, "user": cmd.user})
        self._finish(result)
        return Reply(True, "spin %d: %s (%s's call)" % (spin["number"], result.upper(), cmd.role))

    def _cmd_nospin(self, cmd):
        if self.spin is None or self.spin.get("finished"):
            return Reply(False, "no spin in progress", "7.2")
        self.spin["nospin"] = cmd.reason
        return Reply(True, "no spin called (7.2; final, 7.6)")

    def _cmd_arm(self, cmd):
        if self.spin is not None and not self.spin.get("finished"):
            return Reply(False, "spin %d is not finished yet" % self.spin["number"], "6.9")
        return Reply(True, "armed")

    def _cmd_ack_alarm(self, cmd):
        for a in self.alarms:
            if a["id"] == cmd.id:
                a["acked"] = True
                a["acked_by"] = cmd.user
                self.publish("alarm-acked", {"id": a["id"], "user": cmd.user, "role": cmd.role})
                return Reply(True, "alarm %s acknowledged" % a["id"])
        return Reply(False, "no alarm %r" % cmd.id)

    def _cmd_lost_found(self, cmd):
        return self._cmd_lost(cmd)

    def _cmd_lost(self, cmd):
        return Reply(True, "7.4 step recorded", "7.4", {"todo": ["check the found coins (7.4.3)"]})

    # ---- what the test makes happen ----------------------------------------------------------
    def raise_alarm(self, kind, message):
        with self.lock:
            a = {"id": len(self.alarms) + 1, "kind": kind, "text": message, "t": time.time(),
                 "acked": False}
            self.alarms.append(a)
        self.publish("alarm", dict(a))
        return a

    def play_spin(self, result="heads", unsure=False):
        """A whole spin: arm, board events, one still frame, the verdict; a sure verdict is
        applied to the table at once."""
        with self.lock:
            self.spins += 1
            n = self.spins
            self._append("arm", {"spin": n})
            self.phase, self.light = "armed", "armed"
            self.spin = {"number": n, "result": None, "reasons": [], "finished": False}
            self.publish("spin-started", {"spin": n})
            self.publish("phase", {"phase": "armed"})
            for i, (code, a, b) in enumerate(((rm.EV_PHASE, rm.PH_IN_FLIGHT, rm.PH_ARMED),
                                              (rm.EV_IMPACT, 1, 900), (rm.EV_IMPACT, 2, 700),
                                              (rm.EV_REST, 1000, 300))):
                self._append("event", {"spin": n, "name": rm.EVENT_NAMES[code], "code": code,
                                       "t_us": 1000000 + 150000 * i, "a": a, "b": b, "text": None})
            faces = {"heads": ("heads", "heads"), "tails": ("tails", "tails")}.get(result, ("heads", "tails"))
            img, coins = still_frame(faces)
            verdict = "unsure" if unsure else result
            reasons = ["unsure: cannot read a coin's face"] if unsure else ["both coins %s" % result]
            ok, jpg = cv2.imencode(".jpg", img)
            fseq = self._append("frame", {"spin": n, "meta": {"result": verdict, "reasons": reasons,
                                                              "coins": coins}}, blob=jpg.tobytes())
            self._append("spin", {"spin": n, "frames": [fseq], "steps": [],
                                  "outcome": {"result": verdict, "reasons": reasons,
                                              "decided_by": "camera", "override": None}})
            self.spin.update(result=verdict, reasons=reasons)
            self.phase, self.light = "at-rest", verdict
            self.publish("verdict", {"spin": n, "result": verdict, "reasons": reasons,
                                     "unsure": unsure})
            if not unsure:
                self._finish(verdict)
        return n

    def _finish(self, result):
        n = self.spin["number"]
        self.spin.update(result=result, finished=True)
        self.results.append({"spin": n, "result": result})
        self.phase, self.light = "idle", result
        if self.engine.betting == "closed":
            events = self.engine.apply({"op": "spin", "result": result})
            self._append("op", {"op": {"op": "spin", "result": result}, "events": events})
            self.publish("settlement", {"spin": n, "events": events})
        self.publish("result", {"spin": n, "result": result})
