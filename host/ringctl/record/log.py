"""The audit log store: append-only SQLite (WAL, synchronous=FULL) with a SHA-256 hash chain.

Every record stores `prev` (the hash of the record before it) and `hash` =
sha256(prev || kind || ts || canonical JSON data || sha256(blob)). The sequence number is
the record's position and is deliberately NOT hashed: an edited record fails its own hash,
a deleted one leaves its successor pointing at a hash that is gone, and a reordered one
points at a record that is not its predecessor, so `verify()` can say which happened.

Durability: each append is one IMMEDIATE transaction committed with synchronous=FULL in WAL
mode, so when `append()` returns the record survives kill -9 and power loss; only then may
the host acknowledge the device event it records (at-least-once delivery + `event` dedup
on (boot_id, event_id) = exactly-once recording).
"""
import hashlib
import json
import os
import sqlite3
import time
from collections import namedtuple

from ..errors import UserError

GENESIS = "0" * 64
SCHEMA_VERSION = 1

Record = namedtuple("Record", "seq ts kind data blob prev hash boot_id event_id")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
    seq      INTEGER PRIMARY KEY,
    ts       REAL NOT NULL,
    kind     TEXT NOT NULL,
    data     TEXT NOT NULL,
    blob     BLOB,
    blob_sha TEXT,
    prev     TEXT NOT NULL,
    hash     TEXT NOT NULL,
    boot_id  INTEGER,
    event_id INTEGER
);
CREATE UNIQUE INDEX IF NOT EXISTS records_event ON records(boot_id, event_id)
    WHERE boot_id IS NOT NULL;
CREATE TRIGGER IF NOT EXISTS records_no_update BEFORE UPDATE ON records
    BEGIN SELECT RAISE(ABORT, 'audit log is append-only: records cannot be changed'); END;
CREATE TRIGGER IF NOT EXISTS records_no_delete BEFORE DELETE ON records
    BEGIN SELECT RAISE(ABORT, 'audit log is append-only: records cannot be deleted'); END;
CREATE TRIGGER IF NOT EXISTS records_chain BEFORE INSERT ON records
    WHEN NEW.seq IS NOT (SELECT COALESCE(MAX(seq), 0) + 1 FROM records)
      OR NEW.prev IS NOT COALESCE((SELECT hash FROM records ORDER BY seq DESC LIMIT 1),
                                  '""" + GENESIS + """')
    BEGIN SELECT RAISE(ABORT, 'audit log insert does not extend the chain'); END;
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
TRIGGERS = ("records_no_update", "records_no_delete", "records_chain")


def default_path():
    home = os.environ.get("RING_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share", "ringctl")
    return os.path.join(home, "audit.db")


def open_audit_log(path=None):
    """The audit log at `path` (default: $RING_HOME's); UserError when it cannot be opened."""
    p = path or default_path()
    os.makedirs(os.path.dirname(os.path.abspath(p)), exist_ok=True)
    try:
        return AuditLog(str(p))
    except Exception as exc:     # sqlite3 errors, permissions: say so, never half-record
        raise UserError(f"cannot open the audit log {p} ({exc}); check RING_HOME's disk and "
                        "permissions (`ring doctor` reports both)", code=1) from None


