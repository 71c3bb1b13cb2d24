"""Hash-chain verification: says which record was edited, deleted, inserted or reordered."""
import hashlib
from collections import defaultdict

from .log import GENESIS, record_hash


def verify_rows(rows):
    """rows: (seq, ts, kind, data, blob, blob_sha, prev, hash) ordered by seq.
    -> {"ok", "records", "head": {seq, hash}, "problems": [{seq, problem, detail}]}

    edited:      a record's content no longer matches its own hash;
    deleted:     a seq is missing, or a record's predecessor hash is nowhere in the log
                 ("chain-broken": deleted, or edited with its hash rewritten);
    inserted:    a record sits where another record's link says something else belongs
                 (two records claim the same predecessor and nothing links to this one);
    reordered:   a record links to an existing record that is not the one stored before it.
    """
    problems = []
    where = {r[7]: r[0] for r in rows}          # stored hash -> seq holding it
    linked = {r[6] for r in rows}               # hashes some record names as its predecessor
    claims = defaultdict(list)                  # prev hash -> seqs claiming it
    for r in rows:
        claims[r[6]].append(r[0])
    last_seq = rows[-1][0] if rows else 0
    inserted = set()

    def add(seq, problem, detail):
        problems.append({"seq": seq, "problem": problem, "detail": detail})

    last_hash, expected_seq = GENESIS, 1
    for seq, ts, kind, data, blob, blob_sha, prev, stored in rows:
        gap = seq != expected_seq
        if gap:
            missing = str(expected_seq) if seq == expected_seq + 1 else "%d..%d" % (expected_seq, seq - 1)
            add(seq, "deleted", "seq %s missing before seq %d" % (missing, seq))
        actual_blob_sha = hashlib.sha256(blob).hexdigest() if blob is not None else None
        if actual_blob_sha != blob_sha:
            add(seq, "edited", "attached blob (frame) does not match its recorded sha256")
        elif record_hash(prev, kind, ts, data, blob_sha) != stored:
            add(seq, "edited", "record content does not match its hash")
        if prev != last_hash:
            rivals = [s for s in claims[prev] if s != seq]
            if rivals:
                # Two records claim the same predecessor: the one nobody links to is the intruder.
                for s in rivals + [seq]:
                    h = next(r[7] for r in rows if r[0] == s)
                    if h not in linked and s != last_seq and s not in inserted:
                        inserted.add(s)
                        add(s, "inserted", "claims the same predecessor as another record and no "
                                           "record links to it")
            elif prev == GENESIS:
                add(seq, "reordered", "this is the chain's first record, stored at seq %d" % seq)
            elif prev in where:
                add(seq, "reordered", "chains after seq %d but is stored after seq %d"
                    % (where[prev], seq - 1))
            elif not gap:
                add(seq, "chain-broken", "its predecessor's hash is not in the log: the record "
                                         "before it was deleted, or edited with its hash rewritten")
        last_hash, expected_seq = stored, seq + 1
    problems.sort(key=lambda p: (p["seq"] is None, p["seq"] or 0))
    head = {"seq": rows[-1][0], "hash": rows[-1][7]} if rows else {"seq": 0, "hash": GENESIS}
    return {"ok": not problems, "records": len(rows), "head": head, "problems": problems}
