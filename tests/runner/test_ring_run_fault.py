"""`ring run` against the simulated board (real firmware) through a beam fault: the host shows
the board's fault as the truth, refuses to arm, and clears it without a restart (issue 17)."""
import os
import re
import time

from ringproc import LINK_UP_S, LINK_WAIT, RING, Proc, board  # noqa: F401  (board is a fixture)


def test_beam_fault_is_shown_refused_and_cleared_without_a_restart(board, tmp_path):
    b, keyfile = board
    env = dict(os.environ, RING_HOME=str(tmp_path / "home"))
    proc = Proc([RING, "run", "--port", b.tty, "--key", keyfile, "--log",
                 str(tmp_path / "audit.db")] + LINK_WAIT, env)
    try:
        proc.expect("link up", LINK_UP_S)
        for op in ('{"op": "spinner", "calls": "heads"}', '{"op": "bets-open"}',
                   '{"op": "bet", "id": "b1", "on": "spinner", "amount": 10}', '{"op": "bets-closed"}'):
            proc.send(op)
        proc.expect('"bets-closed"')
        b.send_sensor("beam 3 1")                    # something lies across sector 3
        line = proc.expect("ring board FAULT", 10)   # blocked_ms (2 s) at idle: the board's fault
        assert "beam sector 3" in line and "'clear'" in line
        alarm = re.search(r"sup ack (\d+)", line).group(1)
        proc.send("a")
        assert "beam sector 3" in proc.expect("not armed", 5)
        proc.send("s")
        proc.expect("board phase fault", 5)
        proc.send("clear")                           # still blocked: the re-test fails
        proc.expect("re-tested: FAIL", 10)
        b.send_sensor("beam 3 0")                    # the technician clears the beam
        time.sleep(0.2)
        proc.send("clear")
        proc.expect("re-tested: pass", 10)
        proc.expect(f"sup ack {alarm}", 5)
        proc.send("a")
        proc.expect(f"sup ack {alarm}", 5)           # refused until the supervisor's word
        proc.send(f"sup ack {alarm}")
        proc.send("a")
        proc.expect("armed, come in spinner", 5)
        proc.send("s")
        proc.expect("board phase armed", 5)
        proc.send("q")
        assert proc.p.wait(10) == 0
    finally:
        if proc.p.poll() is None:
            proc.p.kill()
    assert "Traceback" not in "\n".join(proc.seen)
