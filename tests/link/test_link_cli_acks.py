"""`ring link send|status|monitor` never acknowledge a board event that is not durably recorded.

The host acknowledges an event only after recording it: `send` and `status` leave every
event on the board (for `ring run`), `monitor` appends each to the audit log first (and
records security alarms there too).
"""
import os
import threading
import time

from ringctl.cli import main
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
        assert board.s.unacked == 3          # the board still holds all three events
        out = capsys.readouterr().out
        assert out.count("left for `ring run` to record") == 3 and "delivered" in out
        assert [c[0] for c in board.cmds] == [ringmsg.CMD_STATUS]
        assert main(["link", "status", "--port", board.path, "--key", keyf]) == 0
        time.sleep(0.1)
        assert board.s.unacked == 3
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
