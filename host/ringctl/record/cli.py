"""`ring log`: verify the audit log (against the board's witness), export it for a stranger, show records."""
import json
import os
import sys

from ..cliutil import group_parser
from ..errors import UserError


def register(subparsers):
    _, sub = group_parser(subparsers, "log", "audit log: verify, export, show")
    p = sub.add_parser("verify", help="check every record and the chain (read-only, any size); "
                                      "exit 1 and name the seq of every bad record")
    _db(p)
    p.add_argument("--witness", metavar="PORT|FLASH_DIR",
                   help="the ring board (its serial port) or a copy of its flash: catches records "
                        "cut off or rewritten up to what the board witnessed")
    p.add_argument("--witness-key", metavar="FILE",
                   help="the surveillance office's copy of the witness key (ring device provision "
                        "--witness-copy)")
    p.add_argument("--device-id", help="with --witness PORT: the board's id if the port has none")
    p.add_argument("--expect-head", metavar="HASH",
                   help="the last record's hash kept elsewhere (detects records cut off the end)")
    p.set_defaults(func=_verify)
    p = sub.add_parser("export", help="write every record as CSV or JSON Lines with a header and "
                                      "a stdlib-only verifier script beside it")
    _db(p)
    p.add_argument("--format", choices=("csv", "json"), required=True,
                   help="csv, or json (JSON Lines: header line, then one record per line)")
    p.add_argument("-o", "--output", required=True, metavar="OUT",
                   help="output file; verify_audit_export.py is written beside it")
    p.add_argument("--with-blobs", action="store_true", help="JSON only: include frames as base64")
    p.add_argument("--allow-failed", action="store_true",
                   help="export even if the log fails verification (the header says so)")
    p.set_defaults(func=_export)
    p = sub.add_parser("show", help="records one readable line each (local time and zone); "
                                    "--json for machines")
    _db(p)
    p.add_argument("--kind", help="only records of these kinds, comma-separated (event, spin, op, "
                                  "arm, call, override, lost-coin, refused, alarm, frame, ...)")
    p.add_argument("--spin", type=int, metavar="N", help="only spin N's records")
    p.add_argument("--since", metavar="TIME", help="from this local time ('2026-11-30 12:00', "
                                                   "'12:00' today, ISO with offset, epoch s)")
    p.add_argument("--until", metavar="TIME", help="before this time (same forms)")
    p.add_argument("--last", type=int, default=20, metavar="N",
                   help="only the last N (default 20; 0 = all; with --spin: all)")
    p.add_argument("--json", action="store_true", help="one JSON object per line (epoch ts)")
    p.set_defaults(func=_show)
    p = sub.add_parser("frames", help="write one spin's camera frames as JPEG files (annotated "
                                      "copies too) with the spin's records beside them")
    _db(p)
    p.add_argument("--spin", type=int, required=True, metavar="N", help="the spin number")
    p.add_argument("-o", "--output", required=True, metavar="DIR", help="a new (or empty) folder")
    p.set_defaults(func=_frames)


def _db(p):
    from .log import default_path
    p.add_argument("--db", default=None, metavar="PATH",
                   help="audit database (default $RING_HOME/audit.db: %s)" % default_path())


def _open(args):
    """Read-only: verify, export and show never write (they work on an evidence copy)."""
    import sqlite3
    from .log import AuditLog, default_path
    path = args.db or default_path()
    if not os.path.exists(path):
        raise UserError("no audit log at %s; pass --db PATH (the host creates it on 'ring run')"
                        % path, code=1)
    if os.path.isdir(path):
        raise UserError("--db %s is a folder; give the audit log file (e.g. %s)"
                        % (path, os.path.join(path, "audit.db")))
    try:
        return AuditLog(path, readonly=True)
    except sqlite3.Error as exc:     # not a database, unreadable, ...
        if "not a database" in str(exc):
            raise UserError("%s is not an audit log (%s); give --db the audit.db that "
                            "`ring run` made" % (path, exc), code=1) from None
        raise UserError("cannot open audit log %s: %s" % (path, exc), code=1) from None


def _evidence(args):
    from .witness import Evidence, load_key
    if not args.witness:
        if args.witness_key:
            raise UserError("--witness-key needs --witness PORT|FLASH_DIR")
        return None
    if not args.witness_key:
        raise UserError("--witness needs --witness-key FILE (the surveillance copy of the witness key)")
    key = load_key(args.witness_key)
    if os.path.isdir(args.witness):
        return Evidence.from_flash(args.witness, key)
    return Evidence.from_port(args.witness, key, _ask_board, args.device_id)


