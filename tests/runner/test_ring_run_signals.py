"""`ring run` and `ring sim board` stop cleanly on Ctrl-C, `kill` and a closed terminal, also
when started by a shell that hands background jobs SIGINT ignored."""
import os
import signal

import pytest

from ringproc import LINK_UP_S, LINK_WAIT, RING, Proc, board  # noqa: F401  (board is a fixture)
from ringctl.record.log import AuditLog


def _ignore_sigint():
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # what `cmd &` does in a non-interactive shell


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_ring_run_stops_cleanly_on_a_signal(board, tmp_path, sig):
    b, keyfile = board
    db = str(tmp_path / "audit.db")
    env = dict(os.environ, RING_HOME=str(tmp_path / "home"))
    proc = Proc([RING, "run", "--port", b.tty, "--key", keyfile, "--log", db] + LINK_WAIT, env,
                preexec_fn=_ignore_sigint)
    try:
        proc.expect("link up", LINK_UP_S)
        proc.send('{"op": "spinner", "calls": "heads", "name": "Ada"}')
        proc.expect('"spinner"')
        proc.p.send_signal(sig)
        assert proc.wait_exit(60) == 130
        proc.expect("ring: interrupted", 5)     # through cli.main: the finally blocks ran
    finally:
        if proc.p.poll() is None:
            proc.p.kill()
    log = AuditLog(db)
    assert log.verify()["ok"]
    assert any(r.kind == "op" for r in log.records(with_blobs=False))   # the spinner op, kept
    log.close()


def test_ring_sim_board_stops_on_ctrl_c_started_in_the_background(tmp_path):
    proc = Proc([RING, "sim", "board", "--flash", str(tmp_path / "flash")], dict(os.environ),
                preexec_fn=_ignore_sigint)
    try:
        proc.expect("link tty:", 60)
        proc.expect("firmware:", 10)
        proc.p.send_signal(signal.SIGINT)
        assert proc.wait_exit(60) == 0
    finally:
        if proc.p.poll() is None:
            proc.p.kill()
