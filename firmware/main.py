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


b = None
try:
    mod, b = _board()
    if _escape(mod, b):
        print("ring controller not started (technician escape): REPL available")
    else:
        import app
        app.run(b)
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
