# The ring controller: hard-IRQ bar (guard.py), then asyncio tasks (edge hand-off, one timer, link, supervisor) wired around the board it is given.
# Only board modules touch `machine`; the board object is injected (board_pico / board_sim).
# The bar itself never waits for this loop: guard.py's hard IRQ handlers light it (7.3.1,
# 7.3.2); the loop times everything else and reports. Budget on an RP2040 (~170-210x slower
# than the unix port here): `ring bench firmware` prints each pass scaled to the chip.
import gc
import sys
import time
import asyncio
import micropython
from micropython import const

import ringmsg as M
from ringmsg import R_OK, R_REFUSED, R_INVALID, R_UNKNOWN   # EV_RESULT b codes
import ringlink
from ringlink import MT_CMD, MT_EVENT
from config import Config
from light import Light
from sensors import (EdgeQueue, BeamFilter, Debouncer, Piezo, tdiff, SRC_NOSPIN, SRC_ARM,
                     SRC_MAT, SRC_WALL)
from guard import Guard, BeamIrq, PinIrq, WallIrq
from spin import Spin
from events import Clock, EventQueue
from witness import Witness
import resets

FW_VERSION = "0.5.0"   # 0.5: hard-IRQ bar, one timer task, non-blocking link writes, crash back-off

# supervisor check-in bits: the watchdog is fed only when every task checked in (issue 3)
T_FAST = const(1)
T_TICK = const(2)
T_LINK = const(8)
T_ALL = const(11)
WDT_MS = const(8000)          # RP2040 maximum is ~8.3 s
SUPERVISE_MS = const(500)
LINK_MS = const(20)           # link housekeeping (heartbeats, resends, host silence)
IDLE_STRIDE = const(3)        # no spin on: the timer runs at adc_period_us x this (CPU)
COLLECT_EVERY = const(4)      # supervisions per explicit gc.collect() (every 2 s)
HANG_MS = const(1000)         # no timer pass this long: the lamp watchdog shows FAULT
LINK_SLOTS = const(16)        # ringlink tx ring (each slot 98 bytes + header)
LINK_FRAMES = const(4)        # frames per link-task pass (bounded work per loop pass)
FAST_FRAMES = const(2)        # frames the fast path sends itself (EV_LIGHT, EV_BARRED)
TX_FRAME_ROOM = const(132)    # board tx buffer room one encoded frame needs (129 + delimiters)
SELFTEST_MS = const(300)
# collect after this many bytes allocated. gc.threshold counts every allocation, also call
# frames freed on return: the link (ringlink) allocates ~1.3 / ~1.05 KB per heartbeat
# received / sent on the 64-bit unix port (~0.7x that on the Pico), ~8 KB/s on the chip at
# idle + ~2.2 KB per command pass: ~18.5 KB per 2 s. 10 KB: one automatic collection per 2 s
# besides the supervisor's, 1 collection/s (8 KB made it 1.5/s; each is ~9 ms on the chip,
# the p99 of command -> ack). The heap bound pays the 2 KB (live + GC_EVERY + PASS_SLACK).
# Hard IRQs run during collections; `ring bench firmware` prints collections_per_s.
GC_EVERY = const(10240)
PASS_SLACK = const(4096)      # garbage of one link pass, made with collections held off
                              # (link_service): a command pass ~2.4 KB on the 64-bit port
HIST_N = const(250)           # latency histograms: 10 us buckets up to 2.5 ms (+ overflow)


# Modules only boot needs (the pin map: pins.py; the image check: integrity.py, which main.py
# has dropped already): out of sys.modules once the board and the App are built, so their
# code and tables leave the heap. Nothing imports them after boot (the boards and the App
# import pins only inside their constructors; tests/board/test_boot_modules_gone.py checks).
BOOT_ONLY = ("pins", "integrity")


