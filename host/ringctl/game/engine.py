"""Two-Up rules engine: a pure state machine (no I/O) over table ops, citing casino rules 4, 6, 8.

Ops are dicts (the `ring game replay` line format, see ringctl.game.script); `Engine.apply(op)`
returns a list of event dicts. A refused op yields one `rejected` event with the rule that
refused it (the rule its reason cites) and changes nothing: every handler checks everything
before it mutates state. An op that is not shaped like an op (unknown or misspelled field,
wrong type, a number beyond the limits) raises MalformedOp instead: that is an input error.

How the rules are read where they leave room (issue 5 readings 1-9, issue 14 readings 10-15):
 1. A spinner's game starts when a spinner declares heads or tails (4.2) and ends when the
    spinner's wager is determined; with the boxer or a dealer spinning (4.3) there is no
    spinner's wager.
 2. Valid results: heads, tails, odds. A no-spin is void: no count changes, no run breaks.
 3. Consecutive odds count over valid results since the last heads or tails; the fifth
    settles every open wager as lost and the spinner retires (6.4).
 4./5. Heads/tails wagers (4.1.2/4.1.3), the spinner's wager (4.1.1): third heads (or tails)
    of the game wins; the first opposite result or five consecutive odds loses.
 6. Winnings stake x 7.5 (spinner's) or x 1 (8.1), rounded up to a chip sum (4.9).
 7. Betting window: bets-open "place your bets" (6.2), bets-closed "no more bets, come in
    spinner" (6.3); a spin needs a closed window. From the close until a result is
    determined nothing is placed, changed or withdrawn (4.6) and betting cannot reopen; a
    heads or tails result (or the fifth odds) ends the window. The close needs the player
    spinner's wager on the layout (4.2).
 8. 4.7 after a void: while the last spin since the close was a no-spin, a wager with no
    result pending may be increased, reduced or withdrawn -- but no new wager is placed and
    betting does not reopen (4.7 names only increase, reduce, withdraw; 4.6 still holds).
 9. 6.5, 6.6, 6.7-6.8: the boxer or a dealer ("house") spins until the spinner's wager is
    determined.
10. A spinner's wager withdrawn after the close (4.7, or 6.5's "withdraw or alter") ends the
    spinner's game: with no spinner's wager there is none to determine. A player spinner
    retires (4.2); a boxer or dealer elected under 6.5 spins on and settles the other wagers;
    the next player takes the kip after that result.
11. A spinner retiring after the close before any spin (no void since the close) leaves the
    spinner's wager standing (4.6): the boxer or a dealer spins until it is determined (6.6).
    Retiring before the close, or after a void (4.7, 6.5), returns it.
12. When a spinner's game ends with no valid spin after the close and other wagers stand, the
    boxer or a dealer spins for them (4.3) before a new spinner declares; with no wager left
    on the layout the close is spent and betting is idle again.
13. 6.8: while a dealer spins for an excluded spinner no wager is amended or withdrawn, those
    placed after the exclusion included; new wagers may be placed in an open window.
14. 6.7: names are compared normalised (NFC, whitespace collapsed and trimmed, case-folded).
15. A wager id is unique among the wagers on the layout; once a wager is settled, withdrawn
    or returned it leaves the engine (memory is bounded by the open wagers) and its id is
    free again. Events carry the script line, so a reused id stays unambiguous.
"""
import unicodedata

from .chips import MAX_VALUE, SCALE, check_number, chips_for, to_units, units_json

SIDES = ("heads", "tails")
RESULTS = ("heads", "tails", "odds", "no-spin")
BET_ON = ("spinner", "heads", "tails")
HOUSE = ("boxer", "dealer")
# op -> (required fields, optional fields); any other field is an input error.
FIELDS = {
    "chips": (("values",), ("max",)),
    "spinner": ((), ("calls", "by", "name")),
    "bets-open": ((), ()),
    "bets-closed": ((), ()),
    "bet": (("id", "on", "amount"), ()),
    "change": (("id", "amount"), ()),
    "withdraw": (("id",), ()),
    "spin": (("result",), ()),
    "spinner-retires": ((), ()),
    "exclude-spinner": ((), ()),
}
OPS = tuple(FIELDS)
MAX_TEXT = 64          # characters in a wager id or a spinner's name
ODDS_LIMIT = 5      # 4.1.1.2 / 4.1.2.2 / 4.1.3.2: five consecutive odds lose
SPINNER_WINS_AT = 3  # 4.1.1.1: three heads (tails) win the spinner's wager
INVALID_LIMIT = 3   # 6.5 / 6.6: three consecutive invalid spins
PAYOUT = {"spinner": (15, 2), "heads": (1, 1), "tails": (1, 1)}  # 8.1: 7.5 to 1, 1 to 1
LOSE_RULE = {"spinner": "4.1.1.2", "heads": "4.1.2.2", "tails": "4.1.3.2"}


