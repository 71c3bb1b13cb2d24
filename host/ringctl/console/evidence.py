"""A spin's evidence pack: its chain segment as JSON, the still frames, and a stand-alone
verifier (Python standard library only: hashlib, json) that re-checks the segment offline.

The verifier's hash function is the record module's own source, copied in when the pack is
made, so the pack can never disagree with the log it came from.
"""
import inspect
import io
import json
import types
import zipfile

from ..record import log as record_log
from .camera import annotate, jpeg

VERIFY_MAIN = '''

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
        if record_hash(r["prev"], r["kind"], r["ts"], r["data"], r["blob_sha"]) != r["hash"]:
            problems.append("seq %d: record content does not match its hash" % r["seq"])
        last = r["hash"]
    if last != pack["head"]:
        problems.append("the segment does not end at the head hash %s" % pack["head"])
    for p in problems:
        print("FAIL " + p)
    if problems:
        return 1
    print("OK spin %s: %d records, seq %d..%d, chained from %s to head %s"
          % (pack["spin"], len(recs), recs[0]["seq"], recs[-1]["seq"], pack["anchor"], pack["head"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
'''


def verifier_source():
    """The verify.py text: the record module's hash function (and the module-level helpers it
    calls) plus a small main."""
    parts, seen = [], set()

    def add(fn):
        if fn.__name__ in seen:
            return
        seen.add(fn.__name__)
        for name in fn.__code__.co_names:
            dep = getattr(record_log, name, None)
            if isinstance(dep, types.FunctionType):
                add(dep)
            elif isinstance(dep, str) and name.isupper():
                parts.append("%s = %r\n" % (name, dep))
        parts.append(inspect.getsource(fn))

    add(record_log.record_hash)
    head = ('"""Re-verify this spin\'s audit-chain segment offline: python3 verify.py\n\n'
            'Standard library only. Exit 0 and "OK" when every record matches its hash and\n'
            'chains to the one before; otherwise one FAIL line per problem and exit 1."""\n'
            'import hashlib\nimport json\nimport os\nimport sys\n\n\n')
    return head + "\n\n".join(parts) + VERIFY_MAIN


def build_pack(index, n, ring=None):
    """-> zip bytes for spin n (None when there is no such spin)."""
    detail = index.detail(n)
    if detail is None:
        return None
    seg = detail["segment"]
    rows = index.rows(seg["first"], seg["last"])
    buf = io.BytesIO()
    records = []
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for seq, ts, kind, data, blob, blob_sha, prev, h in rows:
            rec = {"seq": seq, "ts": ts, "kind": kind, "data": data, "blob_sha": blob_sha,
                   "prev": prev, "hash": h}
            if blob is not None:
                rec["blob_file"] = "frames/seq-%d.jpg" % seq
                z.writestr(rec["blob_file"], bytes(blob))
                meta = (json.loads(data).get("meta") or {}) if kind == "frame" else {}
                img = decode_jpeg(blob)
                if img is not None:
                    z.writestr("annotated/seq-%d.jpg" % seq, jpeg(annotate(
                        img, meta.get("coins"), ring, caption="spin %d seq %d: %s" % (
                            n, seq, str(meta.get("result", "")).upper())), 90))
            records.append(rec)
        pack = {"spin": n, "anchor": seg["anchor"], "head": seg["head"], "records": records}
        z.writestr("records.json", json.dumps(pack, indent=1))
        z.writestr("spin.json", json.dumps({k: detail[k] for k in (
            "spin", "outcome", "verdicts", "events", "human", "settlements", "segment")}, indent=1,
            default=str))
        z.writestr("verify.py", verifier_source())
        z.writestr("README.txt", (
            "Evidence for spin %d: audit records seq %d..%d.\n"
            "records.json  the records exactly as stored and hashed (data is the hashed text)\n"
            "frames/       the still frames as recorded (their sha256 is in the chain)\n"
            "annotated/    the same frames with the camera's reading drawn on them\n"
            "spin.json     the outcome, the board's events, who called what, the settlements\n"
            "verify.py     python3 verify.py  -> OK when the segment is intact\n"
            "The segment chains from %s (the record before it) to %s; compare the head with\n"
            "'ring log verify' on the casino's log.\n") % (n, seg["first"], seg["last"],
                                                           seg["anchor"], seg["head"]))
    return buf.getvalue()


def decode_jpeg(blob):
    import cv2
    import numpy as np
    return cv2.imdecode(np.frombuffer(bytes(blob), np.uint8), cv2.IMREAD_COLOR)
