# Fail-safe wiring: the real board module (board_pico) on fake wires (machine.PinBase): a cut beam cable reads "broken" (light-ON, 7.3.1), a cut mat cable reads "off the mat" (7.3.3).
# The fake `machine` models each input as an open-collector line: the sensor either sinks it
# LOW or lets go, and then the pull-up decides, exactly as a cut cable or dead receiver would.
import sys
import machine as _real_machine
import mptest
import rp2fake

_wires = {}


class WirePin(_real_machine.PinBase):
    IN = 0
    OUT = 1
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, n, mode=-1, pull=None, value=None):
        super().__init__()
        self.n = n
        self.mode = mode
        self.pull = pull
        self.sinking = False        # sensor output transistor on (pulls LOW)
        self.out = value or 0
        self.handler = None
        self.trigger = 0
        _wires[n] = self

    def value(self, v=None):
        if v is not None:
            self.out = 1 if v else 0
            return None
        if self.mode == WirePin.OUT:
            return self.out
        if self.sinking:
            return 0
        return 1 if self.pull == WirePin.PULL_UP else 0   # released / cut: the pull decides

    def irq(self, handler=None, trigger=0, hard=False):
        self.handler = handler
        self.trigger = trigger
        self.hard = hard

    def _drive(self, sinking):
        before = self.value()
        self.sinking = sinking
        after = self.value()
        h = self.handler
        if h is not None and after != before and \
                self.trigger & (WirePin.IRQ_RISING if after else WirePin.IRQ_FALLING):
            h(self)

    def sink(self):
        self._drive(True)

    def release(self):            # open collector off, or the cable is cut: same wire level
        self._drive(False)


class FakeADC:
    def __init__(self, pin):
        self.v = 1200

    def read_u16(self):
        self.v = 1240 if self.v == 1200 else 1200     # a live noise floor
        return self.v


class FakeMachine:
    Pin = WirePin
    ADC = FakeADC
    USBDevice = rp2fake.USBDevice     # the link's own CDC port (usbcdc.py)
    PinBase = _real_machine.PinBase
    PWRON_RESET = 1
    WDT_RESET = 3

    @staticmethod
    def reset_cause():
        return 1

    @staticmethod
    def unique_id():
        return b"\x01\x02\x03\x04\x05\x06\x07\x08"

    @staticmethod
    def reset():
        raise AssertionError("the board reset")

    class WDT:
        def __init__(self, timeout):
            self.timeout = timeout

        def feed(self):
            pass

    class Timer:
        PERIODIC = 1

        def __init__(self, **kw):
            self.kw = kw


sys.modules["machine"] = FakeMachine
import pins             # noqa: E402
import board_pico       # noqa: E402
import ringmsg as M     # noqa: E402
import fwrig            # noqa: E402


def beam(s):
    return _wires[pins.BEAM_PINS[s]]


def make_rig(name, cut_beams=(), mat_on=False):
    """board_pico on fake wires. Every receiver sees its emitter (light-ON: sinks LOW) except
    the sectors in cut_beams, whose cable is cut (nothing drives the pin)."""
    _wires.clear()
    b = board_pico.Board()
    b.read_key = lambda: bytes(range(32))
    for s in range(8):
        if s not in cut_beams:
            beam(s).sink()
    if mat_on:
        _wires[pins.MAT].sink()
    rig = fwrig.Rig(name, board=b, chk=("ok", "00" * 8, []))
    return rig


def red_lamp():
    return _wires[pins.LIGHT_RED].out


def test_pinmap_beams_are_light_on_with_pull_up():
    _wires.clear()
    board_pico.Board()
    for s in range(8):
        gpio, kind, pull, active_low, irq = pins.PINS["BEAM%d" % s]
        assert (pull, active_low) == (pins.PULL_UP, 0), "BEAM%d must fail 'broken'" % s
        assert beam(s).pull == WirePin.PULL_UP, "board_pico sets the pull from pins.PINS"


