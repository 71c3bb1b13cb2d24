"""`ring log`: verify the audit log's hash chain, export it (CSV/JSON), show recent records."""
import json
import os
import sys

from ..cliutil import group_parser
from ..errors import UserError


def register(subparsers):
    _, sub = group_parser(subparsers, "log", "audit log: verify, export")
    p = sub.add_parser("verify", help="walk the hash chain; exit 1 and name the seq of any "
                                      "edited, deleted, inserted or reordered record")
    _db(p)
    p.add_argument("--expect-head", metavar="HASH",
                   help="the last record's hash kept elsewhere (detects records cut off the end)")
    p.set_defaults(func=_verify)
    p = sub.add_parser("export", help="write every record as CSV or JSON")
    _db(p)
    p.add_argument("--format", choices=("csv", "json"), required=True)
    p.add_argument("-o", "--output", required=True, metavar="OUT", help="output file ('-' for stdout)")
    p.add_argument("--with-blobs", action="store_true", help="JSON only: include frames as base64")
    p.set_defaults(func=_export)
    p = sub.add_parser("show", help="print records as JSON lines")
    _db(p)
    p.add_argument("--kind", help="only records of this kind (op, spin, frame, light, override, ...)")
    p.add_argument("--last", type=int, default=20, metavar="N", help="only the last N (default 20; 0 = all)")
    p.set_defaults(func=_show)


def _db(p):
    from .log import default_path
    p.add_argument("--db", default=None, metavar="PATH",
                   help="audit database (default $RING_HOME/audit.db: %s)" % default_path())


def _open(args):
    from .log import AuditLog, default_path
    path = args.db or default_path()
    if not os.path.exists(path):
        raise UserError("no audit log at %s; pass --db PATH (the host creates it on 'ring run')"
                        % path, code=1)
    try:
        return AuditLog(path, create=False)
    except Exception as exc:  # sqlite3.DatabaseError: not a database, locked, ...
        raise UserError("cannot open audit log %s: %s" % (path, exc), code=1)


def _verify(args):
    import sqlite3
    log = _open(args)
    try:
        report = log.verify(expect_head=args.expect_head)
    except sqlite3.DatabaseError as exc:
        raise UserError("audit log %s is unreadable as an audit log: %s" % (log.path, exc), code=1)
    print(json.dumps(report, indent=1))
    if not report["ok"]:
        for p in report["problems"]:
            where = "log" if p["seq"] is None else "seq %d" % p["seq"]
            print("ring log verify: %s %s: %s" % (where, p["problem"], p["detail"]), file=sys.stderr)
    return 0 if report["ok"] else 1


def _export(args):
    from .export import export_csv, export_json
    if args.with_blobs and args.format != "json":
        raise UserError("--with-blobs works with --format json only")
    log = _open(args)
    out = sys.stdout if args.output == "-" else None
    try:
        if out is None:
            out = open(args.output, "w", newline="", encoding="utf-8")
    except OSError as exc:
        raise UserError("cannot write %s: %s" % (args.output, exc.strerror or exc), code=1)
    try:
        n = export_json(log, out, args.with_blobs) if args.format == "json" else export_csv(log, out)
    finally:
        if out is not sys.stdout:
            out.close()
    if out is not sys.stdout:
        print("exported %d records to %s" % (n, args.output), file=sys.stderr)
    return 0


def _show(args):
    log = _open(args)
    recs = list(log.records(kind=args.kind, with_blobs=False))
    if args.last > 0:
        recs = recs[-args.last:]
    for r in recs:
        print(json.dumps({"seq": r.seq, "ts": r.ts, "kind": r.kind, "data": r.data,
                          "event": [r.boot_id, r.event_id] if r.boot_id is not None else None}))
    return 0
