"""Hash-chain verification: says which record was edited, deleted, inserted or reordered."""
import hashlib

from .log import GENESIS, record_hash


def verify_rows(rows):
    """rows: (seq, ts, kind, data, blob, blob_sha, prev, hash) ordered by seq.
    -> {"ok", "records", "head": {seq, hash}, "problems": [{seq, problem, detail}]}"""
    problems = []
    where = {r[7]: r[0] for r in rows}   # stored hash -> seq holding it
    last_hash, expected_seq = GENESIS, 1
    for seq, ts, kind, data, blob, blob_sha, prev, stored in rows:
        if seq != expected_seq:
            problems.append({"seq": seq, "problem": "deleted",
                             "detail": "seq %s missing before seq %d" % (
                                 expected_seq if seq == expected_seq + 1 else
                                 "%d..%d" % (expected_seq, seq - 1), seq)})
        actual_blob_sha = hashlib.sha256(blob).hexdigest() if blob is not None else None
        if actual_blob_sha != blob_sha:
            problems.append({"seq": seq, "problem": "edited",
                             "detail": "attached blob (frame) does not match its recorded sha256"})
        elif record_hash(prev, kind, ts, data, blob_sha) != stored:
            problems.append({"seq": seq, "problem": "edited",
                             "detail": "record content does not match its hash"})
        if prev != last_hash:
            if prev == GENESIS:
                problems.append({"seq": seq, "problem": "reordered",
                                 "detail": "this is the chain's first record, stored at seq %d" % seq})
            elif prev in where:
                p = where[prev]
                if p < seq - 1 and seq == expected_seq:
                    what = ("inserted", "seq %d..%d do not belong between seq %d and seq %d"
                            % (p + 1, seq - 1, p, seq))
                else:
                    what = ("reordered", "chains after seq %d but is stored after seq %d" % (p, seq - 1))
                problems.append({"seq": seq, "problem": what[0], "detail": what[1]})
            elif seq == expected_seq:
                problems.append({"seq": seq, "problem": "chain-broken",
                                 "detail": "its predecessor's hash is not in the log: the record "
                                           "before it was deleted or edited with a rewritten hash"})
        last_hash, expected_seq = stored, seq + 1
    head = {"seq": rows[-1][0], "hash": rows[-1][7]} if rows else {"seq": 0, "hash": GENESIS}
    return {"ok": not problems, "records": len(rows), "head": head, "problems": problems}