def canonical(data):
    """The one JSON text that is stored and hashed (sorted keys, no spaces, UTF-8)."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def record_hash(prev, kind, ts, data_text, blob_sha):
    h = hashlib.sha256()
    for part in (prev, kind, repr(float(ts)), data_text, blob_sha or ""):
        b = part.encode()
        h.update(len(b).to_bytes(4, "big"))  # length-prefixed: fields cannot bleed into each other
        h.update(b)
    return h.hexdigest()


class AuditLog:
    """One audit database. Safe for several processes appending at once (IMMEDIATE txns)."""

    def __init__(self, path, create=True):
        self.path = str(path)
        if not create and not os.path.exists(self.path):
            raise FileNotFoundError(self.path)
        d = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(d, exist_ok=True)
        # check_same_thread off: RingHost opens the log on one thread and writes it from its
        # loop's; it is still one writer at a time (the host serialises every append).
        self.db = sqlite3.connect(self.path, isolation_level=None, timeout=30,
                                  check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")  # durable on commit, also across power loss
        fresh = self.db.execute("SELECT 1 FROM sqlite_master WHERE name='records'").fetchone() is None
        if create and fresh:
            # Only a new log gets the schema: re-creating guards on an existing file would
            # hide that someone dropped them (verify reports "triggers-missing" instead).
            self.db.executescript(_SCHEMA)
            self.db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))

    def close(self):
        self.db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- writing ------------------------------------------------------------------------
    def append(self, kind, data, blob=None, event=None, ts=None):
        """Append one record; durable when this returns. -> seq.

        `event=(boot_id, event_id)` marks a device event: appending one that is already
        recorded returns the existing seq and writes nothing (a resend after reconnect)."""
        seq, _ = self.append_once(kind, data, blob, event, ts)
        return seq

    def append_once(self, kind, data, blob=None, event=None, ts=None):
        """Like append, -> (seq, written) where written is False for a duplicate event."""
        if not isinstance(kind, str) or not kind:
            raise ValueError("record kind must be a non-empty string")
        text = canonical(data)
        blob = bytes(blob) if blob is not None else None
        blob_sha = hashlib.sha256(blob).hexdigest() if blob is not None else None
        boot_id, event_id = event if event is not None else (None, None)
        ts = time.time() if ts is None else float(ts)
        cur = self.db.cursor()
        cur.execute("BEGIN IMMEDIATE")
        try:
            if event is not None:
                row = cur.execute("SELECT seq FROM records WHERE boot_id=? AND event_id=?",
                                  (boot_id, event_id)).fetchone()
                if row:
                    cur.execute("COMMIT")
                    return row[0], False
            row = cur.execute("SELECT seq, hash FROM records ORDER BY seq DESC LIMIT 1").fetchone()
            seq, prev = (row[0] + 1, row[1]) if row else (1, GENESIS)
            h = record_hash(prev, kind, ts, text, blob_sha)
            cur.execute("INSERT INTO records VALUES (?,?,?,?,?,?,?,?,?,?)",
                        (seq, ts, kind, text, blob, blob_sha, prev, h, boot_id, event_id))
            cur.execute("COMMIT")
        except BaseException:
            cur.execute("ROLLBACK")
            raise
        return seq, True

    # ---- reading ------------------------------------------------------------------------
    def has_event(self, boot_id, event_id):
        """True when the device event (boot_id, event_id) is recorded (safe to acknowledge)."""
        return self.db.execute("SELECT 1 FROM records WHERE boot_id=? AND event_id=?",
                               (boot_id, event_id)).fetchone() is not None

    def records(self, kind=None, since=0, with_blobs=True):
        """Records in chain order (seq ascending), optionally of one kind and after `since`."""
        cols = "seq, ts, kind, data, %s, prev, hash, boot_id, event_id" % ("blob" if with_blobs else "NULL")
        sql = "SELECT %s FROM records WHERE seq > ?" % cols
        args = [since]
        if kind is not None:
            sql += " AND kind = ?"
            args.append(kind)
        for row in self.db.execute(sql + " ORDER BY seq", args):
            yield Record(row[0], row[1], row[2], json.loads(row[3]), row[4], row[5], row[6], row[7], row[8])

    def head(self):
        """(seq, hash) of the last record, (0, GENESIS) when empty: keep it elsewhere as an
        anchor, since a chain alone cannot reveal that its newest records were cut off."""
        row = self.db.execute("SELECT seq, hash FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        return (row[0], row[1]) if row else (0, GENESIS)

    def count(self):
        return self.db.execute("SELECT COUNT(*) FROM records").fetchone()[0]

    # ---- checking -----------------------------------------------------------------------
    def verify(self, expect_head=None):
        """Walk the chain. -> report dict: ok, records, head, problems [{seq, problem, detail}]."""
        from .verify import verify_rows
        rows = self.db.execute("SELECT seq, ts, kind, data, blob, blob_sha, prev, hash FROM records "
                               "ORDER BY seq").fetchall()
        present = {r[0] for r in self.db.execute(
            "SELECT name, 1 FROM sqlite_master WHERE type='trigger'")}
        report = verify_rows(rows)
        missing = [t for t in TRIGGERS if t not in present]
        if missing:
            report["problems"].append({"seq": None, "problem": "triggers-missing",
                                       "detail": "append-only triggers removed: %s" % ", ".join(missing)})
        if expect_head is not None and report["head"]["hash"] != expect_head:
            report["problems"].append({"seq": report["head"]["seq"], "problem": "head-mismatch",
                                       "detail": "last record's hash differs from the anchor "
                                                 "(records cut off or the chain rewritten)"})
        report["ok"] = not report["problems"]
        return report
