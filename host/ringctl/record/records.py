"""Every record the host writes, one function per record kind: the only place records are built.

Each returns once the record is durable (AuditLog.append); the caller acts or announces only
after that (record, then announce). People's records carry `user` and `role` (who asked).

Kinds: "event" (board event, deduplicated), "spin" (with "frame" JPEG blobs), "op" (engine op
and what it produced), "arm", "call" (a person's no-spin call), "override" (a person's
confirm/override of an outcome), "lost-coin" (7.4 steps), "refused" (a command refused, and
why), "security-alarm" (link authentication failures), "alarm" (other faults the boxer must
see), "alarm-ack", "fault-clear" (a re-test of the board's sensors asked for); and access
to the people's screens: "console-login", "console-logout", "console-user".
"""
import base64

OP_KIND = "op"  # one record per op applied to the engine (accepted or refused by the rules)


def _who(user, role):
    return {"user": user, "role": role}


def _event_fields(ev):
    return {"boot_id": ev.boot_id, "event_id": ev.event_id, "code": ev.code, "name": ev.name,
            "t_us": ev.t_us, "a": ev.a, "b": ev.b, "text": ev.text}


def event_data(ev, **extra):
    """A board event (ringctl.event.Event) as the audit log keeps it -> (dict, (boot_id,
    event_id)). `extra` (e.g. by=, spin=) is added to the dict."""
    data = dict(_event_fields(ev), payload=base64.b64encode(ev.payload).decode())
    data.update(extra)
    return data, ev.key


def record_event(log, ev, **extra):
    """One board event (see event_data). -> (seq, new). Acknowledge the event to the board only
    after this returns: a resend after a reconnect (same boot_id, event_id) returns the first
    seq with new=False."""
    data, key = event_data(ev, **extra)
    return log.append_once("event", data, event=key)


def record_spin(log, spin_id, adjudicator, frames=(), **extra):
    """A decided spin: every frame that decided it (JPEG bytes + meta, e.g. the camera
    verdict), then one "spin" record with the events, outcome, reasons and every human step
    (calls, refusals, overrides and who), plus `extra` (lights, verdicts, ...), all in one
    transaction: durable together when this returns, or none of them. -> seq of the spin record."""
    if adjudicator.outcome is None:
        raise ValueError("decide the spin before recording it")
    with log.batch():       # one transaction: one sync of the log, the frames only with their spin
        frame_seqs = []
        for jpeg, meta in frames:
            frame_seqs.append(log.append("frame", {"spin": spin_id, "meta": meta}, blob=jpeg))
        data = {"spin": spin_id, "events": [_event_fields(ev) for ev in adjudicator.events],
                "outcome": adjudicator.outcome.as_json(), "steps": adjudicator.steps,
                "frames": frame_seqs}
        data.update(extra)
        return log.append("spin", data)


def record_op(log, op, events=None, user=None, role=None):
    """An engine op and the events it produced (rebuild.py replays these). -> seq."""
    data = {"op": op, "events": events or []}
    if user is not None or role is not None:
        data.update(_who(user, role))
    return log.append(OP_KIND, data)


def record_arm(log, spin, user=None, role=None, by=None):
    """'No more bets, come in spinner' (6.3): spin `spin` is armed (by a person, or `by` the
    board's own button)."""
    data = {"spin": spin}
    if by is not None:
        data["by"] = by
    else:
        data.update(_who(user, role))
    return log.append("arm", data)


def record_call(log, spin, step, user, role):
    """A person's no-spin call during a spin (7.1 / 7.2), as the adjudicator took it."""
    return log.append("call", dict({"spin": spin, "step": step}, **_who(user, role)))


def record_override(log, spin, actor, result, reason, outcome, user=None, role=None):
    """The boxer's or a supervisor's confirmation or override of an outcome (6.9 / 7.1)."""
    return log.append("override", dict({"spin": spin, "actor": actor, "result": result,
                                        "reason": reason, "outcome": outcome}, **_who(user, role)))


def record_lost_coin(log, spin, step, user=None, role=None):
    """One step of the lost-coin procedure (7.4.1 - 7.4.5)."""
    return log.append("lost-coin", dict({"spin": spin, "step": step}, **_who(user, role)))


def record_refused(log, command, rule, reason, user=None, role=None, spin=None):
    """A command the host refused, the rule and why (a refused call stays on record too)."""
    return log.append("refused", dict({"command": command, "rule": rule, "reason": reason,
                                       "spin": spin}, **_who(user, role)))


def record_security_alarm(log, alarms_total, new, link_stats, by=None):
    """New link security alarms (frames with a good CRC and a bad authentication tag)."""
    data = {"alarms_total": alarms_total, "new": new,
            "link": {k: v for k, v in link_stats.items() if isinstance(v, (int, float, str))}}
    if by is not None:
        data["by"] = by
    return log.append("security-alarm", data)


def record_alarm(log, kind, text, spin=None):
    """A fault the boxer must see (camera stalled, board restarted mid-spin, board fault,
    link lost). -> seq, which is also the alarm's id for `ack-alarm`."""
    return log.append("alarm", {"alarm": kind, "text": text, "spin": spin})


def record_fault_clear(log, fault, user=None, role=None):
    """Someone asked the board to re-test its sensors to clear its fault (`fault`: what the
    host knew of it)."""
    return log.append("fault-clear", dict({"fault": fault}, **_who(user, role)))


def record_alarm_ack(log, alarm_id, user, role):
    """Someone acknowledged alarm `alarm_id` (the seq of its record)."""
    return log.append("alarm-ack", dict({"id": alarm_id}, **_who(user, role)))


# ---- access to the people's screens (written by the web console, outside the spin) -------------
def record_login(log, user, ok, addr, role=None, why=None):
    """A console login: accepted (with the role) or refused (why: wrong password, locked,
    rate limit)."""
    data = {"user": user, "ok": bool(ok), "addr": addr}
    if role:
        data["role"] = role
    if why:
        data["why"] = why
    return log.append("console-login", data)


def record_logout(log, user, role, addr):
    return log.append("console-logout", dict({"addr": addr}, **_who(user, role)))


def record_vision(log, vision):
    """What judges the spins from here on, first in `ring run` and the demo: each vision file with
    its SHA-256 and how the ring's edge was settled and who confirmed it, or that no camera does
    (runner.visionfiles: vision_in_use, NO_CAMERA)."""
    return log.append("vision", vision)


def record_user_change(log, action, name, role=None, by=None):
    """`ring console user add|remove`: action add | replace | remove, by the OS user."""
    return log.append("console-user", {"action": action, "name": name, "role": role, "by": by})
