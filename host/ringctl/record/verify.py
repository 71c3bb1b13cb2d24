"""Verify an audit log at any size: stream it (memory flat), name every bad record and keep
going, run SQLite's integrity check, compare the guards' text, check the board's witness.

Diagnoses, each naming a seq:
  edited        a record's content no longer matches its own hash (or its frame its sha256);
  deleted       a seq is missing;
  chain-broken  a record's predecessor hash is nowhere in the log (deleted, or edited with
                its hash rewritten);
  inserted      two records claim the same predecessor and nothing links to this one;
  reordered     a record links to an existing record that is not the one stored before it;
  unreadable    the row cannot be read at all (damaged file): verify skips it and goes on;
and for the whole log: damaged (PRAGMA integrity_check), triggers-missing / triggers-changed,
schema; with a witness: witness-* problems (witness.py).

Linear: one pass in seq order; hash lookups for diagnosis go to a temporary indexed table
(on disk, built only when the chain breaks), never to a dict of the whole log.
"""
import hashlib
import sqlite3

from . import canonical
from .log import GENESIS, SCHEMA_VERSION, TRIGGERS

INTEGRITY_LINES = 50         # integrity_check messages kept (the file is damaged either way)
MAX_SKIP = 1 << 40


class Problems(list):
    def add(self, seq, problem, detail):
        self.append({"seq": seq, "problem": problem, "detail": detail})


def verify_log(log, expect_head=None, witness=None):
    db = log.db
    problems = Problems()
    db.execute("PRAGMA temp_store=FILE")      # the diagnosis table goes to disk, not RAM
    db.execute("PRAGMA cache_size=-16384")    # 16 MB page cache whatever the log's size
    _check_file(db, problems)
    _check_schema(log, problems)
    if log.schema_version() != SCHEMA_VERSION:    # another encoding: walking it means nothing
        problems.sort(key=lambda p: (p["seq"] is None, p["seq"] or 0))
        return {"records": 0, "head": {"seq": 0, "hash": GENESIS}, "problems": problems,
                "ok": False}
    if witness is not None:
        witness.start(log, problems)
    walk = _Walk(db, problems, witness)
    try:
        walk.run()
    finally:
        walk.drop()
    head = {"seq": walk.last_seq, "hash": walk.last_hash}
    if expect_head is not None and walk.last_hash != expect_head:
        problems.add(walk.last_seq, "head-mismatch",
                     "last record's hash differs from the anchor (records cut off or the chain "
                     "rewritten)")
    report = {"records": walk.count, "head": head}
    if witness is not None:
        report["witness"] = witness.check(log, walk, problems)
    problems.sort(key=lambda p: (p["seq"] is None, p["seq"] or 0))
    report["problems"] = problems
    report["ok"] = not problems
    return report


def _check_file(db, problems):
    try:
        rows = db.execute("PRAGMA integrity_check(%d)" % INTEGRITY_LINES).fetchall()
    except sqlite3.DatabaseError as exc:
        problems.add(None, "damaged", "integrity check could not run: %s" % exc)
        return
    msgs = [r[0] for r in rows if r[0] != "ok"]
    for m in msgs:
        problems.add(None, "damaged", "sqlite integrity_check: %s" % m)


def _check_schema(log, problems):
    try:
        version = log.schema_version()
        stored = dict(log.db.execute("SELECT name, sql FROM sqlite_master WHERE type='trigger'"))
    except sqlite3.DatabaseError as exc:
        problems.add(None, "damaged", "schema unreadable: %s" % exc)
        return
    if version != SCHEMA_VERSION:
        problems.add(None, "schema", "log schema version %s, this verifier reads %d"
                     % (version, SCHEMA_VERSION))
    missing = [t for t in TRIGGERS if t not in stored]
    if missing:
        problems.add(None, "triggers-missing", "append-only triggers removed: %s" % ", ".join(missing))
    changed = [t for t in TRIGGERS if t in stored and " ".join(stored[t].split()) != " ".join(TRIGGERS[t].split())]
    if changed:
        problems.add(None, "triggers-changed", "append-only triggers rewritten (would let records "
                     "change): %s" % ", ".join(changed))


def scan(db, sql, on_error=None):
    """Rows of `sql` (which selects seq first and takes `seq > ?`), stepping over damaged
    pages: on an error, skip ahead (1, 2, 4, ... seqs) until rows come again."""
    after, skip = 0, 1
    while True:
        try:
            for row in db.execute(sql, (after,)):
                yield row
                after, skip = row[0], 1
            return
        except sqlite3.DatabaseError as exc:
            if skip > MAX_SKIP:
                return
            if on_error is not None:
                on_error(after, after + skip, exc)
            after += skip
            skip *= 2


