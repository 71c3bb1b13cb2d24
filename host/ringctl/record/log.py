"""The audit log store: append-only SQLite (WAL, synchronous=FULL) with a SHA-256 hash chain.

Each record's hash covers its kind, time, data, frame, and the device event it came from,
encoded canonically (canonical.py: RFC 8785 JSON, stated in every export), chained to the
record before it. Verification (verify.py) streams the log read-only and names every bad
record; the ring board witnesses the chain (witness.py here, firmware/lib/witness.py there).

Durability: each append is one IMMEDIATE transaction committed with synchronous=FULL in WAL
mode, so when `append()` returns the record survives kill -9 and power loss; only then may
the host acknowledge the device event it records or announce what the record justifies.
`with log.batch():` makes the appends inside one transaction (one WAL sync, not one each):
all of them are durable when the block ends, or none (a spin's frames and its spin record).
When the disk is full (or the log otherwise cannot be written) append raises LogWriteError
with one line saying so and what to do; nothing is half-written.
"""
import contextlib
import os
import sqlite3
import time
from collections import namedtuple

from ..errors import UserError
from . import canonical

GENESIS = "0" * 64
SCHEMA_VERSION = 2

Record = namedtuple("Record", "seq ts kind data blob prev hash boot_id event_id ts_us")

# One statement per entry: created in one transaction (a kill during the first open leaves
# either no log or a whole one), and verify compares the triggers' stored text with these.
SCHEMA = (
    """CREATE TABLE records (
    seq      INTEGER PRIMARY KEY,
    ts_us    INTEGER NOT NULL,
    kind     TEXT NOT NULL,
    data     TEXT NOT NULL,
    blob     BLOB,
    blob_sha TEXT,
    boot_id  INTEGER,
    event_id INTEGER,
    prev     TEXT NOT NULL,
    hash     TEXT NOT NULL
)""",
    """CREATE UNIQUE INDEX records_event ON records(boot_id, event_id)
    WHERE boot_id IS NOT NULL""",
    """CREATE INDEX records_kind ON records(kind, seq)""",
    """CREATE TRIGGER records_no_update BEFORE UPDATE ON records
    BEGIN SELECT RAISE(ABORT, 'audit log is append-only: records cannot be changed'); END""",
    """CREATE TRIGGER records_no_delete BEFORE DELETE ON records
    BEGIN SELECT RAISE(ABORT, 'audit log is append-only: records cannot be deleted'); END""",
    """CREATE TRIGGER records_chain BEFORE INSERT ON records
    WHEN NEW.seq IS NOT (SELECT COALESCE(MAX(seq), 0) + 1 FROM records)
      OR NEW.prev IS NOT COALESCE((SELECT hash FROM records ORDER BY seq DESC LIMIT 1),
                                  '""" + GENESIS + """')
    BEGIN SELECT RAISE(ABORT, 'audit log insert does not extend the chain'); END""",
    """CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)""",
)
TRIGGERS = {s.split()[2]: s for s in SCHEMA if s.startswith("CREATE TRIGGER")}

LOCK_RETRY_S = 30.0


class OldLogError(ValueError):
    """An existing log in another schema: never appended to (its chain would mix encodings)."""


class LogWriteError(Exception):
    """The record could not be made durable. str() is the one line for the boxer."""

    def __init__(self, path, exc):
        self.path = path
        self.cause = exc
        code = getattr(exc, "sqlite_errorcode", None)
        self.disk_full = code == sqlite3.SQLITE_FULL or "full" in str(exc)
        if self.disk_full:
            why = ("disk full: free space on the disk holding %s (or move RING_HOME to a larger "
                   "disk), then restart the host; play is stopped until the log can be written"
                   % path)
        elif code == sqlite3.SQLITE_READONLY or "readonly" in str(exc):
            why = ("audit log %s is read-only: make its disk writable, then restart the host; "
                   "play is stopped until the log can be written" % path)
        else:
            why = ("cannot write the audit log %s (%s): check its disk, then restart the host; "
                   "play is stopped until the log can be written" % (path, exc))
        super().__init__(why)


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


def _retry_locked(fn, deadline):
    """Run fn(), retrying while another process holds the database (journal-mode switches and
    schema creation do not always wait on the busy handler)."""
    delay = 0.005
    while True:
        try:
            return fn()
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.2)


