"""Typed commands into RingHost (what a console may ask) and the host's Reply; parse_command reads their JSON.

JSON shape `{"cmd": NAME, ...}`; every command carries who asked (`user`) and in what `role`,
and the host records both with what the command did.

    {"cmd": "arm"}                                     6.3 "no more bets, come in spinner"
    {"cmd": "nospin", "reason": "..."}                 7.1 / 7.2 a no-spin call (final, 7.6)
    {"cmd": "call", "result": "heads|tails|odds|no-spin", "reason": "..."}
                                                       6.9 the boxer's (or a supervisor's,
                                                       7.1) call of an unsure spin, or an override
    {"cmd": "lost", "n": 2}                            7.4.1 coins thrown out of the ring
    {"cmd": "lost-found", "n": 1}                      7.4.2 how many came back
    {"cmd": "lost-check", "ok": true}                  7.4.4 the boxer checked the found coins
    {"cmd": "lost-offer", "choice": "new|original"}    7.4.3 the spinner's choice of coins
    {"cmd": "lost-newset", "name": "B", "continue": false}   7.4.5 a new coin set
    {"cmd": "table", "op": {"op": "bet", ...}}         a rules-engine op (`ring game replay`)
    {"cmd": "ack-alarm", "id": 17}                     acknowledge alarm 17
    {"cmd": "clear-fault"}                             re-test the board's sensors to clear its
                                                       fault (a supervisor then acknowledges it)
"""
from dataclasses import asdict, dataclass, field

from ..errors import UserError

ROLES = ("boxer", "supervisor", "player", "technician", "surveillance", "regulator")
RESULTS = ("heads", "tails", "odds", "no-spin")


@dataclass(frozen=True)
class Command:
    """A typed, frozen command; each kind below is a dataclass of its own fields."""
    user: str | None = field(default=None, kw_only=True)
    role: str | None = field(default=None, kw_only=True)

    name = ""           # the JSON "cmd"

    def __init_subclass__(cls, name, **kw):
        super().__init_subclass__(**kw)
        cls.name = name
        dataclass(frozen=True)(cls)

    def as_json(self):
        """The command as the audit log keeps it (user and role included)."""
        return dict(asdict(self), cmd=self.name)


class Arm(Command, name="arm"):
    """6.3 "no more bets, come in spinner": arm the ring for the next spin."""


class NoSpin(Command, name="nospin"):
    """7.1 / 7.2 a no-spin call before the verdict (final, 7.6); after it, an override."""
    reason: str = ""


class Call(Command, name="call"):
    """6.9 the boxer's call of an unsure spin, or a confirmation / override with a reason."""
    result: str = ""
    reason: str = ""


class Lost(Command, name="lost"):
    """7.4.1 n coins thrown out of the ring: no spin, and the lost-coin procedure starts."""
    n: int = 1


class LostFound(Command, name="lost-found"):
    """7.4.2 how many of the lost coins came back."""
    n: int = 0


class LostCheck(Command, name="lost-check"):
    """7.4.4 the boxer's check of the found coins."""
    ok: bool = True


class LostOffer(Command, name="lost-offer"):
    """7.4.3 the spinner takes new coins or (all found and checked) the originals."""
    choice: str = "new"


class LostNewSet(Command, name="lost-newset"):
    """7.4.5 a new coin set; the current spinner may finish with the old set's coins."""
    set_name: str = ""
    continues: bool = False


class TableOp(Command, name="table"):
    """A rules-engine op (bets, spinner, betting window, chips) as in `ring game replay`."""
    op: dict = field(default_factory=dict)


class AckAlarm(Command, name="ack-alarm"):
    """Acknowledge alarm `id` (the seq of its audit record)."""
    id: int = 0


class ClearFault(Command, name="clear-fault"):
    """Re-test the ring sensors (the board's self-test) to clear a board fault, no restart."""


