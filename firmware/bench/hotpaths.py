# Firmware hot paths timed under the MicroPython unix port, next to the RP2040 reference loops (issue 18); run by `ring bench firmware`.
# Prints one JSON object. Every figure is microseconds of CPU on this machine; the host divides
# the reference loops' known RP2040 times by the ones measured here (same run) and scales.
# Run: micropython -X heapsize=256K firmware/bench/hotpaths.py  (MICROPYPATH=firmware/lib)
import gc
import sys
import json
import time
import asyncio

import ringlink
import fastlink
import ringmsg as M
import board_sim
import app as APP

KEY = bytes(range(32))


def _median(xs):
    s = sorted(xs)
    return s[len(s) // 2]


def _best(xs):
    """The least disturbed run: on a machine shared with other jobs the scheduler only ever
    adds time, so the minimum is the figure that compares with a chip running nothing else."""
    return min(xs)


def per_call_us(fn, reps=200, batch=10):
    """Best of `reps` batches, microseconds per call (batches beat ticks_us' resolution)."""
    out = []
    for _ in range(reps):
        t = time.ticks_us()
        for _ in range(batch):
            fn()
        out.append(time.ticks_diff(time.ticks_us(), t) / batch)
    return _best(out)


def once_ms(fn, reps=15):
    out = []
    for _ in range(reps):
        gc.collect()
        t = time.ticks_us()
        fn()
        out.append(time.ticks_diff(time.ticks_us(), t) / 1000)
    return _best(out)


# ---- the reference loops (RP2040 125 MHz, MicroPython 1.28: 458 / 30.0 / 238 ms) ----
def ref_loop():
    for i in range(100000):
        pass


def ref_listcomp():
    return [x for x in range(10000)]


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def ref_fib():
    return fib(20)


# ---- a link pair: the board's session and a host session, bytes passed by hand -------------
class Wire:
    def __init__(self):
        self.d2h = []
        self.h2d = bytearray()

    def pump(self, dev, host, now):
        for _ in range(20):
            moved = False
            while True:
                fr = dev.poll(now)
                if fr is None:
                    break
                host.feed(bytes(fr), now)
                moved = True
            while True:
                m = host.recv()
                if m is None:
                    break
                host.ack(m[2])
            while True:
                fr = host.poll(now)
                if fr is None:
                    break
                dev.feed(bytes(fr), now)
                moved = True
            if not moved:
                return


def linked_pair():
    dev = ringlink.Session(KEY, ringlink.ROLE_DEVICE, ring_slots=16,
                           info={"fw": "bench", "image": bytes(8), "boot_id": 7, "reset": 0,
                                 "device_id": "BENCH", "interp": "micropython"})
    host = ringlink.Session(KEY, ringlink.ROLE_HOST, info={"name": "bench"})
    now = time.ticks_ms()
    dev.start(now)
    host.start(now)
    w = Wire()
    w.pump(dev, host, now)
    host.send(ringlink.MT_CMD, M.pack_cmd(M.CMD_STATUS, 1, ""), now)
    w.pump(dev, host, now)
    while dev.recv() is not None:
        pass
    if not (dev.connected and host.connected):
        raise RuntimeError("bench link pair did not connect")
    return dev, host, w


class _WDT:
    def feed(self):
        pass


def _drain(app):
    q = app.events
    while q.peek() is not None:
        q.pop()


def edge_to_lamp_cpu(app, board, reps=200):
    """Beam edge -> lamp outputs through the hard handler (guard.BeamIrq) as the pin IRQ calls
    it, the glitch filter at its configured time: -> (edge -> lamps us, whole handler us).
    The host scales what exceeds glitch_us (the bar's CPU and the filter loop's last turn)."""
    sp = app.spin
    pin = board.beams[3]
    handler = app.irqs[3]
    lamp = []
    whole = []
    for _ in range(reps):
        sp.arm(time.ticks_us(), time.ticks_ms())
        sp._in_flight(time.ticks_us())
        _drain(app)
        pin.level = pin.low ^ 1           # the wire goes to "broken"
        t = time.ticks_us()
        handler(pin)                      # what the hard IRQ runs: filter, lamps, queue
        whole.append(time.ticks_diff(time.ticks_us(), t))
        lamp.append(app.guard.lamp_us)    # handler entry -> lamp outputs written
        if board.lamps[0].level != 1:
            raise RuntimeError("bench edge did not bar")
        pin.level = pin.low
        handler(pin)
        app.process_edges()
        sp.disarm(time.ticks_us())
        _drain(app)
    return _fast_mean(lamp), _fast_mean(whole)


def _garbage(fn):
    """Bytes fn() leaves on the heap (collections off while it runs)."""
    gc.collect()
    gc.disable()
    a = gc.mem_alloc()
    fn()
    d = gc.mem_alloc() - a
    gc.enable()
    return d


def _alloc_volume(op, T=16384, want=8, most=4000):
    """Bytes op() allocates as gc.threshold counts them: every allocation, also what is freed
    again at once (a call whose state is over 11 words gets its frame from the heap and frees
    it on return), so it can be twice the garbage op leaves. Counted from the automatic
    collections a threshold of T bytes makes over repeated calls: T x collections / calls."""
    gc.collect()
    gc.threshold(T)
    gc.collect()
    cols = []
    last = gc.mem_alloc()
    i = 0
    try:
        while len(cols) < want and i < most:
            op()
            a = gc.mem_alloc()
            if a < last:            # a collection ran during this call
                cols.append(i)
            last = a
            i += 1
    finally:
        gc.threshold(-1)
    if len(cols) < 3:
        raise RuntimeError("bench: op allocates too little to count (%d calls)" % i)
    return T * (len(cols) - 1) / (cols[-1] - cols[0])


def _fast_mean(xs):
    """Mean of the faster half: microsecond ticks are too coarse for a minimum of a 2-3 us
    path, and the slower half holds the other jobs' preemptions."""
    s = sorted(xs)[:max(1, len(xs) // 2)]
    return sum(s) / len(s)


def paths(app, board, dev, host, wire):
    r = {}
    r["edge_path"] = "hard"
    r["glitch_us"] = app.guard.glitch_us
    r["edge_to_lamp_us"], r["irq_handler_us"] = edge_to_lamp_cpu(app, board)

    def timer():
        app.adc_once()
        app.tick_once()
    r["timer_pass_us"] = per_call_us(timer)
    r["link_pass_us"] = per_call_us(app.link_service)
    wdt = _WDT()
    r["supervisor_pass_us"] = per_call_us(lambda: app.supervise_once(wdt), reps=20, batch=1)
    r["mem_alloc_us"] = per_call_us(gc.mem_alloc)
    r["gc_collect_us"] = per_call_us(gc.collect, reps=20, batch=1)
    ev = bytearray(M.EVENT_HDR)
    now = time.ticks_ms()

    def send():
        dev.send(ringlink.MT_EVENT, ev, now)
        fr = dev.poll(now)
        wire.d2h.append(bytes(fr))
    per = []
    for _ in range(100):
        t = time.ticks_us()
        send()
        per.append(time.ticks_diff(time.ticks_us(), t))
        for fr in wire.d2h:
            host.feed(fr, now)
        wire.d2h = []
        while True:
            m = host.recv()
            if m is None:
                break
            host.ack(m[2])
        wire.pump(dev, host, now)
    r["frame_send_us"] = _best(per)
    per = []
    for i in range(100):
        host.send(ringlink.MT_CMD, M.pack_cmd(M.CMD_STATUS, i + 2, ""), now)
        fr = bytes(host.poll(now))
        t = time.ticks_us()
        dev.feed(fr, now)
        dev.recv()
        per.append(time.ticks_diff(time.ticks_us(), t))
        wire.pump(dev, host, now)
    r["frame_receive_us"] = _best(per)
    # garbage of one heartbeat each way (an ACK frame received, one sent): what the idle
    # link leaves for the collector
    host._last_ack_tx -= ringlink.HB_MS
    ack = bytes(host.poll(now))
    r["hb_rx_garbage_bytes"] = _garbage(lambda: dev.feed(ack, now))
    dev._last_ack_tx -= ringlink.HB_MS
    r["hb_tx_garbage_bytes"] = _garbage(lambda: dev.poll(now))
    # what they allocate as the collector's threshold counts it (freed call frames too)
    r["hb_rx_alloc_bytes"] = round(_alloc_volume(lambda: dev.feed(ack, now)))

    def hb_tx():
        dev._last_ack_tx -= ringlink.HB_MS
        dev.poll(now)
    r["hb_tx_alloc_bytes"] = round(_alloc_volume(hb_tx))
    wire.pump(dev, host, now)
    r["frame_receive_bytes"] = len(fr)
    per = []
    for _ in range(30):
        d2 = ringlink.Session(KEY, ringlink.ROLE_DEVICE, info=dev.info)
        h2 = ringlink.Session(KEY, ringlink.ROLE_HOST, info={"name": "bench"})
        d2.start(now)
        h2.start(now)
        hello = bytes(h2.poll(now))
        t = time.ticks_us()
        d2.feed(hello, now)
        d2.poll(now)
        per.append(time.ticks_diff(time.ticks_us(), t))
    r["hello_us"] = _best(per)
    r["hello_bytes"] = len(hello)
    pico = pico_board()
    (r["command_to_ack_us"], r["command_to_ack_median_us"], r["command_frame_bytes"],
     r["command_answer_bytes"], r["command_garbage_bytes"],
     r["command_pass_median_us"]) = command_to_ack(app, board, dev, host, wire, pico)
    # the same with ringlink's plain-Python loops (no fastlink): what viper saves
    ringlink.use_codec(*ringlink.PY_CODEC)
    r["command_to_ack_bytecode_us"], r["command_to_ack_bytecode_median_us"] = command_to_ack(
        app, board, dev, host, wire, pico)[:2]
    fastlink.install()
    steps = command_steps(app, board, dev, host, wire, pico)
    r["command_alloc_bytes"] = steps.pop("alloc_bytes")
    r["command_steps_us"] = steps
    r["command_c_work_us"] = c_work(dev._tx)
    r.update(pico_link_io(pico, r["command_frame_bytes"], r["command_answer_bytes"]))
    r["asyncio_wake_us"] = _best([asyncio_wake_us() for _ in range(3)])   # one run can land on a burst of load
    return r


def command_to_ack(app, board, dev, host, wire, pico, reps=50):
    """A host command's frame in the link port's receive slot (its OUT transfer done) -> its
    EV_RESULT frame (which carries the ack) submitted on the IN endpoint: the link pass of
    the firmware through board_pico's USB-CDC port (read, deframe, verify, run, answer,
    seal, encode, write, submit) up to that submit. -> (best us, median us, frame bytes in,
    answer bytes out, garbage bytes per pass, median us of the whole pass). The USB task's
    callback, the task wake-up and the USB frame are added by the host (bench.py)."""
    now = time.ticks_ms()
    lk = pico.link
    usb = lk.usbd
    whole = []          # the whole pass (it goes on after the answer is submitted)
    saved = board.link_read, board.link_write
    board.link_read = pico.link_read
    board.link_write = pico.link_write
    per = []
    junk = []
    sizes = [0, 0]      # the command frame's bytes in, the answer's bytes out
    try:
        for i in range(reps):
            _drain(app)
            wire.pump(dev, host, now)
            host.send(ringlink.MT_CMD, M.pack_cmd(M.CMD_DISARM, 100 + i, ""), now)
            fr = bytes(host.poll(now))
            _usb_in(lk, fr)
            if i % 5 == 4:      # garbage of one pass (collections off while it runs)
                gc.collect()
                gc.disable()
                a = gc.mem_alloc()
                app.link_service()
                junk.append(gc.mem_alloc() - a)
                gc.enable()
            else:
                usb.t_in = None
                t = time.ticks_us()
                app.link_service()
                if usb.t_in is None:
                    raise RuntimeError("the bench command's answer was not submitted")
                per.append(time.ticks_diff(usb.t_in, t))
                whole.append(time.ticks_diff(time.ticks_us(), t))
            out = _usb_out(lk)
            if not out:
                raise RuntimeError("no answer frame to the bench command")
            sizes[0] = len(fr)
            sizes[1] = len(out)
            host.feed(out, now)
            wire.pump(dev, host, now)
    finally:
        board.link_read, board.link_write = saved
    return _best(per), _median(per), sizes[0], sizes[1], _median(junk), _median(whole)


def _sealed_cmds(dev, host, n):
    """n DISARM frames as the host would send them next (in order, each acking what the board
    has sent): sealed beforehand so a timing loop runs nothing else between two frames."""
    seq = host._next
    out = []
    for k in range(n):
        pl = M.pack_cmd(M.CMD_DISARM, 5000 + k, "")
        out.append(ringlink.encode(ringlink.seal(host._tx, ringlink.MT_CMD, 0, seq + k,
                                                 dev._next + k, pl)))
    host._next = host._una = host._snd = seq + n     # those seqs are used
    return out


def command_steps(app, board, dev, host, wire, pico, n=120):
    """The command pass step by step, each timed hot (back to back, the faster half of the
    runs, as the reference loops are timed): -> dict of us per step, and pass_hot: the whole
    link pass on pre-sealed frames back to back. command_to_ack_median_us is the same pass
    with a host's work in between each (caches cold on this machine): the figure scaled."""
    now = time.ticks_ms()
    lk = pico.link
    r = {}
    saved = board.link_read, board.link_write
    board.link_read = pico.link_read
    board.link_write = pico.link_write
    try:
        _drain(app)
        wire.pump(dev, host, now)
        # the whole pass on frames sealed beforehand (each answer taken by the "host" at
        # once); each pass timed alone: a collection between two passes is not the pass's
        per = []
        for _ in range(3):
            for k, fr in enumerate(_sealed_cmds(dev, host, n)):
                if not k % 16:
                    gc.collect()        # the pass holds collections off: keep room for it
                _usb_in(lk, fr)
                t = time.ticks_us()
                app.link_service()
                per.append(time.ticks_diff(time.ticks_us(), t))
                lk.tx_out = lk.tx_in
                lk.tx_busy = 0
        r["pass_hot"] = _fast_mean(per)
        # the pass's allocations as the collector's threshold counts them, the harness's
        # own (the frame into the slot) taken off
        frames = _sealed_cmds(dev, host, 200)
        it = iter(frames)

        def one():
            _usb_in(lk, next(it))
            app.link_service()
            lk.tx_out = lk.tx_in
            lk.tx_busy = 0
        whole = _alloc_volume(one, want=12, most=200)
        host._next = host._una = host._snd = dev._rx_next     # the frames left unsent
        host._rx_next = dev._next - host._rx_off
        host._rx_acked = host._rx_next
        dev._una = dev._snd = dev._next
        it = iter(frames)

        def harness():
            _usb_in(lk, next(it))
            lk.rx_r = lk.rx_w
            lk.rx_off = 0
        r["alloc_bytes"] = round(whole - _alloc_volume(harness, T=2048, want=12, most=200))
        host._rx_next = dev._next - host._rx_off      # the answers went to a "host" that took
        host._rx_acked = host._rx_next                 # them without reading: in step again
        dev._una = dev._snd = dev._next
        # deframe + CRC + verify + session checks, the message queued, recv() and unpack_cmd
        per = []
        for _ in range(3):
            for k, fr in enumerate(_sealed_cmds(dev, host, n)):
                if not k % 16:
                    gc.collect()
                t = time.ticks_us()
                dev.feed(fr, now)
                M.unpack_cmd(dev.recv()[1])
                per.append(time.ticks_diff(time.ticks_us(), t))
        r["deframe_verify_unpack"] = _fast_mean(per)
        dev._rx_acked = dev._rx_next
        r["command"] = _timed_pair(None, lambda: app.command(M.CMD_DISARM, 7, ""),
                                   lambda: _drain(app))
        q = app.events

        def acked():
            dev._una = dev._snd = dev._next

        def to_link():
            dev.send(ringlink.MT_EVENT, q.peek(), now)
            q.pop()
        r["event_to_link"] = _timed_pair(lambda: app.result(7, 0), to_link, acked)

        def queued():
            dev.send(ringlink.MT_EVENT, bytes(M.EVENT_HDR), now)
        dev._last_ack_tx = now          # no heartbeat due: poll sends the event frame
        r["seal_encode"] = _timed_pair(queued, lambda: dev.poll(now), acked)
        host._rx_next = dev._next - host._rx_off
        host._rx_acked = host._rx_next
    finally:
        board.link_read, board.link_write = saved
    # the pair is in step again: a real command goes through and is answered
    host.send(ringlink.MT_CMD, M.pack_cmd(M.CMD_STATUS, 9, ""), now)
    got = dev.frames_rx
    wire.pump(dev, host, now)
    if dev.frames_rx == got or dev.recv() is None:
        raise RuntimeError("bench: the link pair is out of step after command_steps")
    wire.pump(dev, host, now)
    return r


def c_work(kp):
    """The command pass's work that is C or machine code already, what the pass would still
    do were the rest of it (deframing and session logic, the command, the event ring, the
    send logic) in C too: the command frame's COBS decode (fastlink), CRC check and tag
    (HMAC-SHA256 in C, the viper compare), then the answer's tag, CRC and COBS encode. -> us,
    timed hot as the steps are."""
    cmd = ringlink.encode(ringlink.seal(kp, ringlink.MT_CMD, 0, 5, 6,
                                        M.pack_cmd(M.CMD_DISARM, 5000, "")))
    ans = bytearray(ringlink.seal(kp, ringlink.MT_EVENT, 0, 5, 6, bytes(M.EVENT_HDR)))
    amv = memoryview(ans)
    dec = bytearray(ringlink.MAX_ENCODED)
    dmv = memoryview(dec)
    wbuf = bytearray(ringlink.MAX_ENCODED + 2)
    n = len(cmd)
    e = len(ans) - ringlink.TAG_LEN - ringlink.CRC_LEN

    def work():
        k = ringlink._cobs_decode_at(cmd, 1, n - 1, dec)
        fr = dmv[:k]
        if ringlink._crc(fr) != ringlink.CRC_RESIDUE:
            raise RuntimeError("bench: the c_work command frame is corrupt")
        k -= ringlink.TAG_LEN + ringlink.CRC_LEN
        ringlink._tag_ok(ringlink.hmac_sha256(kp, fr[:k]), fr, k)
        ringlink.hmac_sha256(kp, amv[:e])
        ringlink._crc(amv[:e + ringlink.TAG_LEN])
        ringlink._cobs_encode_into(ans, wbuf, 1, len(ans))
    return _timed_pair(None, work)


def _usb_in(lk, data):
    """The host's OUT packets landing in the port's receive slots (the USB hardware's job)."""
    for i in range(0, len(data), 64):
        k = min(64, len(data) - i)
        lk.slot_mv[lk.rx_w % 8][:k] = data[i:i + k]
        lk._xfer(lk.ep_out, 0, k)


def _usb_out(lk):
    """What the host's IN tokens take: every byte queued on the port, in order."""
    out = bytearray()
    while lk.tx_busy:
        s = lk.tx_out % len(lk.tx)
        out += lk.tx[s:s + lk.tx_busy]
        lk._xfer(lk.ep_in, 0, lk.tx_busy)
    return bytes(out)


def asyncio_wake_us(n=2000):
    """One scheduler round of a task that sleeps and wakes (what every timer pass costs)."""
    async def spin():
        t = time.ticks_us()
        for _ in range(n):
            await asyncio.sleep_ms(0)
        return time.ticks_diff(time.ticks_us(), t) / n
    return asyncio.run(spin())


def in_loop_passes(app, seconds=4):
    """The timer and supervisor passes as the running loop makes them (real sleeps, caches
    cold between passes on this shared machine): -> (timer median, supervisor mean) us."""
    timer, sup = [], []

    class W:
        def feed(self):
            pass

    def timed(fn, out):
        def run(*a):
            t = time.ticks_us()
            r = fn(*a)
            out.append(time.ticks_diff(time.ticks_us(), t))
            return r
        return run
    app.timer_once = timed(app.timer_once, timer)
    app.supervise_once = timed(app.supervise_once, sup)
    session = app.session
    app.session = None          # the link's share is modelled apart (link, heartbeats)
    _drain(app)

    async def main():
        asyncio.create_task(app.timer_task())
        asyncio.create_task(app.supervisor(W()))
        await asyncio.sleep_ms(seconds * 1000)
    asyncio.run(main())
    del app.timer_once, app.supervise_once
    app.session = session
    # the supervisor's passes are a mixture (one in COLLECT_EVERY collects): their mean
    return _median(timer), sum(sup) / len(sup)


def idle_model(r, timer_key="timer_pass_us", sup_key="supervisor_pass_us"):
    """CPU us per second at idle (armed or not, no sensor activity, host heartbeats both ways):
    every periodic pass at its rate, plus one scheduler round per pass; the Pico's link bytes
    (one poll per byte each way) on top of framing."""
    w = r["asyncio_wake_us"]
    # idle: no spin on, so the timer runs at adc_period x IDLE_STRIDE (app.timer_task)
    timer_hz = 1000 / (max(1, app_cfg["adc_period_us"] // 1000) * APP.IDLE_STRIDE)
    sup_hz = 1000 // APP.SUPERVISE_MS
    collect = r["gc_collect_us"] + 2 * r["mem_alloc_us"]
    hb = 1000 // ringlink.HB_MS
    # each heartbeat frame through the link port: one read or write call and the USB
    # task's callback (the link task also wakes once per frame received)
    wire = (r["link_read_us"] + r["usb_rx_cb_us"] + r["poll_ioctl_us"] + r["link_write_us"]
            + r["usb_tx_cb_us"])
    load = {
        "timer": timer_hz * (r[timer_key] + w),
        "link": (1000 // APP.LINK_MS) * r["link_pass_us"],
        "supervisor": sup_hz * (r[sup_key] + w) + (
            sup_hz / APP.COLLECT_EVERY * collect if sup_key == "supervisor_pass_us" else 0),
        "heartbeats": hb * (r["frame_send_us"] + r["frame_receive_us"] + wire + w),
    }
    return load


def pico_board():
    """board_pico with its link port configured and opened by the host."""
    import rp2fake
    rp2fake.install()
    import board_pico
    b = board_pico.Board(usbd=rp2fake.StubUSB())
    b.open_link()
    b.link._open(None)
    return b


def pico_link_io(pico, n_in, n_out, frames=40):
    """board_pico's link port (usbcdc.LinkCDC): -> dict of
    tx_block_ms: the longest wait of a write with the host not reading, under the USB host
      model (rp2fake.USBDevice: IN only at 1 ms frames, none while not reading) - the port
      has no code path that waits, so this is what proves it;
    link_read_us / link_write_us: one readinto of an n_in-byte frame / one write of an
      n_out-byte frame (one call each, whatever the size);
    usb_rx_cb_us / usb_tx_cb_us: the USB task's callback when an OUT / IN transfer is done;
    poll_ioctl_us: the port's POLLIN check (asyncio's poll calls it each round)."""
    import rp2fake
    import board_pico
    r = {}
    usb = rp2fake.USBDevice()
    b = board_pico.Board(usbd=usb)
    b.open_link()
    usb.enumerate()
    usb.reading = False
    frame = bytes([0]) + bytes(range(1, n_out - 1)) + bytes([0])
    worst = 0
    for _ in range(frames):
        t = time.ticks_us()
        b.link_write(frame)
        worst = max(worst, time.ticks_diff(time.ticks_us(), t))
        usb.frame()
    if not b.dropped:
        raise RuntimeError("bench: the stalled host model never filled the link port")
    r["tx_block_ms"] = 0        # no write waited: each returned with the frame queued or dropped
    r["tx_worst_write_us"] = worst
    lk = pico.link
    fin = bytes([0]) + bytes(range(1, n_in - 1)) + bytes([0])
    buf = bytearray(256)

    ep_in = lk.ep_in
    ep_out = lk.ep_out
    n = len(fin)

    def rx_free():
        lk.rx_r = lk.rx_w
        lk.rx_off = 0

    def tx_sent():
        lk.tx_out = lk.tx_in
        lk.tx_busy = 0

    def tx_pending():
        lk.tx_in = (lk.tx_out + n_out) % (2 * len(lk.tx))
        lk.tx_busy = n_out
    _fill_slot(lk, fin)
    r["usb_rx_cb_us"] = _timed_pair(rx_free, lambda: lk._xfer(ep_out, 0, n))
    r["link_read_us"] = _timed_pair(lambda: lk._xfer(ep_out, 0, n), lambda: pico.link_read(buf),
                                    rx_free)
    r["link_write_us"] = _timed_pair(None, lambda: pico.link_write(frame), tx_sent)
    r["usb_tx_cb_us"] = _timed_pair(tx_pending, lambda: lk._xfer(ep_in, 0, n_out), tx_sent)
    r["poll_ioctl_us"] = per_call_us(lambda: lk.ioctl(3, 1))
    r["tx_write_call_us"] = r["link_write_us"]
    return r


def _fill_slot(lk, data):
    lk.slot_mv[lk.rx_w % 8][:len(data)] = data


def _nop():
    pass


def _timed_pair(before, fn, after=None, reps=60, batch=20):
    """us per fn() call, with before() and after() around each one: the best batch of
    (before, fn, after) minus the best batch of (before, after) (calls of ~1 us are below
    ticks_us' resolution one at a time)."""
    before = before or _nop
    after = after or _nop

    def run(f):
        best = 1e9
        for _ in range(reps):
            t = time.ticks_us()
            for _ in range(batch):
                before()
                f()
                after()
            d = time.ticks_diff(time.ticks_us(), t)
            if d < best:
                best = d
        return best
    return max(0.0, (run(fn) - run(_nop)) / batch)


app_cfg = {}


def main():
    import os
    # TMPDIR: the bench's own directory (ringctl.board.bench), removed after the run
    root = "%s/ringbench_hot_%d" % (os.getenv("TMPDIR") or "/tmp", time.ticks_us() & 0xFFFFFF)
    try:
        os.mkdir(root)
    except OSError:
        pass
    with open(root + "/key.bin", "wb") as f:
        f.write(KEY)
    res = {}
    if "ref" in sys.argv:
        # the reference loops need a big heap (a 10000-item list on a 64-bit port): own run
        res["ref_loop_ms"] = once_ms(ref_loop)
        res["ref_listcomp_ms"] = once_ms(ref_listcomp)
        res["ref_fib_ms"] = once_ms(ref_fib)
        print(json.dumps(res))
        return

    # the Pico's link code: ringlink with fastlink's machine-code loops (board_pico installs
    # them); timed here as viper on x86 and scaled by the bytecode factor like everything
    # else, an upper bound for machine code (bench.py notes)
    fastlink.install()
    board = board_sim.Board(root=root, link_fd=None, sock_path="")
    sent = []
    board.link_write = lambda data: sent.append(len(data))
    app = APP.App(board)
    app.boot(("unverified", None, []))
    sp = app.spin
    sp.selftest_result(0, time.ticks_us())
    sp.host(True, time.ticks_us())
    dev, host, wire = linked_pair()
    app.session = dev

    app_cfg.update(app.cfg.v)
    res.update(paths(app, board, dev, host, wire))
    res["timer_pass_inloop_us"], res["supervisor_pass_inloop_us"] = in_loop_passes(app)
    res["idle_load_us_per_s"] = idle_model(res)
    res["idle_load_inloop_us_per_s"] = idle_model(res, "timer_pass_inloop_us",
                                                  "supervisor_pass_inloop_us")
    res["timer_period_idle_ms"] = max(1, app_cfg["adc_period_us"] // 1000) * APP.IDLE_STRIDE
    res["link_ms"] = APP.LINK_MS
    res["heap_alloc_bytes"] = gc.mem_alloc()
    import events
    res["event_ring_plain"] = events.RING_BYTES // (M.EVENT_HDR + 1)   # text-less events
    print(json.dumps(res))


main()
