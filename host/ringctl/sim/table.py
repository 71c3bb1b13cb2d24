"""The demo's table: a scripted boxer and players who call spinners in, bet and close betting.

It only proposes the next op from the table's state (RingHost.snapshot()["table"]); the
rules engine decides every one (and cites the rule), so a proposal the rules refuse is shown
as refused, never forced.
"""
from ..game.engine import HOUSE

CHIPS = [1, 5, 25]
NAMES = ("Ada", "Bill", "Cass", "Dot", "Eddie", "Fay", "Gus", "Hattie")


class Table:
    def __init__(self, rng):
        self.rng = rng
        self.next_bet = 1
        self.next_name = 0
        self.started = False
        self.queue = []          # wagers still to place in the open window

    def _bet(self, on, amount):
        wid = "b%d" % self.next_bet
        self.next_bet += 1
        return {"op": "bet", "id": wid, "on": on, "amount": amount}

    def next_op(self, table):
        """table: the engine's state (snapshot()["table"]) -> the next op to apply, or None
        when the table is ready for a spin."""
        game, spinning, betting = table["game"], table["spinning"], table["betting"]
        if not self.started:
            self.started = True
            return {"op": "chips", "values": CHIPS}
        if game is not None and game["awaiting_election"]:
            return {"op": "spinner", "by": "boxer"}          # 6.5: the spinner elects the boxer
        if spinning in HOUSE and game is None and not table["odds_run"] and betting != "closed":
            return {"op": "spinner-retires"}                 # the house hands the kip back
        if spinning is None or (spinning == "player" and game is None
                                and not table["odds_run"] and betting != "closed"):
            # A new spinner, or the winner declaring again for a new game (4.2).
            name = NAMES[self.next_name % len(NAMES)]
            self.next_name += 1
            return {"op": "spinner", "calls": str(self.rng.choice(["heads", "tails"])), "name": name}
        if betting == "closed":
            return None                                      # spin (again, after odds/no-spin)
        if betting != "open":
            self.queue = self._wagers(game)
            return {"op": "bets-open"}                       # 6.2 "place your bets"
        if self.queue:
            return self.queue.pop(0)
        return {"op": "bets-closed"}                         # 6.3 "no more bets, come in spinner"

    def _wagers(self, game):
        ops = []
        if game is not None and game["wager"] is None and game["valid_spins"] == 0:
            ops.append(self._bet("spinner", int(self.rng.choice([5, 10, 25]))))   # 4.2
        for _ in range(int(self.rng.integers(1, 4))):
            ops.append(self._bet(str(self.rng.choice(["heads", "tails"])),
                                 int(self.rng.choice([1, 5, 10, 25]))))
        return ops
