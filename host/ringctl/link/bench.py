"""`ring bench link`: link frames/s under CPython and micropython, and command round trip over a pty.

Frames/s = seal (HMAC-SHA256) + COBS encode + deframe (COBS decode, CRC-32) + verify, one
event-sized frame at a time. Round trip = host `send_cmd` until the board's ACK is back,
host on pyserial, board = tests/link/mp_device.py under `micropython` on the pty master.
Liveness (virtual time, two Sessions, 2 ms line delay): idle frames/s each way, the largest
peer silence either end saw while both were alive (must stay far below 1000 / 2000 ms), and
how long after the host died the board declared it lost while an attacker replayed the
host's recorded frames every 50 ms (must be <= 2000 ms).
"""
import os
import pty
import statistics
import subprocess
import time
import tty
from pathlib import Path

from ..cliutil import OneLineParser, print_figures
from ..errors import UserError
from ..fw import ringlink as rl
from ..mpunix import micropython_binary

TARGET_P99_MS = 2.0
PAYLOAD_LEN = 35     # a ringmsg event (25-byte header) with a short text

_MP_FPS = """
import time, ringlink as rl
kp = rl.session_keys(bytes(range(32)), b"N" * 16, b"D" * 16)[1]
pl = bytes(%d)
d = rl.Deframer()
n = %d
t0 = time.ticks_us()
for i in range(n):
    for fr in d.feed(rl.encode(rl.seal(kp, rl.MT_EVENT, 0, i, 0, pl))):
        if not rl.verify(kp, fr):
            raise SystemExit(3)
dt = time.ticks_diff(time.ticks_us(), t0)
print(n * 1000000 // dt)
"""


def _fw_lib():
    return Path(rl.__file__).resolve().parent


def _root():
    return _fw_lib().parent.parent


def _micropython():
    return micropython_binary()


def _mp_env():
    env = dict(os.environ)
    env["MICROPYPATH"] = ":".join([str(_fw_lib()), ".frozen"])
    return env


def cpython_fps(n):
    kp = rl.session_keys(bytes(range(32)), b"N" * 16, b"D" * 16)[1]
    pl = bytes(PAYLOAD_LEN)
    d = rl.Deframer()
    t0 = time.perf_counter()
    for i in range(n):
        for fr in d.feed(rl.encode(rl.seal(kp, rl.MT_EVENT, 0, i, 0, pl))):
            if not rl.verify(kp, fr):
                raise RuntimeError("verify failed")
    return int(n / (time.perf_counter() - t0))


def micropython_fps(n):
    r = subprocess.run([_micropython(), "-X", "heapsize=2M", "-c", _MP_FPS % (PAYLOAD_LEN, n)],
                       capture_output=True, text=True, timeout=300, env=_mp_env())
    if r.returncode != 0:
        raise UserError("micropython frame bench failed: " + (r.stderr or r.stdout)[-300:],
                        code=1)
    return int(r.stdout.split()[-1])


