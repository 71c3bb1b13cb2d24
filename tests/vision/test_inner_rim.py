"""A flat coin whose rim lies on print of its own colour shows no edge there; along that print
the rays find the inner edge of its raised rim instead, 0.05-0.09 coin radii inside the circle.
On such hidden arcs an edge no deeper than detect.INNER_RIM no longer refuses the outline found by
the coin's texture (detect._outline_near_circle); edges elsewhere, a tilted coin's short sides,
still do (and test_print_search, sealed-39 1273470481). A tilted coin's short side on hidden arcs
is let off too: judge.DENTED_FLAT keeps its outline from a call."""
import numpy as np
import pytest

from ringctl.sim import heldout
from ringctl.vision import detect, judge
from vcache import heldout_model, scene


def _outlines(monkeypatch, img, rm, m, spec, coin):
    """(verdict, the outlines the judge measured near `coin`, the search on print's included)."""
    seen = []
    judged = judge._judged

    def keep(img_, ring, model, blobs, elsewhere=0):
        seen.extend(blobs)
        return judged(img_, ring, model, blobs, elsewhere)
    monkeypatch.setattr(judge, "_judged", keep)
    v = judge.classify(img, rm, m)
    c = np.array(spec["coins"][coin]["center_px"])
    return v, [b for b in seen if b.axes is not None
               and np.hypot(*(np.array(detect.seen_center(b, rm)) - c)) < 0.3 * spec["coins"][coin]["radius_px"]]


# opened sealed sets, valid: a coin lying half on print of its colour was not found ("1 coin
# found and none seen leaving the ring"; the second "an object in the ring that is not a coin"):
# 11 and 3 rays found its inner rim edge. (set, seed, kind: None = as drawn, that coin)
CASES = [("sealed-30", 2337138250, "valid", 1), ("sealed-25", 1185694131, None, 0)]


@pytest.mark.parametrize("name, seed, kind, coin", CASES)
def test_a_coin_whose_inner_rim_shows_along_print_of_its_colour_is_found_and_called(monkeypatch, name, seed,
                                                                                    kind, coin):
    cfg = heldout.SETS[name]
    spec, expect, rm, img = scene(seed, kind, cfg)
    m = heldout_model(cfg)
    v, got = _outlines(monkeypatch, img, rm, m, spec, coin)
    assert v["result"] == expect, v["reasons"]
    for truth in spec["coins"]:
        at = [c for c in v["coins"] if np.hypot(*np.subtract(c["center"], truth["center_px"])) < 0.1 * truth["radius_px"]]
        assert len(at) == 1 and at[0]["flat"] and at[0]["face"] == truth["face"]
    # measured by its texture, the arcs the print hides counted as its rim
    assert any("arcs_hidden" in b.extra for b in got)


def test_a_tilted_coins_short_side_off_the_hidden_arcs_still_refuses_its_round_outline(monkeypatch):
    # edge-tune 2549244875, forced tilted: the coin tilted 25.5 deg lies on print of its colour;
    # 6 of the 9 rays that find its rim inside the texture's circle lie on hidden arcs and no
    # longer count, the other 2-3 (as the circle is refitted) refuse it. Without the rule the
    # search on print measures it 0.96 round
    cfg = heldout.SETS["edge-tune"]
    spec, expect, rm, img = scene(2549244875, "tilted", cfg)
    m = heldout_model(cfg)
    coin = max(range(len(spec["coins"])), key=lambda i: spec["coins"][i].get("tilt_deg") or 0)
    assert spec["coins"][coin]["tilt_deg"] > 25
    v, got = _outlines(monkeypatch, img, rm, m, spec, coin)
    assert v["result"] in ("no-spin", "unsure") and not any("arcs_hidden" in b.extra for b in got)
    monkeypatch.setattr(detect, "HIDDEN_INSIDE_MAX", 99)
    v, got = _outlines(monkeypatch, img, rm, m, spec, coin)
    got = [b for b in got if "arcs_hidden" in b.extra]
    assert got and judge.FLAT_RATIO < got[0].axes[1] / got[0].axes[0] < judge.DENTED_FLAT


def test_a_tilted_coin_whose_short_sides_lie_on_hidden_arcs_is_not_called():
    # edge-4k 4225357673, forced tilted (33 deg): all 5 rays inside the circle lie on hidden arcs,
    # and its texture gives an outline 0.94 round, kept under judge.DENTED_FLAT: the spin is the
    # boxer's, never a call
    cfg = heldout.SETS["edge-4k"]
    spec, expect, rm, img = scene(4225357673, "tilted", cfg)
    m = heldout_model(cfg)
    v = judge.classify(img, rm, m)
    assert v["result"] in ("no-spin", "unsure"), v["reasons"]
    coin = max(range(len(spec["coins"])), key=lambda i: spec["coins"][i].get("tilt_deg") or 0)
    c = spec["coins"][coin]
    assert not any(e["flat"] for e in v["coins"]
                   if np.hypot(*np.subtract(e["center"], c["center_px"])) < 0.3 * c["radius_px"])
