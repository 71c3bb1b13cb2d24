"""The board's own alarms (EV_LINK) become one security-alarm record per rise, per boot, after the event itself."""
from ringctl.event import Event
from ringctl.fw import ringmsg
from ringctl.link.alarms import BoardAlarms
from ringctl.record.log import AuditLog


def ev(boot, eid, alarms, keyerr=0, code=ringmsg.EV_LINK):
    return Event(boot, eid, code, 0, alarms, keyerr, "crc=0 stale=1")


def test_one_record_per_rise(tmp_path):
    db = str(tmp_path / "audit.db")
    with AuditLog(db) as log:
        b = BoardAlarms()
        assert b.note(log, ev(1, 1, 0)) is None                 # a status answer, no alarms
        seq, said = b.note(log, ev(1, 2, 3, 1))
        assert said.startswith("SECURITY ALARM on the board: 3 frame") and seq > 0
        assert b.note(log, ev(1, 3, 3)) is None                 # same count again: nothing
        assert "1 frame(s)" in b.note(log, ev(1, 4, 4))[1]
        assert b.note(log, ev(2, 1, 2)) is not None             # a new boot counts afresh
        assert b.note(log, ev(2, 2, 9, code=ringmsg.EV_STATS)) is None
    with AuditLog(db, create=False) as log:
        recs = [r.data for r in log.records("security-alarm")]
    assert [(r["link"]["boot_id"], r["new"], r["alarms_total"], r["by"]) for r in recs] == [
        ("00000001", 3, 3, "board"), ("00000001", 1, 4, "board"), ("00000002", 2, 2, "board")]
    assert recs[0]["link"]["key_errors"] == 1 and recs[0]["link"]["counters"] == "crc=0 stale=1"
