"""Chip arithmetic: which amounts the table can pay in its chips, and rounding up to them (4.5, 4.9)."""
from fractions import Fraction
from math import lcm


def to_fraction(value):
    """Exact value of a JSON number (7.5 stays 15/2, never a binary float)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise ValueError("not a number: %r" % (value,))
    return Fraction(str(value)) if isinstance(value, float) else Fraction(value)


def to_json_number(value):
    """Fraction -> int when whole, else float (chip sums of e.g. 0.5 chips stay exact enough)."""
    value = Fraction(value)
    return value.numerator if value.denominator == 1 else float(value)


class Chips:
    """The table's chip denominations. An amount is payable when it is a sum of chips."""

    def __init__(self, values=(1,)):
        vals = sorted({to_fraction(v) for v in values})
        if not vals or vals[0] <= 0:
            raise ValueError("chip values must be positive numbers")
        self.values = vals
        # Work in integer units of the finest common fraction so the DP below is exact.
        self._unit = Fraction(1, lcm(*[v.denominator for v in vals]))
        self._ints = [int(v / self._unit) for v in vals]
        if self._ints[0] > 100_000:
            # The rounding works over residues modulo the smallest chip: keep that small.
            raise ValueError("chip values %s are too fine-grained relative to each other"
                             % [str(v) for v in vals])
        self._cache = None

    def payable(self, amount):
        """True when `amount` (> 0) can be made of the table's chips (4.5)."""
        amount = to_fraction(amount)
        if amount <= 0:
            return False
        units = amount / self._unit
        return units.denominator == 1 and self._reachable(int(units))

    def pay_up(self, amount):
        """Smallest amount >= `amount` that is a sum of chips (4.9: paid to the next highest
        amount to which payment can be made in chips). 0 stays 0."""
        amount = to_fraction(amount)
        if amount <= 0:
            return Fraction(0)
        units = amount / self._unit
        n = -(-units.numerator // units.denominator)  # ceil
        # A multiple of the largest chip lies in every window of its width: the loop ends.
        while not self._reachable(n):
            n += 1
        return n * self._unit

    def _reachable(self, n):
        """n (in units) is a sum of chips iff n >= the smallest sum with the same residue
        modulo the smallest chip (shortest paths over residues: fast for any n)."""
        return n >= self._min_sum[n % self._ints[0]]

    @property
    def _min_sum(self):
        if self._cache is None:
            m = self._ints[0]
            inf = float("inf")
            best = [inf] * m
            best[0] = 0
            changed = True
            while changed:  # Bellman-Ford over m residues; m is small (smallest chip)
                changed = False
                for r in range(m):
                    if best[r] == inf:
                        continue
                    for c in self._ints[1:]:
                        t = best[r] + c
                        if t < best[t % m]:
                            best[t % m] = t
                            changed = True
            self._cache = best
        return self._cache

    def as_json(self):
        return [to_json_number(v) for v in self.values]
