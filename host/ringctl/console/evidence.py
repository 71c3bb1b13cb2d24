"""A spin's evidence pack: its chain segment as JSON, the still frames, and a stand-alone
verifier (Python's standard library only: hashlib, json) that re-checks the segment offline.

The pack ships the record module's own encoding file (record/canonical.py, standard library
only), and verify.py hashes with its functions: the pack can never disagree with the log.
"""
import hashlib
import io
import json
import zipfile

from ..record import canonical
from .camera import annotate, jpeg

VERIFY = '''"""Re-verify this spin's audit-chain segment offline: python3 verify.py

Standard library only (hashlib, json), with canonical.py beside it: the audit log's own
record encoding. Exit 0 and "OK" when every record matches its hash and chains to the one
before, and every frame matches its recorded sha256; otherwise one FAIL line per problem."""
import hashlib
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import canonical  # noqa: E402  (the log's encoding, shipped beside this file)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "records.json")) as f:
        pack = json.load(f)
    recs = pack["records"]
    problems = []
    last = pack["anchor"]
    for r in recs:
        if r["prev"] != last:
            problems.append("seq %d does not chain to the record before it" % r["seq"])
        if r.get("blob_file"):
            with open(os.path.join(here, r["blob_file"]), "rb") as f:
                if hashlib.sha256(f.read()).hexdigest() != r["blob_sha"]:
                    problems.append("seq %d: %s is not the recorded frame" % (r["seq"], r["blob_file"]))
        digest = canonical.body_digest(r["kind"], r["ts_us"], r["data"], r["blob_sha"],
                                       r["boot_id"], r["event_id"])
        if canonical.chain(r["prev"], digest) != r["hash"]:
            problems.append("seq %d: record content does not match its hash" % r["seq"])
        last = r["hash"]
    if last != pack["head"]:
        problems.append("the segment does not end at the head hash %s" % pack["head"])
    v = pack.get("vision")      # the record naming the files that judged the spin, before the segment
    note = None
    if v:
        digest = canonical.body_digest(v["kind"], v["ts_us"], v["data"], v["blob_sha"], v["boot_id"],
                                       v["event_id"])
        if v["kind"] != "vision" or canonical.chain(v["prev"], digest) != v["hash"]:
            problems.append("vision record seq %d: content does not match its hash" % v["seq"])
        elif v["seq"] == recs[0]["seq"] - 1 and v["hash"] != pack["anchor"]:
            problems.append("vision record seq %d is not the record the segment chains from" % v["seq"])
        elif v["seq"] != recs[0]["seq"] - 1:
            note = ("vision record seq %d matches its hash; its place in the chain: compare its hash %s "
                    "with 'ring log verify' on the casino's log" % (v["seq"], v["hash"]))
    for p in problems:
        print("FAIL " + p)
    if problems:
        return 1
    print("OK spin %s: %d records, seq %d..%d, chained from %s to head %s"
          % (pack["spin"], len(recs), recs[0]["seq"], recs[-1]["seq"], pack["anchor"], pack["head"]))
    if note:
        print(note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
'''


def _packed(r):
    """A record as the pack holds it: as stored and hashed."""
    return {"seq": r.seq, "ts_us": r.ts_us, "kind": r.kind,
            "data": canonical.jcs(r.data),        # the stored, hashed text
            "blob_sha": hashlib.sha256(r.blob).hexdigest() if r.blob is not None else None,
            "boot_id": r.boot_id, "event_id": r.event_id, "prev": r.prev, "hash": r.hash}


def build_pack(index, n, ring=None):
    """-> zip bytes for spin n (None when there is no such spin)."""
    detail = index.detail(n)
    if detail is None:
        return None
    seg = detail["segment"]
    buf = io.BytesIO()
    records = []
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for r in index.log().records(since=seg["first"] - 1, until=seg["last"]):
            rec = _packed(r)
            if r.blob is not None:
                rec["blob_file"] = "frames/seq-%d.jpg" % r.seq
                z.writestr(rec["blob_file"], bytes(r.blob))
                meta = (r.data.get("meta") or {}) if r.kind == "frame" else {}
                img = decode_jpeg(r.blob)
                if img is not None:
                    z.writestr("annotated/seq-%d.jpg" % r.seq, jpeg(annotate(
                        img, meta.get("coins"), ring, caption="spin %d seq %d: %s" % (
                            n, r.seq, str(meta.get("result", "")).upper())), 90))
            records.append(rec)
        # the record naming the files that judged it, whole: verify.py checks its hash
        vision = index.record(detail["vision"]["seq"]) if detail["vision"] else None
        pack = {"spin": n, "anchor": seg["anchor"], "head": seg["head"], "records": records,
                "vision": _packed(vision) if vision is not None else None}
        z.writestr("records.json", json.dumps(pack, indent=1))
        z.writestr("spin.json", json.dumps({k: detail[k] for k in (
            "spin", "outcome", "verdicts", "events", "human", "settlements", "segment")}, indent=1,
            default=str))
        z.writestr("verify.py", VERIFY)
        with open(canonical.__file__, encoding="utf-8") as f:
            z.writestr("canonical.py", f.read())
        z.writestr("README.txt", (
            "Evidence for spin %d: audit records seq %d..%d.\n"
            "records.json  the records as stored and hashed (data is the stored canonical text);\n"
            "              \"vision\": the record before them naming the ring calibration or rig and\n"
            "              the face model that judged the spin (SHA-256 each), checked by verify.py\n"
            "frames/       the still frames as recorded (their sha256 is in the chain)\n"
            "annotated/    the same frames with the camera's reading drawn on them\n"
            "spin.json     the outcome, the board's events, who called what, the settlements\n"
            "verify.py     python3 verify.py  -> OK when the segment is intact\n"
            "canonical.py  the audit log's record encoding (standard library only)\n"
            "The segment chains from %s (the record before it) to %s; compare the head with\n"
            "'ring log verify' on the casino's log.\n") % (n, seg["first"], seg["last"],
                                                           seg["anchor"], seg["head"]))
    return buf.getvalue()


def decode_jpeg(blob):
    import cv2
    import numpy as np
    return cv2.imdecode(np.frombuffer(bytes(blob), np.uint8), cv2.IMREAD_COLOR)