class MalformedOp(ValueError):
    """The op is not shaped like any op (wrong field, type, value): an input error."""


class Rejected(Exception):
    """An op the rules refuse; carries the deciding rule."""

    def __init__(self, rule, reason):
        super().__init__(reason)
        self.rule = rule
        self.reason = reason


def normal_name(name):
    """6.7: the form in which two spellings of one name compare equal."""
    return unicodedata.normalize("NFC", " ".join(unicodedata.normalize("NFC", name).split()).casefold())


_NO_FIELDS = ("bets-open", "bets-closed", "spinner-retires", "exclude-spinner")
_BET_KEYS = {"op", "id", "on", "amount"}
_CHANGE_KEYS = {"op", "id", "amount"}
_WITHDRAW_KEYS = {"op", "id"}
_SPIN_KEYS = {"op", "result"}


def check_op(op):
    """Validate an op's shape (not the rules); raises MalformedOp naming the problem and field.

    The common, well-formed ops are accepted by the short tests first (a replay checks every
    line); anything else -- and every error message -- comes from _check_op_strict, which
    accepts exactly the same ops."""
    if type(op) is dict:
        name = op.get("op")
        if name == "bet":
            wid = op.get("id")
            amount = op.get("amount")
            if (op.keys() == _BET_KEYS and type(wid) is str and 0 < len(wid) <= MAX_TEXT
                    and wid.isprintable() and wid == wid.strip() and op["on"] in BET_ON
                    and type(amount) is int and 0 < amount < MAX_VALUE):
                return name
        elif name == "spin":
            if op.keys() == _SPIN_KEYS and op["result"] in RESULTS:
                return name
        elif name in _NO_FIELDS:
            if len(op) == 1:
                return name
        elif name == "change" or name == "withdraw":
            wid = op.get("id")
            amount = op.get("amount")
            if (type(wid) is str and 0 < len(wid) <= MAX_TEXT and wid.isprintable()
                    and wid == wid.strip()
                    and (op.keys() == _WITHDRAW_KEYS if name == "withdraw" else
                         op.keys() == _CHANGE_KEYS and type(amount) is int and 0 < amount < MAX_VALUE)):
                return name
    return _check_op_strict(op)


def _check_op_strict(op):
    if type(op) is not dict:
        raise MalformedOp("expected a JSON object like {\"op\": \"spin\", ...}")
    name = op.get("op")
    spec = FIELDS.get(name) if type(name) is str else None
    if spec is None:
        raise MalformedOp("unknown op %s; expected one of %s" % (_show(name), ", ".join(OPS)))
    required, optional = spec
    for field in op:
        if field != "op" and field not in required and field not in optional:
            known = ", ".join(required + optional) or "none"
            raise MalformedOp("op %r: unknown field %s (its fields: %s)" % (name, _show(field), known))
    for field in required:
        if field not in op:
            raise MalformedOp("op %r needs field %r" % (name, field))
    if name == "spin":
        _text(op, name, "result", RESULTS)
    elif name in ("bet", "change", "withdraw"):
        _text(op, name, "id")
        if name == "bet":
            _text(op, name, "on", BET_ON)
        if name != "withdraw":
            _number(name, "amount", op["amount"])
    elif name == "spinner":
        if "calls" in op:
            _text(op, name, "calls", SIDES)
        if "by" in op:
            _text(op, name, "by", ("player",) + HOUSE)
        if "calls" not in op and "by" not in op:
            raise MalformedOp("op 'spinner' needs \"calls\": heads|tails or \"by\": boxer|dealer")
        if "name" in op:
            _text(op, name, "name")
    elif name == "chips":
        vals = op["values"]
        if type(vals) is not list or not vals:
            raise MalformedOp("op 'chips': field 'values' must be a non-empty list of chip values")
        for v in vals:
            _number(name, "values", v)
        if "max" in op:
            _number(name, "max", op["max"])
        try:
            chips_for(tuple(vals))
        except ValueError as exc:
            raise MalformedOp("op 'chips': field 'values': %s" % exc)
    return name


