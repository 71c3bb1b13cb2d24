# The bar decided outside the loop (guard.py): hard handlers allocate nothing, light BARRED themselves while armed, glitches stay glitches; the supervisor's beam cross-check; the lamp watchdog.
import time
import micropython
import mptest
import fwrig
import guard
import sensors
import light as L
import ringmsg as M
from board_sim import SimPin


def _locked(fn, arg):
    """-> True if fn(arg) ran with the heap locked (what a hard IRQ allows). A plain
    one-argument call, as the IRQ makes it (a *args call allocates by itself)."""
    micropython.heap_lock()
    try:
        fn(arg)
        return True
    except MemoryError:
        return False
    finally:
        micropython.heap_unlock()


def test_handler_shape_closure_cells_allocate_bound_methods_do_not():
    # why the handlers are bound methods: a closure with 5 cells + 1 argument builds its
    # argument array on the heap (MemoryError in a hard IRQ); 4 cells is the limit
    a = b = c = d = e = 1

    def four(p):
        return a + b + c + d

    def five(p):
        return a + b + c + d + e
    assert _locked(four, 0)
    assert not _locked(five, 0), "closure call with 6 slots allocates"
    q = sensors.EdgeQueue(None)
    g = guard.Guard(q, L.Light([SimPin("L%d" % i, 0) for i in range(4)], time.ticks_ms), 300)
    pin = SimPin("BEAM0", 0)
    assert _locked(guard.BeamIrq(g, 0, pin, 0).irq, pin)
    assert _locked(guard.PinIrq(q, 8, pin, 0).irq, pin)
    assert _locked(guard.WallIrq(g, 11, pin, 0).irq, pin)


def _in_flight(name, **cfg):
    r = fwrig.Rig(name, cfg=dict({"use_mat": 0}, **cfg))
    r.ready()
    r.play([[0, "arm"]], 2)
    assert r.app.spin.phase == M.PH_IN_FLIGHT
    assert r.app.guard.armed == 1, "the guard is armed with the spin"
    r.events = []
    r.lights = []
    return r


def test_armed_break_lights_barred_inside_the_handler_with_the_heap_locked():
    # a soft IRQ only queues the edge: the lamp waits for the loop (collections, the link,
    # a long C call). The hard handler sets the lamps itself; nothing here may allocate.
    r = _in_flight("guardbar")
    try:
        b = r.board
        lamps = b.lamps
        micropython.heap_lock()
        try:
            b.beams[5].set_active(1)          # the pin IRQ: glitch filter + bar in the handler
            red, amber, buzz = lamps[0].level, lamps[1].level, lamps[3].level
        finally:
            micropython.heap_unlock()
        assert (red, amber, buzz) == (1, 0, 1), "lamps red + buzzer before the loop ran"
        g = r.app.guard
        assert g.armed == 0 and g.bar_src == 5 and g.bars == 1
        assert 300 <= g.lamp_us < 400, g.lamp_us     # the glitch filter (virtual us)
        r.step_ms(2)                                  # the loop reports it
        bars = r.codes(M.EV_BARRED)
        assert bars and bars[0][1] == M.BAR_BEAM and bars[0][2] == 5, bars
        assert r.app.spin.barred == M.BAR_BEAM
        lit = [e for s, e in r.lights if s == M.LIGHT_BARRED]
        assert lit == [g.lamp_us], (r.lights, g.lamp_us)
        assert g.bar_src == -1, "taken by the report"
    finally:
        r.restore()


def test_armed_glitch_is_timed_in_the_handler_and_never_bars():
    r = _in_flight("guardgl")
    try:
        r.apply([0, "glitch", 2, 120])               # 120 us < glitch_us 300
        r.step_ms(3)
        assert r.board.lamps[0].level == 0, "no red for a glitch"
        assert r.app.spin.barred == 0 and not r.codes(M.EV_BARRED)
        assert r.app.guard.glitches == 1 and r.app.beams.glitches == 1
        assert r.app.guard.armed == 1, "still armed after a glitch"
        r.apply([0, "glitch", 2, 450])               # long enough: a coin
        r.step_ms(3)
        assert r.board.lamps[0].level == 1 and r.codes(M.EV_BARRED)
    finally:
        r.restore()


def test_break_at_rest_or_idle_does_not_bar_from_the_handler():
    r = fwrig.Rig("guardidle", cfg={"use_mat": 0})
    try:
        r.ready()
        assert r.app.guard.armed == 0
        r.board.beams[1].set_active(1)
        assert r.board.lamps[0].level == 0
        r.step_ms(5)
        assert not r.codes(M.EV_BARRED) and r.codes(M.EV_BEAM)
    finally:
        r.restore()


def test_wall_strike_while_armed_bars_in_the_handler():
    r = _in_flight("guardwall")
    try:
        b = r.board
        b.adc[2].peak = 30000
        b.wall_trig.set_active(1)
        assert b.lamps[0].level == 1
        b.wall_trig.set_active(0)
        r.step_ms(2)
        bars = r.codes(M.EV_BARRED)
        assert bars and bars[0][1] == M.BAR_WALL, bars
    finally:
        r.restore()


def test_supervisor_resyncs_a_beam_whose_handler_died():
    # a hard handler that raises is disabled for good: the beam's edges stop arriving
    r = fwrig.Rig("resync", cfg={"use_mat": 0})
    try:
        r.ready()
        a = r.app
        pin = r.board.beams[6]
        pin.handler = None                    # the IRQ is gone
        pin.set_active(1)                     # a bag on the boundary: nobody hears it
        r.step_ms(5)
        assert a.beams.state[6] == 0

        class W:
            def feed(self):
                pass
        a.supervise_once(W())
        assert a.irq_resyncs == 0, "one disagreement may be an edge in flight"
        a.supervise_once(W())
        assert a.irq_resyncs == 1 and pin.handler is not None, "handler registered again"
        r.step_ms(5)
        assert a.beams.state[6] == 2 and a.spin.broken & (1 << 6)
        r.drain()
        assert [e for e in r.codes(M.EV_FAULT) if "beam 6 IRQ" in e[3]], r.events
    finally:
        r.restore()


def test_lamp_watchdog_takes_a_result_off_when_the_loop_hangs():
    r = fwrig.Rig("hang")
    try:
        r.ready()
        a = r.app
        a.command(M.CMD_LIGHT, 3, str(M.LIGHT_HEADS))
        assert a.light.state == M.LIGHT_HEADS and r.board.lamps[2].level == 1
        r.ft.us += 400000                     # the loop is stuck, the lamp timer still runs
        assert _locked(a.lamp_watch, None)
        assert a.light.state == M.LIGHT_HEADS, "a short stall changes nothing"
        r.ft.us += 700000
        assert _locked(a.lamp_watch, None)
        lamps = [p.level for p in r.board.lamps]
        assert lamps[2] == 0 and lamps[0] == 1, "result off, fault red on: %r" % lamps
        r.ft.us += 130000
        a.lamp_watch(None)
        assert r.board.lamps[0].level == 0, "red blinks from the timer alone"
        r.events = []
        a.timer_once()                        # the loop comes back
        r.drain()
        assert [e for e in r.codes(M.EV_FAULT) if "stalled" in e[3]]
        assert a.light.state == M.LIGHT_IDLE, "back to the phase's light, not the old result"
    finally:
        r.restore()


mptest.main(globals())
