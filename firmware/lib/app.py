# The ring controller: asyncio tasks (fast IRQ hand-off, timers, piezo sampling, link, supervisor) wired around the board it is given.
# Only board modules touch `machine`; the board object is injected (board_pico / board_sim).
import gc
import sys
import time
import asyncio
import micropython
from micropython import const

import ringmsg as M
import ringlink
import pins
from config import Config
from light import Light
from sensors import (EdgeQueue, BeamFilter, Debouncer, Piezo, tdiff, SRC_NOSPIN, SRC_ARM,
                     SRC_MAT, SRC_WALL)
from spin import Spin
from events import Clock, EventQueue
from witness import Witness

FW_VERSION = "0.4.0"   # 0.4: light-ON beams (pins.PINS levels), event byte ring, EV_HEAP text

# supervisor check-in bits: the watchdog is fed only when every task checked in (issue 3)
T_FAST = const(1)
T_TICK = const(2)
T_ADC = const(4)
T_LINK = const(8)
T_ALL = const(15)
WDT_MS = const(8000)          # RP2040 maximum is ~8.3 s
SUPERVISE_MS = const(500)
TICK_MS = const(2)
LINK_MS = const(10)
LINK_SLOTS = const(16)        # ringlink tx ring (each slot 98 bytes + header)
LINK_FRAMES = const(4)        # frames per link-task pass (bounded work per loop pass)
FAST_FRAMES = const(2)        # frames the fast path sends itself (EV_LIGHT, EV_BARRED)
SPIN_WAIT_US = const(2000)    # glitch-filter waits up to this are busy-waited
SELFTEST_MS = const(300)
# collect after this many bytes. The link (ringlink) makes ~1.6 KB of garbage per frame sent
# and ~2.3 KB per frame received on the 64-bit unix port (about half on the Pico): with
# heartbeats both ways every 200 ms that is ~20 KB/s at idle, so 8 KB (was 16 KB) caps the
# garbage at half and adds only ~0.5 collections/s to the supervisor's 2/s.
GC_EVERY = const(8192)
HIST_N = const(250)           # latency histograms: 10 us buckets up to 2.5 ms (+ overflow)

from ringmsg import R_OK, R_REFUSED, R_INVALID, R_UNKNOWN  # noqa: E402  (EV_RESULT b codes)


async def _readable(obj):
    """Wait until obj is readable without reading it (what asyncio's Stream.read does first).
    Uses asyncio's I/O queue directly: there is no public wait-for-readable call."""
    yield asyncio.core._io_queue.queue_read(obj)


class Hist:
    """Preallocated latency histogram (10 us buckets) with p99 and max."""

    def __init__(self):
        from array import array
        self.b = array("I", [0] * (HIST_N + 1))
        self.n = 0
        self.max = 0

    def add(self, us):
        i = us // 10
        if i > HIST_N:
            i = HIST_N
        elif i < 0:
            i = 0
        self.b[i] += 1
        self.n += 1
        if us > self.max:
            self.max = us

    def pct(self, p):
        """p in percent (int). -> upper edge of the bucket holding that quantile, us."""
        if not self.n:
            return -1
        need = (self.n * p + 99) // 100
        acc = 0
        for i in range(HIST_N + 1):
            acc += self.b[i]
            if acc >= need:
                return (i + 1) * 10 if i < HIST_N else self.max
        return self.max


