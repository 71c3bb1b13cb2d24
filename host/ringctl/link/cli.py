"""`ring link ...`: dump a capture, list boards, check a board's link, watch events, send a command."""
import json
import sys
import time

from ..cliutil import group_parser
from ..errors import UserError


def register(subparsers):
    p, sub = group_parser(subparsers, "link",
                          "ring link: dump captured traffic, talk to a board")

    d = sub.add_parser("dump", help="decode a captured byte stream into readable messages",
                       description="Decode raw ring-link bytes (as seen on the wire, either "
                       "direction or both). With --key every frame is authenticated; without "
                       "it only framing and CRC are checked and payloads stay sealed.")
    d.add_argument("file", help="capture file ('-' for stdin)")
    d.add_argument("--key", metavar="KEYFILE", help="the board's key file "
                   "($RING_HOME/keys/<device-id>.key)")
    d.add_argument("--unverified", action="store_true",
                   help="also show payloads that could not be authenticated (marked UNVERIFIED)")
    d.set_defaults(func=cmd_dump)

    ps = sub.add_parser("ports", help="list ring boards on USB (2E8A:0005)")
    ps.add_argument("--json", action="store_true", help="print JSON")
    ps.set_defaults(func=cmd_ports)

    for name, helptext, fn in (
            ("status", "connect, print the board's HELLO and the link counters of both ends "
                       "(board events are left unacknowledged for `ring run`)", cmd_status),
            ("monitor", "connect and print events as they arrive; ACKNOWLEDGES each one after "
                        "appending it to the audit log, so the board forgets it and `ring run` "
                        "will not adjudicate it: not for use during play", cmd_monitor),
            ("send", "send one command and wait for the board's answer (board events are "
                     "shown but left unacknowledged for `ring run` to record)", cmd_send)):
        q = sub.add_parser(name, help=helptext, description=helptext)
        _conn_args(q)
        if name == "send":
            from ..fw import ringmsg
            q.add_argument("command", choices=sorted(ringmsg.CMD_NAMES.values()),
                           help="command name")
            q.add_argument("text", nargs="?", default="", help="command argument")
        if name == "monitor":
            q.add_argument("--seconds", type=float, default=0,
                           help="stop after this long (default: until Ctrl-C)")
            q.add_argument("--count", type=int, default=0, help="stop after N events")
            q.add_argument("--capture", metavar="FILE",
                           help="also write the raw bytes both ways to FILE (for `ring link dump`)")
            q.add_argument("--log", metavar="DB", help="audit log to record the events in "
                           "before acknowledging them (default $RING_HOME/audit.db)")
        if name == "status":
            q.add_argument("--json", action="store_true", help="print JSON")
        q.set_defaults(func=fn)
    return p


def _conn_args(q):
    q.add_argument("--port", default="auto",
                   help="serial device path, or 'auto' to find the board by USB id (default)")
    q.add_argument("--serial", help="with --port auto: the board's USB serial number")
    q.add_argument("--key", help="key file, or device id (uses $RING_HOME/keys/<id>.key); "
                   "default: the key of the board found by --port auto")
    q.add_argument("--flash-dir", help="a simulated board's flash dir instead of --port "
                   "(the running `ring sim board --flash DIR`)")
    q.add_argument("--timeout", type=float, default=5.0,
                   help="seconds to wait for the link (default 5)")


# ---- dump ----------------------------------------------------------------------------
def cmd_dump(args):
    from .dump import Dumper
    from .keys import key_is_private, load_key_file
    key = None
    if args.key:
        key = load_key_file(args.key)
        if not key_is_private(args.key):
            print("ring: warning: key file %s is readable by others; chmod 600 it" % args.key,
                  file=sys.stderr)
    try:
        f = sys.stdin.buffer if args.file == "-" else open(args.file, "rb")
    except OSError as exc:
        raise UserError(f"cannot read capture {args.file}: {exc.strerror}") from None
    dumper = Dumper(key, unverified=args.unverified)
    with f:
        while True:
            chunk = f.read(65536)
            if not chunk:
                break
            for line in dumper.feed(chunk):
                print(line)
    print("== " + dumper.summary())
    return 0


