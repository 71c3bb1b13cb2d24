"""Is this port a ring board? Named at start: missing, not a serial port, or silent / not a ring board — each with what to check.

`ring run --port` used to run on with "LINK LOST" against a path that does not exist, the null
device or a pty master. check_path() looks before opening; check_answers() waits for the link
handshake and says which of the usual causes it is when none comes.
"""
import errno
import os
import stat

from ..errors import UserError

LIST_HINT = "`ring link boards` lists the ring boards plugged in (or use --port auto)"


def check_path(port):
    """UserError (one line, exit 1) unless `port` exists and is a terminal (serial) device."""
    try:
        st = os.stat(port)
    except FileNotFoundError:
        raise UserError(f"port {port} does not exist: check the USB cable and the board's power; "
                        f"{LIST_HINT}", code=1) from None
    except OSError as exc:
        raise UserError(f"port {port} cannot be looked at ({exc.strerror}); {LIST_HINT}",
                        code=1) from None
    if not stat.S_ISCHR(st.st_mode):
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "a file"
        raise UserError(f"port {port} is {kind}, not a serial device; {LIST_HINT}", code=1)
    try:
        fd = os.open(port, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError as exc:
        hint = (" (add yourself to the 'dialout' group, then log in again)"
                if exc.errno == errno.EACCES else "")
        raise UserError(f"port {port} cannot be opened: {exc.strerror}{hint}", code=1) from None
    try:
        tty = os.isatty(fd)
    finally:
        os.close(fd)
    if not tty:
        raise UserError(f"port {port} is not a serial port (a character device that is not a "
                        f"terminal, e.g. the null device); {LIST_HINT}", code=1)


def _not_opened(port, timeout_s, error):
    """The line never opened: another program holding it is the usual cause (the link opens a
    device path exclusively), said as such rather than as a board that does not answer."""
    if "Could not exclusively lock port" in error:     # pyserial's words for EWOULDBLOCK
        return (f"port {port} is held by another program (a second `ring run`, `ring link` or "
                f"`ring doctor`, mpremote, or a serial terminal that locks its port): close it, "
                f"then start again")
    return f"port {port} could not be opened within {timeout_s:g} s: {error}; {LIST_HINT}"


def check_answers(link, port, timeout_s):
    """Wait up to `timeout_s` for the link handshake (LinkClient.wait_up); UserError naming
    why none came: at the REPL, a key that does not match, or no ring board there."""
    from .client import KEY_MISMATCH_MSG
    if link.wait_up(timeout_s):
        return
    if link.at_repl:
        raise UserError(f"the board on {port} is at the MicroPython REPL, not running the ring "
                        "controller: reset it, or redeploy with `ring device deploy`", code=1)
    if link.key_mismatch:
        raise UserError(f"the board on {port} answers, but: {KEY_MISMATCH_MSG}", code=1)
    if link.opens == 0 and link.last_error:
        raise UserError(_not_opened(port, timeout_s, link.last_error), code=1)
    raise UserError(f"no ring board answered on {port} within {timeout_s:g} s: it is not a ring "
                    f"board, or the controller firmware is not running (`ring doctor --port "
                    f"{port}`); {LIST_HINT}", code=1)
