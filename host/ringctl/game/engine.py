"""Two-Up rules engine: a pure state machine (no I/O) over table ops, citing casino rules 4, 6, 8.

Ops are dicts (the `ring game replay` line format, see ringctl.game.script); `Engine.apply(op)`
returns a list of event dicts. A refused op yields one `rejected` event with the rule that
refused it and changes nothing: every handler checks everything before it mutates state.

How the rules are read where they leave room (issue 5, readings 1-9):
 1. A spinner's game starts when a spinner declares heads or tails (4.2) and ends when the
    spinner's wager is determined; with the boxer or a dealer spinning (4.3) there is no
    spinner's wager.
 2. Valid results: heads, tails, odds. A no-spin is void: no count changes, no run breaks.
 3. Consecutive odds count over valid results since the last heads or tails; the fifth
    settles every open wager as lost and the spinner retires (6.4).
 4./5. Heads/tails wagers (4.1.2/4.1.3), the spinner's wager (4.1.1): third heads (or tails)
    of the game wins; the first opposite result or five consecutive odds loses.
 6. Winnings stake x 7.5 (spinner's) or x 1 (8.1), rounded up to a chip sum (4.9).
 7. Betting window: bets-open (6.2) only with no result pending, bets-closed (6.3); a spin
    needs a closed window; wagers are frozen from the close until settled (4.6).
 8. After a no-spin a wager with no result pending may be changed or withdrawn (4.7).
 9. 6.5, 6.6, 6.7-6.8: the boxer or a dealer ("house") spins until the spinner's wager is
    determined.
"""
import math

from .chips import Chips, to_fraction, to_json_number

SIDES = ("heads", "tails")
RESULTS = ("heads", "tails", "odds", "no-spin")
BET_ON = ("spinner", "heads", "tails")
HOUSE = ("boxer", "dealer")
OPS = ("chips", "spinner", "bets-open", "bets-closed", "bet", "change", "withdraw", "spin",
       "spinner-retires", "exclude-spinner")
ODDS_LIMIT = 5      # 4.1.1.2 / 4.1.2.2 / 4.1.3.2: five consecutive odds lose
SPINNER_WINS_AT = 3  # 4.1.1.1: three heads (tails) win the spinner's wager
INVALID_LIMIT = 3   # 6.5 / 6.6: three consecutive invalid spins
PAYOUT = {"spinner": to_fraction(7.5), "heads": to_fraction(1), "tails": to_fraction(1)}  # 8.1


class MalformedOp(ValueError):
    """The op is not shaped like any op (wrong field, type, value): an input error."""


class Rejected(Exception):
    """An op the rules refuse; carries the deciding rule."""

    def __init__(self, rule, reason):
        super().__init__(reason)
        self.rule = rule
        self.reason = reason


def check_op(op):
    """Validate an op's shape (not the rules); raises MalformedOp naming the problem."""
    if not isinstance(op, dict):
        raise MalformedOp("expected a JSON object like {\"op\": \"spin\", ...}")
    name = op.get("op")
    if name not in OPS:
        raise MalformedOp("unknown op %r; expected one of %s" % (name, ", ".join(OPS)))

    def need(field, kinds, choices=None):
        if field not in op:
            raise MalformedOp("op %r needs field %r" % (name, field))
        val = op[field]
        if not isinstance(val, kinds) or isinstance(val, bool):
            raise MalformedOp("op %r: field %r has the wrong type" % (name, field))
        if choices is not None and val not in choices:
            raise MalformedOp("op %r: %r must be one of %s" % (name, field, ", ".join(choices)))

    if name == "chips":
        need("values", list)
        if not op["values"] or any(isinstance(v, bool) or not isinstance(v, (int, float))
                                   or not math.isfinite(v) or v <= 0 for v in op["values"]):
            raise MalformedOp("op 'chips': values must be a non-empty list of positive numbers")
        try:
            Chips(op["values"])
        except ValueError as exc:
            raise MalformedOp("op 'chips': %s" % exc)
    elif name == "spinner":
        if "calls" in op:
            need("calls", str, SIDES)
        if "by" in op:
            need("by", str, ("player",) + HOUSE)
        if "calls" not in op and "by" not in op:
            raise MalformedOp("op 'spinner' needs \"calls\": heads|tails or \"by\": boxer|dealer")
        if "name" in op:
            need("name", str)
    elif name in ("bet", "change", "withdraw"):
        need("id", str)
        if name == "bet":
            need("on", str, BET_ON)
        if name != "withdraw":
            need("amount", (int, float))
            if not math.isfinite(op["amount"]):
                raise MalformedOp("op %r: amount must be a finite number" % name)
    elif name == "spin":
        need("result", str, RESULTS)
    return name


