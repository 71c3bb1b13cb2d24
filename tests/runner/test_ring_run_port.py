"""`ring run --port` names a wrong port at start (issue 17): missing, not a serial port, or
no ring board answering — one line, what to check, non-zero exit, nothing recorded."""
import os
import subprocess

import pytest

from ringproc import RING, board  # noqa: F401  (board is a fixture)


@pytest.mark.parametrize("port, words", [
    ("{tmp}/ttyACM9", "does not exist"),
    ("/dev/null", "not a serial port"),
    ("{tmp}", "is a folder"),
    ("{tmp}/notes.txt", "is a file"),
    ("/dev/ptmx", "no ring board answered"),          # a pty master: a tty, nobody there
])
def test_wrong_port_is_named_at_start(tmp_path, port, words):
    (tmp_path / "notes.txt").write_text("hello")
    key = tmp_path / "board.key"
    key.write_bytes(os.urandom(32))
    os.chmod(key, 0o600)
    db = tmp_path / "audit.db"
    p = subprocess.run([RING, "run", "--port", port.format(tmp=tmp_path), "--key", str(key),
                        "--log", str(db), "--link-wait", "1"], input="", capture_output=True,
                       text=True, timeout=30, env=dict(os.environ, RING_HOME=str(tmp_path)))
    assert p.returncode == 1, p.stderr
    err = p.stderr.strip()
    assert words in err and "\n" not in err and "Traceback" not in err, err
    assert "ring link boards" in err or "ring doctor" in err
    assert "LINK LOST" not in p.stdout


def test_a_ring_board_with_another_key_is_named(board, tmp_path):  # noqa: F811
    b, _ = board
    other = tmp_path / "other.key"
    other.write_bytes(os.urandom(32))
    os.chmod(other, 0o600)
    p = subprocess.run([RING, "run", "--port", b.tty, "--key", str(other), "--log",
                        str(tmp_path / "a.db"), "--link-wait", "10"], input="",
                       capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, RING_HOME=str(tmp_path)))
    last = p.stderr.strip().splitlines()[-1]       # (the link's own warning may come first)
    assert p.returncode == 1 and "does not accept this key" in last and b.tty in last, p.stderr
    assert "Traceback" not in p.stderr


def test_a_port_another_program_holds_is_named(board, tmp_path):  # noqa: F811
    """The link opens a device path exclusively: a second program on the line (a `ring run`
    left running, mpremote, a terminal) is named, not taken for a board that does not answer."""
    import serial
    b, keyfile = board
    held = serial.Serial(b.tty, exclusive=True)
    try:
        p = subprocess.run([RING, "run", "--port", b.tty, "--key", keyfile, "--log",
                            str(tmp_path / "a.db"), "--link-wait", "2"], input="",
                           capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, RING_HOME=str(tmp_path)))
    finally:
        held.close()
    err = p.stderr.strip()
    assert p.returncode == 1 and "held by another program" in err and b.tty in err, err
    assert "\n" not in err and "Traceback" not in err


def test_only_a_lock_is_named_as_a_held_port():
    from ringctl.link.portcheck import _not_opened
    port = "/dev/serial/by-id/usb-Blocklab_Pico"
    missing = _not_opened(port, 8, f"[Errno 2] could not open port {port}: No such file or directory")
    assert "held by another program" not in missing and "No such file" in missing
    held = _not_opened(port, 8, f"[Errno 11] Could not exclusively lock port {port}: "
                                "[Errno 11] Resource temporarily unavailable")
    assert "held by another program" in held
