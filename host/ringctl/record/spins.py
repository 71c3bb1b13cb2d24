"""What the host records, in one place: device events (deduplicated), spins with their
evidence, frames and outcome, light states. Engine ops (wagers, settlements) are in rebuild.py.

Record kinds: "event" (device event, light changes included), "spin", "frame" (JPEG blob),
"op" (engine op
with the events it produced: placed/changed/withdrawn/settled/rejected...).
"""
import base64

from ..fw import ringmsg as rm


def event_data(ev, **extra):
    """A device event as the audit log keeps it: a link Event (ringctl.link.client.Event) or
    raw ringmsg EVENT payload bytes -> (dict, (boot_id, event_id)). `extra` (e.g. by=, spin=)
    is added to the dict."""
    if isinstance(ev, (bytes, bytearray, memoryview)):
        payload = bytes(ev)
        boot_id, event_id, code, t_us, a, b, text = rm.unpack_event(payload)
    else:
        payload = bytes(ev.payload or b"")
        boot_id, event_id, code, t_us, a, b, text = (ev.boot_id, ev.event_id, ev.code, ev.t_us,
                                                     ev.a, ev.b, ev.text)
    data = {"boot_id": boot_id, "event_id": event_id, "code": code,
            "name": rm.EVENT_NAMES.get(code, "ev%d" % code), "t_us": t_us, "a": a, "b": b,
            "text": text, "payload": base64.b64encode(payload).decode()}
    data.update(extra)
    return data, (boot_id, event_id)


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
    events = [{"boot_id": e[0], "event_id": e[1], "code": e[2], "name": rm.EVENT_NAMES.get(e[2], e[2]),
               "t_us": e[3], "a": e[4], "b": e[5], "text": e[6]} for e in adjudicator.events]
    data = {"spin": spin_id, "events": events, "outcome": adjudicator.outcome.as_json(),
            "steps": adjudicator.steps, "frames": frame_seqs}
    data.update(extra)
    return log.append("spin", data)
