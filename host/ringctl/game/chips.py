"""Chip arithmetic: which amounts the table can pay in its chips, and rounding up to them (4.5, 4.9).

Amounts are exact (Fractions of the JSON decimal), limited to NUMBER_LIMITS. Rounding up to
a chip sum (4.9) costs O(log) per payment whatever the chip values (see `Chips`).
"""
from bisect import bisect_left
from decimal import Decimal
from functools import lru_cache
from fractions import Fraction
from math import gcd, lcm

MAX_DIGITS = 12          # significant digits in an amount or chip value (issue 14.11)
MAX_DECIMALS = 4         # digits after the point: 0.0001 is the finest amount
MAX_VALUE = 10 ** 12     # exclusive
NUMBER_LIMITS = ("at most %d significant digits, at most %d after the point, below 10^12"
                 % (MAX_DIGITS, MAX_DECIMALS))
MAX_DENOMINATIONS = 10
# Three or more independent denominations need a table over the residues of the smallest
# chip (counted in their common divisor): that table is built once per chip set, and this
# bounds its cost (~0.1 s). One or two denominations need no table and have no limit.
RESIDUE_LIMIT = 20_000


SCALE = 10 ** MAX_DECIMALS  # amounts are held as integers in units of 1/SCALE


def to_fraction(value):
    """Exact value of a JSON number (7.5 stays 15/2, never a binary float)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise ValueError("not a number: %r" % (value,))
    return Fraction(str(value)) if isinstance(value, float) else Fraction(value)


def to_units(value):
    """A number within NUMBER_LIMITS -> exact integer units of 1/SCALE."""
    if type(value) is int:
        return value * SCALE
    units = to_fraction(value) * SCALE
    if units.denominator != 1:
        raise ValueError("%s is finer than 1/%d" % (value, SCALE))
    return units.numerator


def units_json(units):
    """Integer units -> the JSON number (int when whole)."""
    return units // SCALE if units % SCALE == 0 else units / SCALE


def check_number(value):
    """-> None when `value` is a positive JSON number within NUMBER_LIMITS, else the problem."""
    if type(value) is int:
        if 0 < value < MAX_VALUE:
            return None
        return "must be positive" if value <= 0 else "is too large (amounts are %s)" % NUMBER_LIMITS
    if not isinstance(value, float):
        return "must be a number"
    if value != value or value in (float("inf"), float("-inf")):
        return "must be a finite number"
    if value <= 0:
        return "must be positive"
    if value >= MAX_VALUE:
        return "is too large (amounts are %s)" % NUMBER_LIMITS
    digits, exponent = Decimal(repr(value)).normalize().as_tuple()[1:]
    if len(digits) > MAX_DIGITS or exponent < -MAX_DECIMALS:
        return "has too many digits (amounts are %s)" % NUMBER_LIMITS
    return None


@lru_cache(maxsize=32)
def chips_for(values):
    """Chips for a tuple of chip values, shared: a chip set's rounding table is built once."""
    return Chips(values)


def to_json_number(value):
    """Fraction -> int when whole, else float (chip sums of e.g. 0.5 chips stay exact enough)."""
    value = Fraction(value)
    return value.numerator if value.denominator == 1 else float(value)


def min_linear_mod(count, mod, step, start):
    """min over 0 <= x < count of (step*x + start) % mod, in O(log mod) steps.

    Values climb by `step` and wrap; each lap's smallest value is its first (climbing) or last
    (falling, when step > mod/2) and those lap minima are again a linear sequence modulo the
    step (or modulo mod - step), at most half of `mod`: a Euclid-like descent."""
    best = None
    while True:
        step %= mod
        start %= mod
        if step == 0 or count == 1:
            value = start
            break
        if 2 * step <= mod:
            laps = (step * (count - 1) + start) // mod
            if laps == 0:
                value = start
                break
            best = start if best is None else min(best, start)
            count, mod, step, start = laps, step, -mod, start - mod
        else:
            fall = mod - step
            laps = (fall * count - 1 - start) // mod
            if laps < 0:
                value = start - fall * (count - 1)
                break
            count, mod, step, start = laps + 1, fall, mod, start
    return value if best is None else min(best, value)