def _text(op, name, field, choices=None):
    val = op[field]
    if type(val) is not str:
        raise MalformedOp("op %r: field %r has the wrong type (expected a string)" % (name, field))
    if choices is not None:
        if val not in choices:
            raise MalformedOp("op %r: %r must be one of %s" % (name, field, ", ".join(choices)))
    elif (not val.strip() or len(val) > MAX_TEXT or not val.isprintable()
          or (field == "id" and val != val.strip())):
        raise MalformedOp("op %r: field %r must be 1-%d printable characters%s"
                          % (name, field, MAX_TEXT, " without surrounding spaces" if field == "id" else ""))


def _number(name, field, val):
    problem = check_number(val)
    if problem:
        raise MalformedOp("op %r: field %r %s" % (name, field, problem))


def _show(value):
    """A short printable rendering of an arbitrary JSON value for an error line."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


class Wager:
    """One wager on the layout."""

    __slots__ = ("id", "on", "amount", "placed_at")

    def __init__(self, wid, on, amount, placed_at):
        self.id = wid
        self.on = on
        self.amount = amount         # integer units of 1/SCALE
        self.placed_at = placed_at   # the engine's valid-spin count when it went down (4.7)


class Game:
    """A spinner's game (reading 1): from the declaration to the spinner's wager's result."""

    __slots__ = ("calls", "name", "wager", "valid", "count", "invalid_run", "awaiting", "frozen")

    def __init__(self, calls, name):
        self.calls = calls
        self.name = name
        self.wager = None        # id of the spinner's wager (4.1.1) while on the layout
        self.valid = 0           # valid spins in this game
        self.count = 0           # results equal to the call (4.1.1.1)
        self.invalid_run = 0     # consecutive invalid spins by the player (6.5 / 6.6)
        self.awaiting = False    # 6.5: spinner must elect to retire or hand over
        self.frozen = False      # 6.8: a dealer spins in an excluded spinner's stead

    def as_json(self):
        return {"calls": self.calls, "name": self.name, "wager": self.wager, "valid_spins": self.valid,
                "count": self.count, "invalid_run": self.invalid_run, "awaiting_election": self.awaiting,
                "frozen": self.frozen}


