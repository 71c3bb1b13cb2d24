"""What the host records, in one place: device events (deduplicated), spins with their
evidence, frames and outcome, light states. Engine ops (wagers, settlements) are in rebuild.py.

Record kinds: "event" (device event), "spin", "frame" (JPEG blob), "light", "op" (engine op
with the events it produced: placed/changed/withdrawn/settled/rejected...).
"""
from ..fw import ringmsg as rm


def record_event(log, payload):
    """Record one device event payload (ringmsg EVENT). -> (seq, new). Acknowledge the event
    to the board only after this returns: the record is durable, and a resend after a
    reconnect (same boot_id, event_id) returns the first seq with new=False."""
    boot_id, event_id, code, t_us, a, b, text = rm.unpack_event(bytes(payload))
    data = {"code": code, "name": rm.EVENT_NAMES.get(code, "ev%d" % code), "t_us": t_us, "a": a, "b": b,
            "text": text, "line": rm.describe_event(bytes(payload))}
    return log.append_once("event", data, event=(boot_id, event_id))


def record_spin(log, spin_id, adjudicator, frames=()):
    """Record a decided spin: every frame that decided it (JPEG bytes + meta, e.g. the camera
    verdict), then one "spin" record with the events, timings, outcome, reasons and every
    human step (calls, refusals, overrides and who). -> seq of the spin record."""
    if adjudicator.outcome is None:
        raise ValueError("decide the spin before recording it")
    frame_seqs = []
    for jpeg, meta in frames:
        frame_seqs.append(log.append("frame", {"spin": spin_id, "meta": meta}, blob=jpeg))
    events = [{"boot_id": e[0], "event_id": e[1], "code": e[2], "name": rm.EVENT_NAMES.get(e[2], e[2]),
               "t_us": e[3], "a": e[4], "b": e[5], "text": e[6]} for e in adjudicator.events]
    return log.append("spin", {"spin": spin_id, "events": events, "outcome": adjudicator.outcome.as_json(),
                               "steps": adjudicator.steps, "frames": frame_seqs})


def record_light(log, light, why, spin_id=None):
    """Record a light state the boxer saw (ringmsg.LIGHT_*) and why. -> seq."""
    return log.append("light", {"light": rm.LIGHT_NAMES[light], "code": light, "why": why, "spin": spin_id})
