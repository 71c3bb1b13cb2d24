"""`ring link send|status|monitor` never acknowledge a board event that is not durably recorded.

The host acknowledges an event only after recording it: `send` and `status` leave every
event on the board (for `ring run`), `monitor` appends each to the audit log first (and
records security alarms there too).
"""
import os
import threading
import time

from ringctl.cli import main
from ringctl.link import LinkClient
from ringctl.link.client import KEY_MISMATCH_MSG
from ringctl.fw import ringlink as rl, ringmsg
from ringctl.record.log import AuditLog

from linksim import KEY
from test_link_client import FakeBoard, _wait


def _key_file(tmp_path):
    keyf = tmp_path / "board.key"
    keyf.write_bytes(KEY)
    keyf.chmod(0o600)
    return str(keyf)


def test_send_and_status_leave_board_events_unacknowledged(tmp_path, capsys):
    board = FakeBoard()
    try:
        for i in (1, 2, 3):
            board.event(i)
        keyf = _key_file(tmp_path)
        assert main(["link", "send", "--port", board.path, "--key", keyf,
                     "--timeout", "0.6", "status"]) == 0
        assert board.s.unacked == 4          # the board still holds all three and its answer
        out = capsys.readouterr().out
        assert out.count("left for `ring run` to record") == 4 and "delivered" in out
        assert [c[0] for c in board.cmds] == [ringmsg.CMD_STATUS]
        assert main(["link", "status", "--port", board.path, "--key", keyf]) == 0
        time.sleep(0.1)
        assert board.s.unacked == 4           # status sends nothing and acknowledges nothing
    finally:
        board.close()


def test_monitor_records_events_and_alarms_before_acknowledging(tmp_path, capsys):
    board = FakeBoard()
    db = str(tmp_path / "audit.db")
    try:
        for i in (1, 2, 3):
            board.event(i)
        forged = rl.encode(rl.seal(rl._keypair(os.urandom(32)), rl.MT_EVENT, 0, 9, 0,
                                   ringmsg.pack_event(0xB007, 99, ringmsg.EV_BEAM, 0, 1, 0)))
        inject = threading.Timer(0.4, lambda: os.write(board.master, forged))
        inject.start()
        rc = main(["link", "monitor", "--port", board.path, "--key", _key_file(tmp_path),
                   "--seconds", "1.0", "--log", db])
        inject.join()
        out = capsys.readouterr().out
        assert rc == 1                        # an alarm happened during the watch
        assert "recorded in" in out and "then acknowledged" in out
        assert _wait(lambda: board.s.unacked == 0)
        with AuditLog(db, create=False) as log:
            evs = [r.data for r in log.records("event")]
            alarms = [r.data for r in log.records("security-alarm")]
        assert [(e["event_id"], e["by"]) for e in evs] == [(i, "ring link monitor")
                                                          for i in (1, 2, 3)]
        assert len(alarms) == 1 and alarms[0]["new"] == 1 and alarms[0]["alarms_total"] == 1
    finally:
        board.close()


def test_status_shows_the_boards_own_alarms(tmp_path, capsys):
    """Forgeries aimed at the board inside a session: the board counts them, `ring link
    status` shows its count and exits 1."""
    board = FakeBoard()
    client = LinkClient(board.path, KEY)
    try:
        assert client.wait_up(5)
        forged = rl.encode(rl.seal(rl._keypair(os.urandom(32)), rl.MT_CMD, 0, 1, 0,
                                   ringmsg.pack_cmd(ringmsg.CMD_ARM, 5)))
        for _ in range(3):
            os.write(board.slave, forged)        # onto the board's side of the line
        assert _wait(lambda: board.s.alarms == 3)
    finally:
        client.close()
    rc = main(["link", "status", "--port", board.path, "--key", _key_file(tmp_path)])
    out = capsys.readouterr().out
    board.close()
    assert rc == 1
    assert "board end: security alarms 3, wrong-key HELLOs 0" in out
    assert "SECURITY: the board counted 3 frame(s)" in out


def test_wrong_key_is_one_configuration_error_not_alarms(tmp_path, capsys, caplog):
    board = FakeBoard()
    wrong = tmp_path / "wrong.key"
    wrong.write_bytes(os.urandom(32))
    wrong.chmod(0o600)
    try:
        client = LinkClient(board.path, wrong.read_bytes())
        try:
            assert not client.wait_up(3)
            assert client.key_mismatch and client.alarms == 0
            assert client.stats()["key_errors"] >= 3      # ADVERTs every 0.5 s, all refused
        finally:
            client.close()
        msgs = [r.getMessage() for r in caplog.records if r.name == "ringctl.link"]
        assert not [m for m in msgs if "SECURITY" in m], msgs
        assert sum("does not accept this key" in m for m in msgs) == 1, msgs
        assert board.s.alarms == 0 and board.s.key_errors > 0     # the board: same verdict
        capsys.readouterr()
        assert main(["link", "status", "--port", board.path, "--key", str(wrong),
                     "--timeout", "1.5"]) == 1
        err = capsys.readouterr().err
        assert err.strip() == "ring: error: " + KEY_MISMATCH_MSG, err
    finally:
        board.close()