class Engine:
    """The table's state. `apply(op)` -> events; `state()` -> a JSON snapshot."""

    def __init__(self):
        self.chips = chips_for((1,))
        self.table_max = None      # the casino's table maximum per wager (chips op "max")
        self.betting = "idle"      # idle | open | closed  (6.2 / 6.3)
        self.last_void = False     # the last spin since the close was a no-spin (4.7)
        self.odds_run = 0          # consecutive odds since the last heads/tails (reading 3)
        self.spinning = None       # None | "player" | "boxer" | "dealer" | "house"
        self.game = None           # Game while a spinner's wager is undetermined
        self.excluded = set()      # 6.7: normalised names barred from re-entering the ring
        self.wagers = {}           # id -> Wager on the layout (reading 15)
        self.valid_spins = 0       # valid results so far: a wager's pending count is the difference
        self.spins = 0             # accepted spin ops (valid or not)

    # ---- public ---------------------------------------------------------------------------
    def apply(self, op, line=None, checked=False):
        """Apply one op; returns the events. Raises MalformedOp for a shapeless op
        (`checked`: the caller has already run check_op on it)."""
        name = op["op"] if checked else check_op(op)
        try:
            events = _HANDLERS[name](self, op)
        except Rejected as exc:
            events = [{"event": "rejected", "op": name, "rule": exc.rule, "reason": exc.reason}]
        if line is not None:
            for ev in events:
                ev["line"] = line
        return events

    @classmethod
    def replay(cls, ops):
        """Rebuild a table from its recorded ops (e.g. from the audit log after a restart)."""
        eng = cls()
        for op in ops:
            eng.apply(op)
        return eng

    def state(self):
        return {"chips": self.chips.as_json(), "max": units_json(self.table_max) if self.table_max else None,
                "betting": self.betting, "last_void": self.last_void,
                "odds_run": self.odds_run, "spinning": self.spinning,
                "game": self.game.as_json() if self.game else None,
                "excluded": sorted(self.excluded), "spins": self.spins,
                "wagers": [{"id": w.id, "on": w.on, "amount": units_json(w.amount),
                            "pending": self.pending(w)} for w in self.wagers.values()]}

    def pending(self, w):
        """Valid spins since `w` was placed: > 0 means a result is pending for it (4.7)."""
        return self.valid_spins - w.placed_at

    # ---- ops ------------------------------------------------------------------------------
    def _op_chips(self, op):
        self.chips = chips_for(tuple(op["values"]))
        self.table_max = to_units(op["max"]) if "max" in op else None
        ev = {"event": "chips", "values": self.chips.as_json(), "rule": "4.9"}
        if self.table_max is not None:
            ev["max"] = units_json(self.table_max)
        return [ev]

    def _op_spinner(self, op):
        by = op.get("by", "player")
        calls = op.get("calls")
        name = op.get("name")
        game = self.game
        if by in HOUSE and calls is not None:
            raise Rejected("4.3", "the boxer or a dealer spinning declares neither heads nor tails (4.3)")
        if by == "player" and calls is None:
            raise Rejected("4.2", "a spinner must first declare heads or tails (4.2)")
        if game is not None:
            if game.awaiting and by in HOUSE:
                self.spinning = by
                game.awaiting = False
                game.invalid_run = 0
                return [{"event": "substitute", "by": by, "rule": "6.5",
                         "reason": "after three invalid opening spins the spinner elected to have "
                                   "the %s spin until the spinner's wager is determined" % by}]
            raise Rejected("6.6", "the spinner's game is in progress: the spinner (or the boxer or "
                                  "a dealer in his stead, 6.6) spins until the spinner's wager is "
                                  "determined; use spinner-retires or exclude-spinner")
        if self.odds_run:
            raise Rejected("4.1.2.3", "a result is pending after %d odds (4.1.2.3): the current "
                                      "spinner spins until heads, tails or five odds" % self.odds_run)
        if by in HOUSE:
            self.spinning = by
            return [{"event": "spinner", "by": by, "rule": "4.3",
                     "reason": "the %s spins: no spinner's wager, no declaration" % by}]
        if name is not None and normal_name(name) in self.excluded:
            raise Rejected("6.7", "spinner %r was excluded from the ring until the close of play (6.7)" % name)
        if self.betting == "closed" and self.wagers:
            raise Rejected("4.6", "wagers stand from 'no more bets' until a result (4.6) and no "
                                  "spinner's wager can be placed now: the boxer or a dealer spins "
                                  "for them first ({\"op\": \"spinner\", \"by\": \"boxer\"})")
        events = []
        if self.betting == "closed":
            self.spinning = None
            events = self._close_spent()
        self.game = Game(calls, name)
        self.spinning = "player"
        return events + [{"event": "spinner", "by": "player", "calls": calls, "name": name, "rule": "4.2"}]

    def _op_bets_open(self, op):
        if self.betting == "open":
            raise Rejected("6.2", "betting is already open (6.2)")
        if self.betting == "closed":
            why = ("after a no-spin wagers may only be increased, reduced or withdrawn, none "
                   "placed (4.7)" if self.last_void else "the result is not determined yet")
            raise Rejected("4.6", "'no more bets' was called: betting reopens only after a result "
                                  "is determined (4.6); %s" % why)
        self.betting = "open"
        return [{"event": "bets-open", "rule": "6.2"}]

    def _op_bets_closed(self, op):
        if self.betting != "open":
            raise Rejected("6.3", "betting is not open: call 'place your bets' first (6.2, 6.3)")
        game = self.game
        if game is not None and self.spinning == "player" and game.wager is None:
            raise Rejected("4.2", "the spinner's wager must be on the layout before the spinner "
                                  "comes in (4.2): place it, or the spinner retires")
        self.betting = "closed"
        self.last_void = False
        return [{"event": "bets-closed", "rule": "6.3"}]

    def _op_bet(self, op):
        wid, on = op["id"], op["on"]
        amount = self._amount(op)
        if wid in self.wagers:
            raise Rejected("4.5", "wager id %r is already on the layout (4.5); use change" % wid)
        if self.betting == "closed":
            raise Rejected("4.6", "no wager may be placed from 'no more bets' until the result is "
                                  "determined (4.6), oral wagers too (4.8); after a no-spin only "
                                  "increases, reductions and withdrawals (4.7)")
        if self.betting != "open":
            raise Rejected("6.2", "betting is not open: call 'place your bets' first (6.2)")
        game = self.game
        if on == "spinner":
            if game is None:
                if self.spinning in HOUSE:
                    raise Rejected("4.3", "the boxer or a dealer is spinning: there is no spinner's wager (4.3)")
                raise Rejected("4.2", "no spinner has declared heads or tails (4.2)")
            if game.wager is not None:
                raise Rejected("4.2", "the spinner's wager is already placed (%s, 4.2); use change" % game.wager)
            if game.valid or self.spinning != "player":
                raise Rejected("4.2", "the spinner's wager can only be placed before the first spin (4.2)")
        # 4.4: heads/tails wagers are open to everyone, the spinner included; 4.5: chips only.
        self.wagers[wid] = Wager(wid, on, amount, self.valid_spins)
        ev = {"event": "placed", "bet": wid, "on": on, "amount": units_json(amount),
              "rule": "4.1.1" if on == "spinner" else ("4.1.2" if on == "heads" else "4.1.3")}
        if on == "spinner":
            game.wager = wid
            ev["calls"] = game.calls
        return [ev]

    def _op_change(self, op):
        w = self._changeable(op["id"])
        amount = self._amount(op)
        old, w.amount = w.amount, amount
        return [{"event": "changed", "bet": w.id, "from": units_json(old),
                 "amount": units_json(amount), "rule": self._change_rule()}]

    def _op_withdraw(self, op):
        w = self._changeable(op["id"])
        rule = self._change_rule()
        del self.wagers[w.id]
        events = [{"event": "withdrawn", "bet": w.id, "amount": units_json(w.amount), "rule": rule}]
        game = self.game
        if game is not None and game.wager == w.id:
            game.wager = None
            if self.betting == "closed":   # reading 10
                self.game = None
                events.append({"event": "game-over", "outcome": "withdrawn", "calls": game.calls,
                               "rule": "4.7", "reason": "the spinner's wager was withdrawn: "
                               "there is no spinner's wager left to determine"})
                if self.spinning == "player":
                    self.spinning = None
                    events.append({"event": "spinner-retires", "by": "player", "rule": "4.2"})
                events += self._close_spent()
        return events

    def spin_refusal(self):
        """Why a spin op would be refused now -> (rule, reason), or None when the rules accept
        a spin (the host arms the ring only then: the light must never show a result the rules
        then refuse)."""
        try:
            self._check_spin()
        except Rejected as exc:
            return exc.rule, exc.reason
        return None

    def _op_spin(self, op):
        result = op["result"]
        self._check_spin()
        self.spins += 1
        if result == "no-spin":
            return self._void_spin()
        return self._valid_spin(result)

    def _check_spin(self):
        game = self.game
        if self.spinning is None:
            raise Rejected("4.2", "no spinner: call in a spinner who declares heads or tails (4.2) "
                                  "or have the boxer or a dealer spin (4.3)")
        if self.betting != "closed":
            raise Rejected("6.3", "the boxer has not called 'no more bets, come in spinner' (6.3)")
        if game is not None:
            if game.awaiting:
                raise Rejected("6.5", "three invalid opening spins: the spinner must elect to retire "
                                      "or have the boxer or a dealer spin (6.5)")
            if game.wager is None:
                raise Rejected("4.2", "the spinner's wager must be placed before the spinner spins (4.2)")

    def _op_spinner_retires(self, op):
        game = self.game
        if self.spinning is None:
            raise Rejected("6.4", "no one is spinning, so no one can retire (6.4)")
        if game is None:
            if self.odds_run:
                raise Rejected("4.1.2.3", "a result is pending after odds (4.1.2.3): the %s spins "
                                          "until heads, tails or five odds" % self.spinning)
            who, self.spinning = self.spinning, None
            return [{"event": "spinner-retires", "by": who, "rule": "4.3"}]
        if self.spinning != "player":
            raise Rejected("6.6", "the spinner has already handed over to the %s (6.6)" % self.spinning)
        if game.valid:
            self.spinning = "house"
            return [{"event": "spinner-retires", "by": "player", "rule": "6.6"},
                    {"event": "substitute", "by": "house", "rule": "6.6",
                     "reason": "the spinner stopped mid-series: the boxer or a dealer spins "
                               "until the spinner's wager is determined"}]
        if self.betting == "closed" and not self.last_void and not game.awaiting:   # reading 11
            self.spinning = "house"
            return [{"event": "spinner-retires", "by": "player", "rule": "6.6"},
                    {"event": "substitute", "by": "house", "rule": "4.6, 6.6",
                     "reason": "the spinner's wager stands from 'no more bets' (4.6): the boxer or "
                               "a dealer spins until it is determined"}]
        if self.betting != "closed":
            rule, reason = "6.2", "the spinner retired before 'no more bets': the spinner's wager is returned"
        elif game.awaiting:
            rule, reason = "6.5", "the spinner elected to retire after three invalid opening spins: " \
                                  "the spinner's wager is returned"
        else:
            rule, reason = "4.7", "the spinner retired after a void spin with no result pending: " \
                                  "the spinner's wager is returned"
        events = [{"event": "spinner-retires", "by": "player", "rule": rule}]
        return events + self._end_game_void(rule, reason)

    def _op_exclude_spinner(self, op):
        game = self.game
        if self.spinning != "player" or game is None:
            raise Rejected("6.7", "no player is spinning to exclude (6.7)")
        if game.name is not None:
            self.excluded.add(normal_name(game.name))
        events = [{"event": "excluded", "name": game.name, "rule": "6.7"}]
        if not game.valid:
            return events + self._end_game_void("6.7", "excluded before any valid spin: the "
                                                       "spinner's wager is returned")
        self.spinning = "dealer"
        game.awaiting = False
        game.frozen = True
        events.append({"event": "substitute", "by": "dealer", "rule": "6.8",
                       "reason": "a dealer spins until the spinner's wager is determined; "
                                 "wagers may not be amended or withdrawn"})
        return events

    # ---- spins ----------------------------------------------------------------------------
    def _void_spin(self):
        """Reading 2: a no-spin is void; 4.7 lets unpending wagers change; 6.5/6.6 count it."""
        self.last_void = True
        events = [{"event": "spin", "result": "no-spin", "void": True, "rule": "7.6",
                   "odds_run": self.odds_run}]
        game = self.game
        if game is not None and self.spinning == "player":
            game.invalid_run += 1
            if game.invalid_run >= INVALID_LIMIT:
                if not game.valid:
                    game.awaiting = True
                    events.append({"event": "election", "rule": "6.5",
                                   "reason": "three invalid opening spins: the spinner elects to "
                                             "retire (spinner-retires) or have the boxer or a dealer "
                                             "spin (spinner by boxer|dealer); players may withdraw "
                                             "or alter their wagers"})
                else:
                    self.spinning = "house"
                    events.append({"event": "substitute", "by": "house", "rule": "6.6",
                                   "reason": "three consecutive invalid spins mid-series: the boxer "
                                             "or a dealer spins until the spinner's wager is determined"})
        return events

    def _valid_spin(self, result):
        game = self.game
        self.last_void = False
        self.valid_spins += 1
        if game is not None:
            game.valid += 1
            if self.spinning == "player":
                game.invalid_run = 0
        events = []
        if result == "odds":
            self.odds_run += 1
            events.append({"event": "spin", "result": "odds", "rule": "6.9", "odds_run": self.odds_run})
            if self.odds_run < ODDS_LIMIT:
                return events  # 4.1.2.3: wagers stand, the spinner spins again
            self.odds_run = 0
            self.betting = "idle"
            for w in list(self.wagers.values()):
                events.append(self._settle(w, False, LOSE_RULE[w.on] + " five consecutive odds"))
            if game is not None:
                events += self._end_game("lose", "4.1.1.2 five consecutive odds")
            return events
        self.odds_run = 0
        self.betting = "idle"  # reading 7: the next spin needs a new open/close cycle
        events.append({"event": "spin", "result": result, "rule": "6.9", "odds_run": 0})
        for w in list(self.wagers.values()):
            if w.on == "spinner":
                continue
            win = w.on == result
            rule = ("4.1.2.1" if win else "4.1.2.2") if w.on == "heads" else ("4.1.3.1" if win else "4.1.3.2")
            events.append(self._settle(w, win, rule))
        if game is not None:
            sub = "1" if game.calls == "heads" else "2"
            w = self.wagers[game.wager]
            if result == game.calls:
                game.count += 1
                if game.count >= SPINNER_WINS_AT:
                    events.append(self._settle(w, True, "4.1.1.1.%s third %s" % (sub, result)))
                    events += self._end_game("win", "4.1.1.1.%s" % sub)
                else:
                    events.append({"event": "spinner-count", "calls": game.calls, "count": game.count,
                                   "of": SPINNER_WINS_AT, "rule": "4.1.1.1.%s" % sub})
            else:
                events.append(self._settle(w, False, "4.1.1.2.%s %s spun" % (sub, result)))
                events += self._end_game("lose", "4.1.1.2.%s" % sub)
        return events

    def _settle(self, w, win, rule):
        del self.wagers[w.id]
        pays = 0
        rules = rule
        if win:
            num, den = PAYOUT[w.on]
            exact = w.amount * num
            paid = self.chips.pay_up_units(exact, den)
            pays = units_json(paid)
            if paid * den != exact:
                rules += ", 8.1, 4.9 rounded up from %s" % (units_json(exact // den) if exact % den == 0
                                                           else exact / den / SCALE)
            else:
                rules += ", 8.1"
        return {"event": "settled", "bet": w.id, "on": w.on, "outcome": "win" if win else "lose",
                "stake": units_json(w.amount), "pays": pays, "rule": rules}

    def _end_game(self, outcome, rule):
        game, self.game = self.game, None
        who, self.spinning = self.spinning, None
        events = [{"event": "game-over", "outcome": outcome, "calls": game.calls, "rule": rule}]
        if outcome == "lose" and who == "player":
            events.append({"event": "spinner-retires", "by": "player", "rule": "6.4"})
        return events

    def _end_game_void(self, rule, reason):
        game, self.game = self.game, None
        self.spinning = None
        events = []
        w = self.wagers.pop(game.wager, None) if game.wager is not None else None
        if w is not None:
            events.append({"event": "void", "bet": w.id, "amount": units_json(w.amount),
                           "rule": rule, "reason": reason})
        events.append({"event": "game-over", "outcome": "void", "calls": game.calls, "rule": rule})
        return events + self._close_spent()

    def _close_spent(self):
        """Reading 12: a close with no game and no wager left on the layout has nothing to decide."""
        if self.betting != "closed" or self.game is not None or self.odds_run:
            return []
        if self.wagers:
            if self.spinning is None:
                return [{"event": "next", "rule": "4.3",
                         "reason": "wagers stand from 'no more bets' (4.6): the boxer or a dealer "
                                   "spins for them ({\"op\": \"spinner\", \"by\": \"boxer\"})"}]
            return []
        self.betting = "idle"
        self.last_void = False
        return [{"event": "bets-idle", "rule": "4.6",
                 "reason": "no wager is left on the layout: 'no more bets' is spent"}]

    # ---- checks ---------------------------------------------------------------------------
    def _amount(self, op):
        value = op["amount"]
        amount = value * SCALE if type(value) is int else to_units(value)
        if self.table_max is not None and amount > self.table_max:
            raise Rejected("4.5", "amount %s is above the table maximum %s (4.5: the casino's "
                           "table limit, chips op 'max')" % (op["amount"], units_json(self.table_max)))
        if not self.chips.payable_units(amount):
            raise Rejected("4.5", "amount %s cannot be made of the table's chips %s (4.5)"
                           % (op["amount"], self.chips.as_json()))
        return amount

    def _changeable(self, wid):
        w = self.wagers.get(wid)
        if w is None:
            raise Rejected("4.5", "no wager %r on the layout (4.5): never placed, or already "
                                  "settled, withdrawn or returned" % wid)
        if self.game is not None and self.game.frozen:
            raise Rejected("6.8", "a dealer is spinning for an excluded spinner: wagers may not "
                                  "be amended or withdrawn (6.8)")
        if self.pending(w):
            raise Rejected("4.6", "a result is pending for wager %r (a valid spin since it was "
                                  "placed): it stands until settled (4.6; 4.7 only relieves a "
                                  "wager with no result pending)" % wid)
        if self.betting == "open":
            return w
        if self.betting == "closed":
            if self.last_void:
                return w
            raise Rejected("4.6", "no wager may be changed or withdrawn from 'no more bets' until "
                                  "the result is determined (4.6)")
        raise Rejected("6.2", "betting is not open: call 'place your bets' first (6.2)")

    def _change_rule(self):
        if self.betting == "open":
            return "6.2"
        return "6.5, 4.7" if self.game is not None and self.game.awaiting else "4.7"


_HANDLERS = {name: getattr(Engine, "_op_" + name.replace("-", "_")) for name in OPS}
