"""Export the audit log as CSV or JSON (blobs as sha256 + size, or base64 on request)."""
import base64
import csv
import json

COLUMNS = ("seq", "ts", "kind", "boot_id", "event_id", "data", "blob_sha256", "blob_bytes", "prev", "hash")


def _row(r, with_blobs=False):
    row = {"seq": r.seq, "ts": r.ts, "kind": r.kind, "boot_id": r.boot_id, "event_id": r.event_id,
           "data": r.data, "blob_sha256": None, "blob_bytes": 0, "prev": r.prev, "hash": r.hash}
    if r.blob is not None:
        import hashlib
        row["blob_sha256"] = hashlib.sha256(r.blob).hexdigest()
        row["blob_bytes"] = len(r.blob)
        if with_blobs:
            row["blob_base64"] = base64.b64encode(r.blob).decode()
    return row


def export_json(log, out, with_blobs=False):
    n = 0
    out.write("[")
    for r in log.records():
        out.write((",\n" if n else "\n") + json.dumps(_row(r, with_blobs), sort_keys=True))
        n += 1
    out.write("\n]\n")
    return n


def export_csv(log, out):
    w = csv.writer(out)
    w.writerow(COLUMNS)
    n = 0
    for r in log.records():
        row = _row(r)
        row["data"] = json.dumps(r.data, sort_keys=True, separators=(",", ":"))
        w.writerow(["" if row[c] is None else row[c] for c in COLUMNS])
        n += 1
    return n
