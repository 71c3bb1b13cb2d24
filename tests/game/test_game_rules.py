"""Table tests for the rules engine, one group per casino rule (4.1-4.9, 6.1-6.9, 8.1)."""
import copy

import pytest

from gamekit import op, pick, rejected, run, settled
from ringctl.game.engine import Engine

# A player spinner calling heads with a 10 spinner's wager, betting closed, ready to spin.
READY_H = ("spinner heads; open; bet s spinner 10; close",)
NEXT = "open; close"  # a new betting cycle after a settled result (reading 7)


# ---- 4.1.1 spinner's wager -----------------------------------------------------------
@pytest.mark.parametrize("spins, outcome", [
    (["H", "H", "H"], ("win", 75)),                       # 4.1.1.1.1
    (["O", "H", "O", "O", "H", "O", "H"], ("win", 75)),    # odds between, no run of five
    (["H", "T"], ("lose", 0)),                             # 4.1.1.2.1 first tails
    (["T"], ("lose", 0)),
    (["H", "O", "O", "O", "O", "O"], ("lose", 0)),         # five consecutive odds
    (["H", "H", "N", "N", "H"], ("win", 75)),              # no-spins are void
])
def test_4_1_1_spinner_wager_for_heads(spins, outcome):
    lines = list(READY_H)
    for s in spins:
        lines.append("spin " + s)
        if s in "HT":
            lines.append(NEXT)
    eng, ev = run(*lines)
    assert not rejected(ev)
    assert settled(ev)["s"] == outcome


def test_4_1_1_spinner_wager_for_tails_mirrors():
    _, ev = run("spinner tails; open; bet s spinner 4; close", "spin T", NEXT, "spin O", "spin T", NEXT, "spin T")
    assert settled(ev)["s"] == ("win", 30)
    _, ev = run("spinner tails; open; bet s spinner 4; close", "spin T", NEXT, "spin H")
    assert settled(ev)["s"] == ("lose", 0)
    assert pick(ev, "settled", bet="s")[0]["rule"].startswith("4.1.1.2.2")


def test_4_1_1_game_ends_when_wager_determined_then_new_declaration_needed():
    eng, ev = run(*READY_H, "spin H", NEXT, "spin H", NEXT, "spin H", NEXT, "spin H")
    assert pick(ev, "game-over", outcome="win")
    assert rejected(ev) == [(8, "4.2")]      # reading 1: the next game needs a declaration
    assert eng.game is None


# ---- 4.1.2 / 4.1.3 heads and tails wagers ---------------------------------------------
@pytest.mark.parametrize("on, spins, outcome, rule", [
    ("heads", ["H"], ("win", 10), "4.1.2.1"),
    ("heads", ["T"], ("lose", 0), "4.1.2.2"),
    ("heads", ["O", "O", "H"], ("win", 10), "4.1.2.1"),
    ("heads", ["O"] * 5, ("lose", 0), "4.1.2.2"),
    ("tails", ["T"], ("win", 10), "4.1.3.1"),
    ("tails", ["H"], ("lose", 0), "4.1.3.2"),
    ("tails", ["O", "N", "O", "T"], ("win", 10), "4.1.3.1"),
    ("tails", ["O", "O", "N", "O", "O", "O"], ("lose", 0), "4.1.3.2"),  # no-spin breaks no run
])
def test_4_1_2_and_4_1_3_heads_tails(on, spins, outcome, rule):
    _, ev = run("spinner boxer; open; bet b %s 10; close" % on, *["spin " + s for s in spins])
    assert not rejected(ev)
    assert settled(ev) == {"b": outcome}
    assert pick(ev, "settled")[0]["rule"].startswith(rule)


def test_4_1_2_3_odds_leave_wagers_standing():
    eng, ev = run("spinner boxer; open; bet b heads 10; bet c tails 5; close", "spin O", "spin O")
    assert not settled(ev)
    assert "b" in eng.wagers and eng.odds_run == 2


def test_odds_run_is_broken_by_heads_or_tails():
    _, ev = run("spinner boxer; open; bet a heads 1; close", "spin O; spin O; spin O; spin O; spin T",
                "open; bet b heads 1; close", "spin O; spin O; spin O; spin O")
    assert settled(ev) == {"a": ("lose", 0)}
    assert not pick(ev, "settled", bet="b")


def test_fifth_odds_loses_every_wager_and_spinner_retires():
    _, ev = run("spinner heads; open; bet s spinner 10; bet h heads 5; bet t tails 5; close",
                "spin O; spin O; spin O; spin O; spin O")
    assert settled(ev) == {"s": ("lose", 0), "h": ("lose", 0), "t": ("lose", 0)}
    assert pick(ev, "spinner-retires", rule="6.4")


