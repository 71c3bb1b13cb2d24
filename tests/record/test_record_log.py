"""Audit log: append-only, durable settings, event dedup, tamper detection naming the seq, export, CLI."""
import csv
import json
import sqlite3
import subprocess
import sys

import pytest

from ringctl.cli import main
from ringctl.game.engine import Engine
from ringctl.record import AuditLog, canonical
from ringctl.record.rebuild import rebuild_engine
from ringctl.record.records import record_op

JPEG = b"\xff\xd8\xff\xe0" + bytes(range(256)) * 8 + b"\xff\xd9"


@pytest.fixture
def log(tmp_path):
    lg = AuditLog(tmp_path / "audit.db")
    lg.append("spin", {"spin": 1, "events": ["impact", "rest"], "outcome": "heads",
                       "reasons": ["6.9 heads"], "timings": {"rest_ms": 2500}})
    lg.append("frame", {"spin": 1}, blob=JPEG)
    lg.append("light", {"light": "heads"})
    lg.append("event", {"code": 9}, event=(7, 1))
    lg.append("settlement", {"bet": "b1", "outcome": "win", "pays": 10})
    lg.append("override", {"actor": "boxer", "from": "unsure", "result": "tails", "reason": "by eye"})
    yield lg
    lg.close()


def rehash(r, data_text):
    """What a forger with the code could do: recompute a record's own hash."""
    return canonical.chain(r.prev, canonical.body_digest(r.kind, r.ts_us, data_text, None,
                                                         r.boot_id, r.event_id))


def tamper(path, *sql):
    """What someone with the file could do: drop the guards, then edit."""
    db = sqlite3.connect(path)
    db.execute("DROP TRIGGER records_no_update")
    db.execute("DROP TRIGGER records_no_delete")
    db.execute("DROP TRIGGER records_chain")
    for s in sql:
        db.execute(s)
    db.commit()
    db.close()


def test_roundtrip_durability_settings_and_chain(log):
    recs = list(log.records())
    assert [r.seq for r in recs] == [1, 2, 3, 4, 5, 6]
    assert recs[1].blob == JPEG and recs[0].data["reasons"] == ["6.9 heads"]
    assert recs[0].prev == "0" * 64 and all(recs[i].prev == recs[i - 1].hash for i in range(1, 6))
    assert log.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert log.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert log.verify()["ok"]


def test_device_event_recorded_once(log):
    assert log.has_event(7, 1) and not log.has_event(7, 2)
    assert log.append_once("event", {"code": 9}, event=(7, 1)) == (4, False)
    assert log.append_once("event", {"code": 9}, event=(8, 1))[1] is True   # another boot
    assert log.count() == 7


@pytest.mark.parametrize("sql", ["UPDATE records SET data='{}' WHERE seq=2",
                                 "DELETE FROM records WHERE seq=6",
                                 "INSERT INTO records (seq, ts_us, kind, data, prev, hash) "
                                 "VALUES (7, 0, 'x', '{}', 'bogus', 'bogus')"])
def test_triggers_forbid_changes(log, sql):
    with pytest.raises(sqlite3.DatabaseError):
        log.db.execute(sql)


@pytest.mark.parametrize("sql, seq, problem", [
    ("""UPDATE records SET data='{"bet":"b1","outcome":"win","pays":1000}' WHERE seq=5""", 5, "edited"),
    ("UPDATE records SET blob=x'ffd8ffd9' WHERE seq=2", 2, "edited"),
    ("UPDATE records SET ts_us=ts_us+60 WHERE seq=1", 1, "edited"),
    ("UPDATE records SET event_id=2 WHERE seq=4", 4, "edited"),
    ("UPDATE records SET boot_id=8 WHERE seq=4", 4, "edited"),
    ("DELETE FROM records WHERE seq=3", 4, "deleted"),
    ("UPDATE records SET seq=seq+100 WHERE seq IN (3, 4)", 5, "deleted"),
])
def test_verify_names_the_tampered_seq(log, sql, seq, problem):
    tamper(log.path, sql)
    report = AuditLog(log.path).verify()
    assert not report["ok"]
    assert {"seq": seq, "problem": problem} in [{k: p[k] for k in ("seq", "problem")} for p in report["problems"]]


def test_verify_detects_reordering(log):
    # Swap records 3 and 4 (each keeps its own correct hash): the chain links give it away.
    tamper(log.path, "UPDATE records SET seq=-3 WHERE seq=3", "UPDATE records SET seq=3 WHERE seq=4",
           "UPDATE records SET seq=4 WHERE seq=-3")
    report = AuditLog(log.path).verify()
    probs = {(p["seq"], p["problem"]) for p in report["problems"]}
    assert {(3, "reordered"), (4, "reordered")} <= probs
    assert all(p["problem"] != "edited" for p in report["problems"])


def test_verify_detects_a_rewritten_hash_and_removed_triggers(log):
    # Edit record 2 and even recompute its own hash: its successor no longer links to it.
    r = list(log.records())[2]
    h = rehash(r, '{"light":"tails"}')
    tamper(log.path, "UPDATE records SET data='{\"light\":\"tails\"}', hash='%s' WHERE seq=3" % h)
    report = AuditLog(log.path).verify()
    probs = {(p["seq"], p["problem"]) for p in report["problems"]}
    assert (4, "chain-broken") in probs and (None, "triggers-missing") in probs