def _ask_board(port, device_id, nonce):
    """Talking to a board is the device commands' job (and they record into this package):
    run `ring device witness-head` as its own process. -> (seq, mac bytes)."""
    import subprocess
    cmd = [sys.executable, "-m", "ringctl.cli", "device", "witness-head", "--port", port,
           "--nonce", nonce.hex()] + (["--device-id", device_id] if device_id else [])
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if r.returncode:
        raise UserError("asking the board on %s: %s" % (port, (r.stderr.strip().splitlines()
                                                               or ["no answer"])[-1]), code=1)
    answer = json.loads(r.stdout)
    return answer["seq"], bytes.fromhex(answer["mac"])


def _run_verify(log, **kw):
    import sqlite3
    try:
        return log.verify(**kw)
    except sqlite3.DatabaseError as exc:
        raise UserError("audit log %s is unreadable as an audit log: %s" % (log.path, exc), code=1)


def _complain(report, prog):
    for p in report["problems"]:
        where = "log" if p["seq"] is None else "seq %d" % p["seq"]
        print("%s: %s %s: %s" % (prog, where, p["problem"], p["detail"]), file=sys.stderr)


def _verify(args):
    evidence = _evidence(args)
    log = _open(args)
    report = _run_verify(log, expect_head=args.expect_head, witness=evidence)
    print(json.dumps(report, indent=1))
    if not report["ok"]:
        _complain(report, "ring log verify")
    elif evidence is None:
        print("ring log verify: chain intact; without --witness, records cut off the end or a "
              "recomputed rewrite cannot be detected", file=sys.stderr)
    return 0 if report["ok"] else 1


def _export(args):
    from .export import export_csv, export_json, ship_verifier
    if args.with_blobs and args.format != "json":
        raise UserError("--with-blobs works with --format json only")
    from ..atomic import atomic_output, check_target, os_problem
    if args.output == "-":
        raise UserError("export to a file (-o FILE): its verifier script is written beside it")
    check_target(args.output)
    log = _open(args)
    report = _run_verify(log)
    if not report["ok"]:
        _complain(report, "ring log export")
        if not args.allow_failed:
            raise UserError("the audit log fails verification (%d problem(s), above); nothing "
                            "exported. Pass --allow-failed to export it anyway (its header says "
                            "so)" % len(report["problems"]), code=1)
    # Whole or not at all: a full disk leaves no truncated export behind.
    with atomic_output(args.output, "w", newline="", encoding="utf-8") as out:
        n = export_json(log, out, report, args.with_blobs) if args.format == "json" \
            else export_csv(log, out, report)
    try:
        verifier = ship_verifier(args.output)
    except OSError as exc:
        os.unlink(args.output)      # an export without its verifier is not one
        raise os_problem(exc, args.output) from None
    print("exported %d records to %s; check it anywhere with: python3 %s %s"
          % (n, args.output, verifier, args.output), file=sys.stderr)
    return 0


def _show(args):
    from . import show
    kinds = {k.strip() for k in args.kind.split(",") if k.strip()} if args.kind else None
    since = show.parse_time(args.since) if args.since else None
    until = show.parse_time(args.until) if args.until else None
    log = _open(args)
    # one kind is asked of the database, but not with --spin: the vision record in force is kept
    # for the spin's records, whatever their kind (show.select)
    kind = next(iter(kinds)) if kinds and len(kinds) == 1 and args.spin is None else None
    try:
        if args.last > 0 and args.spin is None and since is None and until is None and \
                (kinds is None or kind is not None):
            recs = log.last(args.last, kind)         # an index walk from the end, not a scan
        else:
            recs = list(show.select(log.records(kind=kind, with_blobs=False), spin=args.spin,
                                    kinds=kinds, since=since, until=until))
            if args.last > 0 and args.spin is None:
                recs = recs[-args.last:]
    except ValueError as exc:       # a record's data is not JSON (an older host wrote it so)
        raise UserError("audit log %s holds a record whose data is not readable JSON (%s); "
                        "`ring log verify --db %s` checks the chain, `ring log export` keeps "
                        "the raw text" % (log.path, exc, log.path), code=1) from None
    for r in recs:
        print(json.dumps(show.as_json(r), ensure_ascii=False) if args.json else show.line(r))
    return 0


def _frames(args):
    from .frames import export_spin
    log = _open(args)
    n = export_spin(log, args.spin, args.output)
    print("spin %d: %d frame(s), %d annotated, %d record(s) -> %s"
          % (n["spin"], n["frames"], n["annotated"], n["records"], args.output))
    return 0
