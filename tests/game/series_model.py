"""An independent, deliberately simple model of the series rules (4.1, 8.1, 4.9) for tests.

It does not decide which ops are allowed; given the ops the engine ACCEPTED, it works out
each wager's fate by scanning the valid results after the wager went down:
  heads/tails: first heads or tails decides; the fifth odds in a row (counted from the
               placement) loses;
  spinner's:   scan from the spinner's declaration: 3 of the call wins, the opposite or a
               fifth odds in a row loses; a game quit or excluded before any valid result
               returns it (void) -- except a spinner retiring after the close with no void
               since (engine reading 11): the wager stands and the house spins on.
Pays: smallest sum of chips >= stake x (7.5 or 1), by brute force over chip sums.
"""
from fractions import Fraction


def chip_sums_at_least(target, chips):
    """Brute force: every sum of chips up to target + biggest chip; smallest >= target."""
    chips = [Fraction(str(c)) for c in chips]
    limit = target + max(chips)
    sums, frontier = {Fraction(0)}, [Fraction(0)]
    while frontier:
        nxt = []
        for s in frontier:
            for c in chips:
                t = s + c
                if t <= limit and t not in sums:
                    sums.add(t)
                    nxt.append(t)
        frontier = nxt
    return min(s for s in sums if s >= target)


def model(accepted):
    """accepted: [(index, op)] -> {(bet, placed_at): ("win"|"lose", pays, index) |
    ("void", 0, index) | ("withdrawn", 0, index) | ("open", 0, None)}

    A wager is keyed by its id and the index of the op that placed it (an id is free again
    once its wager is off the layout)."""
    chips_at = []          # (index, chips)
    results = []           # (index, result) of valid spins
    wagers = {}            # key -> dict
    live = {}              # id -> key of the wager with that id on the layout
    game = None            # dict(calls, start, wager)
    fate = {}
    closed = void_since_close = False   # the betting window (only for reading 11)
    odds = 0
    for i, op in accepted:
        k = op["op"]
        if k == "chips":
            chips_at.append((i, op["values"]))
        elif k == "spinner" and "calls" in op:
            game = {"calls": op["calls"], "start": len(results), "wager": None}
            closed = False
        elif k == "bets-open":
            closed = False
        elif k == "bets-closed":
            closed, void_since_close = True, False
        elif k == "bet":
            key = live[op["id"]] = (op["id"], i)
            wagers[key] = {"on": op["on"], "amount": Fraction(str(op["amount"])),
                           "start": len(results), "game": game}
            if op["on"] == "spinner":
                game["wager"] = key
        elif k == "change":
            wagers[live[op["id"]]]["amount"] = Fraction(str(op["amount"]))
        elif k == "withdraw":
            fate[live.pop(op["id"])] = ("withdrawn", 0, i)
        elif k == "spin" and op["result"] == "no-spin":
            void_since_close = True
        elif k == "spin":
            results.append((i, op["result"]))
            odds = odds + 1 if op["result"] == "odds" else 0
            if odds in (0, 5):
                closed, odds = False, 0
        elif k in ("spinner-retires", "exclude-spinner") and game is not None:
            if len(results) == game["start"]:  # no valid result in this game
                if k == "spinner-retires" and closed and not void_since_close:
                    continue   # reading 11: the spinner's wager stands, the house spins
                w = game["wager"]
                if w is not None and w not in fate:
                    fate[w] = ("void", 0, i)
                    live.pop(w[0], None)
                game = None

    def chips_for(index):
        cur = [1]
        for j, c in chips_at:
            if j <= index:
                cur = c
        return cur

    for wid, w in wagers.items():
        if wid in fate:
            continue
        if w["on"] == "spinner":
            calls, start, mult = w["game"]["calls"], w["game"]["start"], Fraction(15, 2)
            need = 3
        else:
            calls, start, mult, need = w["on"], w["start"], Fraction(1), 1
        run = count = 0
        fate[wid] = ("open", 0, None)
        for i, r in results[start:]:
            if r == "odds":
                run += 1
                if run == 5:
                    fate[wid] = ("lose", 0, i)
                    break
                continue
            run = 0
            if r != calls:
                fate[wid] = ("lose", 0, i)
                break
            count += 1
            if count == need:
                pays = chip_sums_at_least(w["amount"] * mult, chips_for(i))
                fate[wid] = ("win", pays, i)
                break
    return fate
