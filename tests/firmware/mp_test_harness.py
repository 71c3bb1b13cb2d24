# Proves the firmware test harness itself runs under micropython and reports per test.
import sys
import mptest


def test_runs_on_micropython_or_cpython():
    assert sys.implementation.name in ("micropython", "cpython")


def test_raises_helper_catches():
    e = mptest.raises(ValueError, int, "x")
    assert isinstance(e, ValueError)


mptest.main(globals())
