"""Crash-test writer: plays a game script into an audit log like the host does, printing
"ACK n" only after op n is durably recorded; restarted after kill -9 it rebuilds the game
from the log and carries on. Usage: crash_writer.py DB SCRIPT.json RESEND_FROM

RESEND_FROM plays the board resending every event it has no ACK for: events already
recorded are acknowledged again without being applied twice (dedup on (boot_id, event_id)).
"""
import json
import os
import sys

from ringctl.record import AuditLog
from ringctl.record.rebuild import rebuild_engine

BOOT = 0xC0FFEE


def main(db, script, resend_from):
    ops = json.load(open(script))
    log = AuditLog(db)
    engine = rebuild_engine(log)                      # game state from the log, not from memory
    print("START %d" % resend_from, flush=True)
    for n in range(resend_from, len(ops)):
        if log.has_event(BOOT, n):  # recorded before the crash but never acknowledged
            print("ACK %d 0 0" % n, flush=True)
            continue
        events = engine.apply(ops[n])
        if n % 4 == 0:  # a still frame with the spin: big enough that kills land mid-write
            log.append("frame", {"n": n}, blob=os.urandom(150_000 + 1000 * n))
        # The op is also "device event" (BOOT, n): a resend after the crash is recorded once.
        seq, new = log.append_once("op", {"n": n, "op": ops[n], "events": events}, event=(BOOT, n))
        print("ACK %d %d %d" % (n, seq, new), flush=True)
    print("DONE", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
