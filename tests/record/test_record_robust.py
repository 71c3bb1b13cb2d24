"""The audit log under stress: kill during creation, concurrent first opens, a full disk,
read-only evidence copies, damaged files, exports a stranger verifies with the stdlib."""
import hashlib
import json
import multiprocessing
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from ringctl.cli import main
from ringctl.record import AuditLog
from ringctl.record import log as logmod
from ringctl.record.log import LogWriteError, TRIGGERS


def filled(path, n=30, blob_every=10):
    lg = AuditLog(path)
    for i in range(n):
        lg.append("event", {"i": i, "text": "tête-à-tête €%d" % i, "x": i / 7},
                  blob=os.urandom(3000) if blob_every and i % blob_every == 3 else None,
                  event=(99, i))
    return lg


def problems(report):
    return [(p["seq"], p["problem"]) for p in report["problems"]]


# ---- 3. schema creation is atomic; verify checks the triggers' text -----------------------
def test_schema_is_all_or_nothing(tmp_path, monkeypatch):
    db = tmp_path / "a.db"
    monkeypatch.setattr(logmod, "SCHEMA", logmod.SCHEMA + ("CREATE TABLE records (x)",))
    with pytest.raises(sqlite3.OperationalError):
        AuditLog(db)
    monkeypatch.undo()
    names = {r[0] for r in sqlite3.connect(db).execute("SELECT name FROM sqlite_master")}
    assert not names, "a failed creation left part of the schema: %s" % names
    lg = AuditLog(db)                   # the next open creates it whole
    lg.append("op", {})
    assert lg.verify()["ok"]


CREATOR = """
import sys
from ringctl.record import AuditLog
AuditLog(sys.argv[1]).close()
print("CREATED", flush=True)
"""


def test_kill_during_first_open_never_leaves_a_log_without_guards(tmp_path):
    rnd = random.Random(5)
    for i in range(25):
        db = tmp_path / ("k%d.db" % i)
        p = subprocess.Popen([sys.executable, "-c", CREATOR, str(db)], stdout=subprocess.PIPE)
        time.sleep(rnd.uniform(0.05, 0.25))   # python start-up ~0.1 s: kills land around the open
        p.send_signal(signal.SIGKILL)
        p.wait()
        if not db.exists():
            continue
        names = {r[0] for r in sqlite3.connect(db).execute(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger')")}
        assert "records" not in names or set(TRIGGERS) <= names, names
        lg = AuditLog(db)                 # reopening completes or finds a whole schema
        lg.append("op", {"i": i})
        assert lg.verify()["ok"]


def test_verify_reads_the_triggers_text(tmp_path):
    lg = filled(tmp_path / "a.db", 3)
    db = sqlite3.connect(lg.path)
    db.execute("DROP TRIGGER records_no_update")
    db.execute("CREATE TRIGGER records_no_update BEFORE UPDATE ON records WHEN 0 "
               "BEGIN SELECT RAISE(ABORT, 'x'); END")
    db.commit()
    db.execute("UPDATE records SET kind='event' WHERE seq=1")   # now allowed
    db.commit()
    assert (None, "triggers-changed") in problems(AuditLog(lg.path, readonly=True).verify())


# ---- 7. several processes opening a new log at once -------------------------------------
def _open_and_append(path, n, q):
    try:
        lg = AuditLog(path)
        lg.append("op", {"proc": n})
        lg.close()
        q.put("ok")
    except Exception as exc:  # report, do not hang the parent
        q.put("%s: %s" % (type(exc).__name__, exc))


def test_concurrent_first_opens(tmp_path):
    ctx = multiprocessing.get_context("fork")
    for rnd in range(6):
        path = str(tmp_path / ("c%d.db" % rnd))
        q = ctx.Queue()
        procs = [ctx.Process(target=_open_and_append, args=(path, n, q)) for n in range(6)]
        for p in procs:
            p.start()
        results = [q.get(timeout=60) for _ in procs]
        for p in procs:
            p.join()
        assert results == ["ok"] * 6, results
        report = AuditLog(path).verify()
        assert report["ok"] and report["records"] == 6


# ---- 1. a full disk: one line saying so, nothing half-written, the log still sound -----------
def test_disk_full_says_disk_full_and_writes_nothing(tmp_path):
    lg = filled(tmp_path / "a.db", 5)
    pages = lg.db.execute("PRAGMA page_count").fetchone()[0]
    lg.db.execute("PRAGMA max_page_count=%d" % (pages + 2))   # SQLite's own SQLITE_FULL
    with pytest.raises(LogWriteError) as err:
        lg.append("frame", {"spin": 1}, blob=os.urandom(200_000))
    msg = str(err.value)
    assert msg.startswith("disk full:") and lg.path in msg and "\n" not in msg
    assert err.value.disk_full
    assert "no transaction is active" not in msg
    assert lg.head()[0] == 5
    lg.db.execute("PRAGMA max_page_count=1073741823")
    assert lg.append("op", {"after": "space freed"}) == 6
    assert AuditLog(lg.path, readonly=True).verify()["ok"]


# ---- 4. read-only evidence copies; damaged files -------------------------------------------
def test_verify_opens_read_only_and_changes_nothing(tmp_path, capsys):
    lg = filled(tmp_path / "a.db", 20)
    lg.close()
    ev = tmp_path / "evidence"
    ev.mkdir()
    shutil.copy(tmp_path / "a.db", ev / "a.db")
    for f in ("a.db-wal",):
        if (tmp_path / f).exists():
            shutil.copy(tmp_path / f, ev / f)
    before = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in ev.iterdir()}
    os.chmod(ev / "a.db", 0o444)
    os.chmod(ev, 0o555)
    try:
        assert main(["log", "verify", "--db", str(ev / "a.db")]) == 0
        assert main(["log", "show", "--db", str(ev / "a.db"), "--last", "2", "--json"]) == 0
    finally:
        os.chmod(ev, 0o755)
    out = capsys.readouterr().out.strip().splitlines()
    assert json.loads(out[-1])["data"]["i"] == 19 and json.loads(out[-2])["data"]["i"] == 18
    after = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in ev.iterdir()
             if p.name in before}
    assert after == before