class Wager:
    """One wager on the layout."""

    __slots__ = ("id", "on", "amount", "status", "pending", "frozen68")

    def __init__(self, wid, on, amount):
        self.id = wid
        self.on = on
        self.amount = amount
        self.status = "open"      # open | settled | withdrawn | void
        self.pending = 0          # valid spins since placed: > 0 means a result is pending (4.7)
        self.frozen68 = False     # 6.8: placed before an exclusion, may not be amended

    def as_json(self):
        return {"id": self.id, "on": self.on, "amount": to_json_number(self.amount),
                "status": self.status, "pending": self.pending, "frozen": self.frozen68}


class Game:
    """A spinner's game (reading 1): from the declaration to the spinner's wager's result."""

    __slots__ = ("calls", "name", "wager", "valid", "count", "invalid_run", "awaiting", "frozen")

    def __init__(self, calls, name):
        self.calls = calls
        self.name = name
        self.wager = None        # id of the spinner's wager (4.1.1)
        self.valid = 0           # valid spins in this game
        self.count = 0           # results equal to the call (4.1.1.1)
        self.invalid_run = 0     # consecutive invalid spins by the player (6.5 / 6.6)
        self.awaiting = False    # 6.5: spinner must elect to retire or hand over
        self.frozen = False      # 6.8

    def as_json(self):
        return {"calls": self.calls, "name": self.name, "wager": self.wager, "valid_spins": self.valid,
                "count": self.count, "invalid_run": self.invalid_run, "awaiting_election": self.awaiting,
                "frozen": self.frozen}