@dataclass(frozen=True)
class Reply:
    """What the host did with a command: ok, one line saying what (or why not, with the
    deciding rule), and data (e.g. the spin number, the engine's events)."""
    ok: bool
    message: str
    rule: str | None = None
    data: dict = field(default_factory=dict)


def _field(obj, key, kind, name, choices=None, default=None, required=False):
    if key not in obj:
        if required:
            raise UserError(f"command {name!r}: field {key!r} is missing")
        return default
    value = obj[key]
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise UserError(f"command {name!r}: field {key!r} must be a whole number, not {value!r}")
    if kind is not int and not isinstance(value, kind):
        raise UserError(f"command {name!r}: field {key!r} must be a {kind.__name__}, not {value!r}")
    if choices is not None and value not in choices:
        raise UserError(f"command {name!r}: field {key!r} must be one of {', '.join(choices)}, "
                        f"not {value!r}")
    return value


def _text(obj, name):
    return _field(obj, "reason", str, name, default="").strip()


def parse_command(obj, user=None, role=None):
    """{"cmd": NAME, ...} -> a Command carrying user and role; UserError (one line naming the
    bad field) otherwise."""
    if not isinstance(obj, dict):
        raise UserError('a command is a JSON object such as {"cmd": "arm"}')
    if role is not None and role not in ROLES:
        raise UserError(f"role must be one of {', '.join(ROLES)}, not {role!r}")
    name = obj.get("cmd")
    who = {"user": user, "role": role}
    if name not in PARSERS:
        raise UserError(f"field 'cmd': unknown command {name!r}; one of {', '.join(PARSERS)}")
    known = {"cmd"} | KEYS[name]
    extra = sorted(set(obj) - known)
    if extra:
        raise UserError(f"command {name!r}: unknown field {extra[0]!r} (fields: "
                        f"{', '.join(sorted(known - {'cmd'})) or 'none'})")
    return PARSERS[name](obj, who)


def _lost(obj, who):
    n = _field(obj, "n", int, "lost", required=True)
    if n < 1:
        raise UserError("command 'lost': field 'n' must be at least 1 (coins thrown out)")
    return Lost(n=n, **who)


def _lost_found(obj, who):
    n = _field(obj, "n", int, "lost-found", required=True)
    if n < 0:
        raise UserError("command 'lost-found': field 'n' must be 0 or more")
    return LostFound(n=n, **who)


def _table(obj, who):
    op = _field(obj, "op", dict, "table", required=True)
    if not isinstance(op.get("op"), str):
        raise UserError('command \'table\': field \'op\' must be an engine op such as '
                        '{"op": "bets-open"}')
    return TableOp(op=op, **who)


PARSERS = {
    "arm": lambda o, w: Arm(**w),
    "nospin": lambda o, w: NoSpin(reason=_text(o, "nospin"), **w),
    "call": lambda o, w: Call(result=_field(o, "result", str, "call", RESULTS, required=True),
                              reason=_text(o, "call"), **w),
    "lost": _lost,
    "lost-found": _lost_found,
    "lost-check": lambda o, w: LostCheck(ok=_field(o, "ok", bool, "lost-check", required=True), **w),
    "lost-offer": lambda o, w: LostOffer(
        choice=_field(o, "choice", str, "lost-offer", ("new", "original"), required=True), **w),
    "lost-newset": lambda o, w: LostNewSet(
        set_name=_field(o, "name", str, "lost-newset", required=True),
        continues=_field(o, "continue", bool, "lost-newset", default=False), **w),
    "table": _table,
    "ack-alarm": lambda o, w: AckAlarm(id=_field(o, "id", int, "ack-alarm", required=True), **w),
    "clear-fault": lambda o, w: ClearFault(**w),
}
KEYS = {"arm": set(), "nospin": {"reason"}, "call": {"result", "reason"}, "lost": {"n"},
        "lost-found": {"n"}, "lost-check": {"ok"}, "lost-offer": {"choice"},
        "lost-newset": {"name", "continue"}, "table": {"op"}, "ack-alarm": {"id"},
        "clear-fault": set()}
