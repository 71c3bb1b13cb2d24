"""Host restarts against one live micropython board: no false security alarms, forgeries still counted.

Every `ring run`, `ring link status|send` is a new host process: a fresh LinkClient/Session
that knows nothing of the previous host's session keys. Reconnecting to a healthy board
must never look like an attack (a security alarm has to mean a forged/tampered frame),
while a forged frame injected on the line is still exactly one alarm.
"""
import json
import os
import pty
import subprocess
import sys
import time
import tty

from ringctl.fw import ringlink as rl, ringmsg
from ringctl.link import LinkClient

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from mprun import ROOT, micropython_binary, mp_env  # noqa: E402

BOOT_ID = 0x5EED0002
RESTARTS = 6
FORGE_AT = 3          # the host run that also gets one forged frame
LOOP_MS = 25          # board app loop period
N_EVENTS = 400
RATE = 40             # events/s: about one per board loop pass, fresh frames under the old keys


def _session(c, seconds, recorded, ack):
    """Receive for `seconds`; record (boot_id, event_id) once, ack after recording."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        ev = c.get_event(timeout=0.02)
        if ev is None:
            continue
        recorded.add((ev.boot_id, ev.event_id))      # "durably recorded"
        if ack:
            c.ack(ev)


def test_host_restarts_raise_no_alarms_but_a_forged_frame_is_one():
    key = os.urandom(32)
    master, slave = pty.openpty()
    tty.setraw(slave)
    os.set_blocking(master, False)
    path = os.ttyname(slave)          # the test keeps `slave` open: the pty never hangs up
    dev = subprocess.Popen(
        [micropython_binary(), "-X", "heapsize=2M", str(ROOT / "tests/link/mp_device.py"),
         str(master), key.hex(), str(N_EVENTS), str(BOOT_ID), "0", "1", str(RATE), str(LOOP_MS)],
        pass_fds=[master], env=mp_env(), cwd=str(ROOT),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    recorded = set()
    per_run = []
    calls = []          # on_alarm(new, total) calls, tagged with the host run
    c = None
    try:
        for i in range(RESTARTS + 1):
            c = LinkClient(path, key, reopen_ms=50, name="restart%d" % i,
                           on_alarm=lambda new, total, i=i: calls.append((i, new, total)))
            assert c.wait_up(5), "run %d: link never came up: %s" % (i, c.last_error)
            # odd runs never ack: the board keeps retransmitting under those keys
            _session(c, 0.25, recorded, ack=(i % 2 == 0 or i == RESTARTS))
            if i == FORGE_AT:
                forged = rl.encode(rl.seal(rl._keypair(os.urandom(32)), rl.MT_EVENT, 0, 5, 0,
                                           ringmsg.pack_event(BOOT_ID, 999999, 1, 0)))
                os.write(master, forged)
                _session(c, 0.1, recorded, ack=True)
            if i == RESTARTS:
                break
            st = c.stats()
            assert c.alarms == st["alarms"]
            per_run.append((st["alarms"], st["stale"], st["handshakes"]))
            c.close()
        c.send_cmd(ringmsg.CMD_RESET)   # the last host acks everything, the board then quits
        end = time.monotonic() + 6
        while dev.poll() is None and time.monotonic() < end:
            _session(c, 0.05, recorded, ack=True)
        st = c.stats()
        per_run.append((st["alarms"], st["stale"], st["handshakes"]))
        out, err = dev.communicate(timeout=5)
    finally:
        if c is not None:
            c.close()
        if dev.poll() is None:
            dev.kill()
            dev.communicate()
        for fd in (master, slave):
            try:
                os.close(fd)
            except OSError:
                pass
    lines = [ln for ln in out.splitlines() if ln.startswith("{")]
    assert lines, "device printed no stats: " + err[-2000:]
    dstats = json.loads(lines[-1])
    print("\nper host run (alarms, stale, handshakes): %s; device alarms=%d stale=%d "
          "handshakes=%d sent=%d" % (per_run, dstats["alarms"], dstats["stale"],
                                     dstats["handshakes"], dstats["sent"]))
    alarms = [a for a, _, _ in per_run]
    assert alarms == [1 if i == FORGE_AT else 0 for i in range(RESTARTS + 1)]
    assert calls == [(FORGE_AT, 1, 1)]      # what the runner records in the audit log
    assert dstats["alarms"] == 0 and dstats["handshakes"] >= RESTARTS + 1
    # nothing was lost across the restarts: every event id up to the last one, once
    ids = sorted(e for b, e in recorded if b == BOOT_ID and e < 0x40000000)
    assert ids == list(range(1, len(ids) + 1)) and len(ids) >= 100
    assert (BOOT_ID, 999999) not in recorded