class Chips:
    """The table's chip denominations. An amount is payable when it is a sum of chips.

    Everything is counted in integer units: the finest common fraction of the chips, then
    divided by the chips' greatest common divisor g, so the chips are coprime `_base`.
    Chips that are multiples of another chip add no payable amount and are dropped.
      one chip a:    pay up to the next multiple of a;
      two chips a<b: the best is min over b-counts y of T + (b*y - T) mod a (a linear
                     sequence modulo a: `min_linear_mod`, O(log a)), or (T//b + 1)*b;
      three or more: the smallest sum in each residue modulo the smallest chip a (round-robin
                     shortest paths, O(k*a) once per chip set, a <= RESIDUE_LIMIT); a payment
                     is then the smaller of the next residue's smallest sum above T (bisect)
                     and the nearest residue whose smallest sum is <= T (segment tree):
                     O(log a).
    """

    def __init__(self, values=(1,)):
        vals = sorted({to_fraction(v) for v in values})
        if not vals or vals[0] <= 0:
            raise ValueError("chip values must be positive numbers")
        if len(vals) > MAX_DENOMINATIONS:
            raise ValueError("at most %d chip denominations" % MAX_DENOMINATIONS)
        self.values = vals
        self._unit = Fraction(1, lcm(*[v.denominator for v in vals]))
        ints = [int(v / self._unit) for v in vals]
        self._g = gcd(*ints)
        # One coprime unit in 1/SCALE units (chips within NUMBER_LIMITS are SCALE multiples).
        self._step = self._g * SCALE // self._unit.denominator if SCALE % self._unit.denominator == 0 else None
        base = []
        for c in (i // self._g for i in ints):
            if not any(c % b == 0 for b in base):
                base.append(c)
        self._base = base
        if len(base) >= 3:
            if base[0] > RESIDUE_LIMIT:
                raise ValueError(
                    "chip values %s are too awkward: with three or more denominations the "
                    "smallest chip may be at most %d times the chips' common divisor (here %d)"
                    % (self.as_json(), RESIDUE_LIMIT, base[0]))
            self._build_residues()

    # ---- public ---------------------------------------------------------------------------
    def payable(self, amount):
        """True when `amount` (> 0) can be made of the table's chips (4.5)."""
        amount = to_fraction(amount)
        if amount <= 0:
            return False
        units = amount / self._unit
        if units.denominator != 1 or units.numerator % self._g:
            return False
        n = units.numerator // self._g
        return self._up(n) == n

    def pay_up(self, amount):
        """Smallest amount >= `amount` that is a sum of chips (4.9: paid to the next highest
        amount to which payment can be made in chips). 0 stays 0."""
        amount = to_fraction(amount)
        if amount <= 0:
            return Fraction(0)
        units = amount / self._unit
        scale = self._g * units.denominator
        n = -(-units.numerator // scale)  # ceil(units / g)
        return self._up(n) * self._g * self._unit

    def pay_up_units(self, num, den=1):
        """pay_up for the amount num/den in units of 1/SCALE -> integer units (the engine's
        fast path: no Fractions)."""
        step = self._step
        if num <= 0:
            return 0
        t = -(-num // (den * step))
        return self._up(t) * step

    def payable_units(self, units):
        """payable for an integer amount in units of 1/SCALE."""
        step = self._step
        if units <= 0 or units % step:
            return False
        t = units // step
        return self._up(t) == t

    def as_json(self):
        return [to_json_number(v) for v in self.values]

    # ---- rounding in coprime units ----------------------------------------------------------
    def _up(self, t):
        """Smallest sum of `_base` chips >= t (t >= 0 integer)."""
        base = self._base
        a = base[0]
        if len(base) == 1:
            return -(-t // a) * a
        if len(base) == 2:
            b = base[1]
            y_max = t // b
            best = (y_max + 1) * b
            return min(best, t + min_linear_mod(min(y_max, a - 1) + 1, a, b, -t))
        sums = self._sorted_sums
        i = bisect_left(sums, t)
        best = sums[i] if i < len(sums) else None
        t0 = t % a
        r = self._first_at_most(t0, t)
        near = t + (r - t0) if r >= 0 else t + (self._first_at_most(0, t) + a - t0)
        return near if best is None else min(best, near)

    def _build_residues(self):
        a = self._base[0]
        inf = float("inf")
        best = [inf] * a        # smallest chip sum in each residue class modulo a
        best[0] = 0
        for c in self._base[1:]:
            d = gcd(a, c)
            for p in range(d):
                q = min(range(p, a, d), key=best.__getitem__)
                if best[q] == inf:
                    continue
                for _ in range(a // d - 1):  # Böcker & Lipták's round robin
                    nxt = (q + c) % a
                    if best[q] + c < best[nxt]:
                        best[nxt] = best[q] + c
                    q = nxt
        self._sorted_sums = sorted(best)
        size = 1
        while size < a:
            size *= 2
        tree = [inf] * (2 * size)
        tree[size:size + a] = best
        for i in range(size - 1, 0, -1):
            tree[i] = min(tree[2 * i], tree[2 * i + 1])
        self._size, self._tree = size, tree

    def _first_at_most(self, lo, limit):
        """First residue >= lo whose smallest sum is <= limit, or -1."""
        size, tree = self._size, self._tree
        i = lo + size
        while tree[i] > limit:
            while i & 1:
                i >>= 1
            if i == 0:
                return -1
            i += 1
        while i < size:
            i = 2 * i if tree[2 * i] <= limit else 2 * i + 1
        return i - size
