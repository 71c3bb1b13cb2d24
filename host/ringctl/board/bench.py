"""`ring bench firmware`: the firmware's hot paths on this machine and as RP2040 estimates, calibrated in the same run.

Two parts. (1) firmware/bench/hotpaths.py under the MicroPython unix port times each hot path
(beam edge -> lamp, each periodic pass, frame send / receive, HELLO, a blocked USB write) and
the issue's reference loops, whose RP2040 times are known (125 MHz, MicroPython 1.28:
`for i in range(100000): pass` 458 ms, `[x for x in range(10000)]` 30.0 ms, `fib(20)` 238
ms). factor = the geometric mean of RP2040 time / unix time over the three; each path's
RP2040 estimate = its unix time x factor. (2) The deployed image on the simulated board:
100 boundary breaks timed end to end, heap peak, and the process's CPU at idle.
"""
import json
import math
import os
import subprocess
import tempfile
import time
from pathlib import Path

from ..fw import ringmsg as M
from .build import SRC, NATIVE_RE, build, compile_module, has_native, march, native_code_bytes
from ..sim.rig import Rig
from ..mpunix import micropython_binary
from ..cliutil import OneLineParser

# RP2040 at 125 MHz, MicroPython v1.28.0 (issue 18; agrees with published Pico benchmarks)
RP2040_REF_MS = {"ref_loop_ms": 458.0, "ref_listcomp_ms": 30.0, "ref_fib_ms": 238.0}
HARD_IRQ_ENTRY_US = 26     # pin edge -> first line of a hard handler on the RP2040 (12-26 us)
HEAP32_RATIO = 0.7         # 32-bit heap / 64-bit heap: 0.5-0.7 (words, pointers, GC blocks)
USB_FRAME_MS = 1.0         # full-speed USB frame: the host's IN tokens come once per frame
GC_EVERY = 10240           # app.GC_EVERY: gc.threshold, bytes
PASS_SLACK = 4096          # app.PASS_SLACK: the heap bound's room for one link pass's garbage
COLLECT_S = 2.0            # app: the supervisor collects every COLLECT_EVERY x SUPERVISE_MS
HB_PER_S = 5               # heartbeats each way per second (ringlink.HB_MS = 200)
FW_DIR = Path(__file__).resolve().parents[3] / "firmware"
HOTPATHS = FW_DIR / "bench" / "hotpaths.py"
HEAPSTACK = FW_DIR / "bench" / "heapstack.py"


def p99(xs):
    if not xs:
        return None
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(0.99 * (len(s) - 1))))]


HEAP_NOTE = (
    "Heap figures are from the MicroPython unix port, which is 64-bit: object headers, "
    "pointers, dict slots and bytecode references are twice the RP2040's 32-bit size, so the "
    "same firmware needs roughly 0.5-0.7x these bytes on a Pico (not measured on one here; "
    "micropython.mem_info() on the board gives the real figure). heap_peak_bytes = highest "
    "gc.mem_alloc() since start: interpreter state, the bytecode of every loaded module "
    "(heap_code_bytes, measured before the App is built), the app's buffers and garbage. "
    "heap_data_peak_bytes = heap_peak_bytes - heap_code_bytes: everything the controller "
    "allocates, its preallocated buffers included. app_heap_peak_bytes = highest "
    "gc.mem_alloc() during play minus heap_ready_bytes (level after all imports, the App "
    "built and booted, gc.collect()): what running adds (tasks, link state, garbage between "
    "collections). The 64 KB target is checked against heap_data_peak_bytes, the stricter "
    "of the two app figures; the code is left out because it is fixed per build and leaves "
    "the heap entirely when the modules are frozen into the MicroPython image. Peaks are "
    "sampled every 2 ms by the timer task. heap_total_bytes = mem_alloc + mem_free (the "
    "simulated board runs with -X heapsize=256K; an RP2040 MicroPython heap is about "
    "190 KB).")

DEBUG = []   # (light line, host light ms, host frame ms) per run, for investigation