class AuditLog:
    """One audit database. Safe for several processes appending at once (IMMEDIATE txns).

    readonly=True opens an evidence copy without writing anything (mode=ro, or immutable
    when not even the -shm file can be made, e.g. on read-only media)."""

    def __init__(self, path, create=True, readonly=False):
        self.path = str(path)
        self.readonly = readonly
        if (readonly or not create) and not os.path.exists(self.path):
            raise FileNotFoundError(self.path)
        self._batch = False
        if readonly:
            self.db = self._open_readonly()
            return
        os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
        # check_same_thread off: RingHost opens the log on one thread and writes it from its
        # loop's; it is still one writer at a time (the host serialises every append).
        self.db = sqlite3.connect(self.path, isolation_level=None, timeout=LOCK_RETRY_S,
                                  check_same_thread=False)
        deadline = time.monotonic() + LOCK_RETRY_S
        _retry_locked(lambda: self.db.execute("PRAGMA journal_mode=WAL").fetchone(), deadline)
        self.db.execute("PRAGMA synchronous=FULL")  # durable on commit, also across power loss
        if create:
            _retry_locked(self._create_schema, deadline)
        version = self.schema_version()
        if version != SCHEMA_VERSION:
            self.db.close()
            raise OldLogError("audit log %s has schema %s, this host writes schema %d: move it "
                              "aside (keep it: it is evidence) and start a new log"
                              % (self.path, version, SCHEMA_VERSION))

    def _open_readonly(self):
        uri = "file:%s?mode=ro" % _uri_path(self.path)
        try:
            db = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=LOCK_RETRY_S)
            db.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
            return db
        except sqlite3.OperationalError:
            # no -shm can be created beside a read-only copy: read the file as it is
            db = sqlite3.connect("file:%s?immutable=1" % _uri_path(self.path), uri=True,
                                 isolation_level=None)
            return db

    def _create_schema(self):
        """Only a new log gets the schema, all of it in one transaction: re-creating guards on
        an existing file would hide that someone dropped them (verify reports it instead)."""
        cur = self.db.cursor()
        cur.execute("BEGIN IMMEDIATE")
        try:
            if cur.execute("SELECT 1 FROM sqlite_master WHERE name='records'").fetchone() is None:
                for stmt in SCHEMA:
                    cur.execute(stmt)
                cur.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
                cur.execute("INSERT INTO meta VALUES ('format', ?)", (canonical.FORMAT,))
            cur.execute("COMMIT")
        except BaseException:
            if self.db.in_transaction:
                cur.execute("ROLLBACK")
            raise

    def close(self):
        self.db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def schema_version(self):
        try:
            row = self.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        except sqlite3.OperationalError:
            return None
        return int(row[0]) if row else None

    # ---- writing ------------------------------------------------------------------------
    def append(self, kind, data, blob=None, event=None, ts=None):
        """Append one record; durable when this returns. -> seq.

        `event=(boot_id, event_id)` marks a device event: appending one that is already
        recorded returns the existing seq and writes nothing (a resend after reconnect)."""
        seq, _ = self.append_once(kind, data, blob, event, ts)
        return seq

    @contextlib.contextmanager
    def batch(self):
        """The appends inside are one transaction: durable together when the block ends (one
        sync of the log), or none of them (LogWriteError, or any error inside). Nested: part of
        the outer batch."""
        if self._batch:
            yield
            return
        cur = self.db.cursor()
        try:
            cur.execute("BEGIN IMMEDIATE")
            self._batch = True
            yield
            cur.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            self._rollback()
            if "locked" in str(exc) or "busy" in str(exc):
                raise
            raise LogWriteError(self.path, exc) from exc
        except BaseException:
            self._rollback()
            raise
        finally:
            self._batch = False

    def append_once(self, kind, data, blob=None, event=None, ts=None):
        """Like append, -> (seq, written) where written is False for a duplicate event.
        Raises LogWriteError (disk full, read-only, I/O) with nothing written."""
        import hashlib
        if not isinstance(kind, str) or not kind:
            raise ValueError("record kind must be a non-empty string")
        text = canonical.jcs(data)
        blob = bytes(blob) if blob is not None else None
        blob_sha = hashlib.sha256(blob).hexdigest() if blob is not None else None
        boot_id, event_id = event if event is not None else (None, None)
        ts_us = int(round((time.time() if ts is None else float(ts)) * 1e6))
        digest = canonical.body_digest(kind, ts_us, text, blob_sha, boot_id, event_id)
        with self.batch():          # its own transaction, or a part of the caller's batch
            cur = self.db.cursor()
            if event is not None:
                row = cur.execute("SELECT seq FROM records WHERE boot_id=? AND event_id=?",
                                  (boot_id, event_id)).fetchone()
                if row:
                    return row[0], False
            row = cur.execute("SELECT seq, hash FROM records ORDER BY seq DESC LIMIT 1").fetchone()
            seq, prev = (row[0] + 1, row[1]) if row else (1, GENESIS)
            cur.execute("INSERT INTO records VALUES (?,?,?,?,?,?,?,?,?,?)",
                        (seq, ts_us, kind, text, blob, blob_sha, boot_id, event_id, prev,
                         canonical.chain(prev, digest)))
        return seq, True

    def _rollback(self):
        # SQLite has already rolled back after SQLITE_FULL/IOERR: a second ROLLBACK would
        # replace the real cause with "no transaction is active".
        if self.db.in_transaction:
            try:
                self.db.execute("ROLLBACK")
            except sqlite3.Error:
                pass

    # ---- reading ------------------------------------------------------------------------
    def has_event(self, boot_id, event_id):
        """True when the device event (boot_id, event_id) is recorded (safe to acknowledge)."""
        return self.db.execute("SELECT 1 FROM records WHERE boot_id=? AND event_id=?",
                               (boot_id, event_id)).fetchone() is not None

    _COLS = "seq, ts_us, kind, data, %s, prev, hash, boot_id, event_id"

    def records(self, kind=None, since=0, with_blobs=True, until=None):
        """Records in chain order (seq ascending), optionally of one kind, after `since` and up
        to `until`. Streams: one row in memory at a time."""
        sql = "SELECT %s FROM records WHERE seq > ?" % (self._COLS % ("blob" if with_blobs else "NULL"))
        args = [since]
        if until is not None:
            sql += " AND seq <= ?"
            args.append(until)
        if kind is not None:
            sql += " AND kind = ?"
            args.append(kind)
        for row in self.db.execute(sql + " ORDER BY seq", args):
            yield _record(row)

    def last(self, n, kind=None):
        """The last n records (of one kind), oldest first: an index walk from the end."""
        sql = "SELECT %s FROM records" % (self._COLS % "NULL")
        args = []
        if kind is not None:
            sql += " WHERE kind = ?"
            args.append(kind)
        rows = self.db.execute(sql + " ORDER BY seq DESC LIMIT ?", args + [n]).fetchall()
        return [_record(r) for r in reversed(rows)]

    def head(self):
        """(seq, hash) of the last record, (0, GENESIS) when empty."""
        row = self.db.execute("SELECT seq, hash FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        return (row[0], row[1]) if row else (0, GENESIS)

    def hash_at(self, seq):
        row = self.db.execute("SELECT hash FROM records WHERE seq=?", (seq,)).fetchone()
        return row[0] if row else None

    def digests(self, since, until):
        """(seq, body digest) of records since < seq <= until, streamed: what the witness chains."""
        for seq, ts_us, kind, data, blob_sha, boot_id, event_id in self.db.execute(
                "SELECT seq, ts_us, kind, data, blob_sha, boot_id, event_id FROM records "
                "WHERE seq > ? AND seq <= ? ORDER BY seq", (since, until)):
            yield seq, canonical.body_digest(kind, ts_us, data, blob_sha, boot_id, event_id)

    def count(self):
        return self.head()[0]

    # ---- checking -----------------------------------------------------------------------
    def verify(self, expect_head=None, witness=None):
        """Stream the chain. -> report dict: ok, records, head, problems [{seq, problem, detail}].
        `witness`: a record.witness.Evidence (board head + key) to check against."""
        from .verify import verify_log
        return verify_log(self, expect_head=expect_head, witness=witness)


def _record(row):
    ts_us = row[1]
    return Record(row[0], ts_us / 1e6, row[2], canonical.loads(row[3]), row[4], row[5], row[6],
                  row[7], row[8], ts_us)


def _uri_path(path):
    from urllib.parse import quote
    return quote(os.path.abspath(path))
