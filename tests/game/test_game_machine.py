"""Hypothesis state machine over the table ops: from every reachable state a legal sequence
leads back to a new spinner taking the kip (no stuck table), money is conserved (stakes in =
stakes returned + losses + stakes still on the layout) and every win pays stake x 8.1 odds
rounded up to a chip sum (4.9, checked by brute force), refused ops change nothing and cite
the rule their reason cites."""
import copy
import json
import re
from collections import deque
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from ringctl.game.engine import Engine
from series_model import chip_sums_at_least

IDS = ["a", "b", "c", "s", "t"]
AMOUNTS = [1, 2, 3, 5, 7, 10, 25]
CHIP_SETS = [[1], [1, 5, 25], [5, 25], [2, 5], [3, 5, 7], [0.5, 2]]
NAMES = ["Ada", "ada ", "Bo", "BO", "Zoë", "Zoe\u0308"]
ODDS = {"spinner": Fraction(15, 2), "heads": Fraction(1), "tails": Fraction(1)}
# The moves tried, in order, when looking for the way back to a new spinner.
HOME = "newcomer"
MOVES = [{"op": "spinner", "calls": "heads", "name": HOME}, {"op": "spinner-retires"},
         {"op": "spin", "result": "heads"}, {"op": "bets-closed"}, {"op": "bets-open"},
         {"op": "spinner", "by": "dealer"}, {"op": "spin", "result": "tails"}]


def cited(reason):
    return set(re.findall(r"\b[4678](?:\.\d+)+\b", reason))


def way_home(eng, max_nodes=4000):
    """Breadth-first search over MOVES for a sequence that ends with a player declaring
    (a new spinner takes the kip); -> the ops, or None when none is found."""
    def key(e):
        st_ = e.state()
        del st_["spins"]
        return json.dumps(st_, sort_keys=True)
    start = copy.deepcopy(eng, {id(eng.chips): eng.chips})
    seen = {key(start)}
    queue = deque([(start, [])])
    while queue and len(seen) < max_nodes:
        cur, path = queue.popleft()
        for move in MOVES:
            nxt = copy.deepcopy(cur, {id(cur.chips): cur.chips})
            events = nxt.apply(dict(move))
            if events[0]["event"] == "rejected":
                continue
            if move["op"] == "spinner" and "calls" in move:
                return path + [move]
            k = key(nxt)
            if k not in seen:
                seen.add(k)
                queue.append((nxt, path + [move]))
    return None


class Table(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.eng = Engine()
        self.chips = [1]
        self.stake = {}          # wager id on the layout -> stake
        self.stakes_in = Fraction(0)
        self.returned = Fraction(0)
        self.lost = Fraction(0)
        self.paid = Fraction(0)

    def do(self, op):
        before = self.eng.state()
        events = self.eng.apply(op)
        if events[0]["event"] == "rejected":
            assert len(events) == 1 and self.eng.state() == before, (op, events)
            e = events[0]
            assert e["rule"] in cited(e["reason"]), e
            return
        for e in events:
            kind = e["event"]
            if kind == "chips":
                self.chips = e["values"]
            elif kind == "placed":
                assert e["bet"] not in self.stake
                self.stake[e["bet"]] = Fraction(str(e["amount"]))
                self.stakes_in += self.stake[e["bet"]]
            elif kind == "changed":
                old, new = self.stake[e["bet"]], Fraction(str(e["amount"]))
                self.stakes_in += max(new - old, 0)
                self.returned += max(old - new, 0)
                self.stake[e["bet"]] = new
            elif kind in ("withdrawn", "void"):
                self.returned += self.stake.pop(e["bet"])
            elif kind == "settled":
                stake = self.stake.pop(e["bet"])
                assert Fraction(str(e["stake"])) == stake
                if e["outcome"] == "win":
                    self.returned += stake
                    want = chip_sums_at_least(stake * ODDS[e["on"]], self.chips)
                    assert Fraction(str(e["pays"])) == want, (e, self.chips)
                    self.paid += want
                else:
                    assert e["pays"] == 0
                    self.lost += stake

    @rule(values=st.sampled_from(CHIP_SETS))
    def chips(self, values):
        self.do({"op": "chips", "values": values})

    @rule(calls=st.sampled_from(["heads", "tails"]), name=st.sampled_from(NAMES + [None]))
    def spinner(self, calls, name):
        op = {"op": "spinner", "calls": calls}
        if name is not None:
            op["name"] = name
        self.do(op)

    @rule(by=st.sampled_from(["boxer", "dealer"]))
    def house(self, by):
        self.do({"op": "spinner", "by": by})

    @rule(which=st.sampled_from(["bets-open", "bets-closed", "spinner-retires", "exclude-spinner"]))
    def call(self, which):
        self.do({"op": which})

    @rule(wid=st.sampled_from(IDS), on=st.sampled_from(["spinner", "heads", "tails"]),
          amount=st.sampled_from(AMOUNTS))
    def bet(self, wid, on, amount):
        self.do({"op": "bet", "id": wid, "on": on, "amount": amount})

    @rule(wid=st.sampled_from(IDS), amount=st.sampled_from(AMOUNTS))
    def change(self, wid, amount):
        self.do({"op": "change", "id": wid, "amount": amount})

    @rule(wid=st.sampled_from(IDS))
    def withdraw(self, wid):
        self.do({"op": "withdraw", "id": wid})

    @rule(result=st.sampled_from(["heads", "tails", "odds", "odds", "no-spin", "no-spin"]))
    def spin(self, result):
        self.do({"op": "spin", "result": result})

    @invariant()
    def money_is_conserved(self):
        on_layout = {w["id"]: Fraction(str(w["amount"])) for w in self.eng.state()["wagers"]}
        assert on_layout == self.stake
        assert self.stakes_in == self.returned + self.lost + sum(on_layout.values())

    @invariant()
    def table_never_sticks(self):
        assert way_home(self.eng) is not None, json.dumps(self.eng.state())


def run_machine(examples, steps):
    Table.TestCase.settings = settings(max_examples=examples, stateful_step_count=steps,
                                       deadline=None, suppress_health_check=list(HealthCheck))
    Table.TestCase().runTest()


def test_table_machine():
    run_machine(60, 40)


@pytest.mark.slow
def test_table_machine_soak():
    run_machine(3000, 60)


def test_way_home_finds_the_way_and_can_fail():
    eng = Engine()
    for o in ({"op": "spinner", "calls": "heads"}, {"op": "bets-open"},
              {"op": "bet", "id": "s", "on": "spinner", "amount": 1}, {"op": "bets-closed"},
              {"op": "spin", "result": "heads"}):
        eng.apply(o)
    path = way_home(eng)
    assert path and path[-1]["name"] == HOME and len(path) > 3
    assert way_home(eng, max_nodes=1) is None   # the search really searches