def _mp_json(*args, heap="640K"):
    # 640K: the unix port compiles ringlink's @micropython.native functions from source here,
    # and the step timings' frame lists ran out of 512K with them (a collection's time is the
    # same at both sizes: 76-79 us)
    env = dict(os.environ)
    env["MICROPYPATH"] = "%s:%s:.frozen" % (FW_DIR / "lib", FW_DIR / "bench")
    with tempfile.TemporaryDirectory(prefix="ringbench") as tmp:
        env["TMPDIR"] = tmp     # the simulated board's file system: gone after the run
        out = subprocess.run([micropython_binary(), "-X", "heapsize=" + heap, str(HOTPATHS),
                              *args], capture_output=True, text=True, timeout=300, env=env)
    if out.returncode:
        raise RuntimeError("hotpaths.py failed: %s" % (out.stderr or out.stdout)[-800:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def calibrate_and_time(rounds=3):
    """-> (unix figures, factor, per-loop ratios). Reference loops run before and after the
    paths (best of all rounds), so a burst of load from other jobs hits both sides alike."""
    refs = {}
    paths = None
    for i in range(rounds):
        r = _mp_json("ref", heap="1M")
        for k, v in r.items():
            refs[k] = min(v, refs.get(k, v))
        if i == rounds // 2:
            paths = _mp_json()
    factor, ratios = factor_from(refs)
    return refs, paths, factor, ratios


def factor_from(refs):
    """RP2040 / unix time per reference loop, and their geometric mean (the loops stress
    different parts of the VM: none of them alone stands for the firmware)."""
    ratios = {k: RP2040_REF_MS[k] / refs[k] for k in RP2040_REF_MS}
    return math.exp(sum(math.log(v) for v in ratios.values()) / len(ratios)), ratios


def rp2040_estimates(p, factor):
    """Scaled figures; waits (the glitch filter) are added unscaled."""
    ms = lambda us: round(us * factor / 1000, 3)     # noqa: E731
    load = p["idle_load_us_per_s"]
    idle = sum(load.values()) * factor / 1e6
    est = {
        "factor": round(factor, 1),
        "frame_send_ms": ms(p["frame_send_us"]),
        "frame_receive_ms": ms(p["frame_receive_us"]),
        "hello_ms": ms(p["hello_us"]),
        "idle_cpu_share": round(idle, 3),
        "idle_cpu_by_task": {k: round(v * factor / 1e6, 3) for k, v in load.items()},
        "idle_cpu_share_inloop": round(sum(p["idle_load_inloop_us_per_s"].values()) * factor
                                       / 1e6, 3),
        "longest_blocking_write_ms": max(p["tx_block_ms"], ms(p["tx_write_call_us"])),
        "link_io_ms_per_frame": ms(p["link_read_us"] + p["usb_rx_cb_us"] + p["link_write_us"]
                                   + p["usb_tx_cb_us"]),
    }
    # sustained event rate: one event frame out and one ack frame in, each with its call on
    # the link port and the USB task's callback
    ev_us = (p["frame_send_us"] + p["link_write_us"] + p["usb_tx_cb_us"] + p["frame_receive_us"]
             + p["link_read_us"] + p["usb_rx_cb_us"]) * factor
    est["events_per_s"] = round(1e6 / ev_us)
    est.update(command_to_ack(p, factor))
    est["burst_breaks_buffered"] = p["event_ring_plain"] // 2
    passes = {k: p[k] for k in p if k.endswith("_pass_us") or k.endswith("_inloop_us")}
    est["loop_pass_ms"] = {k[:-3] + "_ms": ms(v) for k, v in passes.items()}
    # the hard handler preempts everything (collection, link, long C calls): its own time
    # past the glitch wait (the bar's CPU, the filter loop's last turn) scaled, plus the
    # chip's IRQ entry; nothing else can come in between, so p50 and p99 are the same path
    g = p["glitch_us"]
    cpu = max(0.0, p["edge_to_lamp_us"] - g) * factor + HARD_IRQ_ENTRY_US
    est["edge_to_lamp_ms_p50"] = est["edge_to_lamp_ms_p99"] = round((g + cpu) / 1000, 3)
    est["irq_handler_ms"] = round((g + max(0.0, p["irq_handler_us"] - g) * factor) / 1000, 3)
    return est


def loop_wait_p99_ms(jobs, q=0.01):
    """A command arriving at a random moment waits for whatever the loop is running to
    finish. jobs: [(per second, chip ms)] -> the wait it exceeds with probability q:
    P(wait > x) = sum(rate * max(0, L - x)) / 1000 (arrivals uniform in time)."""
    def over(x):
        return sum(r * max(0.0, L - x) for r, L in jobs) / 1000.0
    if over(0.0) <= q:
        return 0.0
    lo, hi = 0.0, max(L for _, L in jobs)
    for _ in range(50):
        mid = (lo + hi) / 2
        if over(mid) > q:
            lo = mid
        else:
            hi = mid
    return hi


def command_to_ack(p, factor):
    """Command frame in the chip's USB buffer (its OUT transfer done) -> its answer frame,
    which carries the ack, taken by the host's IN token. p50 and p99, RP2040 ms.

    On the chip, in order: the USB task's callback for the OUT transfer (usb_rx_cb), the
    link task's wake-up (asyncio's poll asks the port: poll_ioctl; one scheduler round:
    asyncio_wake), the link pass (command_to_ack_us: one readinto, deframe, verify, run the
    command, answer, seal, COBS, one write that submits the IN transfer), then the wait for
    the host's next IN token: USB full-speed frames are 1 ms, so 0.5 ms at the median and
    1.0 ms at p99. p99 adds what the loop may be busy with when the frame arrives (timer,
    supervisor, heartbeats, collections: loop_wait_p99_ms). No collection runs inside the
    pass (app.link_service holds them off until the answer is queued)."""
    ms = lambda us: us * factor / 1000     # noqa: E731
    wake = p["usb_rx_cb_us"] + p["poll_ioctl_us"] + p["asyncio_wake_us"]
    cpu50 = ms(wake + p["command_to_ack_median_us"])
    cpu_best = ms(wake + p["command_to_ack_us"])
    io = ms(p["usb_rx_cb_us"] + p["link_read_us"] + p["link_write_us"])
    # allocation on the chip (32-bit): the idle link's (heartbeats both ways) adds up between
    # the supervisor's collections; beyond GC_EVERY an automatic collection runs. Never inside
    # the link pass (app.link_service holds collections off until its answers are queued),
    # but one may be running in another pass when the command arrives (the loop wait below).
    # What makes an automatic collection is what gc.threshold counts: every byte allocated,
    # also what is freed again at once (a call whose state is over 11 words takes its frame
    # from the heap and frees it on return) - ~2x the garbage left (*_alloc_bytes, measured
    # from the collections a threshold makes; the *_garbage_bytes undercounted them).
    g_pass = p["command_alloc_bytes"] * HEAP32_RATIO
    g_idle = HB_PER_S * (p["hb_rx_alloc_bytes"] + p["hb_tx_alloc_bytes"]) * HEAP32_RATIO
    autos = int((g_idle * COLLECT_S + g_pass) // GC_EVERY)
    gc_ms = ms(p["gc_collect_us"]) * HEAP32_RATIO    # the chip's heap holds ~0.7x the bytes
    timer_hz = 1000.0 / p["timer_period_idle_ms"]
    jobs = [(timer_hz, ms(p["timer_pass_us"])),
            (2.0, ms(p["supervisor_pass_us"])),
            ((1 + autos) / COLLECT_S, gc_ms),
            (HB_PER_S, ms(p["frame_receive_us"] + p["link_read_us"] + wake)),
            (HB_PER_S, ms(p["frame_send_us"] + p["link_write_us"] + p["usb_tx_cb_us"])),
            (1000.0 / p["link_ms"], ms(p["link_pass_us"]))]
    wait99 = loop_wait_p99_ms(jobs)
    p50 = cpu50 + USB_FRAME_MS / 2
    p99 = cpu50 + USB_FRAME_MS + wait99
    # what the figure would be with the pass's interpreted work (deframing and session
    # logic, the command, the event ring, the send logic) taking no time at all: the wake-up,
    # one read and one write on the link port, the pass's C and machine code (c_work: two
    # HMACs, two CRCs, COBS both ways), the USB frame and the same loop wait
    floor = ms(wake + p["link_read_us"] + p["link_write_us"] + p["command_c_work_us"])
    return {
        "command_to_ack_ms_p50": round(p50, 3),
        "command_to_ack_ms_p99": round(p99, 3),
        "command_to_ack_cpu_ms": round(cpu50, 3),
        "command_to_ack_cpu_best_ms": round(cpu_best, 3),
        # the same pass with ringlink's plain-Python COBS and tag compare (no fastlink)
        "command_to_ack_cpu_ms_bytecode": round(ms(wake + p["command_to_ack_bytecode_median_us"]), 3),
        "command_to_ack_floor_ms_p50": round(floor + USB_FRAME_MS / 2, 3),
        "command_to_ack_floor_ms_p99": round(floor + USB_FRAME_MS + wait99, 3),
        "command_c_work_ms": round(ms(p["command_c_work_us"]), 3),
        "command_to_ack_line_ms": round(io, 3),
        "command_to_ack_usb_frame_ms": {"p50": USB_FRAME_MS / 2, "p99": USB_FRAME_MS},
        "command_to_ack_loop_wait_ms_p99": round(wait99, 3),
        "command_to_ack_pass_alloc_bytes_32bit": round(g_pass),
        "collections_per_s": round((1 + autos) / COLLECT_S, 2),
        # where the pass's time goes: each step timed hot on its own (hotpaths.command_steps),
        # with the link port's read and write and the wake-up; pass_hot is the whole pass so
        "command_steps_ms": {k: round(ms(v), 3) for k, v in dict(
            p["command_steps_us"], wake=wake, link_read=p["link_read_us"],
            link_write=p["link_write_us"]).items()},
        "gc_collect_ms": round(gc_ms, 3),
    }


def board_heaps(lib_dir):
    """{"sim": bytes, "pico": bytes}: the heap after a boot's imports with each board
    (heapstack.py, a fresh micropython per board, the same image)."""
    env = dict(os.environ)
    env["MICROPYPATH"] = "%s:%s:.frozen" % (lib_dir, FW_DIR / "bench")
    out = {}
    for name in ("sim", "pico"):
        r = subprocess.run([micropython_binary(), "-X", "heapsize=1M", str(HEAPSTACK), name],
                           capture_output=True, text=True, timeout=60, env=env)
        if r.returncode:
            raise RuntimeError("heapstack.py failed: %s" % (r.stderr or r.stdout)[-800:])
        out[name] = json.loads(r.stdout.strip().splitlines()[-1])["heap_bytes"]
    return out


_IMPORT_HEAP = ("import gc\ngc.collect()\na = gc.mem_alloc()\nimport %s\ngc.collect()\n"
                "print(gc.mem_alloc() - a)")


def native_heap_gap():
    """{module file: heap bytes its bytecode build takes beyond its native build} on the unix
    port, which keeps machine code outside the heap (exec memory): the simulated board's
    heap lacks the native functions entirely, while rp2 loads their code into it."""
    out = {}
    with tempfile.TemporaryDirectory(prefix="ringnative") as tmp:
        for p in sorted((SRC / "lib").glob("*.py")):
            if p.name == "__init__.py" or not has_native(p):
                continue
            heap = {}
            for kind in ("bytecode", "native"):
                d = Path(tmp) / kind
                d.mkdir(exist_ok=True)
                src = d / p.name
                src.write_text(NATIVE_RE.sub("", p.read_text()) if kind == "bytecode"
                               else p.read_text())
                compile_module(src, d / (p.stem + ".mpy"), "lib/" + p.name,
                               () if kind == "bytecode" else ["-march=" + march("sim")])
                src.unlink()
                r = subprocess.run([micropython_binary(), "-c", _IMPORT_HEAP % p.stem],
                                   capture_output=True, text=True, timeout=30,
                                   env=dict(os.environ, MICROPYPATH="%s:.frozen" % d))
                if r.returncode:
                    raise RuntimeError("importing %s failed: %s" % (p.name, r.stdout + r.stderr))
                heap[kind] = int(r.stdout.split()[-1])
            out[p.name] = heap["bytecode"] - heap["native"]
    return out


def pico_heap(res):
    """The Pico's heap peak from the simulated board's (64-bit unix port). The board's bound
    is live + GC_EVERY + PASS_SLACK, and those two are the same bytes on the chip: only live
    scales by HEAP32_RATIO. The Pico's board modules in place of the simulator's
    (board_heaps). Machine code: the unix port keeps it outside the heap, so live is taken
    as if the native modules were bytecode (+ native_heap_gap), and what their ARMv6-M code
    takes beyond that bytecode is added unscaled (rp2 loads it into the heap byte for byte)."""
    peak = res.get("heap_peak_bytes")
    if not peak:
        return {"heap_peak_bytes_32bit_est": None}
    slack = GC_EVERY + PASS_SLACK
    boards = res["board_heap_bytes"]
    gap = sum(res["native_heap_gap_bytes"].values())
    arm = sum(res["native_code_bytes"]["armv6m"].values())
    live64 = peak - slack + boards["pico"] - boards["sim"] + gap
    est = int(live64 * HEAP32_RATIO + arm + slack)
    return {"heap_peak_bytes_32bit_est": est,
            "heap_32bit_est_parts": {
                "sim_peak_64bit": peak, "gc_every_plus_pass_slack": slack,
                "pico_minus_sim_board_64bit": boards["pico"] - boards["sim"],
                "native_as_bytecode_64bit": gap, "armv6m_code_beyond_bytecode": arm,
                "pico_live_64bit": live64,
                "old_method_sim_peak_x_ratio": int(peak * HEAP32_RATIO)}}


def _proc_cpu_ns(pid):
    """On-CPU time of a process (user + system, ns) from /proc/PID/schedstat."""
    with open("/proc/%d/schedstat" % pid) as f:
        return int(f.read().split()[0])


def run(n=30, pulse_us=4000, flash_dir=None, source=False, idle_s=5.0):
    """source=False: build with mpy-cross and run the deployed image (as on a Pico)."""
    refs, hot, factor, ratios = calibrate_and_time()
    res = sim_run(n, pulse_us, flash_dir, source, idle_s)
    rp = rp2040_estimates(hot, factor)
    rp.update(pico_heap(res))
    rp["idle_cpu_share_process"] = round(res["idle_cpu_share_unix"] * factor, 3)
    return {
        "rp2040_est": rp,
        "calibration": {"unix_ms": refs, "rp2040_ms": RP2040_REF_MS,
                        "ratio": {k: round(v, 1) for k, v in ratios.items()},
                        "factor": round(factor, 1)},
        "unix_hot_paths_us": {k: v for k, v in hot.items() if not k.startswith("idle_load")},
        "unix_sim": res,
        "targets_rp2040": {"edge_to_lamp_ms_p99": 1.0, "idle_cpu_share": 0.5,
                           "longest_blocking_write_ms": 1.0,
                           "heap_peak_bytes_32bit_est": 120 * 1024},
        "notes": RP_NOTES,
    }


RP_NOTES = (
    "rp2040_est: unix-port CPU time x factor (calibrated in this run). The link paths run "
    "as on the Pico, with fastlink.py's viper functions (COBS decode in place and encode, "
    "tag compare, the header's u32 reads) and ringlink's @micropython.native ones: machine "
    "code, timed here on x86 and scaled by the same bytecode factor, which overstates it "
    "(machine code is slowed on the chip by the clock and instruction rate, ~30-100x, not by "
    "the interpreter's ~170x; no machine-code time on an RP2040 is known to calibrate "
    "against): an upper bound, not a calibration. So is C (the HMAC's SHA-256, the CRC, "
    "collections) at the same factor. command_to_ack_cpu_ms_bytecode is the pass without "
    "fastlink. command_to_ack_floor_ms_p50 / _p99: the same figures with the pass's "
    "interpreted work taken as zero (what is left: the wake-up, one read and one write on "
    "the link port, command_c_work_ms = the pass's C and machine code: two HMACs, two CRCs, "
    "COBS both ways; the USB frame; the loop wait): the most that moving the rest of the "
    "pass to C could give at this scaling. edge_to_lamp = the "
    "glitch filter's wait (unscaled) + the hard handler's time past it x factor + the chip's "
    "IRQ entry (26 us); a hard IRQ preempts the loop, collections and the link, so nothing "
    "else can delay it. "
    "idle_cpu_share = the sum over periodic passes (rate x cost, one scheduler round each) "
    "and heartbeats, each pass timed hot (best of batches, as the reference loops are); "
    "idle_cpu_share_inloop = the same with the timer and supervisor passes timed inside the "
    "running loop (median; caches cold between passes on this shared machine: an upper "
    "bound for a chip that runs nothing else); idle_cpu_share_process = the simulated board's whole process CPU "
    "(kernel and the unix asyncio loop's poll syscalls included) x factor, an upper bound. "
    "longest_blocking_write_ms: board_pico's link port (usbcdc.LinkCDC) against a USB host "
    "model that stops reading (rp2fake.USBDevice): no write waits, the figure is one write "
    "call's CPU. link_io_ms_per_frame: one readinto or write call on the link port and the "
    "USB task's callback, per frame each way (the link has its own USB-CDC port: no byte-by-"
    "byte I/O). events_per_s: event frames the chip can send per second (framing and I/O "
    "of the frame out and of one ack in); burst_breaks_buffered: beam breaks (two events "
    "each) the event ring holds while the link catches up. "
    "command_to_ack_ms_p50 / _p99: command frame in the chip's USB buffer -> its EV_RESULT "
    "frame (which carries the ack) taken by the host: the USB task's callback, the link "
    "task's wake-up, the link pass (read, deframe, verify, run, answer, seal, COBS, write: "
    "command_to_ack_cpu_ms at its median), then the next USB frame's IN token (0.5 ms "
    "median, 1.0 ms p99); p99 adds the 99th percentile of what the loop may be running "
    "when the command arrives (command_to_ack_loop_wait_ms_p99: timer, supervisor, "
    "heartbeats, collections at their rates and chip times; a collection = the unix one x "
    "factor x 0.7 for the smaller 32-bit heap); no collection runs inside the pass itself "
    "(app.link_service holds them off until the answer is queued). "
    "command_to_ack_line_ms = its USB I/O share (callback, one read, one write). "
    "heap_peak_bytes_32bit_est = the Pico's heap peak: the simulated board's bound (live + "
    "GC_EVERY + PASS_SLACK, 64-bit) with live x %.1f (objects and pointers halve on 32 bits; "
    "buffers do not) and the two slacks unscaled (the same bytes on the chip), the Pico's "
    "board modules in place of the simulator's, machine code at its ARMv6-M size "
    "(the unix port keeps machine code outside its heap: the native modules are counted as "
    "bytecode, plus what their ARMv6-M code takes beyond it; heap_32bit_est_parts)."
    % HEAP32_RATIO)


def sim_run(n, pulse_us, flash_dir, source, idle_s):
    light_dev_us, light_host_ms, frame_ms = [], [], []
    tmp = tempfile.TemporaryDirectory(prefix="ringbench")
    deploy = None
    if not source:
        deploy = os.path.join(tmp.name, "build")
        build(deploy, target="sim")     # machine code for this machine's unix port
    boards = board_heaps(os.path.join(deploy, "lib") if deploy else FW_DIR / "lib")
    native = {a: native_code_bytes(a) for a in ("armv6m", march("sim"))}
    gap = native_heap_gap()
    with tmp, Rig(flash_dir, deploy=deploy) as rig:
        rig.wait_ready(15)
        b = rig.board
        # no settle wait on the mat: the bench times the boundary break, not the spinner
        rig.command(M.CMD_CONFIG_SET, "mat_settle_ms=0")
        for i in range(n):
            t_mat = time.monotonic()
            r = rig.command(M.CMD_ARM)
            if r.b != M.R_OK:
                raise RuntimeError("arm refused: %s" % r.text)
            b.send_sensor("mat 1")
            if b.wait_line("phase in-flight", 3, since=t_mat) is None:
                raise RuntimeError("board did not reach in-flight")
            sector = i % 8
            t0 = time.monotonic()
            b.send_sensor("beam %d pulse %d" % (sector, pulse_us))
            got = b.wait_line("light barred", 3, since=t0)
            barred = rig.wait_event(M.EV_BARRED, 3, since=t0)
            if got is None or barred is None:
                raise RuntimeError("no barred light/event after a boundary break")
            light_dev_us.append(int(got[1].split()[3]))
            DEBUG.append((got[1], (got[0] - t0) * 1000, (barred[0] - t0) * 1000))
            light_host_ms.append((got[0] - t0) * 1000)
            frame_ms.append((barred[0] - t0) * 1000)
            if rig.wait_event(M.EV_BEAM, 3, since=t0, pred=lambda e: e.b > 0) is None:
                raise RuntimeError("beam did not clear after the pulse")
            b.send_sensor("mat 0")
            rig.command(M.CMD_SPIN_DONE)
        # idle: link up, heartbeats both ways, nothing on the sensors
        pid = b.proc.pid
        c0, t0 = _proc_cpu_ns(pid), time.monotonic()
        time.sleep(idle_s)
        idle_share = (_proc_cpu_ns(pid) - c0) / 1e9 / (time.monotonic() - t0)
        t = time.monotonic()
        rig.client.send_cmd(M.CMD_STATUS)
        st = rig.wait_event(M.EV_STATS, 5, since=t)
        heap = rig.wait_event(M.EV_HEAP, 5, since=t)
        stats = dict(kv.split("=", 1) for kv in st[1].text.split() if "=" in kv) if st else {}
        hk = dict(kv.split("=", 1) for kv in heap[1].text.split() if "=" in kv) if heap else {}
        app_peak = int(hk.get("app", -1))
        return {
            "runs": n,
            "idle_cpu_share_unix": round(idle_share, 5),
            "edge_to_light_ms_p99": round(p99(light_dev_us) / 1000, 3),
            "edge_to_light_ms_p50": round(sorted(light_dev_us)[len(light_dev_us) // 2] / 1000, 3),
            "edge_to_light_ms_max": round(max(light_dev_us) / 1000, 3),
            "edge_to_light_host_ms_p99": round(p99(light_host_ms), 3),
            "edge_to_frame_ms_p99": round(p99(frame_ms), 3),
            "edge_to_frame_ms_p50": round(sorted(frame_ms)[len(frame_ms) // 2], 3),
            "loop_us_p99": st[1].a if st else None,
            "loop_us_max": int(stats.get("loop", -1)),
            "link_write_max_us": int(stats.get("w", -1)),
            "irq_resyncs": int(stats.get("rs", -1)),
            "heap_peak_bytes": st[1].b if st else None,
            "app_heap_peak_bytes": app_peak if app_peak >= 0 else None,
            "heap_total_bytes": int(hk["total"]) if "total" in hk else None,
            "heap_ready_bytes": int(hk["ready"]) if "ready" in hk else None,
            "heap_live_bytes": int(hk.get("live", -1)),
            "heap_code_bytes": int(hk.get("base", -1)),
            "heap_data_peak_bytes": (st[1].b - int(hk.get("base", 0))) if st else None,
            "image": "deployed build (.mpy, manifest verified)" if deploy else "sources",
            "heap_free_bytes": heap[1].a if heap else None,
            "boot_modules_left": int(hk.get("boot", -1)),
            "board_heap_bytes": boards,
            "native_code_bytes": native,
            "native_heap_gap_bytes": gap,
            "glitch_us": 300,
            "note": HEAP_NOTE,
            "loadavg_1min": round(os.getloadavg()[0], 2),
            "runtime": "micropython unix port (simulated board); RP2040 figures: rp2040_est",
            "notes": ("edge_to_light = device-measured from the beam IRQ timestamp to the lamp "
                      "outputs, includes the glitch filter; *_host_ms = from the simulator's "
                      "socket write (adds socket + scheduling); edge_to_frame = socket write "
                      "to the EV_BARRED frame decoded by the host over the pty"),
        }


def main(argv=None):
    ap = OneLineParser(prog="ring bench firmware", description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--source", action="store_true",
                    help="run firmware/ sources instead of a fresh mpy-cross build")
    ap.add_argument("-n", type=int, default=100, help="boundary breaks to time (default 30)")
    args = ap.parse_args(argv)
    res = run(n=max(1, args.n), source=args.source)
    if args.json:
        print(json.dumps(res, indent=2))
    else:
        for k, v in res.items():
            print("%-28s %s" % (k, v))
    return 0