def forget_boot_modules():
    for name in BOOT_ONLY:
        sys.modules.pop(name, None)


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
        import pins     # boot-only (forget_boot_modules): Config keeps DEFAULTS, not the module
        self.cfg = Config(board.path("config.json"), pins.DEFAULTS).load()
        v = self.cfg.v
        self.wake = board.wake_flag()   # ThreadSafeFlag on the Pico (real IRQs)
        self.edges = EdgeQueue(self.wake)
        self.light = Light(board.lamps, time.ticks_ms, v["light_type"] != "none")
        self.light.on_lamps = board.on_lamps
        self.guard = Guard(self.edges, self.light, v["glitch_us"])
        self.irqs = []          # the hard handlers (bound once; re-registered by the supervisor)
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
        self.heap_peak = 0      # highest heap level (supervisor: before collecting, or live + GC_EVERY + PASS_SLACK)
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
        self.timer_ms = 10      # the timer task's period (adc_period_us, apply_config)
        self.last_link_ms = 0
        self.supervisions = 0
        self.loop_ms = time.ticks_ms()   # last timer pass (the lamp watchdog reads it)
        self.hung = False
        self.beam_miss = 0      # beams whose level disagreed with the filter last supervision
        self.irq_resyncs = 0
        self.crashes = 0        # crash streak before this boot (main.py, resets.py)
        self.t_start = time.ticks_ms()
        self.streak_over = False

    # ---- outputs used by Spin ------------------------------------------------------------
    def emit(self, code, t_us, a=0, b=0, text=None):
        if code == M.EV_PHASE or code == M.EV_BARRED:
            self.guard_sync()
        self.events.put(code, t_us, a, b, text)
        if code == M.EV_PHASE:
            self.board.on_phase(a)

    def guard_sync(self):
        """The hard IRQ bars only while a sensor break would bar here (Spin.beam_break)."""
        sp = self.spin
        self.guard.armed = 1 if (sp.active() and sp.phase != M.PH_AT_REST
                                 and not sp.barred) else 0

    def show(self, state, t_edge_us):
        """Set the light now; measure edge -> outputs when a sensor edge caused it (when the
        hard IRQ already lit it, its own edge -> lamp time is the figure)."""
        if state == self.light.state and t_edge_us is None and not self.light.changed:
            return          # nothing changes: no event, no socket line
        self.light.show(state)
        edge_us = -1
        if t_edge_us is not None:
            g = self.guard
            if g.bar_src >= 0 and g.t_edge == t_edge_us:
                edge_us = g.lamp_us
                g.bar_src = -1
            else:
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
        g = self.guard
        if g.bar_src >= 0 and g.bar_src != SRC_WALL and self.beams.state[g.bar_src] != 2:
            return          # its CONFIRMED edge is still queued (read on the next wake)
        if g.bar_src >= 0:
            # the spin ended between the handler's check and now: the red lamp is not ours
            g.bar_src = -1
            if not self.spin.barred:
                self.light.changed = False
                self.show(self._phase_light(), None)

    def _phase_light(self):
        sp = self.spin
        if sp.phase == M.PH_FAULT:
            return M.LIGHT_FAULT
        if not sp.host_up:
            return M.LIGHT_LINK_LOST
        if sp.phase == M.PH_ARMED:
            return M.LIGHT_ARMED
        if sp.active():
            return M.LIGHT_IN_FLIGHT
        return M.LIGHT_IDLE

    def _button_refused(self):
        if self.spin.refused:
            self.events.put(M.EV_RESULT, None, 0, R_REFUSED, "arm button: " + self.spin.refused)
            self.spin.refused = None

    def _wall_level(self):
        p = self.piezo[2]
        v = self.board.adc[2].read_u16()
        return v - p.floor()

    async def fast_task(self):
        """Edge hand-off: the hard IRQs already barred (guard.py); this reports at once."""
        while True:
            self.alive |= T_FAST
            await self.wake.wait()
            t = time.ticks_us()
            self.process_edges()
            self.pump_link(FAST_FRAMES)    # the bar leaves at once, not at the next poll
            self.h_loop.add(tdiff(time.ticks_us(), t))

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
        # no gc.mem_alloc() here: it walks the whole heap (3-5 ms on an RP2040); the
        # supervisor samples the heap
        if self.events.count or self.session is not None and self.session.unacked:
            self.pump_link(FAST_FRAMES)

    def timer_once(self):
        """One pass of the one timer task: envelopes, timers, light, link housekeeping."""
        t = time.ticks_us()
        self.loop_ms = time.ticks_ms()
        if self.hung:
            # the loop is back after a stall the lamp watchdog covered: no result survives it
            self.hung = False
            self.events.put(M.EV_FAULT, None, self.spin.fault, 0,
                            "loop stalled >= %d ms: lamps showed FAULT" % HANG_MS)
            self.light.changed = False
            self.show(self._phase_light(), None)
        self.adc_once()
        self.tick_once()
        if self.session is None:
            self.alive |= T_LINK
        elif tdiff(self.loop_ms, self.last_link_ms) >= LINK_MS:
            self.last_link_ms = self.loop_ms
            self.alive |= T_LINK
            self.link_service()
        self.h_loop.add(tdiff(time.ticks_us(), t))

    async def timer_task(self):
        """One task for every periodic job (one scheduler round per period, not four). With
        no spin on, a third of the rate: nothing then needs 10 ms (blinks are 125 ms, the bar
        is the IRQs', the envelopes hold a peak ~100 ms), and this pass is most of the chip's
        idle load."""
        if self.session is not None:
            self.session.start(time.ticks_ms())
        while True:
            self.alive |= T_TICK | T_FAST   # fast task waits on IRQs: idle is healthy
            self.timer_once()
            ms = self.timer_ms
            if not (self.spin.active() or self.testing):
                ms *= IDLE_STRIDE
            await asyncio.sleep_ms(ms)

    def lamp_watch(self, _=None):
        """From the board's lamp timer (an IRQ): the loop has not run for HANG_MS -> FAULT
        blinking, so a hang never leaves a result (or an armed lamp) showing until the
        watchdog resets the board. Allocation-free."""
        lt = self.light
        if tdiff(time.ticks_ms(), self.loop_ms) < HANG_MS:
            return
        if not self.hung:
            self.hung = True
            lt.irq_show(M.LIGHT_FAULT)
        lt.tick(False)

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

    # ---- link ----------------------------------------------------------------------------------
    def pump_link(self, limit=1000):
        """Events into the link, frames onto the line (at most `limit` frames: the fast path
        sends the first ones at once and leaves a burst to the timer tasks)."""
        s = self.session
        if s is None:
            return
        now = time.ticks_ms()
        q = self.events
        while q.count:
            if s.send(MT_EVENT, q.peek(), now) < 0:
                break           # link ring full: stays queued (EV_OVERFLOW if ours fills)
            q.pop()
        b = self.board
        b.link_flush()
        while limit > 0 and b.tx_room() >= TX_FRAME_ROOM:
            out = s.poll(now)
            if out is None:
                break
            b.link_write(out)
            limit -= 1

    def link_service(self):
        """Read what the line has, run commands, heartbeat check, flush frames.

        No automatic collection between the frames' arrival and the answers (which carry the
        acks) being queued on the line: a collection (~10 ms on the chip) that the pass's
        garbage would trigger runs at the first allocation after it instead (issue 18). Off
        here, before the pass is called: a big function's call state is itself allocated on
        the heap, which would run a due collection on entry. The heap bound counts the
        pass's garbage (PASS_SLACK)."""
        gc.disable()
        try:
            self._link_pass()
        finally:
            gc.enable()
        p = self.pending_reset
        if p is not None and (self.session.unacked == 0 or
                              tdiff(time.ticks_ms(), p[1]) > 1000):
            self.board.reset(p[0], why=resets.WHY_DELIBERATE)

    def _link_pass(self):
        s = self.session
        now = time.ticks_ms()
        n = self.board.link_read(self.rx)
        if n:
            s.feed(self.rx_mv[:n], now)
        while True:
            m = s.recv()
            if m is None:
                break
            if m[0] == MT_CMD:
                try:
                    code, cid, text = M.unpack_cmd(m[1])
                except ValueError:
                    continue
                self.command(code, cid, text)
        # answers first (they carry the acks); what the checks below report goes out with
        # the next pass (a frame, or the timer's housekeeping within LINK_MS)
        self.pump_link(LINK_FRAMES)
        if s.alarm_news(now):      # forgeries aimed at the board: the host records them
            self.link_event()
        lost = (not s.connected) or s.peer_silent_ms(now) > self.cfg.v["host_timeout_ms"]
        self.spin.host(not lost, time.ticks_us())

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
        self.guard.glitch_us = v["glitch_us"]
        self.timer_ms = max(1, v["adc_period_us"] // 1000)
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
                        "total=%d ready=%d app=%d base=%d live=%d boot=%d" % (
                            free + used, self.heap_ready, app, self.heap_base, self.heap_live,
                            sum(1 for n in BOOT_ONLY if n in sys.modules)))

    def stats_text(self):
        # <= 72 bytes (one frame, events.TEXT_MAX) with 6-digit figures: l99/lmax edge->light
        # us, loop max us, edges lost, glitches, faults, longest link write us, beam IRQ
        # resyncs (the heap's live= and base= are in EV_HEAP)
        return "l99=%d lmax=%d loop=%d lost=%d gl=%d f=%x w=%d rs=%d" % (
            self.h_light.pct(99), self.h_light.max, self.h_loop.max, self.edges.lost,
            self.beams.glitches, self.spin.fault, self.board.tx_max_us(), self.irq_resyncs)

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
        self.clock.update()             # count ticks_us wraps (events.Clock)
        fed = False
        if self.alive & T_ALL == T_ALL:
            wdt.feed()
            self.alive = 0
            fed = True
        self.check_beams()
        # the heap is sampled here, not per pass: gc.mem_alloc() walks the whole heap. Between
        # two samples automatic collections keep garbage under GC_EVERY, so live + GC_EVERY
        # bounds the peak we cannot see
        self.supervisions += 1
        if self.supervisions % COLLECT_EVERY == 0:
            used = gc.mem_alloc()
            gc.collect()
            self.heap_live = gc.mem_alloc()
            if self.heap_live + GC_EVERY + PASS_SLACK > used:
                used = self.heap_live + GC_EVERY + PASS_SLACK
            if used > self.heap_peak:
                self.heap_peak = used
            if used > self.app_peak:
                self.app_peak = used
        self.led_on ^= 1
        self.board.led(self.led_on)
        now = time.ticks_ms()
        if not self.streak_over and tdiff(now, self.t_start) >= resets.HEALTHY_MS:
            self.streak_over = True
            resets.healthy(self.board)
        if tdiff(now, self.last_heap_ms) >= self.cfg.v["heap_report_s"] * 1000:
            self.last_heap_ms = now
            self.heap_event()
        return fed

    def check_beams(self):
        """A hard handler that raises is disabled for good, and a missed edge leaves the
        filter wrong: a beam whose pin disagrees with the filter at two supervisions in a row
        is resynced from its level and its handler registered again (reported)."""
        self.process_edges()
        b = self.board
        st = self.beams.state
        miss = 0
        for s in range(8):
            if b.beam_active(s) != (1 if st[s] else 0):
                miss |= 1 << s
        bad = miss & self.beam_miss
        self.beam_miss = miss & ~bad
        if not bad:
            return
        t = time.ticks_us()
        for s in range(8):
            if bad & (1 << s):
                self.irq_resyncs += 1
                b.irq_beam(s, self.irqs[s])
                self.beams.edge(s, b.beam_active(s), t)
                self.events.put(M.EV_FAULT, t, self.spin.fault, 0,
                                "beam %d IRQ missed an edge: handler re-registered" % s)

    async def supervisor(self, wdt):
        while True:
            await asyncio.sleep_ms(SUPERVISE_MS)
            self.supervise_once(wdt)

    # ---- start-up ---------------------------------------------------------------------------------
    def boot(self, chk=None):
        b = self.board
        b.open_link()           # the Pico's own USB port for the link (usbcdc.py)
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
                        "fw=%s image=%s %s crashes=%d" % (FW_VERSION, st, (img or "")[:16],
                                                          self.crashes))
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
        # IRQs last: everything they hand work to exists now. Bound methods made once: the
        # handlers run as hard IRQs and must not allocate
        q = self.edges
        g = self.guard
        self.irqs = [BeamIrq(g, s, b.beams[s], b.beam_low[s]).irq for s in range(8)]
        for s in range(8):
            b.irq_beam(s, self.irqs[s])
        b.irq_button(0, PinIrq(q, SRC_NOSPIN, b.buttons[0], b.button_low[0]).irq)
        b.irq_button(1, PinIrq(q, SRC_ARM, b.buttons[1], b.button_low[1]).irq)
        b.irq_mat(PinIrq(q, SRC_MAT, b.mat, b.mat_low).irq)
        b.irq_wall(WallIrq(g, SRC_WALL, b.wall_trig, b.wall_low).irq)
        b.lamp_watch(self.lamp_watch)

    def _task_died(self, loop, context):
        # main.py's crash path: logged once per crash streak, counted, reset (resets.py)
        raise context.get("exception")

    async def main(self, chk=None):
        if hasattr(micropython, "alloc_emergency_exception_buf"):   # not on the unix port
            micropython.alloc_emergency_exception_buf(100)
        self.apply_config()
        self.boot(chk)
        forget_boot_modules()
        gc.collect()
        gc.threshold(GC_EVERY)
        self.heap_ready = self.app_peak = gc.mem_alloc()   # play starts: app_peak counts from here
        wdt = self.board.wdt(WDT_MS)
        tasks = [self.fast_task(), self.timer_task()]
        if self.session is not None:
            tasks.append(self.link_rx_task())
        for t in self.board.tasks(self):
            tasks.append(t)
        # a task that dies would print a traceback onto the link (and look like the REPL to
        # the host): log it to flash and reset instead; the host sees the reboot cause
        asyncio.get_event_loop().set_exception_handler(self._task_died)
        for c in tasks:
            asyncio.create_task(c)
        asyncio.create_task(self.selftest())
        await self.supervisor(wdt)


def run(board, chk=None, crashes=0):
    """Entry from main.py (chk = integrity.check result, done before importing us; crashes =
    the crash streak so far). main.py turned Ctrl-C off as its first line (issue 18)."""
    a = App(board)
    a.crashes = crashes
    asyncio.run(a.main(chk))
