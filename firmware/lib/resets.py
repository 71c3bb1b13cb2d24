# Why the board reset and how many crashes in a row, kept in watchdog scratch registers across resets: a deliberate reset is not a hang, and a repeatable crash stops in fault blink instead of a reset loop.
# rp2's machine.reset() goes through the watchdog, so machine.reset_cause() says "watchdog"
# for every reset: scratch 0 carries our own mark for the next boot. Scratch 1 counts crashes
# (exceptions that reached main.py, hangs the watchdog ended) since the last power-on or the
# last HEALTHY_MS of running; at MAX_CRASHES main.py stays in fault blink (crash.txt from the
# first crash of the streak is kept, not rewritten every boot).
from micropython import const

import ringmsg as M

MAGIC = const(0x2B1D0000)       # our marks: a register the bootrom or noise set reads as 0
WHY_DELIBERATE = const(0x2B1D0001)   # CMD_RESET, REPL escape, config: cause "soft"
WHY_CRASH = const(0x2B1D0002)        # main.py's crash path: cause "crash"
MAX_CRASHES = const(3)
HEALTHY_MS = const(60000)       # running this long ends a crash streak


def _ours(v):
    return v & 0x7FFF0000 == MAGIC


def boot(board):
    """At boot, before anything else can fail: -> (reset cause RESET_*, crash streak). Sets the
    board's cause; a watchdog reset without our mark was a hang and counts as a crash."""
    raw = board.reset_cause()
    mark = board.scratch(0)
    streak = board.scratch(1)
    board.set_scratch(0, 0)
    crashes = streak & 0xFFFF if _ours(streak) and raw != M.RESET_POWER_ON else 0
    cause = raw
    if raw != M.RESET_POWER_ON and _ours(mark):
        if mark == WHY_DELIBERATE:
            cause = M.RESET_SOFT
        elif mark == WHY_CRASH:
            cause = M.RESET_CRASH
    elif raw == M.RESET_WATCHDOG:
        crashes += 1                  # the watchdog ended a hang
    board.set_scratch(1, MAGIC | crashes)
    board.cause = cause
    return cause, crashes


def crashed(board):
    """main.py's crash path: -> the streak including this crash; marks the next boot."""
    streak = board.scratch(1)
    n = (streak & 0xFFFF if _ours(streak) else 0) + 1
    board.set_scratch(1, MAGIC | n)
    return n


def healthy(board):
    """The supervisor after HEALTHY_MS of running: the streak is over."""
    if board.scratch(1) != MAGIC:
        board.set_scratch(1, MAGIC)
