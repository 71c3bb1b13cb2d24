"""`ring bench log`: durable appends/s, verify seconds and peak MB per million records (memory
flat: measured at two sizes), a forked chain (linear, not cubic), `show --last 1`.

Appends are the host's real path (one IMMEDIATE transaction, synchronous=FULL, fsync). The
large logs are built in bulk with the log's own encoding and schema (one transaction), then
verified by `ring log verify` in a child process whose peak RSS is read from the kernel.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from ..cliutil import OneLineParser
from ..errors import UserError
from . import canonical
from .log import GENESIS, AuditLog

FRAME_EVERY = 50          # one still frame per 50 records, as in play (events, spin, 3 frames)
FRAME_BYTES = 20_000


def _event(i):
    return {"boot_id": 3583456291, "event_id": i, "code": 9, "name": "impact", "t_us": 1000 * i,
            "a": i % 2, "b": 30000 + i % 997, "text": "", "spin": i // 40,
            "payload": "IzSX1QgAAAATsIOWAAAAAAAAAAAAAQAAADhlOGJmNGViNjNm"}


def build(path, n, fork_every=0):
    """n records like play's, bulk-inserted with the log's own encoding. fork_every=k breaks
    every k-th link (a forked chain, as a rewriting attacker leaves it)."""
    import hashlib
    AuditLog(path).close()
    import sqlite3
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA synchronous=OFF")
    if fork_every:
        db.execute("DROP TRIGGER records_chain")     # the attacker's first step
    db.execute("BEGIN")
    prev = GENESIS
    frame = os.urandom(FRAME_BYTES)
    frame_sha = hashlib.sha256(frame).hexdigest()
    ts0 = 1_796_000_000_000_000
    rows = []
    for seq in range(1, n + 1):
        blob = frame if seq % FRAME_EVERY == 0 else None
        kind = "frame" if blob else "event"
        text = canonical.jcs({"spin": seq // 40} if blob else _event(seq))
        sha = frame_sha if blob else None
        boot, eid = (None, None) if blob else (3583456291, seq)
        h = canonical.chain(prev, canonical.body_digest(kind, ts0 + seq, text, sha, boot, eid))
        link = h if fork_every and seq % fork_every == 0 else prev
        rows.append((seq, ts0 + seq, kind, text, blob, sha, boot, eid, link, h))
        prev = h
        if len(rows) >= 5000:
            db.executemany("INSERT INTO records VALUES (?,?,?,?,?,?,?,?,?,?)", rows)
            rows = []
    db.executemany("INSERT INTO records VALUES (?,?,?,?,?,?,?,?,?,?)", rows)
    db.execute("COMMIT")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


_CHILD = """
import json, resource, sys, time
from ringctl.record import AuditLog
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
log = AuditLog(sys.argv[1], readonly=True)
if sys.argv[2] == "verify":
    r = log.verify()
    out = {"ok": r["ok"], "records": r["records"], "problems": len(r["problems"])}
else:
    out = {"last": [x.seq for x in log.last(1)]}
out["s"] = time.perf_counter() - t
out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
out["base_mb"] = base / 1024
print(json.dumps(out))
"""


def child(path, what):
    r = subprocess.run([sys.executable, "-c", _CHILD, path, what], capture_output=True,
                       text=True, timeout=3600)
    if r.returncode:
        raise UserError("bench child failed: %s" % r.stderr.strip().splitlines()[-1:], code=1)
    return json.loads(r.stdout)


def appends(path, n):
    log = AuditLog(path)
    t = time.perf_counter()
    for i in range(n):
        log.append("event", _event(i), event=(7, i))
    dt = time.perf_counter() - t
    log.close()
    return n / dt


def main(argv):
    p = OneLineParser(prog="ring bench log", description=__doc__.split("\n")[0])
    p.add_argument("--records", type=int, default=200_000,
                   help="records in the large log (default 200000; figures are per million)")
    p.add_argument("--appends", type=int, default=1000, help="durable appends timed (default 1000)")
    p.add_argument("--dir", default=None, help="where to build the logs (default: a temp dir)")
    p.add_argument("--json", action="store_true", help="one JSON object")
    a = p.parse_args(argv)
    if a.records < 1000:
        raise UserError("--records must be at least 1000")
    work = tempfile.mkdtemp(prefix="ring-bench-log-", dir=a.dir)
    try:
        out = {"durable_appends_per_s": round(appends(os.path.join(work, "a.db"), a.appends), 1)}
        small, big = os.path.join(work, "small.db"), os.path.join(work, "big.db")
        build(small, a.records // 4)
        build(big, a.records)
        vs, vb = child(small, "verify"), child(big, "verify")
        if not (vs["ok"] and vb["ok"]):
            raise UserError("bench log failed its own verification: %s %s" % (vs, vb), code=1)
        per_m = 1_000_000 / a.records
        out.update({
            "records": a.records, "db_mb": round(os.path.getsize(big) / 2 ** 20, 1),
            "verify_s": round(vb["s"], 2), "verify_s_per_million": round(vb["s"] * per_m, 2),
            "verify_peak_mb": round(vb["peak_mb"], 1),
            "verify_peak_mb_quarter_size": round(vs["peak_mb"], 1),
            "interpreter_mb": round(vb["base_mb"], 1),
            "memory_flat": vb["peak_mb"] - vs["peak_mb"] < 16,
        })
        last = child(big, "last")
        out["show_last_1_s"] = round(last["s"], 4)
        out["show_last_1_peak_mb"] = round(last["peak_mb"], 1)
        fork = os.path.join(work, "fork.db")
        build(fork, 10_000, fork_every=10)
        vf = child(fork, "verify")
        out["forked_10k_verify_s"] = round(vf["s"], 2)
        out["forked_10k_problems"] = vf["problems"]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if a.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print("%-28s %s" % (k, v))
    return 0
