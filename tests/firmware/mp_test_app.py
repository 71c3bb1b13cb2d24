# The controller around the phases: watchdog supervision, commands over the link payloads, event overflow, memory reports.
import mptest
import fwrig
import app as APP
import ringmsg as M
import events as EVM


class WDT:
    def __init__(self):
        self.feeds = 0

    def feed(self):
        self.feeds += 1


def rig(name):
    r = fwrig.Rig(name)
    r.ready()
    r.events = []
    return r


def test_watchdog_fed_only_when_every_task_checked_in():
    r = rig("wdt")
    try:
        a = r.app
        w = WDT()
        a.alive = APP.T_ALL
        assert a.supervise_once(w) and w.feeds == 1
        assert a.alive == 0, "check-ins are consumed by a feed"
        a.alive = APP.T_ALL & ~APP.T_LINK         # link housekeeping stuck
        assert not a.supervise_once(w) and w.feeds == 1
        assert not a.supervise_once(w) and w.feeds == 1, "never fed until it checks in"
        a.alive |= APP.T_LINK
        assert a.supervise_once(w) and w.feeds == 2
        assert APP.WDT_MS <= 8300, "RP2040 watchdog maximum is ~8.3 s"
    finally:
        r.restore()


def test_heap_is_sampled_by_the_supervisor_never_per_pass():
    # gc.mem_alloc() walks the whole heap: 3-5 ms on an RP2040, it ran every 2 ms (issue 18)
    import gc as real_gc

    class CountingGC:
        calls = 0

        def mem_alloc(self):
            CountingGC.calls += 1
            return real_gc.mem_alloc()

        def __getattr__(self, name):
            return getattr(real_gc, name)
    r = rig("memalloc")
    try:
        a = r.app
        APP.gc = CountingGC()
        for _ in range(200):
            a.timer_once()
            a.process_edges()
        assert CountingGC.calls == 0, "%d heap walks in 200 passes" % CountingGC.calls
        w = WDT()
        for _ in range(APP.COLLECT_EVERY):
            a.supervise_once(w)
        assert CountingGC.calls == 2 and a.heap_peak > a.heap_live > 0, CountingGC.calls
    finally:
        APP.gc = real_gc
        r.restore()


def test_commands_arm_light_status_and_errors():
    r = rig("cmds")
    try:
        a = r.app
        a.command(M.CMD_ARM, 7, "")
        a.command(M.CMD_ARM, 8, "")
        a.command(M.CMD_LIGHT, 9, "banana")
        a.command(M.CMD_LIGHT, 10, str(M.LIGHT_UNSURE))
        a.command(99, 11, "")
        a.command(M.CMD_STATUS, 12, "")
        a.command(M.CMD_CONFIG_SET, 13, "quiet_ms=900")     # refused: spin in progress
        r.drain()
        res = {e[1]: (e[2], e[3]) for e in r.codes(M.EV_RESULT)}
        assert res[7] == (0, ""), res[7]
        assert res[8][0] == APP.R_REFUSED and "already armed" in res[8][1], res[8]
        assert res[9][0] == APP.R_INVALID and "0..11" in res[9][1], res[9]
        assert res[10][0] == 0 and a.light.state == M.LIGHT_UNSURE
        assert res[11][0] == APP.R_UNKNOWN
        assert res[12][0] == 0
        assert res[13][0] == APP.R_REFUSED and "disarm" in res[13][1]
        st = r.codes(M.EV_STATS)
        assert st and st[0][3].split()[-1].startswith("rs="), st
        heap = r.codes(M.EV_HEAP)
        assert heap and "base=" in heap[0][3] and "live=" in heap[0][3], heap
        # every field survives the one-frame text limit even with 6-digit figures
        a.h_light.add(999999)
        a.h_loop.add(999999)
        a.edges.lost = a.beams.glitches = 9999
        text = a.stats_text()
        assert len(text) <= EVM.TEXT_MAX and text.endswith("rs=%d" % a.irq_resyncs), text
    finally:
        r.restore()