# ---- ports ---------------------------------------------------------------------------
def cmd_ports(args):
    from .ports import boards
    found = boards()
    if args.json:
        print(json.dumps(found, indent=1))
        return 0
    if not found:
        from .boards import NONE_FOUND_HINTS
        print(NONE_FOUND_HINTS)
        return 1
    for b in found:
        print("%s  serial=%s  %s" % (b["port"], b["serial"] or "?", b["description"]))
    return 0


# ---- talking to a board --------------------------------------------------------------
def _key_for(args):
    from .keys import load_key
    from .ports import (device_id_for_port, resolve_port, sim_device_id_for_flash,
                        sim_port_for_device)
    if getattr(args, "flash_dir", None):
        dev = sim_device_id_for_flash(args.flash_dir)
        port = sim_port_for_device(dev)
        if port is None:
            raise UserError(f"no simulated board is running on flash dir {args.flash_dir}; "
                            f"start `ring sim board --flash {args.flash_dir}` first", code=1)
        args.port = port
        return load_key(args.key or dev)
    if args.key:
        return load_key(args.key)
    port = resolve_port(args.port, args.serial)
    serial = args.serial or device_id_for_port(port)
    if not serial:
        raise UserError(f"cannot tell which board is on {port} (no USB serial number, not a "
                        "running simulated board); pass --key KEYFILE")
    return load_key(serial)


def _connect(args, **kw):
    from .client import LinkClient
    key = _key_for(args)
    client = LinkClient(args.port, key, serial_number=args.serial, name="ring link", **kw)
    try:
        up = client.wait_up(args.timeout)
    except UserError:
        client.close()
        raise
    if not up:
        why = client.last_error
        repl = client.at_repl
        wrong_key = client.key_mismatch
        client.close()
        if wrong_key:
            from .client import KEY_MISMATCH_MSG
            raise UserError(KEY_MISMATCH_MSG, code=1)
        if repl:
            raise UserError("the board is at the MicroPython REPL, not running the controller "
                            "(a crash in main.py?): redeploy with `ring device deploy` or reset "
                            "it", code=1)
        if client.opens == 0:
            raise UserError(f"cannot open {args.port}: {why}", code=1)
        raise UserError(f"no answer from a ring controller on {client.port} within "
                        f"{args.timeout:g} s (wrong key, or not our firmware?); see "
                        "`ring link status` counters and `ring doctor`", code=1)
    return client


def _info_line(pi):
    from ..fw import ringmsg
    return ("board %s: fw %s image %s, link protocol %s, boot %08x (%s reset), %s" % (
        pi.get("device_id") or "?", pi.get("fw"), pi.get("image"), pi.get("proto"),
        pi.get("boot_id", 0), ringmsg.RESET_NAMES.get(pi.get("reset"), "?"), pi.get("interp")))


def cmd_status(args):
    client = _connect(args)      # reads no events, so acknowledges none (left for `ring run`)
    try:
        end = time.monotonic() + 1.0
        while client.board_alarms is None and time.monotonic() < end:
            time.sleep(0.02)      # the board's counts ride on its next ACK (<= 200 ms)
        time.sleep(0.1)           # a few heartbeats for our own counters
        st = client.stats()
        pi = client.peer_info
    finally:
        client.close()
    board = {"alarms": st["board_alarms"], "key_errors": st["board_key_errors"]}
    bad = bool(st["alarms"] or board["alarms"])
    if args.json:
        print(json.dumps({"peer": pi, "stats": st, "board": board}, indent=1))
        return 1 if bad else 0
    print(_info_line(pi))
    print("host end: link up on %s; rtt %d ms; counters: %s" % (
        st["port"], st["rtt_ms"], ", ".join("%s=%s" % (k, v) for k, v in st.items()
                                            if k not in ("port", "state", "link_up")
                                            and not k.startswith(("board_", "peer_alarms",
                                                                  "peer_key"))
                                            and isinstance(v, int) and v)))
    if board["alarms"] is None:
        print("board end: no ACK with its counters yet")
    else:
        print("board end: security alarms %d, wrong-key HELLOs %d (since its boot %08x)" % (
            board["alarms"], board["key_errors"], pi.get("boot_id", 0)))
    if st["alarms"]:
        print("SECURITY: the host counted %d frame(s) that failed authentication in a session"
              % st["alarms"])
    if board["alarms"]:
        print("SECURITY: the board counted %d frame(s) that failed authentication in a session"
              % board["alarms"])
    return 1 if bad else 0