# ---- 4.2 / 4.3 / 4.4 ------------------------------------------------------------------
def test_4_2_declaration_and_spinner_wager_before_first_spin():
    _, ev = run("open; close; spin H")
    assert rejected(ev) == [(1, "4.2")]                     # no spinner
    _, ev = run("spinner heads; open; close; spin H")
    assert [(e["op"], e["rule"]) for e in pick(ev, "rejected")] == [("bets-closed", "4.2"), ("spin", "6.3")]
    _, ev = run(*READY_H, "spin H", "open; bet s2 spinner 5")
    assert rejected(ev) == [(3, "4.2")]                     # only before the first spin
    _, ev = run("spinner heads; open; bet s spinner 10; bet s2 spinner 5")
    assert rejected(ev) == [(1, "4.2")]                     # one spinner's wager


def test_4_3_boxer_spins_without_spinner_wager_or_declaration():
    _, ev = run("spinner boxer; open; bet s spinner 10")
    assert rejected(ev) == [(1, "4.3")]
    eng = Engine()
    ev = eng.apply({"op": "spinner", "by": "boxer", "calls": "heads"})
    assert ev[0]["event"] == "rejected" and ev[0]["rule"] == "4.3"


def test_4_4_spinner_may_also_bet_heads_or_tails():
    _, ev = run("spinner heads; open; bet s spinner 10; bet sh heads 10; close", "spin H")
    assert settled(ev) == {"sh": ("win", 10)}
    assert pick(ev, "spinner-count", count=1)


# ---- 4.5 / 4.8 / 4.9 / 8.1 ------------------------------------------------------------
def test_4_5_amount_must_be_made_of_chips():
    _, ev = run("chips 5 25; spinner boxer; open; bet a heads 7; bet b heads 30; change b 12")
    assert rejected(ev) == [(1, "4.5"), (1, "4.5")]


@pytest.mark.parametrize("chips, on, stake, pays", [
    ([1], "spinner", 10, 75),           # 8.1 7.5 to 1, exact
    ([1], "spinner", 3, 23),            # 22.5 -> 23 (4.9)
    ([1, 5, 25], "spinner", 3, 23),     # the 1 chip pays any whole amount
    ([5, 25], "spinner", 15, 115),      # 112.5 -> 115
    ([25], "spinner", 25, 200),         # 187.5 -> 200
    ([3, 5], "spinner", 5, 38),         # 37.5 -> 38 = 3*11 + 5
    ([5, 25], "heads", 5, 5),           # 8.1 1 to 1
])
def test_8_1_and_4_9_payout(chips, on, stake, pays):
    spins = ["spin H", NEXT, "spin H", NEXT, "spin H"] if on == "spinner" else ["spin H"]
    setup = "chips %s; spinner heads; open; bet x %s %d; close" % (" ".join(map(str, chips)), on, stake)
    if on != "spinner":
        setup = "chips %s; spinner boxer; open; bet x %s %d; close" % (" ".join(map(str, chips)), on, stake)
    _, ev = run(setup, *spins)
    assert settled(ev)["x"] == ("win", pays)
    ev = pick(ev, "settled", bet="x")[0]
    assert "8.1" in ev["rule"]
    assert ("4.9" in ev["rule"]) == (pays != stake * (7.5 if on == "spinner" else 1))


# ---- 4.6 / 4.7 / 6.2 / 6.3 betting window ---------------------------------------------
def test_4_6_no_place_change_withdraw_after_close():
    _, ev = run("spinner boxer; open; bet a heads 10; close", "bet b heads 5", "change a 20", "withdraw a")
    assert rejected(ev) == [(2, "4.6"), (3, "4.6"), (4, "4.6")]


def test_4_6_after_odds_betting_stays_shut_until_settled():
    _, ev = run("spinner boxer; open; bet a heads 10; close", "spin O", "open", "spin O; spin H", "open")
    assert rejected(ev) == [(3, "4.6")]
    assert settled(ev) == {"a": ("win", 10)}


def test_4_7_after_no_spin_unpending_wagers_may_change():
    eng, ev = run("spinner boxer; open; bet a heads 10; bet b tails 10; close", "spin N",
                  "change a 20", "withdraw b", "spin H")
    assert not rejected(ev)
    assert settled(ev) == {"a": ("win", 20)}
    assert pick(ev, "withdrawn", bet="b") and "b" not in eng.wagers


def test_4_7_pending_wager_stays_frozen_after_no_spin():
    _, ev = run("spinner boxer; open; bet a heads 10; close", "spin O", "spin N", "change a 20", "withdraw a")
    assert rejected(ev) == [(4, "4.6"), (5, "4.6")]


