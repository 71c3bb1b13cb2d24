# Entry point: Ctrl-C off first, pick the board, crash streak check, integrity, run; on any crash log it once per streak and reset (never fall to the REPL mid-game).
import micropython
micropython.kbd_intr(-1)
# ^ the first statement (issue 18): a 0x03 on the REPL's USB port raises KeyboardInterrupt (a
# crash, a reset) until this line; importing anything first would leave that window open for
# a few hundred ms. The link has its own USB port on the Pico (usbcdc.py), but the simulated
# board's link is stdin/stdout when no pty is given, and a host on the wrong port must not
# stop the controller either.
# Technician escape (keeps mpremote usable): a one-shot repl.flag (written by the
# authenticated CMD_RESET "repl") or the no-spin button held at power-on skips the
# controller and gives Ctrl-C back to the REPL. See firmware/README.md.
import sys


def _board():
    if sys.platform == "rp2":
        import board_pico
        return board_pico, board_pico.Board()
    import board_sim
    return board_sim, board_sim.Board()


def _escape(mod, b):
    try:
        import os
        os.remove(b.path("repl.flag"))
        return True
    except OSError:
        pass
    return hasattr(mod, "escape_requested") and mod.escape_requested()


def _log_crash(b, e, n):
    """crash.txt keeps the first crash of a streak (the later ones repeat it; flash wear)."""
    if n > 1:
        return
    try:
        with open(b.path("crash.txt"), "w") as f:
            sys.print_exception(e, f)
    except Exception:
        pass


def _locked(b, why):
    """Fault light, no controller, no REPL, no reset loop: only a redeploy or a power cycle
    (after fixing the cause) gets out of here."""
    import time
    try:
        with open(b.path("locked.txt"), "w") as f:
            f.write(why + "\n")
    except Exception:
        pass
    on = 0
    while True:
        on ^= 1
        b.lamps[0].value(on)      # red fast blink = LIGHT_FAULT (light.py)
        b.lamps[1].value(0)
        b.lamps[2].value(0)
        b.lamps[3].value(0)
        time.sleep_ms(125)


b = None
try:
    mod, b = _board()
    import resets
    cause, crashes = resets.boot(b)
    if _escape(mod, b):
        micropython.kbd_intr(3)
        print("ring controller not started (technician escape): REPL available")
    elif crashes >= resets.MAX_CRASHES:
        _locked(b, "crash loop: %d crashes in a row (first one in crash.txt); "
                   "power-cycle once the cause is fixed" % crashes)
    else:
        # integrity first: a changed module must not get the chance to run (issue 3)
        import integrity
        chk = integrity.check(b.root)
        del integrity                      # boot-only code: give its heap back
        sys.modules.pop("integrity", None)
        try:
            import app
        except Exception:
            if chk[0] == "mismatch" or (chk[0] == "unverified" and not b.dev):
                _locked(b, "integrity %s: %s" % (chk[0], ", ".join(chk[2])))
            raise
        app.run(b, chk, crashes)
except SystemExit:
    if sys.platform == "rp2":
        import machine
        machine.reset()
    raise   # unix port: board_sim.reset() ends the process; simboard.py restarts it
except BaseException as e:
    if b is not None:
        try:
            import resets
            n = resets.crashed(b)
            _log_crash(b, e, n)
            b.reset(why=resets.WHY_CRASH)
        except SystemExit:
            raise
        except BaseException:
            pass
    if sys.platform == "rp2":
        import machine   # last resort when even the board module failed to load
        machine.reset()
    sys.print_exception(e)
    sys.exit(1)
