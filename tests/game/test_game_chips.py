"""Chip rounding (4.5, 4.9) against brute force, and the number limits (issue 14.11, 14.13)."""
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ringctl.game.chips import RESIDUE_LIMIT, Chips, check_number, min_linear_mod, to_units, units_json


def reachable_up_to(limit, chips):
    ok = [False] * (limit + 1)
    ok[0] = True
    for n in range(1, limit + 1):
        ok[n] = any(n >= c and ok[n - c] for c in chips)
    return ok


@settings(max_examples=400, deadline=None)
@given(st.integers(1, 90), st.integers(1, 70), st.integers(-200, 200), st.integers(-200, 200))
def test_min_linear_mod_matches_brute_force(count, mod, step, start):
    assert min_linear_mod(count, mod, step, start) == min((step * x + start) % mod for x in range(count))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, 45), min_size=1, max_size=6), st.lists(st.integers(0, 300), min_size=1, max_size=8))
def test_pay_up_is_the_smallest_chip_sum_at_or_above(chips, targets):
    c = Chips(chips)
    ok = reachable_up_to(300 + max(chips), chips)
    for t in targets:
        want = next(n for n in range(t, len(ok)) if ok[n])
        assert c.pay_up(t) == want, (chips, t)
        assert c.payable(t) == (t > 0 and ok[t])
        units = to_units(t) if t else 0
        assert c.pay_up_units(units * 2, 2) == to_units(want) if t else True


def test_fractional_chips_and_half_units():
    c = Chips([0.5, 2])
    assert c.pay_up(Fraction(3, 4)) == 1 and c.payable(1.5) and not c.payable(0.25)
    assert c.pay_up_units(7 * 10000 * 15, 2) == to_units(52.5)   # 7 x 7.5 = 52.5 exactly
    assert units_json(to_units(52.5)) == 52.5 and units_json(to_units(7)) == 7


@pytest.mark.parametrize("chips, amount", [
    ([9973, 19945], 9973 * 3 + 1),
    ([99991, 199981], 10 ** 11 + 7),
    ([999999999989, 999999999979], Fraction(15, 2) * 999999999989),
])
def test_two_awkward_chips_agree_with_a_direct_search(chips, amount):
    c = Chips(chips)
    got = c.pay_up(Fraction(amount))
    a, b = sorted(chips)
    # Direct search over the count of the larger chip (fine here: a few hundred thousand steps).
    best = None
    t = Fraction(amount)
    for y in range(0, min(int(t // b) + 2, a + 1)):
        rest = t - y * b
        n = y * b + (max(0, -(-rest.numerator // (rest.denominator * a))) * a if rest > 0 else 0)
        best = n if best is None else min(best, n)
    assert got == best


def test_three_chips_beyond_the_residue_limit_are_refused_with_the_limit():
    with pytest.raises(ValueError, match=str(RESIDUE_LIMIT)):
        Chips([RESIDUE_LIMIT + 3, 10 ** 9 + 7, 10 ** 10 + 9])
    Chips([RESIDUE_LIMIT - 1, 10 ** 9 + 7, 10 ** 10 + 9])             # at the limit: fine
    assert Chips([99991, 199981]).payable(99991 + 199981)          # two chips: no limit


@pytest.mark.parametrize("value, ok", [
    (1, True), (999999999999, True), (10 ** 12, False), (0, False), (-5, False), (True, False),
    (0.0001, True), (0.00001, False), (12345678.9012, True), (123456.789012, False),
    (1234567.8901234, False),
    (float("nan"), False), (float("inf"), False), ("5", False), (10 ** 400, False),
])
def test_number_limits(value, ok):
    assert (check_number(value) is None) == ok