def test_6_2_bets_need_place_your_bets():
    _, ev = run("spinner boxer", "bet a heads 10", "open", "open")
    assert rejected(ev) == [(2, "6.2"), (4, "6.2")]


def test_6_3_spin_needs_no_more_bets_and_a_new_cycle_after_a_result():
    _, ev = run("spinner boxer; open; bet a heads 1", "spin H", "close", "spin O", "spin T", "spin H", "close")
    # line 2: not closed; line 6: after the settled tails a new open/close is needed; line 7: not open
    assert rejected(ev) == [(2, "6.3"), (6, "6.3"), (7, "6.3")]


# ---- 6.4 - 6.8 spinner changes --------------------------------------------------------
def test_6_4_losing_spinner_retires():
    eng, ev = run(*READY_H, "spin T", NEXT, "spin H")
    assert pick(ev, "spinner-retires", rule="6.4")
    assert rejected(ev) == [(4, "4.2")] and eng.spinning is None


def test_6_5_three_invalid_opening_spins_election():
    eng, ev = run(*READY_H, "spin N; spin N; spin N", "spin H", "change s 20", "spinner boxer",
                  "spin H", NEXT, "spin H", NEXT, "spin H")
    assert pick(ev, "election", rule="6.5")
    assert rejected(ev) == [(3, "6.5")]                      # the player must elect first
    assert pick(ev, "changed", bet="s")[0]["rule"] == "6.5, 4.7"   # players may alter wagers
    assert pick(ev, "substitute", by="boxer", rule="6.5")
    assert settled(ev) == {"s": ("win", 150)}                # the boxer finished the game


def test_6_5_spinner_may_retire_instead_wager_returned():
    eng, ev = run(*READY_H, "spin N; spin N; spin N", "retire")
    assert pick(ev, "void", bet="s", rule="6.5")
    assert not settled(ev) and eng.game is None and "s" not in eng.wagers


def test_6_6_spinner_stops_mid_series_house_finishes():
    eng, ev = run(*READY_H, "spin H", "retire", NEXT, "spin O", "spin H", NEXT, "spin H")
    assert pick(ev, "substitute", by="house", rule="6.6")
    assert settled(ev) == {"s": ("win", 75)}


def test_6_6_three_invalid_spins_mid_series():
    eng, ev = run(*READY_H, "spin H", NEXT, "spin N; spin N; spin N")
    assert pick(ev, "substitute", by="house", rule="6.6")
    assert eng.spinning == "house" and eng.game.count == 1


def test_6_7_exclusion_before_any_valid_spin():
    eng, ev = run("spinner heads p1; open; bet s spinner 10; close", "exclude", "spinner tails p1")
    assert pick(ev, "void", bet="s", rule="6.7")
    assert rejected(ev) == [(3, "6.7")]


def test_6_8_dealer_finishes_wagers_frozen():
    eng, ev = run("spinner heads; open; bet s spinner 10; bet h heads 5; close", "spin H",
                  "open; bet t tails 5; close", "spin N", "exclude", "withdraw t", "spin H",
                  NEXT, "spin H")
    assert pick(ev, "substitute", by="dealer", rule="6.8")
    assert rejected(ev) == [(6, "6.8")]                     # 4.7 relief withdrawn by 6.8
    assert settled(ev) == {"h": ("win", 5), "t": ("lose", 0), "s": ("win", 75)}


def test_6_9_result_announced_then_settled():
    _, ev = run("spinner boxer; open; bet a heads 10; close; spin H")
    kinds = [e["event"] for e in ev]
    assert kinds.index("spin") < kinds.index("settled")
    assert pick(ev, "spin")[0]["rule"] == "6.9"


# ---- engine contract ------------------------------------------------------------------
def test_rejected_op_changes_nothing():
    eng, _ = run("spinner heads; open; bet s spinner 10; close", "spin O")
    for text in ["bet x heads 5", "change s 20", "withdraw s", "open", "close", "spinner tails",
                 "spinner boxer"]:
        before = copy.deepcopy(eng.state())
        ev = eng.apply(op(text))
        assert ev[0]["event"] == "rejected", text
        assert eng.state() == before, text


def test_every_rejection_cites_a_rule():
    _, ev = run("spin H", "bet a heads 1", "close", "withdraw zz", "retire", "exclude", "spinner boxer; bet s spinner 1")
    assert len(rejected(ev)) == 7
    for e in pick(ev, "rejected"):
        assert e["rule"][0] in "4678" and e["reason"]


def test_replay_rebuilds_the_same_state():
    lines = ["spinner heads; open; bet s spinner 10; bet h heads 5; close", "spin O", "spin N", "spin H", NEXT]
    eng, _ = run(*lines)
    ops = [op(t.strip()) for line in lines for t in line.split(";")]
    assert Engine.replay(ops).state() == eng.state()
