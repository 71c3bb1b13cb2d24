# Device end for link tests and `ring bench link`: runs under `micropython`, ringlink over a pty.
# usage: micropython mp_device.py PTY KEYHEX N_EVENTS BOOT_ID [REOPEN_MS] [SEED] [RATE_PER_S] [LOOP_MS]
#   PTY is a tty path, or an inherited non-blocking fd number (a pty master; no reopen then).
#   sends N_EVENTS events (ringmsg, event_id 1..N), answers every command with EV_RESULT,
#   closes and reopens its end of the line every REOPEN_MS (0: never), quits on CMD_RESET
#   once everything is acknowledged, and prints one JSON line of counters on exit.
#   LOOP_MS > 0: sleep that long per main-loop pass, like a board app that also scans its
#   sensors (a HELLO and the frames the app queued in that pass are then answered together).
import sys
import json
import select
import termios
import time
import ringlink
import ringmsg


def open_line(path, setup=True):
    if path.isdigit():  # inherited pty master fd, already non-blocking
        f = open(int(path), "r+b")
        p = select.poll()
        p.register(f, select.POLLIN)
        return f, p
    f = open(path, "r+b")
    fd = f.fileno()
    p = select.poll()
    p.register(f, select.POLLIN)
    if not setup:       # the tty keeps its settings while the other end holds it open
        return f, p
    termios.setraw(fd)
    a = termios.tcgetattr(fd)
    a[6][6] = 0   # VMIN=0, VTIME=0: readinto returns what is there instead of blocking
    a[6][5] = 0
    termios.tcsetattr(fd, termios.TCSANOW, a)
    return f, p


def main():
    path = sys.argv[1]
    key = bytes(int(sys.argv[2][i:i + 2], 16) for i in range(0, 64, 2))
    n_events = int(sys.argv[3])
    boot_id = int(sys.argv[4])
    reopen_ms = int(sys.argv[5]) if len(sys.argv) > 5 else 0
    seed = int(sys.argv[6]) if len(sys.argv) > 6 else 1
    rate = int(sys.argv[7]) if len(sys.argv) > 7 else 0
    loop_ms = int(sys.argv[8]) if len(sys.argv) > 8 else 0
    info = {"fw": "0.1.0-test", "image": b"\x11\x22\x33\x44\x55\x66\x77\x88",
            "boot_id": boot_id, "reset": ringmsg.RESET_POWER_ON, "device_id": "SIMTEST01",
            "interp": "micropython %d.%d.%d linux" % sys.implementation.version[:3]}
    s = ringlink.Session(key, ringlink.ROLE_DEVICE, info, ring_slots=32, window=8)
    f, p = open_line(path)
    t0 = time.ticks_ms()
    s.start(t0)
    opened = t0
    buf = bytearray(512)
    mv = memoryview(buf)
    sent = 0
    full = 0
    cmds = 0
    cmd_order_ok = True
    last_cmd = None
    quit_at = None
    reopens = 0
    rnd = seed
    pending = []     # EV_RESULT answers waiting for room in the ring (never dropped)
    deadline = time.ticks_add(t0, 60000)
    while True:
        now = time.ticks_ms()
        if time.ticks_diff(now, deadline) > 0:
            break
        if reopen_ms and time.ticks_diff(now, opened) > reopen_ms:
            f.close()                       # cut: the device end closes and reopens
            rnd = (rnd * 1103515245 + 12345) & 0x7FFFFFFF
            time.sleep_ms(20 + rnd % 150)
            f, p = open_line(path, setup=False)
            now = time.ticks_ms()
            opened = now
            s.start(now)
            reopens += 1
        if loop_ms:
            time.sleep_ms(loop_ms)
        for _ in p.poll(0 if loop_ms else 2):
            n = f.readinto(buf)     # None: nothing there (non-blocking fd)
            if n:
                s.feed(mv[:n], time.ticks_ms())
        now = time.ticks_ms()
        while pending and s.send(ringlink.MT_EVENT, pending[0], now) >= 0:
            pending.pop(0)
        while not pending and sent < n_events and (not rate or sent < time.ticks_diff(now, t0) * rate // 1000):
            pl = ringmsg.pack_event(boot_id, sent + 1, ringmsg.EV_IMPACT, now * 1000,
                                    sent % 4, sent)
            if s.send(ringlink.MT_EVENT, pl, now) < 0:
                full += 1
                break
            sent += 1
        while True:
            m = s.recv()
            if m is None:
                break
            code, cmd_id, text = ringmsg.unpack_cmd(m[1])
            cmds += 1
            if last_cmd is not None and cmd_id != last_cmd + 1:
                cmd_order_ok = False
            last_cmd = cmd_id
            if code == ringmsg.CMD_RESET:
                quit_at = now
            elif code != ringmsg.CMD_STATUS:
                pending.append(ringmsg.pack_event(
                    boot_id, 0x40000000 + cmds, ringmsg.EV_RESULT, now * 1000, cmd_id, 0))
        while True:
            out = s.poll(time.ticks_ms())
            if out is None:
                break
            try:
                f.write(out)
            except OSError:
                break
        if quit_at is not None and (s.unacked == 0 or time.ticks_diff(now, quit_at) > 2000):
            # linger so the last acks reach the host
            end = time.ticks_add(time.ticks_ms(), 100)
            while time.ticks_diff(end, time.ticks_ms()) > 0:
                for _ in p.poll(5):
                    n = f.readinto(buf)
                    if n:
                        s.feed(mv[:n], time.ticks_ms())
                out = s.poll(time.ticks_ms())
                if out:
                    f.write(out)
            break
    st = s.stats()
    st.update({"sent": sent, "full": full, "cmds": cmds, "cmd_order_ok": cmd_order_ok,
               "reopens": reopens})
    print(json.dumps(st))


main()
