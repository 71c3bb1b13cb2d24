"""The board's own link security alarms (EV_LINK) as security-alarm records in the audit log."""
from ..fw import ringmsg
from ..record.records import record_security_alarm


class BoardAlarms:
    """Follows the board's alarm count (per boot) through its EV_LINK events.

    note(log, ev): when ev is an EV_LINK whose count rose past what this process has
    recorded, append one `security-alarm` record (by "board") and return (its seq, the line
    to show); else None. Call it after the event itself is recorded (record, then announce)."""

    def __init__(self):
        self.recorded = {}            # boot_id -> board alarms already recorded

    def note(self, log, ev, by="board"):
        if ev.code != ringmsg.EV_LINK:
            return None
        prev = self.recorded.get(ev.boot_id, 0)
        if ev.a <= prev:
            return None
        self.recorded[ev.boot_id] = ev.a
        seq = record_security_alarm(log, ev.a, ev.a - prev, {
            "boot_id": "%08x" % ev.boot_id, "event_id": ev.event_id, "key_errors": ev.b,
            "counters": ev.text}, by=by)
        return seq, ("SECURITY ALARM on the board: %d frame(s) aimed at it failed "
                     "authentication in a session (total %d since boot %08x)"
                     % (ev.a - prev, ev.a, ev.boot_id))
