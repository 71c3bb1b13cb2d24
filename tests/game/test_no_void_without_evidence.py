"""Issue 12: a spin is no-spin only on positive evidence. A camera that finds fewer than two
coins, with nothing seen leaving and no board barring, makes the spin unsure, with the board's
count of coin landings in the reasons."""
from ringctl.fw import ringmsg as rm

from test_adjudicate import Ring, coin


def one_coin(result="unsure", reasons=("unsure: 1 coin found and none seen leaving the ring (7.3.1 needs "
                                         "evidence): boxer to call",)):
    return {"result": result, "reasons": list(reasons), "coins": [coin("heads")], "ms": 4.0}


def test_one_coin_found_is_unsure_with_the_boards_landing_count():
    out = Ring().landed().adj.decide(one_coin())
    assert out.result == "unsure" and not out.final
    assert any("board sensed 2 coin landings and no boundary break" in r for r in out.reasons), out.reasons


def test_a_camera_void_for_missing_coins_alone_is_not_a_void():
    """An older or other camera's "fewer than two coins" no-spin is no evidence either."""
    out = Ring().landed().adj.decide(one_coin("no-spin", ["7.3.1 fewer than two coins in view"]))
    assert out.result == "unsure", out.reasons
    assert any("board sensed 2 coin landings" in r for r in out.reasons)


def test_missing_coin_with_a_boundary_break_is_a_void():
    r = Ring().landed()
    r.ev(rm.EV_BEAM, 1_100_000, 3, 1500)
    out = r.adj.decide(one_coin())
    assert out.result == "no-spin" and out.final
    assert any(x.startswith("7.3.1 coin crossed the ring boundary") for x in out.reasons)


def test_a_coin_seen_outside_is_still_a_void():
    v = one_coin("no-spin", ["7.3.1 coin outside the ring"])
    out = Ring().landed().adj.decide(v)
    assert out.result == "no-spin" and out.reasons == ["7.3.1 coin outside the ring"]
