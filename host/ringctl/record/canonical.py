"""The audit log's record encoding: RFC 8785 (JCS) canonical JSON and the record hash.

Stdlib only and self-contained: every export ships this file's twin (verify_export.py) so a
stranger can check the hashes with nothing but Python. The encoding, stated once:

  body   = JCS({"v": 2, "kind": str, "ts_us": int, "data": any, "blob_sha256": hex | null,
                "boot_id": int | null, "event_id": int | null})       (UTF-8 bytes)
  digest = SHA-256(body)
  hash   = SHA-256(prev || digest)        prev = the previous record's hash (32 zero bytes first)

The record's position (seq) is not hashed: the chain fixes it, and leaving it out lets verify
tell a reordered record from an edited one. The ring board's witness computes the same `hash`
from the digests alone (firmware/lib/witness.py extend()).
"""
import hashlib
import json
import math

FORMAT = "ring-audit-v2"
VERSION = 2
ALGORITHM = "sha256(prev || sha256(JCS body)), RFC 8785 JSON canonicalization"
MAX_SAFE = 2 ** 53   # I-JSON: integers beyond this are not exact in every JSON reader


def _number(x):
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        if abs(x) > MAX_SAFE:
            raise ValueError("integer %d is outside +-2**53 (RFC 8785/I-JSON): store it as a string" % x)
        return str(x)
    x = float(x)        # a float subclass (numpy's float64) has its own repr: "np.float64(1.5)"
    if math.isnan(x) or math.isinf(x):
        raise ValueError("NaN and infinity have no JSON form")
    if x == 0:
        return "0"
    # ECMAScript Number.prototype.toString over the shortest round-trip digits (= repr's of a
    # plain float: a numpy float64 is a float whose repr is "np.float64(...)")
    r = repr(abs(float(x)))
    mant, _, exp = r.partition("e")
    ip, _, fp = mant.partition(".")
    digits = (ip + fp).lstrip("0")
    n = len(ip) + (int(exp) if exp else 0) - (len(ip + fp) - len((ip + fp).lstrip("0")))
    digits = digits.rstrip("0")
    k = len(digits)
    sign = "-" if x < 0 else ""
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    e = n - 1
    es = ("+" if e >= 0 else "-") + str(abs(e))
    return sign + (digits if k == 1 else digits[0] + "." + digits[1:]) + "e" + es


_ESC = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _string(s):
    out = ['"']
    for ch in s:
        if ch in _ESC:
            out.append(_ESC[ch])
        elif ch < " ":
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _utf16_key(s):
    return s.encode("utf-16-be")


