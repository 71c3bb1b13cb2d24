"""Export the audit log so a stranger can verify it: CSV or JSON Lines, a header stating the
encoding and algorithm, and a stdlib-only verifier script written beside every export.

JSON Lines: line 1 is {"header": {...}}, then one record per line. CSV: `#` lines carry the
header, then a row of column names, then one row per record (data = the canonical JSON text,
UTF-8, exactly the bytes that were hashed). Frames are exported as their sha256 and size
(the hash covers the sha256), or with --with-blobs (JSON only) as base64 too.
"""
import base64
import csv
import json
import shutil
import time
from pathlib import Path

from . import canonical

COLUMNS = ("seq", "ts_us", "kind", "boot_id", "event_id", "data", "blob_sha256", "blob_bytes",
           "prev", "hash")
VERIFIER = "verify_audit_export.py"


def header(log, report):
    return {"format": canonical.FORMAT, "version": canonical.VERSION,
            "algorithm": canonical.ALGORITHM,
            "encoding": "body = RFC 8785 JCS of {v, kind, ts_us, data, blob_sha256, boot_id, "
                        "event_id}; digest = sha256(body UTF-8); hash = sha256(prev bytes || "
                        "digest); the first prev is 32 zero bytes; seq is not hashed",
            "verifier": VERIFIER, "source": str(log.path),
            "exported_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "records": report["records"], "head": report["head"],
            "verified": report["ok"], "problems": len(report["problems"])}


def _row(r, with_blobs=False):
    row = {"seq": r.seq, "ts_us": r.ts_us, "kind": r.kind, "boot_id": r.boot_id,
           "event_id": r.event_id, "data": r.data, "blob_sha256": None, "blob_bytes": 0,
           "prev": r.prev, "hash": r.hash}
    if r.blob is not None:
        import hashlib
        row["blob_sha256"] = hashlib.sha256(r.blob).hexdigest()
        row["blob_bytes"] = len(r.blob)
        if with_blobs:
            row["blob_base64"] = base64.b64encode(r.blob).decode()
    return row


def export_json(log, out, report, with_blobs=False):
    """JSON Lines. -> records written."""
    out.write(canonical.jcs({"header": header(log, report)}) + "\n")
    n = 0
    # the blobs are read either way: each row's blob_sha256 is part of its record's hash (a row
    # without it fails the shipped verifier); only --with-blobs writes the bytes too
    for r in log.records(with_blobs=True):
        out.write(canonical.jcs(_row(r, with_blobs)) + "\n")
        n += 1
    return n


def export_csv(log, out, report):
    for k, v in header(log, report).items():
        out.write("# %s: %s\n" % (k, v if isinstance(v, str) else json.dumps(v)))
    w = csv.writer(out, lineterminator="\n")
    w.writerow(COLUMNS)
    n = 0
    for r in log.records(with_blobs=True):
        row = _row(r)
        row["data"] = canonical.jcs(r.data)      # raw UTF-8, never escaped: the hashed text
        w.writerow(["" if row[c] is None else row[c] for c in COLUMNS])
        n += 1
    return n


def ship_verifier(out_path):
    """Write the verifier (canonical.py itself: the same code that hashed the records) beside
    the export. -> its path."""
    dest = Path(out_path).resolve().parent / VERIFIER
    shutil.copyfile(Path(canonical.__file__), dest)
    return dest
