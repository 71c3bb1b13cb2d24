"""The spins as surveillance reads them: an index over the audit log and one spin's evidence.

Read-only: its own SQLite connection per thread (WAL lets it read while the host writes).
A spin's records are the chain segment from its first record (the arm) to the record before
the next spin's first one, so the settlement that follows a result belongs to its spin.
"""
import os
import threading
import time

from ..record.log import AuditLog

VALID = ("heads", "tails", "odds", "no-spin", "unsure")
ACCESS_KINDS = ("console-login", "console-logout", "console-user")


def _spin_of(data):
    n = data.get("spin") if isinstance(data, dict) else None
    return n if isinstance(n, int) and not isinstance(n, bool) else None


class SpinIndex:
    """Which records belong to which spin, and a one-line summary per spin. Catches up with the
    log incrementally on every query."""

    def __init__(self, log_path):
        self.log_path = log_path
        self.local = threading.local()
        self.lock = threading.Lock()
        self.last_seq = 0
        self.spins = {}            # n -> summary dict
        self.order = []            # spin numbers in chain order
        self.current = None
        self.visions = []          # (seq, hash, data) of each `vision` record: what judges the spins after it

    def log(self):
        log = getattr(self.local, "log", None)
        if log is None:
            log = self.local.log = AuditLog(self.log_path, readonly=True)
        return log

    def refresh(self):
        if not os.path.exists(self.log_path):
            return                      # nothing recorded yet: no spins
        with self.lock:
            for r in self.log().records(since=self.last_seq, with_blobs=False):
                self._take(r)
                self.last_seq = r.seq

    def _take(self, r):
        if r.kind == "vision":
            self.visions.append((r.seq, r.hash, r.data))
        n = _spin_of(r.data)
        if n is not None and n not in self.spins:
            self.spins[n] = {"spin": n, "first_seq": r.seq, "last_seq": r.seq, "t": r.ts,
                             "result": None, "reasons": [], "decided_by": None, "override": None,
                             "no_spin_reason": None, "actors": [], "frames": 0, "spin_seq": None}
            self.order.append(n)
            self.current = n
        s = self.spins.get(n if n is not None else self.current)
        if s is None:
            return
        s["last_seq"] = r.seq
        data = r.data if isinstance(r.data, dict) else {}
        if r.kind == "frame":
            s["frames"] += 1
        elif r.kind == "spin":
            out = data.get("outcome") or {}
            s["spin_seq"] = r.seq
            self._outcome(s, out)
            for step in data.get("steps") or ():
                if step.get("actor") and step["actor"] not in s["actors"]:
                    s["actors"].append(step["actor"])
        elif isinstance(data.get("outcome"), dict):          # an override or a later call
            self._outcome(s, data["outcome"])
        who = data.get("user") or data.get("actor")
        if r.kind in ACCESS_KINDS:
            return                # a login is not something done to the spin
        if isinstance(who, str) and who not in s["actors"]:
            s["actors"].append(who)

    @staticmethod
    def _outcome(s, out):
        s["result"] = out.get("result", s["result"])
        s["reasons"] = out.get("reasons", s["reasons"])
        s["decided_by"] = out.get("decided_by", s["decided_by"])
        if out.get("override"):
            s["override"] = out["override"]
        s["no_spin_reason"] = "; ".join(s["reasons"]) if s["result"] == "no-spin" else None

    def list(self, result=None, reason=None, override=None, since=None, until=None):
        """Spins newest first, filtered by result, words in a no-spin reason, override yes/no,
        and time (epoch s)."""
        self.refresh()
        out = []
        for n in reversed(self.order):
            s = self.spins[n]
            if result and s["result"] != result:
                continue
            if reason and (s["no_spin_reason"] is None or reason.lower() not in s["no_spin_reason"].lower()):
                continue
            if override is not None and bool(s["override"]) != override:
                continue
            if since is not None and s["t"] < since:
                continue
            if until is not None and s["t"] > until:
                continue
            out.append(dict(s))
        return out

    def segment(self, n):
        """-> (first seq, last seq) of spin n's records, or None."""
        self.refresh()
        s = self.spins.get(n)
        return (s["first_seq"], s["last_seq"]) if s else None

    def record(self, seq):
        for r in self.log().records(since=seq - 1):
            return r if r.seq == seq else None
        return None

    def detail(self, n):
        """Everything surveillance needs about spin n, or None."""
        seg = self.segment(n)
        if seg is None:
            return None
        recs = list(self.log().records(since=seg[0] - 1, with_blobs=False))
        recs = [r for r in recs if r.seq <= seg[1]]
        events, frames, human, settlements, records = [], [], [], [], []
        spin_rec = None
        for r in recs:
            data = r.data if isinstance(r.data, dict) else {}
            records.append({"seq": r.seq, "t": r.ts, "kind": r.kind, "prev": r.prev, "hash": r.hash,
                            "summary": _summary(r.kind, data)})
            if r.kind == "event":
                events.append({k: data.get(k) for k in ("name", "code", "t_us", "a", "b", "text")})
            elif r.kind == "frame":
                meta = data.get("meta") or {}
                frames.append({"seq": r.seq, "result": meta.get("result"),
                               "reasons": meta.get("reasons", []), "coins": meta.get("coins", [])})
            elif r.kind == "spin":
                spin_rec = data
            elif r.kind == "op":
                for ev in data.get("events") or ():
                    if ev.get("event") in ("settled", "spin", "void", "game-over", "rejected"):
                        settlements.append(ev)
            if r.kind not in ("event",) + ACCESS_KINDS and (data.get("user") or data.get("actor") or r.kind in (
                    "override", "override-refused", "lost-coin", "command", "arm")):
                human.append({"seq": r.seq, "t": r.ts, "kind": r.kind,
                              "who": data.get("user") or data.get("actor") or data.get("by"),
                              "role": data.get("role"), "what": _summary(r.kind, data)})
        if spin_rec is not None:
            for step in spin_rec.get("steps") or ():
                if step.get("actor"):
                    human.append({"seq": None, "t": None, "kind": "step:" + str(step.get("step")),
                                  "who": step.get("actor"), "role": None,
                                  "what": "%s %s %s" % (step.get("rule", ""), step.get("result", ""),
                                                         step.get("reason", "")).strip()})
        s = dict(self.spins[n])
        # the calibration and model that judged it: the last `vision` record before its first
        vision = next(({"seq": q, "hash": h, "data": d} for q, h, d in reversed(self.visions) if q < seg[0]), None)
        return {"spin": n, "summary": s, "vision": vision, "outcome": (spin_rec or {}).get("outcome"),
                "verdicts": (spin_rec or {}).get("verdicts"), "lights": (spin_rec or {}).get("lights"),
                "barred": (spin_rec or {}).get("barred"), "events": events, "frames": frames,
                "human": human, "settlements": settlements, "records": records,
                "segment": {"first": seg[0], "last": seg[1],
                            "anchor": recs[0].prev if recs else None,
                            "head": recs[-1].hash if recs else None}}

    def chain_status(self):
        """Walk the whole chain now -> {ok, records, head, problems, checked_at}."""
        report = self.log().verify()
        report["checked_at"] = time.time()
        return report


def _summary(kind, data):
    if kind == "event":
        return "%s a=%s b=%s %s" % (data.get("name"), data.get("a"), data.get("b"), data.get("text") or "")
    if kind == "spin":
        out = data.get("outcome") or {}
        return "%s: %s" % (str(out.get("result", "?")).upper(), "; ".join(out.get("reasons") or ()))
    if kind == "frame":
        meta = data.get("meta") or {}
        return "still frame: %s" % (meta.get("result") or "?")
    if kind == "op":
        op = data.get("op") or {}
        return "table %s" % " ".join("%s=%s" % (k, v) for k, v in op.items())
    keys = [k for k in ("cmd", "result", "reason", "step", "by", "user", "role") if k in data]
    return ", ".join("%s=%s" % (k, data[k]) for k in keys) or kind
