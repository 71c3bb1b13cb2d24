"""What the host records, in one place: device events (deduplicated), spins with their
evidence, frames and outcome, light states. Engine ops (wagers, settlements) are in rebuild.py.

Record kinds: "event" (device event, light changes included), "spin", "frame" (JPEG blob),
"op" (engine op
with the events it produced: placed/changed/withdrawn/settled/rejected...).
"""
import base64


def _fields(ev):
    return {"boot_id": ev.boot_id, "event_id": ev.event_id, "code": ev.code, "name": ev.name,
            "t_us": ev.t_us, "a": ev.a, "b": ev.b, "text": ev.text}


def event_data(ev, **extra):
    """A device event (ringctl.event.Event) as the audit log keeps it -> (dict, (boot_id,
    event_id)). `extra` (e.g. by=, spin=) is added to the dict."""
    data = dict(_fields(ev), payload=base64.b64encode(ev.payload).decode())
    data.update(extra)
    return data, ev.key


def record_event(log, ev, **extra):
    """Record one device event (see event_data). -> (seq, new). Acknowledge the event to the
    board only after this returns: the record is durable, and a resend after a reconnect
    (same boot_id, event_id) returns the first seq with new=False."""
    data, key = event_data(ev, **extra)
    return log.append_once("event", data, event=key)


def record_spin(log, spin_id, adjudicator, frames=(), **extra):
    """Record a decided spin: every frame that decided it (JPEG bytes + meta, e.g. the camera
    verdict), then one "spin" record with the events, outcome, reasons and every human step
    (calls, refusals, overrides and who), plus `extra` (lights, verdicts, ...).
    -> seq of the spin record."""
    if adjudicator.outcome is None:
        raise ValueError("decide the spin before recording it")
    frame_seqs = []
    for jpeg, meta in frames:
        frame_seqs.append(log.append("frame", {"spin": spin_id, "meta": meta}, blob=jpeg))
    events = [_fields(ev) for ev in adjudicator.events]
    data = {"spin": spin_id, "events": events, "outcome": adjudicator.outcome.as_json(),
            "steps": adjudicator.steps, "frames": frame_seqs}
    data.update(extra)
    return log.append("spin", data)
