"""RingHost when the audit log cannot be written (issue 16): the disk fills (SQLite's own
SQLITE_FULL, at the moment a given record is written) and the host stops announcing — the
light shows a fault, the boxer gets one line saying "disk full" and what to do, nothing in
memory runs ahead of the log, board events stay on the board."""
import sqlite3

import pytest

from ringctl.fw import ringmsg as rm
from ringctl.record.log import LogWriteError
from ringctl.record.rebuild import rebuild_engine
from ringctl.runner.commands import Arm, TableOp

from test_host import BOXER, arm, host, land_and_rest, run_until  # noqa: F401  (fixture)


def sqlite_full():
    """A genuine SQLITE_FULL from SQLite itself (a 2-page in-memory database overfilled)."""
    db = sqlite3.connect(":memory:")
    db.execute("PRAGMA max_page_count=2")
    try:
        db.execute("CREATE TABLE t (x)")
        db.execute("INSERT INTO t VALUES (zeroblob(100000))")
    except sqlite3.OperationalError as exc:
        assert exc.sqlite_errorcode == sqlite3.SQLITE_FULL
        return exc
    raise AssertionError("no SQLITE_FULL")


def fill_disk_when(log, pred, inject=False):
    """The disk is full from the first record for which pred(kind, data) holds: the log's page
    limit set to its size (real, for records that need new pages), or SQLite's SQLITE_FULL
    raised at the append (for a small record that would still fit in a page)."""
    real = log.append_once
    full = []

    def append_once(kind, data, *a, **kw):
        if pred(kind, data) or full:
            full.append(kind)
            if inject:
                raise LogWriteError(log.path, sqlite_full())
            pages = log.db.execute("PRAGMA page_count").fetchone()[0]
            log.db.execute("PRAGMA max_page_count=%d" % pages)
        return real(kind, data, *a, **kw)
    log.append_once = append_once


def lights(link):
    return [int(t) for t in link.sent(rm.CMD_LIGHT)]


@pytest.mark.parametrize("full_at", ["spin", "settlement"])
def test_disk_full_stops_announcing(host, full_at):
    h, link, log = host, host.link, host.log
    sub = h.subscribe()
    spin = arm(h)
    if full_at == "spin":       # the still frames and the spin record: before any light
        fill_disk_when(log, lambda kind, data: kind == "frame")
    else:                       # the settlement: after the light, before "spin done"
        fill_disk_when(log, lambda kind, data: kind == "op" and data["op"].get("op") == "spin",
                       inject=True)
    land_and_rest(link)
    assert run_until(h, lambda: h.log_down is not None, timeout=5.0)
    line = h.log_down
    assert line.startswith("disk full:") and "\n" not in line and log.path in line
    assert "free space" in line and "restart" in line
    # the board: a fault light, never "spin done"; a result light only if its record is durable
    assert lights(link)[-1] == rm.LIGHT_FAULT
    assert not link.sent(rm.CMD_SPIN_DONE)
    if full_at == "spin":
        assert rm.LIGHT_HEADS not in lights(link)
        assert h.snapshot()["spin"]["result"] is None
    kinds = [e.kind for e in iter(lambda: sub.get(timeout=0.05), None)]
    assert "log-down" in kinds
    if full_at == "spin":
        assert "verdict" not in kinds and "result" not in kinds
    assert "settlement" not in kinds
    # nothing in memory ahead of the log: the table is what the log can rebuild
    assert h.engine.state() == rebuild_engine(log).state()
    assert h.engine.state()["wagers"] and h.snapshot()["log_down"] == line   # s1 still open
    # every command is refused with the same line, and board events stay unacknowledged
    reply = h.submit(TableOp(op={"op": "bets-open"}, **BOXER))
    assert not reply.ok and reply.message == line
    assert not h.submit(Arm(**BOXER)).ok
    acked = len(link.acked)
    link.push(rm.EV_BUTTON, rm.BTN_NOSPIN, 1)
    for _ in range(5):
        h.step(0.01)
    assert len(link.acked) == acked
    assert link.acked_unrecorded == 0
    log.db.execute("PRAGMA max_page_count=1073741823")
    log.append_once = type(log).append_once.__get__(log)
    assert log.verify()["ok"]