def test_cut_beam_cable_at_boot_fails_the_selftest_with_the_fault_light():
    rig = make_rig("fs_cut", cut_beams=(5,))
    try:
        assert beam(5).value() == 1, "a cut cable floats to the pull-up: HIGH"
        mask = rig.selftest()
        assert mask & M.FAULT_BEAM == 1 << 5, hex(mask)
        st = rig.codes(M.EV_SELFTEST)
        assert st[-1][1] == 1 and st[-1][2] & (1 << 5), st
        assert "beams 0x20" in st[-1][3], st
        assert rig.codes(M.EV_FAULT), "EV_FAULT goes to the host"
        assert rig.app.spin.phase == M.PH_FAULT
        assert rig.light_names()[-1] == "fault" and red_lamp() == 1, rig.light_names()
        rig.app.spin.host(True, rig.ft.ticks_us())
        rig.app.command(M.CMD_ARM, 7, "")
        rig.drain()
        res = [e for e in rig.codes(M.EV_RESULT) if e[1] == 7]
        assert res and res[0][2] == 1, "arming refused while a beam is faulty: %r" % res
    finally:
        rig.restore()


def test_healthy_light_on_beams_pass_and_a_crossing_while_armed_bars():
    rig = make_rig("fs_ok")
    try:
        assert rig.selftest() == 0, "every receiver sees light: self-test passes"
        assert red_lamp() == 0 or rig.light_names()[-1] != "fault"
        rig.app.spin.host(True, rig.ft.ticks_us())
        rig.app.command(M.CMD_ARM, 1, "")
        _wires[pins.MAT].sink()                         # spinner steps on the mat
        rig.step_ms(300)
        assert "in-flight" in rig.phases(), rig.phases()
        beam(3).release()                               # coin crosses sector 3: no light
        rig.app.process_edges()
        rig.step_ms(4)
        beam(3).sink()
        rig.step_ms(5)
        barred = rig.codes(M.EV_BARRED)
        assert barred and barred[0][1:3] == (M.BAR_BEAM, 3), barred      # 7.3.1
        assert "barred" in rig.light_names() and red_lamp() == 1
        ends = [e for e in rig.codes(M.EV_BEAM) if e[1] == 3 and e[2] > 0]
        assert ends and 3000 <= ends[0][2] <= 6000, ends
    finally:
        rig.restore()


def test_beam_cable_cut_during_the_game_becomes_a_fault():
    rig = make_rig("fs_cut_late")
    try:
        assert rig.selftest() == 0
        rig.app.spin.host(True, rig.ft.ticks_us())
        beam(6).release()                               # cable cut at idle
        rig.app.process_edges()
        rig.step_ms(rig.app.cfg.v["blocked_ms"] + 50)
        assert rig.app.spin.phase == M.PH_FAULT and rig.app.spin.fault & (1 << 6)
        assert rig.light_names()[-1] == "fault"
    finally:
        rig.restore()


def test_cut_mat_cable_reads_off_the_mat_and_bars_not_passes():
    # closed = LOW mat: a cut cable reads "off the mat" (7.3.3), the safe direction
    rig = make_rig("fs_mat", mat_on=True)
    try:
        assert rig.selftest() == 0
        rig.app.spin.host(True, rig.ft.ticks_us())
        rig.app.command(M.CMD_ARM, 1, "")
        rig.step_ms(300)
        assert rig.app.spin.phase == M.PH_IN_FLIGHT
        _wires[pins.MAT].release()                      # mat cable cut mid-spin
        rig.app.process_edges()
        rig.step_ms(50)
        barred = rig.codes(M.EV_BARRED)
        assert barred and barred[0][1] == M.BAR_MAT, barred
    finally:
        rig.restore()


def test_sim_board_speaks_logical_levels_and_can_cut_a_cable():
    # SIM.md: "beam s 1" = broken whatever the wiring; the simulated wire carries the same
    # level as the real one (light-ON: broken = HIGH); "cut" leaves the pin at its pull
    import board_sim
    b = board_sim.Board(root=fwrig.tmpdir("fs_sim"), link_fd=None, sock_path="")
    assert [b.beam_active(s) for s in range(8)] == [0] * 8 and b.beams[3].level == 0
    assert b.apply("beam 3 1") is None
    assert b.beam_active(3) == 1 and b.beams[3].level == 1, "light-ON: broken = HIGH"
    b.apply("beam 3 0")
    b.apply("beam 5 cut")
    assert b.beam_active(5) == 1, "a cut beam cable reads broken (7.3.1)"
    b.apply("mat 1")
    assert b.mat_active() == 1 and b.mat.level == 0
    b.apply("mat cut")
    assert b.mat_active() == 0, "a cut mat cable reads off the mat (7.3.3)"
    b.apply("button nospin cut")
    assert b.button_active(0) == 0
    assert b.apply("beam 9 cut") is not None


mptest.main(globals())