def jcs(value):
    """-> the RFC 8785 canonical JSON text of `value` (str). ValueError for what has none."""
    if value is None:
        return "null"
    if isinstance(value, (bool, int, float)):
        return _number(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(jcs(v) for v in value) + "]"
    if isinstance(value, dict):
        for k in value:
            if not isinstance(k, str):
                raise ValueError("object keys must be strings, got %r" % (k,))
        return "{" + ",".join(_string(k) + ":" + jcs(value[k])
                              for k in sorted(value, key=_utf16_key)) + "}"
    raise ValueError("%s has no JSON form" % type(value).__name__)


def body_text(kind, ts_us, data_text, blob_sha, boot_id, event_id):
    """The canonical body, built around the stored canonical data text (no re-encoding):
    the same bytes as jcs() of the whole object, since JCS is compositional."""
    return ('{"blob_sha256":%s,"boot_id":%s,"data":%s,"event_id":%s,"kind":%s,"ts_us":%s,"v":%d}'
            % ("null" if blob_sha is None else _string(blob_sha),
               "null" if boot_id is None else _number(boot_id), data_text,
               "null" if event_id is None else _number(event_id), _string(kind),
               _number(ts_us), VERSION))


def body_digest(kind, ts_us, data_text, blob_sha, boot_id, event_id):
    return hashlib.sha256(body_text(kind, ts_us, data_text, blob_sha, boot_id,
                                    event_id).encode("utf-8")).digest()


def chain(prev_hex, digest):
    """hash = SHA-256(prev || digest), hex (witness.extend on the board)."""
    return hashlib.sha256(bytes.fromhex(prev_hex) + digest).hexdigest()


def _int(s):
    n = int(s)
    return n if abs(n) <= MAX_SAFE else float(s)   # an integral double printed without ".0"


def loads(text):
    """Parse stored canonical JSON so that jcs(loads(t)) == t."""
    return json.loads(text, parse_int=_int)


# ---- the export verifier: `python3 verify_audit_export.py EXPORT` (this file, shipped) ----
def _export_rows(f):
    import csv
    first = f.readline()
    if first.startswith("{"):
        head = json.loads(first).get("header", {})
        return head, (loads(line) for line in f if line.strip())
    head = {}
    line = first
    while line.startswith("# "):
        k, _, v = line[2:].rstrip("\n").partition(": ")
        try:
            head[k] = json.loads(v)
        except ValueError:
            head[k] = v
        line = f.readline()
    cols = next(csv.reader([line]))

    def rows():
        for cells in csv.reader(f):
            r = dict(zip(cols, cells))
            for k in ("seq", "ts_us", "boot_id", "event_id", "blob_bytes"):
                r[k] = int(r[k]) if r.get(k) not in (None, "") else None
            r["blob_sha256"] = r.get("blob_sha256") or None
            text = r["data"]
            r["data"] = loads(text)
            if jcs(r["data"]) != text:
                r["_noncanonical"] = True
            yield r
    return head, rows()


def verify_export(path):
    """-> (header, records checked, head {seq, hash}, [problem lines])."""
    import base64
    problems = []
    last_seq, last_hash, n = 0, "0" * 64, 0
    with open(path, encoding="utf-8", newline="") as f:
        head, rows = _export_rows(f)
        if head.get("format") != FORMAT:
            return head, 0, None, ["%s: format %r, this verifier reads %s"
                                   % (path, head.get("format"), FORMAT)]
        for r in rows:
            n += 1
            seq = r["seq"]
            if seq != last_seq + 1:
                problems.append("seq %d: records %d..%d missing" % (seq, last_seq + 1, seq - 1))
            if r.get("_noncanonical"):
                problems.append("seq %d: data is not in canonical form (edited)" % seq)
            if "blob_base64" in r and hashlib.sha256(base64.b64decode(r["blob_base64"])).hexdigest() != r["blob_sha256"]:
                problems.append("seq %d: frame does not match its sha256 (edited)" % seq)
            try:
                digest = body_digest(r["kind"], r["ts_us"], jcs(r["data"]), r["blob_sha256"],
                                     r["boot_id"], r["event_id"])
                if chain(r["prev"], digest) != r["hash"]:
                    problems.append("seq %d: content does not match its hash (edited)" % seq)
            except (ValueError, TypeError, KeyError) as exc:
                problems.append("seq %d: malformed record (%s)" % (seq, exc))
            if r["prev"] != last_hash:
                problems.append("seq %d: does not chain to the record before it (deleted, "
                                "inserted or reordered)" % seq)
            last_seq, last_hash = seq, r["hash"]
    want = head.get("head") or {}
    if want and (want.get("seq"), want.get("hash")) != (last_seq, last_hash):
        problems.append("the export ends at seq %d, its header says seq %s: records cut off or "
                        "added" % (last_seq, want.get("seq")))
    if head.get("verified") is False:
        problems.append("the log failed verification when it was exported (%s problem(s))"
                        % head.get("problems"))
    return head, n, {"seq": last_seq, "hash": last_hash}, problems


def main(argv=None):
    import sys
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or args[0].startswith("-"):
        print("usage: python3 verify_audit_export.py EXPORT.csv|EXPORT.jsonl\n"
              "Checks every record's hash and the chain of a Two-Up ring audit-log export "
              "(%s: %s). Needs only Python 3." % (FORMAT, ALGORITHM), file=sys.stderr)
        return 2
    try:
        head, n, last, problems = verify_export(args[0])
    except (OSError, ValueError) as exc:
        print("verify_audit_export: cannot read %s: %s" % (args[0], exc), file=sys.stderr)
        return 2
    for p in problems:
        print("FAIL " + p)
    if problems:
        print("%d record(s) read, %d problem(s)" % (n, len(problems)))
        return 1
    print("OK %d records, head seq %d hash %s" % (n, last["seq"], last["hash"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