class Engine:
    """The table's state. `apply(op)` -> events; `state()` -> a JSON snapshot."""

    def __init__(self):
        self.chips = Chips([1])
        self.betting = "idle"      # idle | open | closed  (6.2 / 6.3)
        self.last_void = False     # the last spin since the close was a no-spin (4.7)
        self.odds_run = 0          # consecutive odds since the last heads/tails (reading 3)
        self.spinning = None       # None | "player" | "boxer" | "dealer" | "house"
        self.game = None           # Game while a spinner's wager is undetermined
        self.excluded = set()      # 6.7: names barred from re-entering the ring
        self.wagers = {}           # id -> Wager, every wager ever placed (ids are never reused)
        self.spins = 0             # accepted spin ops (valid or not)

    # ---- public ---------------------------------------------------------------------------
    def apply(self, op, line=None):
        """Apply one op; returns the events. Raises MalformedOp for a shapeless op."""
        name = check_op(op)
        handler = getattr(self, "_op_" + name.replace("-", "_"))
        try:
            events = handler(op)
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
        return {"chips": self.chips.as_json(), "betting": self.betting, "last_void": self.last_void,
                "odds_run": self.odds_run, "spinning": self.spinning,
                "game": self.game.as_json() if self.game else None,
                "excluded": sorted(self.excluded), "spins": self.spins,
                "wagers": [w.as_json() for w in self.wagers.values()]}

    def open_wagers(self):
        return [w for w in self.wagers.values() if w.status == "open"]

    # ---- ops ------------------------------------------------------------------------------
    def _op_chips(self, op):
        self.chips = Chips(op["values"])
        return [{"event": "chips", "values": self.chips.as_json(), "rule": "4.9"}]

    def _op_spinner(self, op):
        by = op.get("by", "player")
        calls = op.get("calls")
        name = op.get("name")
        game = self.game
        if by in HOUSE and calls is not None:
            raise Rejected("4.3", "the boxer or a dealer spinning declares neither heads nor tails")
        if by == "player" and calls is None:
            raise Rejected("4.2", "a spinner must first declare heads or tails")
        if game is not None:
            if game.awaiting and by in HOUSE:
                self.spinning = by
                game.awaiting = False
                game.invalid_run = 0
                return [{"event": "substitute", "by": by, "rule": "6.5",
                         "reason": "after three invalid opening spins the spinner elected to have "
                                   "the %s spin until the spinner's wager is determined" % by}]
            raise Rejected("6.6", "the spinner's game is in progress: the spinner (or the boxer or "
                                  "a dealer in his stead) spins until the spinner's wager is "
                                  "determined (4.1.1); use spinner-retires or exclude-spinner")
        if self.odds_run:
            raise Rejected("4.1.2.3", "a result is pending after %d odds: the current spinner "
                                      "spins until heads, tails or five odds" % self.odds_run)
        if by in HOUSE:
            self.spinning = by
            return [{"event": "spinner", "by": by, "rule": "4.3",
                     "reason": "the %s spins: no spinner's wager, no declaration" % by}]
        if name is not None and name in self.excluded:
            raise Rejected("6.7", "spinner %r was excluded from the ring until the close of play" % name)
        self.game = Game(calls, name)
        self.spinning = "player"
        return [{"event": "spinner", "by": "player", "calls": calls, "name": name, "rule": "4.2"}]

    def _op_bets_open(self, op):
        if self.betting == "open":
            raise Rejected("6.2", "betting is already open")
        if self.odds_run:
            raise Rejected("4.6", "a result is pending after %d odds (4.1.2.3): no new bets until "
                                  "heads, tails or the fifth odds settles the wagers" % self.odds_run)
        self.betting = "open"
        return [{"event": "bets-open", "rule": "6.2"}]

    def _op_bets_closed(self, op):
        if self.betting != "open":
            raise Rejected("6.3", "betting is not open: call 'place your bets' first (6.2)")
        self.betting = "closed"
        self.last_void = False
        return [{"event": "bets-closed", "rule": "6.3"}]

    def _op_bet(self, op):
        wid, on = op["id"], op["on"]
        amount = self._amount(op)
        if wid in self.wagers:
            raise Rejected("4.5", "wager id %r is already used on this layout" % wid)
        self._window_open("placed")
        if on == "spinner":
            game = self.game
            if game is None:
                if self.spinning in HOUSE:
                    raise Rejected("4.3", "the boxer or a dealer is spinning: there is no spinner's wager")
                raise Rejected("4.2", "no spinner has declared heads or tails")
            if game.wager is not None and self.wagers[game.wager].status == "open":
                raise Rejected("4.2", "the spinner's wager is already placed (%s); use change" % game.wager)
            if game.valid:
                raise Rejected("4.2", "the spinner's wager can only be placed before the first spin")
        # 4.4: heads/tails wagers are open to everyone, the spinner included; 4.5: chips only.
        w = Wager(wid, on, amount)
        self.wagers[wid] = w
        ev = {"event": "placed", "bet": wid, "on": on, "amount": to_json_number(amount),
              "rule": "4.1.1" if on == "spinner" else ("4.1.2" if on == "heads" else "4.1.3")}
        if on == "spinner":
            self.game.wager = wid
            ev["calls"] = self.game.calls
        return [ev]

    def _op_change(self, op):
        w = self._changeable(op["id"])
        amount = self._amount(op)
        old, w.amount = w.amount, amount
        return [{"event": "changed", "bet": w.id, "from": to_json_number(old),
                 "amount": to_json_number(amount), "rule": self._change_rule()}]

    def _op_withdraw(self, op):
        w = self._changeable(op["id"])
        w.status = "withdrawn"
        return [{"event": "withdrawn", "bet": w.id, "amount": to_json_number(w.amount),
                 "rule": self._change_rule()}]

    def _op_spin(self, op):
        result = op["result"]
        game = self.game
        if self.spinning is None:
            raise Rejected("4.2", "no spinner: call in a spinner who declares heads or tails (4.2) "
                                  "or have the boxer or a dealer spin (4.3)")
        if self.betting != "closed":
            raise Rejected("6.3", "the boxer has not called 'no more bets, come in spinner'")
        if game is not None:
            if game.awaiting:
                raise Rejected("6.5", "three invalid opening spins: the spinner must elect to retire "
                                      "or have the boxer or a dealer spin")
            if game.wager is None or self.wagers[game.wager].status != "open":
                raise Rejected("4.2", "the spinner's wager must be placed before the spinner spins")
        self.spins += 1
        if result == "no-spin":
            return self._void_spin()
        return self._valid_spin(result)

    def _op_spinner_retires(self, op):
        game = self.game
        if self.spinning is None:
            raise Rejected("6.4", "no one is spinning")
        if game is None:
            if self.odds_run:
                raise Rejected("4.1.2.3", "a result is pending after odds: the %s spins until "
                                          "heads, tails or five odds" % self.spinning)
            who, self.spinning = self.spinning, None
            return [{"event": "spinner-retires", "by": who, "rule": "4.3"}]
        if self.spinning != "player":
            raise Rejected("6.6", "the spinner has already handed over to the %s" % self.spinning)
        if game.valid:
            self.spinning = "house"
            return [{"event": "spinner-retires", "by": "player", "rule": "6.6"},
                     {"event": "substitute", "by": "house", "rule": "6.6",
                      "reason": "the spinner stopped mid-series: the boxer or a dealer spins "
                                "until the spinner's wager is determined"}]
        rule = "6.5" if game.awaiting else "4.7"
        events = [{"event": "spinner-retires", "by": "player", "rule": rule}]
        events += self._end_game_void(rule, "the spinner retired before any valid spin: "
                                            "no result is pending, the spinner's wager is returned")
        return events

    def _op_exclude_spinner(self, op):
        game = self.game
        if self.spinning != "player" or game is None:
            raise Rejected("6.7", "no player is spinning")
        if game.name is not None:
            self.excluded.add(game.name)
        events = [{"event": "excluded", "name": game.name, "rule": "6.7"}]
        if not game.valid:
            events += self._end_game_void("6.7", "excluded before any valid spin: the spinner's "
                                                 "wager is returned")
            return events
        self.spinning = "dealer"
        game.awaiting = False
        game.frozen = True
        for w in self.open_wagers():
            w.frozen68 = True
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
        for w in self.open_wagers():
            w.pending += 1
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
            for w in self.open_wagers():
                rule = {"spinner": "4.1.1.2", "heads": "4.1.2.2", "tails": "4.1.3.2"}[w.on]
                events.append(self._settle(w, False, rule + " five consecutive odds"))
            if game is not None:
                events += self._end_game("lose", "4.1.1.2 five consecutive odds")
            return events
        self.odds_run = 0
        self.betting = "idle"  # reading 7: the next spin needs a new open/close cycle
        events.append({"event": "spin", "result": result, "rule": "6.9", "odds_run": 0})
        for w in self.open_wagers():
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
        w.status = "settled"
        pays = 0
        rules = rule
        if win:
            exact = w.amount * PAYOUT[w.on]
            paid = self.chips.pay_up(exact)
            pays = to_json_number(paid)
            rules += ", 8.1" + (", 4.9 rounded up from %s" % to_json_number(exact) if paid != exact else "")
        return {"event": "settled", "bet": w.id, "on": w.on, "outcome": "win" if win else "lose",
                "stake": to_json_number(w.amount), "pays": pays, "rule": rules}

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
        if game.wager is not None and self.wagers[game.wager].status == "open":
            w = self.wagers[game.wager]
            w.status = "void"
            events.append({"event": "void", "bet": w.id, "amount": to_json_number(w.amount),
                           "rule": rule, "reason": reason})
        events.append({"event": "game-over", "outcome": "void", "calls": game.calls, "rule": rule})
        return events

    # ---- checks ---------------------------------------------------------------------------
    def _amount(self, op):
        amount = to_fraction(op["amount"])
        if not self.chips.payable(amount):
            raise Rejected("4.5", "amount %s cannot be made of the table's chips %s"
                           % (op["amount"], self.chips.as_json()))
        return amount

    def _window_open(self, verb):
        if self.betting == "closed":
            raise Rejected("4.6", "no wager may be %s after 'no more bets' until the result is "
                                  "determined (oral wagers too, 4.8)" % verb)
        if self.betting != "open":
            raise Rejected("6.2", "betting is not open: call 'place your bets' first")

    def _changeable(self, wid):
        w = self.wagers.get(wid)
        if w is None:
            raise Rejected("4.5", "no wager %r on the layout" % wid)
        if w.status != "open":
            raise Rejected("4.6", "wager %r is already %s" % (wid, w.status))
        if w.pending:
            rule = "4.1.1" if w.on == "spinner" else "4.6"
            raise Rejected(rule, "a result is pending for wager %r (a valid spin since it was "
                                 "placed): it stands until settled (4.6, 4.7)" % wid)
        if w.frozen68:
            raise Rejected("6.8", "a dealer is spinning for an excluded spinner: wagers may not "
                                  "be amended or withdrawn")
        if self.betting == "open":
            return w
        if self.betting == "closed" and self.last_void:
            return w
        self._window_open("changed or withdrawn")
        return w  # pragma: no cover (the line above always raises here)

    def _change_rule(self):
        if self.betting == "open":
            return "6.2"
        return "6.5, 4.7" if self.game is not None and self.game.awaiting else "4.7"
