"""`ring run` as a process against the simulated board over its pty: the boxer at the terminal.

No camera is given, so every spin that the board does not bar is "unsure" and the boxer calls
it at the terminal; the call is recorded and the table settles by the rules.
"""
import os
import subprocess
import time

import pytest

from ringproc import LINK_UP_S, LINK_WAIT, RING, Proc, board  # noqa: F401  (board is a fixture)
from ringctl.record.log import AuditLog


def test_ring_run_arms_follows_the_spin_and_records_the_boxers_call(board, tmp_path):
    b, keyfile = board
    db = str(tmp_path / "audit.db")
    env = dict(os.environ, RING_HOME=str(tmp_path / "home"))
    proc = Proc([RING, "run", "--port", b.tty, "--key", keyfile, "--log", db] + LINK_WAIT, env)
    try:
        proc.expect("link up", LINK_UP_S)
        for op in ('{"op": "spinner", "calls": "heads", "name": "Ada"}', '{"op": "bets-open"}',
                   '{"op": "bet", "id": "b1", "on": "spinner", "amount": 10}',
                   '{"op": "bet", "id": "b2", "on": "tails", "amount": 5}',
                   '{"op": "bets-closed"}'):
            proc.send(op)
        proc.expect('"bets-closed"')
        proc.send("a")
        proc.expect("armed, come in spinner")
        b.send_sensor("mat 1")                       # spinner on the mat: in flight
        time.sleep(0.4)
        b.send_sensor("piezo 0 20000")               # the coins land
        proc.expect("UNSURE", 10)                    # no camera: the boxer must call it
        proc.send("h")
        proc.expect('"settled"', 5)                  # tails wager b2 loses on heads (4.1.3)
        proc.send("q")
        assert proc.p.wait(10) == 0
    finally:
        if proc.p.poll() is None:
            proc.p.kill()
    log = AuditLog(db)
    assert log.verify()["ok"]
    first = next(iter(log.records(with_blobs=False)))     # no camera judges these spins: said first
    assert first.kind == "vision" and first.data["camera"].startswith("none")
    overrides = list(log.records(kind="override", with_blobs=False))
    assert overrides and overrides[0].data["result"] == "heads"
    assert any(r.data.get("name") == "rest" for r in log.records(kind="event", with_blobs=False))
    log.close()


def test_ring_run_bad_config_is_one_line(tmp_path):
    cfg = tmp_path / "c.json"
    cfg.write_text("{not json")
    p = subprocess.run([RING, "run", "--port", "/dev/null", "--config", str(cfg)],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 2
    assert "not valid JSON" in p.stderr and "Traceback" not in p.stderr


def test_console_lost_coin_procedure_and_supervisor_calls_are_recorded(tmp_path):
    """The terminal's 7.4 steps and a supervisor's call, on a RingHost with a fake link."""
    from ringctl.errors import UserError
    from ringctl.game.engine import Engine
    from ringctl.runner.cli import Console
    from ringctl.runner.host import RingHost
    from test_host import FakeLink, land_and_rest

    log = AuditLog(str(tmp_path / "a.db"))
    host = RingHost(FakeLink(log), log, Engine())
    out = []
    con = Console(host, out=out.append)
    for op in ('{"op": "spinner", "calls": "heads"}', '{"op": "bets-open"}',
               '{"op": "bet", "id": "s1", "on": "spinner", "amount": 10}', '{"op": "bets-closed"}'):
        con.command(op)
    con.command("a")
    with pytest.raises(UserError, match="7.4"):
        con.command("lost offer original")      # nothing lost yet: start with 'lost N'
    con.command("lost 2")                       # 7.4.1: no spin
    land_and_rest(host.link)
    host.wait_rest(2.0)
    assert host.adjudicate().result == "no-spin"
    con.command("lost found 1")
    con.command("lost check ok")
    with pytest.raises(UserError, match="7.4.3"):
        con.command("lost offer original")      # one of two found: original set not whole
    con.command("lost offer new")
    con.command("lost newset B")
    assert out[-1].endswith("play may resume")
    with pytest.raises(UserError, match="7.6"):
        con.command("sup h coins looked fine")  # a called no spin stays invalid
    steps = [r.data["step"]["rule"] for r in log.records(kind="lost-coin", with_blobs=False)]
    assert steps == ["7.4.1", "7.4.2", "7.4.4", "7.4.3", "7.4.5"]
    log.close()


def test_host_killed_mid_spin_loses_nothing_and_rebuilds_the_game(board, tmp_path):
    """kill -9 of `ring run` mid-spin, then a restart on the same audit log: the chain
    verifies, the board's events have no gaps and no duplicates, the table is rebuilt."""
    b, keyfile = board
    db = str(tmp_path / "audit.db")
    env = dict(os.environ, RING_HOME=str(tmp_path / "home"))
    args = [RING, "run", "--port", b.tty, "--key", keyfile, "--log", db] + LINK_WAIT
    proc = Proc(args, env)
    try:
        proc.expect("link up", LINK_UP_S)
        for op in ('{"op": "spinner", "calls": "tails", "name": "Bo"}', '{"op": "bets-open"}',
                   '{"op": "bet", "id": "b1", "on": "spinner", "amount": 10}', '{"op": "bets-closed"}'):
            proc.send(op)
        proc.expect('"bets-closed"')
        proc.send("a")
        proc.expect("armed, come in spinner")
        b.send_sensor("mat 1")
        time.sleep(0.3)
        b.send_sensor("piezo 0 20000")
        proc.expect("phase landed", 5)
    finally:
        proc.p.kill()                                 # kill -9, mid-spin
        proc.p.wait(5)
    b.send_sensor("piezo 1 15000")                    # the ring goes on while the host is down
    time.sleep(1.5)
    proc = Proc(args, env)
    try:
        proc.expect("link up", LINK_UP_S)
        time.sleep(1.5)                               # backlog resent by the board, recorded
        proc.send("s")
        state = proc.expect("table ", 5)
        proc.send("q")
        proc.p.wait(10)
    finally:
        if proc.p.poll() is None:
            proc.p.kill()
    assert '"b1"' in state and '"calls": "tails"' in state      # game rebuilt from the log
    log = AuditLog(db)
    assert log.verify()["ok"]
    ids = [r.event_id for r in log.records(kind="event", with_blobs=False)
           if r.boot_id is not None]
    assert len(ids) == len(set(ids)), "an event was recorded twice"
    assert ids and sorted(ids) == list(range(min(ids), max(ids) + 1)), "an event was lost"
    log.close()