def rtt(samples, warmup=20):
    """Command -> ACK round trips (ms) with the micropython device end on a pty."""
    from .client import LinkClient
    from ..fw import ringmsg
    dev_prog = _root() / "tests" / "link" / "mp_device.py"
    if not dev_prog.exists():
        raise UserError(f"{dev_prog} not found: run the link bench from a source checkout",
                        code=1)
    key = os.urandom(32)
    master, slave = pty.openpty()
    tty.setraw(slave)
    os.set_blocking(master, False)
    dev = subprocess.Popen([_micropython(), "-X", "heapsize=2M", str(dev_prog), str(master),
                            key.hex(), "0", "4242"], pass_fds=[master], env=_mp_env(),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    os.close(master)
    client = LinkClient(os.ttyname(slave), key, name="bench")
    times = []
    try:
        if not client.wait_up(10):
            raise UserError("link bench: the micropython device end did not come up (%s)"
                            % client.last_error, code=1)
        for i in range(warmup + samples):
            t0 = time.perf_counter()
            client.send_cmd(ringmsg.CMD_STATUS)
            if not client.wait_cmds_acked(2.0):
                raise UserError("link bench: command not acknowledged within 2 s", code=1)
            if i >= warmup:
                times.append((time.perf_counter() - t0) * 1000)
        stats = client.stats()
        client.send_cmd(ringmsg.CMD_RESET)
        client.wait_cmds_acked(1.0)
    finally:
        client.close()
        try:
            dev.wait(3)
        except subprocess.TimeoutExpired:
            dev.kill()
            dev.wait()
        os.close(slave)
    times.sort()

    def pct(p):
        return round(times[min(len(times) - 1, int(p / 100 * len(times)))], 3)

    return {"rtt_ms_p50": pct(50), "rtt_ms_p90": pct(90), "rtt_ms_p99": pct(99),
            "rtt_ms_max": round(times[-1], 3), "rtt_ms_mean": round(statistics.mean(times), 3),
            "rtt_samples": len(times), "rtt_retransmits": stats["retransmits"]}


def liveness(seconds=30, delay_ms=2):
    key = bytes(range(32))
    host = rl.Session(key, rl.ROLE_HOST, {"name": "bench"})
    dev = rl.Session(key, rl.ROLE_DEVICE, {"boot_id": 1}, ring_slots=16)
    host.start(0)
    dev.start(0)
    line = []                 # (due_ms, to_device, bytes)
    sent = {True: 0, False: 0}
    rec = []
    silent = {"host": 0, "device": 0}
    end = seconds * 1000
    dead = None
    lost_at = None
    t = 0
    while t < end + 4000:
        host_alive = t < end
        for s, to_dev in ((host, True), (dev, False)):
            while (out := s.poll(t)) is not None:
                if to_dev and not host_alive:
                    continue
                line.append((t + delay_ms, to_dev, out))
                if t >= 1000 and host_alive:
                    sent[to_dev] += 1
                if to_dev:
                    rec.append(out)
        if not host_alive:
            dead = end if dead is None else dead
            if t % 50 == 0:
                line.append((t, True, rec[(t // 50) % len(rec)]))      # the replaying attacker
            if lost_at is None and dev.host_lost(t):
                lost_at = t
        due = [x for x in line if x[0] <= t]
        line = [x for x in line if x[0] > t]
        for _, to_dev, data in due:
            (dev if to_dev else host).feed(data, t)
        while host.recv() is not None:
            pass
        if t >= 1000 and host_alive:
            silent["host"] = max(silent["host"], host.peer_silent_ms(t))
            silent["device"] = max(silent["device"], dev.peer_silent_ms(t))
        t += 1
    span = (end - 1000) / 1000
    return {"idle_frames_per_s_h2d": round(sent[True] / span, 1),
            "idle_frames_per_s_d2h": round(sent[False] / span, 1),
            "peer_silent_ms_max_host": silent["host"],
            "peer_silent_ms_max_device": silent["device"],
            "replay_host_lost_after_ms": None if lost_at is None else lost_at - dead,
            "host_lost_window_ms": rl.DEVICE_HOST_LOST_MS}


def main(argv):
    ap = OneLineParser(prog="ring bench link", description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--frames", type=int, default=3000, help="frames per runtime (default 3000)")
    ap.add_argument("--samples", type=int, default=1000,
                    help="round trips to time (default 1000)")
    args = ap.parse_args(argv)
    if args.frames < 1 or args.samples < 10:
        raise UserError("--frames must be >= 1 and --samples >= 10")
    res = {"frame_bytes": rl.MIN_FRAME + PAYLOAD_LEN,
           "cpython_frames_per_s": cpython_fps(args.frames),
           "micropython_frames_per_s": micropython_fps(args.frames)}
    res.update(rtt(args.samples))
    res.update(liveness())
    res["rtt_target_p99_ms"] = TARGET_P99_MS
    res["rtt_target_met"] = res["rtt_ms_p99"] < TARGET_P99_MS
    print_figures(res, args.json)
    return 0