def test_immutable_fallback(tmp_path):
    lg = filled(tmp_path / "a.db", 4)
    lg.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    lg.close()
    ro = AuditLog(tmp_path / "a.db", readonly=True)
    assert ro.verify()["ok"]
    with pytest.raises(sqlite3.OperationalError):
        ro.db.execute("INSERT INTO meta VALUES ('x', 'y')")


def test_damaged_file_names_records_and_keeps_going(tmp_path):
    lg = filled(tmp_path / "a.db", 400, blob_every=0)
    lg.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    lg.close()
    path = tmp_path / "a.db"
    raw = bytearray(path.read_bytes())
    page = 4096
    mid = len(raw) // page // 2
    raw[mid * page + 200: mid * page + 1200] = os.urandom(1000)   # bit rot in one page
    path.write_bytes(bytes(raw))
    report = AuditLog(path, readonly=True).verify()
    assert not report["ok"]
    kinds = {p["problem"] for p in report["problems"]}
    assert "damaged" in kinds                     # PRAGMA integrity_check ran
    named = [p["seq"] for p in report["problems"] if p["seq"] is not None]
    assert named, report["problems"]
    assert report["head"]["seq"] == 400            # walked past the damage to the end
    assert report["records"] + sum(1 for p in report["problems"] if p["problem"] == "unreadable") >= 395


def test_undecodable_data_is_named_and_the_walk_goes_on(tmp_path):
    lg = filled(tmp_path / "a.db", 10, blob_every=0)
    db = sqlite3.connect(lg.path)
    db.execute("DROP TRIGGER records_no_update")
    db.execute("UPDATE records SET data=CAST(x'7b22ff' AS TEXT) WHERE seq=4")
    db.commit()
    report = AuditLog(lg.path, readonly=True).verify()
    assert (4, "edited") in problems(report) and report["records"] == 10
    assert report["head"]["seq"] == 10


def test_many_breaks_all_named(tmp_path):
    lg = filled(tmp_path / "a.db", 300, blob_every=0)
    db = sqlite3.connect(lg.path)
    db.execute("DROP TRIGGER records_no_update")
    db.execute("UPDATE records SET prev=hash WHERE seq % 3 = 0")   # a forked mess
    db.commit()
    report = AuditLog(lg.path, readonly=True).verify()
    bad = {p["seq"] for p in report["problems"] if p["seq"]}
    assert {s for s in range(3, 301, 3)} <= bad