class App:
    def __init__(self, board):
        gc.collect()
        self.heap_base = gc.mem_alloc()   # interpreter + loaded code: the rest is ours
        self.led_on = 0
        self.board = board
        self.clock = Clock()
        self.boot_id = int.from_bytes(board.urandom(4), "little")
        self.events = EventQueue(self.boot_id, self.clock)
        self.cfg = Config(board.path("config.json"), pins.DEFAULTS).load()
        v = self.cfg.v
        self.wake = board.wake_flag()   # ThreadSafeFlag on the Pico (real IRQs)
        self.edges = EdgeQueue(self.wake)
        self.light = Light(board.lamps, time.ticks_ms, v["light_type"] != "none")
        self.light.on_lamps = board.on_lamps
        self.spin = Spin(v, self)
        self.beams = BeamFilter(v["glitch_us"], self._beam_break, self.spin.beam_clear,
                                board.beam_active)
        self.btn = [Debouncer(v["debounce_ms"], True), Debouncer(v["debounce_ms"], True)]
        self.matdb = Debouncer(v["debounce_ms"], False)
        self.piezo = [Piezo(0, v), Piezo(1, v), Piezo(2, v)]   # 2 = wall envelope
        self.wall_loud = False
        self.alive = 0
        self.testing = False
        self.h_light = Hist()
        self.h_loop = Hist()
        self.heap_peak = 0      # highest gc.mem_alloc() seen (sampled every TICK_MS): all of it
        self.heap_live = 0      # after the supervisor's last gc.collect()
        self.heap_ready = 0     # after modules, App, boot and gc.collect(): play starts here
        self.app_peak = 0       # highest gc.mem_alloc() since heap_ready
        self.session = None
        self.rx = bytearray(256)
        self.rx_mv = memoryview(self.rx)   # sliced per read: one view, not two
        self.integrity = "?"
        self.image = None
        self.pending_reset = None
        self.last_heap_ms = 0
        self.witness = Witness(board.path, ringlink.hmac_key)   # the audit log's witness (#16)

    # ---- outputs used by Spin ------------------------------------------------------------
    def emit(self, code, t_us, a=0, b=0, text=None):
        self.events.put(code, t_us, a, b, text)
        if code == M.EV_PHASE:
            self.board.on_phase(a)

    def show(self, state, t_edge_us):
        """Set the light now; measure edge -> outputs when a sensor edge caused it."""
        if state == self.light.state and t_edge_us is None:
            return          # nothing changes: no event, no socket line
        self.light.show(state)
        edge_us = -1
        if t_edge_us is not None:
            edge_us = tdiff(time.ticks_us(), t_edge_us)
            self.h_light.add(edge_us)
        self.light.edge_us = edge_us
        self.light.changed = False
        self.board.on_light(state, self.light.bits, edge_us)
        self.events.put(M.EV_LIGHT, None, state, edge_us)

    # ---- sensor hand-off (fast task) -----------------------------------------------------
    def _beam_break(self, s, t0):
        self.spin.beam_break(s, t0, time.ticks_ms())

    def process_edges(self):
        """Drain the IRQ edge queue: beams through the glitch filter, contacts debounced."""
        q = self.edges
        now_ms = time.ticks_ms()
        while True:
            i = q.pop()
            if i < 0:
                break
            src = q.src[i]
            lvl = q.lvl[i]
            t = q.t[i]
            q.done()
            if src < 8:
                self.beams.edge(src, lvl, t)
            elif src == SRC_WALL:
                if lvl:
                    self.spin.wall(t, self._wall_level())
            elif src == SRC_MAT:
                if self.matdb.update(lvl, now_ms, t):
                    self.spin.mat(self.matdb.stable, t, now_ms)
            else:
                k = src - SRC_NOSPIN
                db = self.btn[k]
                if db.update(lvl, now_ms, t):
                    self.spin.button(M.BTN_NOSPIN if k == 0 else M.BTN_ARM, db.stable, t, now_ms)
                    self._button_refused()
        self.beams.poll(time.ticks_us())

    def _button_refused(self):
        if self.spin.refused:
            self.events.put(M.EV_RESULT, None, 0, R_REFUSED, "arm button: " + self.spin.refused)
            self.spin.refused = None

    def _wall_level(self):
        p = self.piezo[2]
        v = self.board.adc[2].read_u16()
        return v - p.floor()

    async def fast_task(self):
        """IRQ hand-off. loop_us counts its work, not the deliberate glitch-filter wait."""
        while True:
            self.alive |= T_FAST
            await self.wake.wait()
            t = time.ticks_us()
            self.process_edges()
            work = tdiff(time.ticks_us(), t)
            while self.beams.pending:      # glitch filter: re-check until confirmed or gone
                w = self.beams.wait_us(time.ticks_us())
                if w <= SPIN_WAIT_US:
                    # short: hold the loop (IRQs still record edges) so the light is not
                    # late by a whole scheduler round
                    end = time.ticks_add(time.ticks_us(), w + 5)
                    while time.ticks_diff(end, time.ticks_us()) > 0:
                        pass                    # spin, not sleep: an OS sleep oversleeps
                else:
                    await asyncio.sleep_ms(0)
                t = time.ticks_us()
                self.process_edges()
                work += tdiff(time.ticks_us(), t)
                if self.beams.pending and not w:
                    await asyncio.sleep_ms(0)   # pin already clear: let its edge arrive
            t = time.ticks_us()
            self.pump_link(FAST_FRAMES)    # the bar leaves at once, not at the next poll
            self.h_loop.add(work + tdiff(time.ticks_us(), t))

    # ---- timers ------------------------------------------------------------------------------
    def tick_once(self):
        """Timers: contact settle times, glitch confirmations, spin timers, light blinking."""
        b = self.board
        t = time.ticks_us()
        now = time.ticks_ms()
        # contacts: resolve settle time and any edge an IRQ missed
        for k in range(2):
            db = self.btn[k]
            if db.update(b.button_active(k), now, t):
                self.spin.button(M.BTN_NOSPIN if k == 0 else M.BTN_ARM, db.stable, t, now)
                self._button_refused()
        if self.matdb.update(b.mat_active(), now, t):
            self.spin.mat(self.matdb.stable, t, now)
        if self.beams.pending:
            self.beams.poll(t)
        quiet = self.piezo[0].last_loud
        if tdiff(self.piezo[1].last_loud, quiet) > 0:
            quiet = self.piezo[1].last_loud
        self.spin.tick(now, quiet, t)
        self.light.tick()
        used = gc.mem_alloc()
        if used > self.heap_peak:
            self.heap_peak = used
        if used > self.app_peak:
            self.app_peak = used
        if self.events.count or self.session is not None and self.session.unacked:
            self.pump_link(FAST_FRAMES)
        self.h_loop.add(tdiff(time.ticks_us(), t))

    async def tick_task(self):
        while True:
            self.alive |= T_TICK | T_FAST   # fast task waits on IRQs: idle is healthy
            self.tick_once()
            await asyncio.sleep_ms(TICK_MS)

    def adc_once(self):
        """One sample of each envelope: impacts (LANDED), quiet tracking, wall backup path."""
        adc = self.board.adc
        now = time.ticks_ms()
        t = time.ticks_us()
        for ch in range(2):
            lvl = self.piezo[ch].sample(adc[ch].read_u16(), now)
            if lvl >= 0:
                self.spin.impact(ch, lvl, t, now)
        # the wall envelope backs up the comparator IRQ (7.3.2)
        w = self.piezo[2]
        v = adc[2].read_u16()
        w.sample(v, now)
        lvl = v - w.floor()
        if lvl >= self.cfg.v["wall_threshold"]:
            if not self.wall_loud:
                self.wall_loud = True
                self.spin.wall(t, lvl)
        elif lvl < self.cfg.v["rest_threshold"]:
            self.wall_loud = False

    async def adc_task(self):
        while True:
            self.alive |= T_ADC
            t = time.ticks_us()
            self.adc_once()
            self.h_loop.add(tdiff(time.ticks_us(), t))
            period = self.cfg.v["adc_period_us"] // 1000
            await asyncio.sleep_ms(period if period > 1 else 1)

    # ---- link ----------------------------------------------------------------------------------
    def pump_link(self, limit=1000):
        """Events into the link, frames onto the line (at most `limit` frames: the fast path
        sends the first ones at once and leaves a burst to the timer tasks)."""
        s = self.session
        if s is None:
            return
        now = time.ticks_ms()
        q = self.events
        while True:
            ev = q.peek()
            if ev is None:
                break
            if s.send(ringlink.MT_EVENT, ev, now) < 0:
                break           # link ring full: stays queued (EV_OVERFLOW if ours fills)
            q.pop()
        while limit > 0:
            out = s.poll(now)
            if out is None:
                break
            self.board.link_write(out)
            limit -= 1

    def link_service(self):
        """Read what the line has, run commands, heartbeat check, flush frames."""
        s = self.session
        now = time.ticks_ms()
        n = self.board.link_read(self.rx)
        if n:
            s.feed(self.rx_mv[:n], now)
        while True:
            m = s.recv()
            if m is None:
                break
            if m[0] == ringlink.MT_CMD:
                try:
                    code, cid, text = M.unpack_cmd(m[1])
                except ValueError:
                    continue
                self.command(code, cid, text)
        if s.alarm_news(now):      # forgeries aimed at the board: the host records them
            self.link_event()
        lost = (not s.connected) or s.peer_silent_ms(now) > self.cfg.v["host_timeout_ms"]
        self.spin.host(not lost, time.ticks_us())
        self.pump_link(LINK_FRAMES)
        if self.pending_reset is not None and (s.unacked == 0 or
                                               tdiff(now, self.pending_reset[1]) > 1000):
            self.board.reset(self.pending_reset[0])

    async def link_rx_task(self):
        """Sleeps until the line is readable (no polling), then serves it at once.

        Never a blocking read here: the timer task may already have drained the bytes the
        poller saw, and a blocking read(1) would then freeze every task until the host's next
        frame (~200 ms heartbeat; seen as 200 ms edge->light outliers before this)."""
        rx = self.board.rx
        while True:
            await _readable(rx)
            t = time.ticks_us()
            self.link_service()
            self.h_loop.add(tdiff(time.ticks_us(), t))

    async def link_timer_task(self):
        """Heartbeats, retransmissions, host-silence detection even when nothing arrives."""
        self.session.start(time.ticks_ms())
        while True:
            self.alive |= T_LINK
            t = time.ticks_us()
            self.link_service()
            self.h_loop.add(tdiff(time.ticks_us(), t))
            await asyncio.sleep_ms(LINK_MS)

    # ---- commands (host -> device) -------------------------------------------------------------
    def result(self, cid, code, text=None):
        self.events.put(M.EV_RESULT, None, cid, code, text)

    def command(self, code, cid, text):
        sp = self.spin
        t = time.ticks_us()
        if code == M.CMD_ARM:
            if self.testing and not sp.fault & M.FAULT_INTEGRITY:
                err = "self-test running; arm again when it has passed"
            else:
                err = sp.arm(t, time.ticks_ms())
            self.result(cid, R_REFUSED if err else R_OK, err)
        elif code == M.CMD_DISARM:
            sp.disarm(t)
            self.result(cid, R_OK)
        elif code == M.CMD_SPIN_DONE:
            err = sp.spin_done(t)
            self.result(cid, R_REFUSED if err else R_OK, err)
        elif code == M.CMD_LIGHT:
            try:
                state = int(text)
                if not 0 <= state < len(M.LIGHT_NAMES):
                    raise ValueError
            except ValueError:
                self.result(cid, R_INVALID, "light must be 0..%d (ringmsg.LIGHT_*), got %r"
                            % (len(M.LIGHT_NAMES) - 1, text))
                return
            if sp.phase == M.PH_FAULT:
                self.result(cid, R_REFUSED, "fault light stays until the fault is cleared")
                return
            self.show(state, None)
            self.result(cid, R_OK)
        elif code == M.CMD_SELFTEST:
            if self.testing:
                self.result(cid, R_REFUSED, "self-test already running")
                return
            asyncio.create_task(self.selftest())
            self.result(cid, R_OK)
        elif code == M.CMD_CONFIG_GET:
            keys = [text] if text else sorted(self.cfg.v)
            for k in keys:
                try:
                    self.events.put(M.EV_CONFIG, None, 0, 0, self.cfg.get_text(k))
                except ValueError as e:
                    self.result(cid, R_INVALID, str(e))
                    return
            self.result(cid, R_OK)
        elif code == M.CMD_CONFIG_SET:
            if sp.active():
                self.result(cid, R_REFUSED, "cannot change config during a spin; disarm first")
                return
            try:
                kv = self.cfg.set_text(text)
            except ValueError as e:
                self.result(cid, R_INVALID, str(e))
                return
            except OSError as e:
                self.result(cid, R_REFUSED, "could not save config.json: %s" % e)
                return
            self.apply_config()
            self.events.put(M.EV_CONFIG, None, 0, 0, kv)
            self.result(cid, R_OK)
        elif code == M.CMD_RESET:
            self.result(cid, R_OK, "resetting" + (" to the REPL" if text == "repl" else ""))
            self.pending_reset = (text == "repl", time.ticks_ms())
        elif code == M.CMD_STATUS:
            self.status()
            self.result(cid, R_OK)
        elif code == M.CMD_WITNESS or code == M.CMD_WITNESS_HEAD:
            r = self.witness.command(code, text, sp.active())   # no EV_RESULT: it too would be a record
            if r is not None:
                self.events.put(M.EV_WITNESS, None, r[1], r[0], r[2])
        else:
            self.result(cid, R_UNKNOWN, "unknown command %d" % code)

    def apply_config(self):
        v = self.cfg.v
        self.beams.glitch_us = v["glitch_us"]
        for db in self.btn:
            db.ms = v["debounce_ms"]
        self.matdb.ms = v["debounce_ms"]
        self.light.enabled = v["light_type"] != "none"

    def status(self):
        sp = self.spin
        self.events.put(M.EV_PHASE, None, sp.phase, sp.phase)
        self.heap_event()
        self.events.put(M.EV_MAT, None, sp.mat_on, 0)
        self.events.put(M.EV_STATS, None, self.h_loop.pct(99), self.heap_peak, self.stats_text())
        self.link_event()

    def link_event(self):
        s = self.session
        if s is not None:
            self.events.put(M.EV_LINK, None, s.alarms, s.key_errors, s.report_text())

    def heap_event(self):
        """EV_HEAP a = free, b = peak used since start; text: the heap's size, the level when
        play started (ready) and the peak above it (app), so the app's own use is separate
        from the interpreter and the loaded code."""
        free = gc.mem_free()
        used = gc.mem_alloc()
        app = self.app_peak - self.heap_ready if self.heap_ready else -1
        self.events.put(M.EV_HEAP, None, free, self.heap_peak,
                        "total=%d ready=%d app=%d base=%d live=%d" % (
                            free + used, self.heap_ready, app, self.heap_base, self.heap_live))

    def stats_text(self):
        # <= 72 bytes (one frame): l99/lmax edge->light us, loop max us, live heap, edges lost
        return "l99=%d lmax=%d loop=%d live=%d base=%d lost=%d gl=%d f=%x" % (
            self.h_light.pct(99), self.h_light.max, self.h_loop.max, self.heap_live,
            self.heap_base, self.edges.lost, self.beams.glitches, self.spin.fault)

    # ---- self-test -------------------------------------------------------------------------------
    def selftest_begin(self):
        self.testing = True
        if self.spin.active():
            self.spin.disarm(time.ticks_us())
        self.show(M.LIGHT_SELFTEST, None)
        for p in self.piezo:
            p.stats_reset()
            p.collect = True
        self.st_beam = bytearray(8)
        self.st_btn = bytearray(2)
        self.st_n = 0

    def selftest_sample(self):
        b = self.board
        for s in range(8):
            self.st_beam[s] += b.beam_active(s)
        for k in range(2):
            self.st_btn[k] += b.button_active(k)
        self.st_n += 1

    def selftest_end(self):
        """-> FAULT_* mask (0 = pass); reports EV_SELFTEST (+ EV_FAULT) and sets the phase."""
        v = self.cfg.v
        sp = self.spin
        n = self.st_n
        for p in self.piezo:
            p.collect = False
        mask = 0
        why = []
        for s in range(8):
            if n and self.st_beam[s] == n:
                mask |= 1 << s
        if mask:
            why.append("beams 0x%02x broken at idle (blocked/misaligned)" % mask)
        for ch in range(3):
            p = self.piezo[ch]
            mean = p.sum // p.n if p.n else 0
            if p.n == 0 or mean < v["noise_floor_min"] or p.vmin >= 65000:
                mask |= (1 << (8 + ch)) if ch < 2 else M.FAULT_WALL
                why.append("%s no noise floor (%d): unplugged?" % (
                    "wall" if ch == 2 else "piezo%d" % ch, mean))
        for k in range(2):
            if n and self.st_btn[k] == n:
                mask |= 1 << (12 + k)
                why.append("%s button stuck" % ("no-spin" if k == 0 else "arm"))
        text = "; ".join(why) if why else "pass"
        t = time.ticks_us()
        self.events.put(M.EV_SELFTEST, t, 1 if mask else 0, mask, text)
        self.testing = False
        if mask:
            sp.selftest_result(mask, t)
            self.events.put(M.EV_FAULT, t, sp.fault, 0, text)
        elif not sp.selftest_result(0, t):
            self.events.put(M.EV_FAULT, t, sp.fault, 0, "locked: integrity " + self.integrity)
        return mask

    async def selftest(self):
        """Beams broken at idle, piezo/wall without a noise floor, stuck buttons (issue 3)."""
        self.selftest_begin()
        for _ in range(SELFTEST_MS // 10):
            self.selftest_sample()
            await asyncio.sleep_ms(10)
        return self.selftest_end()

    # ---- supervisor -------------------------------------------------------------------------------
    def supervise_once(self, wdt):
        """Feed the watchdog only if every task checked in since the last feed (issue 3).
        A task stuck in a loop stops checking in: no feed, and the WDT resets the board."""
        self.clock.now()                # keep the 64-bit clock extended
        fed = False
        if self.alive & T_ALL == T_ALL:
            wdt.feed()
            self.alive = 0
            fed = True
        gc.collect()
        self.heap_live = gc.mem_alloc()
        self.led_on ^= 1
        self.board.led(self.led_on)
        now = time.ticks_ms()
        if tdiff(now, self.last_heap_ms) >= self.cfg.v["heap_report_s"] * 1000:
            self.last_heap_ms = now
            self.heap_event()
        return fed

    async def supervisor(self, wdt):
        while True:
            await asyncio.sleep_ms(SUPERVISE_MS)
            self.supervise_once(wdt)

    # ---- start-up ---------------------------------------------------------------------------------
    def boot(self, chk=None):
        b = self.board
        t = time.ticks_us()
        if chk is None:
            import integrity      # main.py has run it already; only tests come here
            chk = integrity.check(b.root)
        st, img, problems = chk
        if st == "unverified" and not b.dev:
            st = "mismatch"     # a production board must carry its manifest
        self.integrity = st
        self.image = bytes(8) if img is None else bytes(int(img[i:i + 2], 16) for i in range(0, 16, 2))
        self.events.put(M.EV_BOOT, t, b.reset_cause(), gc.mem_free(),
                        "fw=%s image=%s %s" % (FW_VERSION, st, (img or "")[:16]))
        for e in self.cfg.errors:
            self.events.put(M.EV_FAULT, t, 0, 0, "config: " + e)
        if st == "mismatch":
            self.spin.set_fault(M.FAULT_INTEGRITY, "integrity: " + ", ".join(problems), t)
        else:
            self.spin.out.show(M.LIGHT_OFF, None)
        key = b.read_key()
        if key is None:
            self.spin.set_fault(0, "no key.bin: run 'ring device provision'", t)
        else:
            # 16 link slots = 2x the window of 8 frames in flight; events waiting beyond
            # that stay packed in our own ring (events.py), which is denser
            self.session = ringlink.Session(key, ringlink.ROLE_DEVICE, ring_slots=LINK_SLOTS,
                                            info={
                "fw": FW_VERSION, "image": self.image, "boot_id": self.boot_id,
                "reset": b.reset_cause(), "device_id": b.unique_id(),
                "interp": "%s %s %s" % (sys.implementation.name,
                                        ".".join(str(x) for x in sys.implementation.version[:3]),
                                        b.name)})
        # IRQs last: everything they hand work to exists now
        q = self.edges
        for s in range(8):
            b.irq_beam(s, q.handler(s, b.beams[s], b.beam_low[s]))
        b.irq_button(0, q.handler(SRC_NOSPIN, b.buttons[0], b.button_low[0]))
        b.irq_button(1, q.handler(SRC_ARM, b.buttons[1], b.button_low[1]))
        b.irq_mat(q.handler(SRC_MAT, b.mat, b.mat_low))
        b.irq_wall(q.handler(SRC_WALL, b.wall_trig, b.wall_low))

    def _task_died(self, loop, context):
        _task_died_log(self.board, context.get("exception"))
        self.board.reset()

    async def main(self, chk=None):
        if hasattr(micropython, "alloc_emergency_exception_buf"):   # not on the unix port
            micropython.alloc_emergency_exception_buf(100)
        self.boot(chk)
        gc.collect()
        gc.threshold(GC_EVERY)
        self.heap_ready = self.app_peak = gc.mem_alloc()   # play starts: app_peak counts from here
        wdt = self.board.wdt(WDT_MS)
        tasks = [self.fast_task(), self.tick_task(), self.adc_task(), self.supervisor(wdt)]
        if self.session is not None:
            tasks.append(self.link_timer_task())
            tasks.append(self.link_rx_task())
        else:
            self.alive |= T_LINK
        for t in self.board.tasks(self):
            tasks.append(t)
        # a task that dies would print a traceback onto the link (and look like the REPL to
        # the host): log it to flash and reset instead; the host sees the reboot cause
        asyncio.get_event_loop().set_exception_handler(self._task_died)
        for c in tasks:
            asyncio.create_task(c)
        await self.selftest()
        while True:
            if self.session is None:
                self.alive |= T_LINK
            await asyncio.sleep_ms(200)


def _task_died_log(board, exc):
    try:
        with open(board.path("crash.txt"), "w") as f:
            sys.print_exception(exc, f)
    except Exception:
        pass


def run(board, chk=None):
    """Entry from main.py (chk = integrity.check result, done before importing us).
    Binary link data must never raise KeyboardInterrupt (issue 3): Ctrl-C is off from here."""
    micropython.kbd_intr(-1)
    asyncio.run(App(board).main(chk))
