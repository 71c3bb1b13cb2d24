# main.py at boot: Ctrl-C off before anything can be interrupted, deliberate resets told from hangs, a repeatable crash stops in fault blink instead of a reset loop.
# main.py runs as on the board (exec of the file) with fake modules in sys.modules: the board
# (raises KeyboardInterrupt while Ctrl-C is still on: a 0x03 in the host's HELLO), the app
# (runs or crashes), integrity. The watchdog scratch registers survive between "boots".
import sys
import time
import micropython as _mp
import mptest
import resets
import ringmsg as M

MAIN = "firmware/main.py"
# The fake board's files: unique to this process (two test runs at once, or two pytest-xdist
# workers, never share them), removed at the end. The unix port has no os.getpid.
TMP = "/tmp/mpboot_%x_" % (id(object()) ^ time.ticks_us())


class FakeMicropython:
    const = staticmethod(_mp.const)
    kbd = 3

    @staticmethod
    def kbd_intr(c):
        FakeMicropython.kbd = c


class Lamp:
    def __init__(self, stop_after=None):
        self.toggles = 0
        self.stop_after = stop_after

    def value(self, v):
        self.toggles += 1
        if self.stop_after and self.toggles >= self.stop_after:
            raise SystemExit(99)        # out of main.py's locked blink loop


class Board:
    """The board module's constructor runs while the host's first HELLO arrives."""
    regs = {}
    raw_cause = M.RESET_POWER_ON
    made = 0

    def __init__(self):
        Board.made += 1
        if FakeMicropython.kbd != -1:
            raise KeyboardInterrupt       # 0x03 received with Ctrl-C still on
        self.root = "/tmp"
        self.dev = True
        self.cause = Board.raw_cause
        self.lamps = [Lamp(8), Lamp(), Lamp(), Lamp()]
        self.files = {}

    def path(self, name):
        return TMP + name

    def reset_cause(self):
        return self.cause

    def scratch(self, i):
        return Board.regs.get(i, 0)

    def set_scratch(self, i, v):
        Board.regs[i] = v

    def reset(self, repl=False, why=None):
        if why is not None:
            self.set_scratch(0, why)
        raise SystemExit(75)


class BoardModule:
    Board = Board


class App:
    runs = []
    crash = None

    @staticmethod
    def run(b, chk, crashes=0):
        App.runs.append((b.cause, crashes))
        if App.crash:
            raise RuntimeError(App.crash)


class Integrity:
    @staticmethod
    def check(root):
        return ("unverified", None, [])


def boot(raw_cause):
    """One power-up or reset of the board: main.py from the top. -> exit code or None."""
    Board.raw_cause = raw_cause
    FakeMicropython.kbd = 3                       # every reset starts with Ctrl-C on
    saved = {k: sys.modules.get(k) for k in ("micropython", "board_sim", "app", "integrity")}
    sys.modules["micropython"] = FakeMicropython
    sys.modules["board_sim"] = BoardModule
    sys.modules["app"] = App
    sys.modules["integrity"] = Integrity
    try:
        with open(MAIN) as f:
            src = f.read()
        exec(src, {"__name__": "__main__"})
        return None
    except SystemExit as e:
        return e.args[0] if e.args else 0
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v


def _crash_txt():
    try:
        with open(TMP + "crash.txt") as f:
            return f.read()
    except OSError:
        return ""


def _fresh():
    Board.regs.clear()
    App.runs.clear()
    App.crash = None
    import os
    for n in ("crash.txt", "locked.txt", "repl.flag"):
        try:
            os.remove(TMP + n)
        except OSError:
            pass


def test_ctrl_c_is_off_before_the_board_loads():
    _fresh()
    code = boot(M.RESET_POWER_ON)
    assert code is None, "boot ended with %r: a 0x03 at boot crashed it" % code
    assert App.runs == [(M.RESET_POWER_ON, 0)], App.runs
    assert FakeMicropython.kbd == -1
    assert _crash_txt() == ""


def test_repeatable_crash_backs_off_into_fault_blink():
    _fresh()
    App.crash = "boom 1"
    assert boot(M.RESET_POWER_ON) == 75, "a crash resets"
    assert "boom 1" in _crash_txt()
    App.crash = "boom 2"
    # rp2's machine.reset() reads as a watchdog reset: the scratch mark says "crash"
    assert boot(M.RESET_WATCHDOG) == 75
    assert App.runs[-1] == (M.RESET_CRASH, 1), App.runs
    assert "boom 1" in _crash_txt(), "crash.txt keeps the first crash, not rewritten per boot"
    assert boot(M.RESET_WATCHDOG) == 75
    runs = len(App.runs)
    assert boot(M.RESET_WATCHDOG) == 99, "after %d crashes: fault blink" % resets.MAX_CRASHES
    assert len(App.runs) == runs, "the controller is not started again"
    with open(TMP + "locked.txt") as f:
        assert "crash loop: 3 crashes" in f.read()
    # a power cycle (after the fix) starts clean
    App.crash = None
    assert boot(M.RESET_POWER_ON) is None and App.runs[-1] == (M.RESET_POWER_ON, 0)


def test_deliberate_reset_is_soft_and_a_hang_counts_as_a_crash():
    _fresh()

    class Regs:
        cause = M.RESET_POWER_ON
        scratch = Board.scratch
        set_scratch = Board.set_scratch

        def reset_cause(self):
            return self.cause
    b = Regs()
    assert resets.boot(b) == (M.RESET_POWER_ON, 0)
    b.set_scratch(0, resets.WHY_DELIBERATE)        # CMD_RESET: board.reset(why=...)
    b.cause = M.RESET_WATCHDOG                      # what rp2 reports for machine.reset()
    assert resets.boot(b) == (M.RESET_SOFT, 0), "a deliberate reset is not a hang"
    b.cause = M.RESET_WATCHDOG                      # no mark: the watchdog ended a hang
    assert resets.boot(b) == (M.RESET_WATCHDOG, 1)
    resets.healthy(b)                               # a minute of running ends the streak
    b.cause = M.RESET_WATCHDOG
    assert resets.boot(b) == (M.RESET_WATCHDOG, 1)


mptest.main(globals())
_fresh()