def _record_alarms(log, client, recorded):
    """Append a security-alarm record for alarms not yet recorded (same kind as `ring run`)."""
    from ..record.records import record_security_alarm
    st = client.stats()
    if st["alarms"] > recorded:
        record_security_alarm(log, st["alarms"], st["alarms"] - recorded, st,
                              by="ring link monitor")
        print("SECURITY: %d frame(s) failed authentication (recorded in the audit log)"
              % (st["alarms"] - recorded), flush=True)
    return max(recorded, st["alarms"])


def cmd_monitor(args):
    from ..record.log import open_audit_log
    from ..record.records import record_event
    log = open_audit_log(args.log)
    cap = None
    try:
        cap = open(args.capture, "wb") if args.capture else None
        client = _connect(args, capture=cap)
    except BaseException:
        if cap:
            cap.close()
        log.close()
        raise
    from .alarms import BoardAlarms
    board_alarms = BoardAlarms()
    n = 0
    alarms = 0
    end = time.monotonic() + args.seconds if args.seconds else None
    try:
        print(_info_line(client.peer_info), flush=True)
        print("monitor: every event is recorded in %s, then acknowledged (the board forgets "
              "it; `ring run` will not adjudicate it)" % log.path, flush=True)
        while end is None or time.monotonic() < end:
            alarms = _record_alarms(log, client, alarms)
            ev = client.get_event(timeout=0.2)
            if ev is None:
                continue
            _, new = record_event(log, ev, by="ring link monitor")      # durable first
            said = board_alarms.note(log, ev, by="board (ring link monitor)")
            client.ack(ev)                                              # then acknowledged
            print(ev.describe() + ("" if new else "  (already recorded)"),
                  flush=True)
            if said:
                print("SECURITY: " + said[1] + " (recorded in the audit log)", flush=True)
            n += 1
            if args.count and n >= args.count:
                break
        alarms = _record_alarms(log, client, alarms)
    finally:
        st = client.stats()
        client.close()
        log.close()
        if cap:
            cap.close()
    print("== %d events recorded and acknowledged; alarms=%d crc_errors=%d retransmits=%d "
          "link_losses=%d" % (n, st["alarms"], st["crc_errors"], st["retransmits"],
                              st["link_losses"]))
    return 1 if st["alarms"] or board_alarms.recorded and max(board_alarms.recorded.values()) else 0


def cmd_send(args):
    from ..fw import ringmsg
    code = {v: k for k, v in ringmsg.CMD_NAMES.items()}[args.command]
    client = _connect(args)
    # Board events are shown but never acknowledged here: the host acknowledges an event only
    # after it is durably recorded, and recording (and adjudicating) is `ring run`'s job. The
    # board keeps them and resends them to the next host.
    seen = 0
    try:
        cmd_id = client.send_cmd(code, args.text)
        end = time.monotonic() + args.timeout
        while time.monotonic() < end:
            ev = client.get_event(timeout=0.1)
            if ev is None:
                continue
            seen += 1
            print(ev.describe() + "  (left for `ring run` to record)")
            if ev.code == ringmsg.EV_RESULT and ev.a == cmd_id:
                if ev.b != ringmsg.R_OK:
                    raise UserError(f"board refused {args.command}: {ev.text or ev.b}", code=1)
                return 0
        if client.cmds_unacked:
            raise UserError(f"the board did not acknowledge {args.command} within "
                            f"{args.timeout:g} s", code=1)
        why = (f"; {seen} earlier board event(s) are waiting to be recorded by `ring run` and "
               "may hold the answer back" if seen else "")
        print(f"{args.command}: delivered (no result event within {args.timeout:g} s{why})")
        return 0
    finally:
        client.close()