def test_truncated_tail_needs_the_anchor(log):
    seq, head = log.head()
    tamper(log.path, "DELETE FROM records WHERE seq=6")
    cut = AuditLog(log.path)
    assert [p["problem"] for p in cut.verify()["problems"]] == ["triggers-missing"]
    assert "head-mismatch" in [p["problem"] for p in cut.verify(expect_head=head)["problems"]]


def test_engine_rebuilt_from_logged_ops(tmp_path):
    ops = [{"op": "spinner", "calls": "tails"}, {"op": "bets-open"},
           {"op": "bet", "id": "s", "on": "spinner", "amount": 2}, {"op": "bets-closed"},
           {"op": "spin", "result": "odds"}, {"op": "withdraw", "id": "s"}, {"op": "spin", "result": "tails"}]
    eng = Engine()
    with AuditLog(tmp_path / "a.db") as lg:
        for op in ops:
            record_op(lg, op, eng.apply(op))
    with AuditLog(tmp_path / "a.db") as lg:
        assert rebuild_engine(lg).state() == eng.state()


def test_cli_verify_export_show(log, tmp_path, capsys):
    assert main(["log", "verify", "--db", log.path]) == 0
    assert json.loads(capsys.readouterr().out)["records"] == 6
    out_csv, out_json = tmp_path / "a.csv", tmp_path / "a.jsonl"
    assert main(["log", "export", "--db", log.path, "--format", "csv", "-o", str(out_csv)]) == 0
    rows = list(csv.DictReader(l for l in out_csv.open(encoding="utf-8") if not l.startswith("#")))
    assert [r["kind"] for r in rows] == ["spin", "frame", "light", "event", "settlement", "override"]
    assert int(rows[1]["blob_bytes"]) == len(JPEG) and json.loads(rows[4]["data"])["pays"] == 10
    assert main(["log", "export", "--db", log.path, "--format", "json", "--with-blobs", "-o", str(out_json)]) == 0
    lines = [json.loads(l) for l in out_json.read_text().splitlines()]
    assert lines[0]["header"]["format"] == "ring-audit-v2" and lines[0]["header"]["verified"]
    data = lines[1:]
    assert data[5]["data"]["actor"] == "boxer" and data[1]["blob_base64"]
    # without the bytes, each frame's SHA-256 is still there: the export verifies on its own
    plain = tmp_path / "b.jsonl"
    assert main(["log", "export", "--db", log.path, "--format", "json", "-o", str(plain)]) == 0
    rows = [json.loads(l) for l in plain.read_text().splitlines()][1:]
    assert rows[1]["blob_sha256"] and "blob_base64" not in rows[1]
    checked = subprocess.run([sys.executable, str(tmp_path / "verify_audit_export.py"), str(plain)],
                             capture_output=True, text=True)
    assert checked.returncode == 0 and "FAIL" not in checked.stdout, checked.stdout
    assert main(["log", "show", "--db", log.path, "--kind", "override", "--json"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["data"]["reason"] == "by eye"
    tamper(log.path, "DELETE FROM records WHERE seq=2")
    assert main(["log", "verify", "--db", log.path]) == 1
    assert "seq 3 deleted" in capsys.readouterr().err
    assert main(["log", "verify", "--db", str(tmp_path / "none.db")]) == 1


def test_verify_detects_an_inserted_record(log):
    # A forged record with a valid own hash slipped in after seq 2; later records renumbered.
    r2 = list(log.records())[1]
    h = canonical.chain(r2.hash, canonical.body_digest("settlement", 1000000, '{"pays":500}',
                                                       None, None, None))
    tamper(log.path, "UPDATE records SET seq=seq+100 WHERE seq>=3",
           "UPDATE records SET seq=seq-99 WHERE seq>=103",
           "INSERT INTO records (seq, ts_us, kind, data, prev, hash) VALUES (3, 1000000, 'settlement', "
           "'{\"pays\":500}', '%s', '%s')" % (r2.hash, h))
    report = AuditLog(log.path).verify()
    assert [(p["seq"], p["problem"]) for p in report["problems"] if p["seq"]] == [(3, "inserted")]


def test_host_records_event_spin_frames(tmp_path):
    from ringctl.fw import ringmsg as rm
    from ringctl.game.adjudicate import SpinAdjudicator
    from ringctl.event import Event
    from ringctl.record.records import record_event, record_spin
    lg = AuditLog(tmp_path / "h.db")
    adj = SpinAdjudicator(spin_id=1)
    for n, (code, a) in enumerate([(rm.EV_IMPACT, 0), (rm.EV_IMPACT, 1), (rm.EV_REST, 600)], 1):
        ev = Event.decode(rm.pack_event(42, n, code, n * 1000, a, 0))
        assert record_event(lg, ev)[1] is True
        assert record_event(lg, ev)[1] is False        # resend after reconnect: once
        adj.feed(ev)
    adj.decide(None)
    adj.resolve("boxer", "heads", "read by eye")
    seq = record_spin(lg, 1, adj, frames=[(JPEG, {"result": "unsure"})])
    spin = list(lg.records(kind="spin"))[0]
    assert spin.seq == seq and spin.data["outcome"]["result"] == "heads"
    assert spin.data["outcome"]["override"]["actor"] == "boxer"
    assert lg.records(since=spin.data["frames"][0] - 1).__next__().blob == JPEG
    assert [r.kind for r in lg.records()] == ["event"] * 3 + ["frame", "spin"]
    assert lg.verify()["ok"]