def test_config_get_all_and_set_applies_live():
    r = rig("cfgcmd")
    try:
        a = r.app
        a.command(M.CMD_CONFIG_GET, 1, "")
        a.command(M.CMD_CONFIG_SET, 2, "glitch_us=500")
        a.command(M.CMD_CONFIG_SET, 3, "glitch_us=-1")
        a.command(M.CMD_CONFIG_GET, 4, "nope")
        r.drain()
        cfg = [e[3] for e in r.codes(M.EV_CONFIG)]
        assert "quiet_ms=1000" in cfg and "glitch_us=500" in cfg, cfg
        assert a.beams.glitch_us == 500, "new glitch filter applied without a reboot"
        res = {e[1]: (e[2], e[3]) for e in r.codes(M.EV_RESULT)}
        assert res[3][0] == APP.R_INVALID and "0..700" in res[3][1], res[3]
        assert res[4][0] == APP.R_INVALID and "unknown config key" in res[4][1]
    finally:
        r.restore()


def test_event_overflow_is_reported_never_silent():
    r = rig("ovf")
    try:
        q = r.app.events
        n = EVM.RING_BYTES // (M.EVENT_HDR + 1) + 20     # more than fit
        for i in range(n):
            q.put(M.EV_BEAM, None, i % 8, i)
        assert q.overflow > 0
        lost = q.overflow
        r.drain()
        ovf = r.codes(M.EV_OVERFLOW)
        assert ovf and ovf[0][1] == lost, (ovf, lost)
        ids = []
        while True:      # event ids stay consecutive (the host sees no silent gap)
            ev = q.peek()
            if ev is None:
                break
            ids.append(M.unpack_event(bytes(ev))[1])
            q.pop()
    finally:
        r.restore()


def test_arm_button_refused_while_host_down_reports():
    r = fwrig.Rig("armbtn")
    try:
        r.ready(host=False)
        r.events = []
        r.play([[0, "button", "arm", 1], [50, "button", "arm", 0]], 100)
        assert r.app.spin.phase == M.PH_IDLE
        res = r.codes(M.EV_RESULT)
        assert res and "host link down" in res[0][3], res
    finally:
        r.restore()


def test_event_clock_is_64_bit_across_ticks_wrap():
    r = rig("clock")
    try:
        import struct
        c = r.app.clock
        buf = bytearray(8)
        c.pack(buf, 0)
        t0 = struct.unpack("<q", buf)[0]
        total = 0
        for _ in range(6):                 # 1.5 ticks_us periods, read every quarter period
            r.ft.us += 0x10000000
            total += 0x10000000
            c.update()
        r.ft.us += 5000
        total += 5000
        c.pack(buf, 0)
        assert struct.unpack("<q", buf)[0] - t0 == total, (struct.unpack("<q", buf), total)
        assert total > 0x3FFFFFFF
    finally:
        r.restore()


def test_dead_task_goes_to_mains_crash_path_not_the_link():
    # asyncio would print the traceback onto the link (the host would see a REPL): the
    # handler raises it out of asyncio.run instead, into main.py's crash path (mp_test_boot)
    r = rig("died")
    try:
        try:
            raise ValueError("boom in a task")
        except ValueError as e:
            exc = e
        e = mptest.raises(ValueError, r.app._task_died, None, {"exception": exc})
        assert e is exc
    finally:
        r.restore()


def test_reset_to_repl_command_waits_for_delivery_then_flags():
    r = rig("repl")
    try:
        a = r.app
        a.command(M.CMD_RESET, 5, "repl")
        r.drain()
        res = r.codes(M.EV_RESULT)
        assert res and res[0][1] == 5 and "REPL" in res[0][3], res
        assert a.pending_reset[0] is True
    finally:
        r.restore()


def test_no_mat_fitted_arms_straight_into_flight():
    r = fwrig.Rig("nomat", cfg={"use_mat": 0})
    try:
        r.ready()
        r.events = []
        r.play([[0, "arm"]], 5)
        assert r.phases() == ["armed", "in-flight"], r.phases()
    finally:
        r.restore()


def test_arm_refused_while_a_beam_is_broken():
    r = rig("beamarm")
    try:
        r.play([[0, "beam", 4, 1]], 5)
        r.app.command(M.CMD_ARM, 3, "")
        r.drain()
        res = [e for e in r.codes(M.EV_RESULT) if e[1] == 3][0]
        assert res[2] == APP.R_REFUSED and "7.3.1" in res[3] and "0x10" in res[3], res
        assert r.app.spin.phase == M.PH_IDLE
    finally:
        r.restore()


mptest.main(globals())
