# Entry point: run the ring controller with this board; on any crash log it and reset (never fall to the REPL mid-game).
# Technician escape (keeps mpremote usable with kbd_intr(-1) in force): a one-shot repl.flag
# (written by the authenticated CMD_RESET "repl") or the no-spin button held at power-on
# skips the controller and leaves the REPL running. See firmware/README.md.
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


def _log_crash(b, e):
    try:
        with open(b.path("crash.txt"), "w") as f:
            sys.print_exception(e, f)
    except Exception:
        pass


def _locked(b, chk):
    """Fault light, no controller, no REPL, no reset loop: only a redeploy fixes this."""
    import time
    try:
        with open(b.path("crash.txt"), "w") as f:
            f.write("locked: integrity %s: %s\n" % (chk[0], ", ".join(chk[2])))
    except Exception:
        pass
    on = 0
    while True:
        on ^= 1
        b.lamps[0].value(on)      # red fast blink = LIGHT_FAULT (light.py)
        b.lamps[3].value(0)
        time.sleep_ms(125)


b = None
try:
    mod, b = _board()
    if _escape(mod, b):
        print("ring controller not started (technician escape): REPL available")
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
                _locked(b, chk)       # files differ and do not even load: stay locked
            raise
        app.run(b, chk)
except SystemExit:
    if sys.platform == "rp2":
        import machine
        machine.reset()
    raise   # unix port: board_sim.reset() ends the process; simboard.py restarts it
except BaseException as e:
    if b is not None:
        _log_crash(b, e)
        try:
            b.reset()
        except SystemExit:
            raise
        except BaseException:
            pass
    if sys.platform == "rp2":
        import machine   # last resort when even the board module failed to load
        machine.reset()
    sys.print_exception(e)
    sys.exit(1)