# ---- 5. exports a stranger can verify with the stdlib -----------------------------------
def run_verifier(script, export):
    # -I -S: isolated, no site-packages: only the standard library
    return subprocess.run([sys.executable, "-I", "-S", str(script), str(export)],
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_export_verifies_with_the_shipped_script(tmp_path, fmt, capsys):
    lg = filled(tmp_path / "a.db", 25)
    out = tmp_path / "x" / ("log." + fmt)
    out.parent.mkdir()
    args = ["log", "export", "--db", lg.path, "--format", fmt, "-o", str(out)]
    assert main(args + (["--with-blobs"] if fmt == "json" else [])) == 0
    script = out.parent / "verify_audit_export.py"
    r = run_verifier(script, out)
    assert r.returncode == 0 and r.stdout.startswith("OK 25 records"), r.stdout + r.stderr
    text = out.read_text(encoding="utf-8")
    assert "tête-à-tête €3" in text               # raw UTF-8, not escaped
    assert "RFC 8785" in text.splitlines()[0] + text[:2000]
    forged = text.replace("tête-à-tête €7", "tête-à-tête €8", 1)
    out.write_text(forged, encoding="utf-8")
    r = run_verifier(script, out)
    assert r.returncode == 1 and "seq 8:" in r.stdout, r.stdout


def test_exporting_a_failing_log_refuses_unless_told(tmp_path, capsys):
    lg = filled(tmp_path / "a.db", 5, blob_every=0)
    db = sqlite3.connect(lg.path)
    db.execute("DROP TRIGGER records_no_update")
    db.execute("""UPDATE records SET data='{"i":99}' WHERE seq=2""")
    db.commit()
    out = tmp_path / "e.csv"
    assert main(["log", "export", "--db", lg.path, "--format", "csv", "-o", str(out)]) == 1
    assert not out.exists()
    assert "seq 2 edited" in capsys.readouterr().err
    assert main(["log", "export", "--db", lg.path, "--format", "csv", "-o", str(out),
                 "--allow-failed"]) == 0
    r = run_verifier(tmp_path / "verify_audit_export.py", out)
    assert r.returncode == 1 and "failed verification" in r.stdout


def test_a_real_full_disk(tmp_path):
    """A 400 kB tmpfs filled with frames: the first append that does not fit says "disk full",
    the log verifies, and a record that fits still goes in. Where mounting is not allowed
    (no root in the container) the same path runs on SQLite's own SQLITE_FULL limit."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=400k", "tmpfs", str(mnt)],
                             capture_output=True).returncode == 0
    try:
        lg = AuditLog(mnt / "audit.db")
        if not mounted:
            lg.db.execute("PRAGMA max_page_count=100")
        n = 0
        with pytest.raises(LogWriteError) as err:
            while n < 1000:
                lg.append("frame", {"n": n}, blob=os.urandom(20_000))
                n += 1
        assert str(err.value).startswith("disk full:") and 3 < n < 1000
        assert lg.head()[0] == n
        lg.close()
        with AuditLog(mnt / "audit.db", readonly=True) as ro:
            assert ro.verify()["ok"]
    finally:
        if mounted:
            subprocess.run(["umount", "-l", str(mnt)])


def test_a_log_in_another_schema_is_named_not_mixed(tmp_path):
    db = sqlite3.connect(tmp_path / "old.db")
    db.execute("CREATE TABLE records (seq INTEGER PRIMARY KEY, ts REAL, kind TEXT, data TEXT)")
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.execute("INSERT INTO meta VALUES ('schema', '1')")
    db.commit()
    with pytest.raises(logmod.OldLogError, match="schema 1.*start a new log"):
        AuditLog(tmp_path / "old.db")
    report = AuditLog(tmp_path / "old.db", readonly=True).verify()
    assert not report["ok"] and report["problems"][0]["problem"] == "schema"


def test_a_record_read_with_null_fields_is_named_and_the_walk_goes_on(tmp_path):
    """Bit rot in a page can make SQLite read a record's NOT NULL fields as NULL (seen once in
    test_damaged_file_names_records_and_keeps_going's random damage: verify stopped with a
    TypeError). It is named as damaged, and the records after it are still walked."""
    lg = filled(tmp_path / "a.db", 10, blob_every=0)
    db = sqlite3.connect(lg.path)
    db.execute("PRAGMA writable_schema=ON")   # what damage does: a row the schema forbids
    db.execute("UPDATE sqlite_master SET sql=replace(sql, 'NOT NULL', '') WHERE name='records'")
    db.commit()
    db.close()
    db = sqlite3.connect(lg.path)
    db.execute("DROP TRIGGER records_no_update")
    db.execute("UPDATE records SET data=NULL WHERE seq=4")
    db.commit()
    db.close()
    report = AuditLog(lg.path, readonly=True).verify()
    assert not report["ok"]
    assert (4, "damaged") in problems(report), report["problems"]
    assert report["records"] == 10 and report["head"]["seq"] == 10
