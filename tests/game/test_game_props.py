"""Property tests: random game scripts never pay twice, never settle a withdrawn wager, never
let a refused op change the table, and agree with the independent series model (series_model.py)."""
import random
from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ringctl.game.engine import Engine
from series_model import chip_sums_at_least, model

IDS = ["b%d" % i for i in range(40)]
AMOUNTS = [1, 2, 3, 5, 10, 25, 7]
SPINS = ["heads", "tails", "odds", "odds", "odds", "no-spin", "no-spin"]
NOISE = ["change", "change", "withdraw", "withdraw", "retire", "exclude", "chips", "bets-open",
         "bets-closed", "spin", "spinner", "bet"]


def gen_script(rnd, rounds=None):
    """A random game script shaped like play at a table (spinner?, open, bets, close, spins)
    with noise ops anywhere, so that games really finish and refusals still happen."""
    ops = []
    for _ in range(rounds or rnd.randint(1, 12)):
        k = rnd.random()
        if k < 0.3:
            ops.append({"op": "spinner", "calls": rnd.choice(["heads", "tails"]), "name": rnd.choice("pqr")})
        elif k < 0.4:
            ops.append({"op": "spinner", "by": rnd.choice(["boxer", "dealer"])})
        ops.append({"op": "bets-open"})
        for _ in range(rnd.randint(0, 3)):
            ops.append(_bet(rnd, spinner=rnd.random() < 0.5))
        ops.append({"op": "bets-closed"})
        for _ in range(rnd.randint(1, 7)):
            ops.append({"op": "spin", "result": rnd.choice(SPINS)})
            if rnd.random() < 0.25:
                ops.append(_noise(rnd))
    return ops


def _bet(rnd, spinner=False):
    return {"op": "bet", "id": rnd.choice(IDS), "on": "spinner" if spinner else rnd.choice(["heads", "tails"]),
            "amount": rnd.choice(AMOUNTS)}


def _noise(rnd):
    kind = rnd.choice(NOISE)
    if kind in ("change", "withdraw"):
        op = {"op": kind, "id": rnd.choice(IDS)}
        if kind == "change":
            op["amount"] = rnd.choice(AMOUNTS)
        return op
    if kind == "retire":
        return {"op": "spinner-retires"}
    if kind == "exclude":
        return {"op": "exclude-spinner"}
    if kind == "chips":
        return {"op": "chips", "values": rnd.choice([[1], [1, 5, 25], [5, 25], [2, 5]])}
    if kind == "spin":
        return {"op": "spin", "result": rnd.choice(SPINS)}
    if kind == "spinner":
        return {"op": "spinner", "calls": rnd.choice(["heads", "tails"])}
    if kind == "bet":
        return _bet(rnd, spinner=rnd.random() < 0.3)
    return {"op": kind}


def run(ops):
    eng = Engine()
    accepted, events = [], []
    for i, op in enumerate(ops):
        before = eng.state()
        evs = eng.apply(op, line=i)
        events += evs
        if len(evs) == 1 and evs[0]["event"] == "rejected":
            assert eng.state() == before, "a refused op changed the table: %r" % (op,)
            assert evs[0]["rule"] and evs[0]["reason"]
        else:
            accepted.append((i, op))
    return eng, accepted, events


def check(ops):
    eng, accepted, events = run(ops)
    settled, withdrawn, void, live = {}, set(), set(), {}
    for e in events:
        if e["event"] == "placed":
            assert e["bet"] not in live, "id on the layout twice: %s" % e["bet"]
            live[e["bet"]] = (e["bet"], e["line"])
            continue
        if e["event"] not in ("settled", "withdrawn", "void"):
            continue
        key = live.pop(e["bet"])
        assert key not in set(settled) | withdrawn | void, "closed twice: %s" % (key,)
        if e["event"] == "settled":
            settled[key] = (e["outcome"], Fraction(str(e["pays"])), e["line"])
        elif e["event"] == "withdrawn":
            withdrawn.add(key)
        else:
            void.add(key)
    expect = model(accepted)
    for key, (fate, pays, at) in expect.items():
        if fate in ("win", "lose"):
            assert settled.get(key) == (fate, pays, at), (key, settled.get(key), expect[key])
        else:
            assert key not in settled, (key, fate, settled[key])
            assert (key in withdrawn) == (fate == "withdrawn"), (key, fate)
            assert (key in void) == (fate == "void"), (key, fate)
            if fate == "open":
                assert live.get(key[0]) == key and key[0] in eng.wagers
    assert set(settled) <= set(expect)
    assert set(live.values()) == {(w, live[w][1]) for w in eng.wagers}
    return accepted, events


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False))
def test_random_scripts_match_the_series_model(rnd):
    check(gen_script(rnd))


def test_random_scripts_exercise_the_rules():
    """The generator must really reach wins, losses, fifth odds, 6.5, 6.6, 6.8, 4.7 and 4.9,
    or the property above would pass vacuously."""
    rnd = random.Random(5)
    seen = set()
    for _ in range(300):
        _, events = check(gen_script(rnd, rounds=12))
        for e in events:
            if e["event"] == "settled":
                seen.add((e["on"] == "spinner", e["outcome"]))
                if "five consecutive odds" in e["rule"]:
                    seen.add("fifth-odds")
                if "4.9" in e["rule"]:
                    seen.add("4.9")
            elif e["event"] in ("substitute", "election", "void"):
                seen.add((e["event"], e["rule"]))
            elif e["event"] in ("changed", "withdrawn") and "4.7" in e["rule"]:
                seen.add("4.7")
    want = {(True, "win"), (True, "lose"), (False, "win"), (False, "lose"), "fifth-odds", "4.9",
            ("substitute", "6.6"), ("substitute", "6.8"), ("election", "6.5"), "4.7"}
    assert want <= seen, want - seen


def test_model_chip_rounding_agrees_with_engine_chips():
    from ringctl.game.chips import Chips
    for chips in ([1], [5, 25], [3, 5], [2, 5], [25]):
        c = Chips(chips)
        for tenths in range(1, 400, 7):
            x = Fraction(tenths, 10) * Fraction(15, 2)
            assert c.pay_up(x) == chip_sums_at_least(x, chips)
