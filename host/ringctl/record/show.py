"""`ring log show`: audit records one readable line each (local time with its zone), filtered by spin, kind and time.

    2026-11-30 12:15:28.412 UTC  #41  spin 3  override   HEADS by the boxer (ann): read by eye

`--json` keeps the machine form (one JSON object per line, epoch `ts`).
"""
import datetime as dt
import json
import re

from ..errors import UserError
from ..fw import ringmsg as rm

TIME_FORMS = ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M",
              "%Y-%m-%d", "%H:%M:%S", "%H:%M")


def parse_time(text, now=None):
    """A time a person types -> epoch seconds. Local time unless it carries a zone offset
    ("2026-11-30 12:00", "12:00" = today, "2026-11-30T12:00+10:00"), or epoch seconds."""
    t = text.strip()
    if re.fullmatch(r"\d{9,}(\.\d+)?", t):
        return float(t)
    try:
        stamp = dt.datetime.fromisoformat(t)
        if stamp.tzinfo is not None:
            return stamp.timestamp()
    except ValueError:
        pass
    today = (now or dt.datetime.now()).date()
    for form in TIME_FORMS:
        try:
            stamp = dt.datetime.strptime(t, form)
        except ValueError:
            continue
        if not form.startswith("%Y"):
            stamp = dt.datetime.combine(today, stamp.time())
        return stamp.astimezone().timestamp()     # naive = local time
    raise UserError(f"time {text!r}: give local time as 'YYYY-MM-DD HH:MM[:SS]' or 'HH:MM' "
                    "(today), ISO 8601 with a zone offset, or epoch seconds")


def local_time(ts):
    """Epoch seconds -> 'YYYY-MM-DD HH:MM:SS.mmm ZONE' in the machine's local zone."""
    t = dt.datetime.fromtimestamp(ts).astimezone()
    return "%s.%03d %s" % (t.strftime("%Y-%m-%d %H:%M:%S"), t.microsecond // 1000,
                           t.tzname() or t.strftime("%z"))


def select(records, spin=None, kinds=None, since=None, until=None):
    """The records matching every filter given (spin number, kinds, [since, until) epoch s). With
    a spin number, the `vision` record in force (the last before the spin's first record: the
    files that judged it) comes first, once, before the first of the spin's records shown, and
    only if `kinds` (when given) names it."""
    vision, shown = None, False
    for r in records:
        if r.kind == "vision" and not shown:
            vision = r
        if since is not None and r.ts < since:
            continue
        if until is not None and r.ts >= until:
            continue
        if spin is not None:
            if _spin_of(r) != spin:
                continue
            if not shown:
                shown = True
                if vision is not None and (not kinds or "vision" in kinds):
                    yield vision
        if kinds and r.kind not in kinds:
            continue
        yield r


def _spin_of(r):
    d = r.data if isinstance(r.data, dict) else {}
    s = d.get("spin")
    return s if isinstance(s, int) and not isinstance(s, bool) else None


def as_json(r):
    return {"seq": r.seq, "ts": r.ts, "kind": r.kind, "data": r.data,
            "event": [r.boot_id, r.event_id] if r.boot_id is not None else None}


def line(r):
    """One record -> one readable line."""
    spin = _spin_of(r)
    where = "spin %-3d" % spin if spin is not None else " " * 8
    text = " ".join(_summary(r).split())          # one line, whatever the record holds
    return "%s  #%-5d %s  %-14s %s" % (local_time(r.ts), r.seq, where, r.kind, text)


def _who(d):
    if d.get("user") or d.get("role"):
        return " by the %s (%s)" % (d.get("role") or "?", d.get("user") or "?")
    return " by the %s" % d["by"] if d.get("by") else ""


