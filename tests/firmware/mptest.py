# Minimal test runner for firmware tests under the `micropython` binary (and CPython).
# A test file defines test_* functions and ends with `mptest.main(globals())`;
# each result is printed as one line the pytest collector in tests/conftest.py reads.
import sys


class Skip(Exception):
    pass


def raises(exc_type, fn, *args):
    try:
        fn(*args)
    except exc_type as e:
        return e
    raise AssertionError("expected %s" % exc_type.__name__)


def main(scope):
    names = sorted(k for k in scope if k.startswith("test_") and callable(scope[k]))
    only = sys.argv[1] if len(sys.argv) > 1 else None
    failed = 0
    for name in names:
        if only and name != only:
            continue
        try:
            scope[name]()
            print("MPTEST ok %s" % name)
        except Skip as e:
            print("MPTEST skip %s %s" % (name, e))
        except Exception as e:  # report every failure, keep running the others
            failed += 1
            msg = "%s: %s" % (type(e).__name__, e)
            print("MPTEST fail %s %s" % (name, msg.replace("\n", " | ")))
            if hasattr(sys, "print_exception"):
                sys.print_exception(e)
            else:
                import traceback
                traceback.print_exc()
    print("MPTEST done %d" % failed)
