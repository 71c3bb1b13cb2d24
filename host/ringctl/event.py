"""Event: one board event with a name for every field, decoded once from the wire and kept to the record.

The wire layout is ringmsg's (EVENT_FMT, one copy for both runtimes); this is the host's one
decoded form of it. The link client makes it, and the recorder, the adjudicator, the doctor,
`ring link dump` and `ring link monitor` take it as it is: no tuples, no field by position.
"""
from dataclasses import dataclass, field

from .fw import ringmsg as rm


@dataclass(frozen=True, slots=True)
class Event:
    boot_id: int            # the board's boot (random per boot); (boot_id, event_id) is unique
    event_id: int
    code: int               # ringmsg.EV_*
    t_us: int               # board clock, µs
    a: int = 0              # meaning per code: see ringmsg.EV_*
    b: int = 0
    text: str = ""
    payload: bytes = field(default=b"", repr=False)   # the bytes as received (kept in the record)
    seq: int | None = field(default=None, compare=False)   # link sequence number (what ack() takes)

    def __post_init__(self):
        if not self.payload:     # made here (tests, simulations): the bytes the board would send
            object.__setattr__(self, "payload", rm.pack_event(
                self.boot_id, self.event_id, self.code, self.t_us, self.a, self.b, self.text))

    @classmethod
    def decode(cls, payload, seq=None):
        """ringmsg EVENT payload bytes -> Event. ValueError/UnicodeError when malformed."""
        payload = bytes(payload)
        boot_id, event_id, code, t_us, a, b, text = rm.unpack_event(payload)
        return cls(boot_id, event_id, code, t_us, a, b, text, payload, seq)

    @property
    def key(self):
        """(boot_id, event_id): what the audit log deduplicates on across reconnects."""
        return (self.boot_id, self.event_id)

    @property
    def name(self):
        return rm.EVENT_NAMES.get(self.code, "ev%d" % self.code)

    def describe(self):
        """One readable line (ringmsg.describe_event's wording)."""
        return rm.describe_event(self.payload)