def _summary(r):
    d = r.data if isinstance(r.data, dict) else {}
    kind = r.kind
    if kind == "event":
        return _event(d)
    if kind == "spin":
        out = d.get("outcome") or {}
        reasons = out.get("reasons") or []
        return "%s decided by %s%s%s" % (str(out.get("result", "?")).upper(), out.get("decided_by"),
                                         ": " + reasons[0] if reasons else "",
                                         " (+%d more reasons)" % (len(reasons) - 1)
                                         if len(reasons) > 1 else "") + \
            "; %d frame(s)" % len(d.get("frames") or [])
    if kind == "op":
        op = d.get("op") or {}
        evs = d.get("events") or []
        said = "; ".join(_engine_event(e) for e in evs)
        return "%s%s%s" % (json.dumps(op, separators=(",", ":")), _who(d),
                           " -> " + said if said else "")
    if kind == "arm":
        return "armed (6.3 come in spinner)%s" % _who(d)
    if kind == "call":
        step = d.get("step") or {}
        return "no spin called (%s)%s: %s" % (step.get("rule"), _who(d), step.get("reason"))
    if kind == "override":
        return "%s%s: %s" % (str(d.get("result")).upper(), _who(d), d.get("reason"))
    if kind == "lost-coin":
        step = dict(d.get("step") or {})
        head = "%s %s" % (step.pop("rule", "7.4"), step.pop("what", ""))
        rest = ", ".join("%s=%s" % (k, v) for k, v in step.items()
                         if k not in ("step", "coin_set") and v is not None)
        return head + (" (%s)" % rest if rest else "") + _who(d)
    if kind == "refused":
        cmd = d.get("command") or {}
        return "%s refused%s%s: %s" % (cmd.get("cmd", "command"),
                                      " (%s)" % d["rule"] if d.get("rule") else "", _who(d),
                                      d.get("reason"))
    if kind == "alarm":
        return "ALARM %s: %s" % (d.get("alarm"), d.get("text"))
    if kind == "alarm-ack":
        return "alarm %s acknowledged%s" % (d.get("id"), _who(d))
    if kind == "security-alarm":
        return "SECURITY %s new bad-tag frame(s), %s in all" % (d.get("new"), d.get("alarms_total"))
    if kind == "frame":
        meta = d.get("meta") or {}
        return "camera frame (JPEG) verdict %s" % (meta.get("result") if isinstance(meta, dict)
                                                   else "none")
    if kind == "vision" and "camera" in d:
        return "vision in use: %s" % d["camera"]
    if kind == "vision":
        return "vision in use: " + "; ".join(
            "%s %s (sha256 %s)%s" % (what, f.get("file"), str(f.get("sha256"))[:12], _settled(f))
            for what, f in d.items() if isinstance(f, dict))
    if kind == "fault-clear":
        return "re-test of the ring sensors asked%s" % _who(d)
    return json.dumps(d, separators=(",", ":"), sort_keys=True)


def _settled(f):
    how = f.get("settled_by_coins") or {}
    if not how:
        return ""
    done = how.get("confirmed") or {}
    return ", edge settled by the coins' size, " + ("confirmed by %s at %s" % (done.get("by"), done.get("at"))
                                                    if done else "NOT confirmed")


def _event(d):
    code, a, b = d.get("code"), d.get("a"), d.get("b")
    name = d.get("name") or "ev%s" % code
    extra = ""
    if code == rm.EV_PHASE and isinstance(a, int) and 0 <= a < len(rm.PHASE_NAMES):
        extra = " " + rm.PHASE_NAMES[a]
    elif code == rm.EV_LIGHT and isinstance(a, int) and 0 <= a < len(rm.LIGHT_NAMES):
        extra = " " + rm.LIGHT_NAMES[a]
    elif code == rm.EV_BARRED:
        extra = " " + rm.BAR_NAMES.get(a, "?")
    else:
        extra = " a=%s b=%s" % (a, b)
    text = " %r" % d["text"] if d.get("text") else ""
    return "board %s%s%s (boot %08x event %s)" % (name, extra, text, d.get("boot_id") or 0,
                                                   d.get("event_id"))


def _engine_event(e):
    if not isinstance(e, dict):
        return str(e)
    name = e.get("event", "?")
    if name == "rejected":
        return "REJECTED (%s) %s" % (e.get("rule"), e.get("reason"))
    keys = [k for k in ("bet", "on", "amount", "result", "outcome", "rule") if k in e]
    return name + ("(" + ", ".join("%s=%s" % (k, e[k]) for k in keys) + ")" if keys else "")