class _Walk:
    """One pass over the records in seq order."""

    SQL = ("SELECT seq, ts_us, kind, CAST(data AS BLOB), blob, blob_sha, boot_id, event_id, "
           "prev, hash FROM records WHERE seq > ? ORDER BY seq")

    def __init__(self, db, problems, witness):
        self.db = db
        self.problems = problems
        self.witness = witness
        self.count = 0
        self.last_seq = 0
        self.last_hash = GENESIS
        self.links = False
        self.inserted = set()
        self.resumed = False

    def run(self):
        for row in scan(self.db, self.SQL, self.unreadable):
            self.row(row)

    def unreadable(self, after, upto, exc):
        self.problems.add(after + 1, "unreadable", "records %d..%d cannot be read (%s): skipped"
                          % (after + 1, upto, exc))
        self.last_seq = upto          # what follows is judged on its own, not as a deletion
        self.resumed = True

    def row(self, row):
        seq, ts_us, kind, data, blob, blob_sha, boot_id, event_id, prev, stored = row
        add = self.problems.add
        self.count += 1
        expected = self.last_seq + 1
        gap = seq != expected
        if gap:
            missing = str(expected) if seq == expected + 1 else "%d..%d" % (expected, seq - 1)
            add(seq, "deleted", "seq %s missing before seq %d" % (missing, seq))
        ok_hash = False
        if None in (ts_us, kind, data, prev, stored):
            # the schema forbids NULL there: a damaged page (or a file edited below SQLite) reads so
            add(seq, "damaged", "record fields are missing (NULL where the schema forbids it): damaged or edited")
            if not gap:   # a seq read from damage may be anything: only the expected one moves on
                self.last_seq = seq
            self.resumed = True   # the next record's link is judged on its own
            return
        try:
            text = bytes(data).decode("utf-8")
        except UnicodeDecodeError as exc:
            add(seq, "edited", "data is not UTF-8 text (damaged or edited at byte %d)" % exc.start)
        else:
            actual_blob = hashlib.sha256(blob).hexdigest() if blob is not None else None
            if actual_blob != blob_sha:
                add(seq, "edited", "attached blob (frame) does not match its recorded sha256")
            else:
                try:
                    digest = canonical.body_digest(kind, ts_us, text, blob_sha, boot_id, event_id)
                    ok_hash = canonical.chain(prev, digest) == stored
                except (ValueError, TypeError) as exc:
                    add(seq, "edited", "record fields are malformed: %s" % exc)
                    digest = None
                if digest is not None and not ok_hash:
                    add(seq, "edited", "record content does not match its hash")
        if prev != self.last_hash and not self.resumed:
            self.explain(seq, prev, gap)
        self.resumed = False
        if self.witness is not None:
            self.witness.saw(seq, kind, text if ok_hash else None, stored if ok_hash else None)
        self.last_seq, self.last_hash = seq, stored

    # ---- diagnosis of a broken link (lookups in a temporary indexed copy of the links) ----
    def _links(self):
        if not self.links:
            self.db.execute("CREATE TEMP TABLE verify_links (seq INTEGER PRIMARY KEY, prev, hash)")
            self.db.executemany("INSERT INTO temp.verify_links VALUES (?,?,?)", scan(
                self.db, "SELECT seq, prev, hash FROM main.records WHERE seq > ? ORDER BY seq"))
            self.db.execute("CREATE INDEX temp.verify_links_hash ON verify_links(hash)")
            self.db.execute("CREATE INDEX temp.verify_links_prev ON verify_links(prev)")
            self.links = True

    def drop(self):
        if self.links:
            self.db.execute("DROP TABLE temp.verify_links")
            self.links = False

    def explain(self, seq, prev, gap):
        self._links()
        q = self.db.execute
        add = self.problems.add
        rivals = [r[0] for r in q("SELECT seq FROM verify_links WHERE prev=? AND seq<>?", (prev, seq))]
        if rivals:
            # Two records claim the same predecessor: the one nobody links to is the intruder.
            for s in rivals + [seq]:
                row = q("SELECT hash FROM verify_links WHERE seq=?", (s,)).fetchone()
                linked = q("SELECT 1 FROM verify_links WHERE prev=? LIMIT 1", (row[0],)).fetchone()
                last = q("SELECT MAX(seq) FROM verify_links").fetchone()[0]
                if not linked and s != last and s not in self.inserted:
                    self.inserted.add(s)
                    add(s, "inserted", "claims the same predecessor as another record and no "
                                       "record links to it")
            return
        if prev == GENESIS:
            add(seq, "reordered", "this is the chain's first record, stored at seq %d" % seq)
            return
        where = q("SELECT seq FROM verify_links WHERE hash=? LIMIT 1", (prev,)).fetchone()
        if where:
            add(seq, "reordered", "chains after seq %d but is stored after seq %d" % (where[0], seq - 1))
        elif not gap:
            add(seq, "chain-broken", "its predecessor's hash is not in the log: the record "
                                     "before it was deleted, or edited with its hash rewritten")
