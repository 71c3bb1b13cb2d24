# board_pico against a fake `machine` (the unix port has no rp2 pins): pin numbers from pins.py, pulls, IRQ triggers, reset causes, REPL escape.
import sys
import mptest
import rp2fake


class FakePin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8
    made = {}

    def __init__(self, n, mode=-1, pull=-1, value=None):
        self.n = n
        self.mode = mode
        self.pull = pull
        self.v = 1 if pull == 1 else (value or 0)
        self.irqs = []
        FakePin.made[n] = self

    def value(self, v=None):
        if v is None:
            return self.v
        self.v = v

    def irq(self, handler=None, trigger=0, hard=False):
        self.irqs.append(trigger)
        self.hard = hard


class FakeADC:
    def __init__(self, pin):
        self.pin = pin

    def read_u16(self):
        return 1000


class FakeMachine:
    Pin = FakePin
    ADC = FakeADC
    USBDevice = rp2fake.USBDevice     # the link's own CDC port (usbcdc.py)
    PWRON_RESET = 1
    WDT_RESET = 3
    cause = 3
    resets = 0

    @staticmethod
    def reset_cause():
        return FakeMachine.cause

    @staticmethod
    def unique_id():
        return b"\xe6\x61\x41\x04\x03\x2a\x2b\x2c"

    @staticmethod
    def reset():
        FakeMachine.resets += 1

    class WDT:
        def __init__(self, timeout):
            self.timeout = timeout


sys.modules["machine"] = FakeMachine
import board_pico      # noqa: E402
import ringmsg as M    # noqa: E402


def test_pins_follow_the_pinmap():
    import pins
    b = board_pico.Board()
    assert [p.n for p in b.beams] == list(pins.BEAM_PINS)
    want = [FakePin.PULL_UP if pins.PINS[n][2] == pins.PULL_UP else None
            for n in ["BEAM%d" % i for i in range(8)] + ["BTN_NOSPIN", "BTN_ARM", "MAT"]]
    assert [p.pull for p in b.beams + b.buttons + [b.mat]] == want, "pulls from pins.PINS"
    assert FakePin.PULL_UP in want
    assert [p.n for p in b.lamps] == list(pins.LIGHT_PINS)
    assert all(p.mode == FakePin.OUT and p.v == 0 for p in b.lamps), "lamps start off"
    assert b.wall_trig.n == pins.WALL_TRIG and b.mat.n == pins.MAT
    assert [a.pin.n for a in b.adc] == [pins.PIEZO0, pins.PIEZO1, pins.WALL]


def test_irq_triggers_and_active_levels():
    b = board_pico.Board()
    b.irq_beam(3, lambda p: None)
    b.irq_wall(lambda p: None)
    b.irq_button(0, lambda p: None)
    b.irq_mat(lambda p: None)
    assert b.beams[3].irqs == [FakePin.IRQ_FALLING | FakePin.IRQ_RISING]
    assert b.wall_trig.irqs == [FakePin.IRQ_RISING], "strike = rising edge"
    # soft pin IRQs are queued (depth 8, overflow silent) and stamped late: every input hard
    for p in (b.beams[3], b.wall_trig, b.buttons[0], b.mat):
        assert p.hard is True, "pin %d IRQ must be hard=True" % p.n
    import pins
    assert pins.PINS["BEAM2"][3] == 0, "beams are light-ON in hardware/pinmap.json"
    for p in b.beams:
        p.v = 0                           # every receiver sees its emitter: sinks LOW
    b.beams[2].v = 1                      # sector 2 dark: pull-up
    assert b.beam_active(2) == 1 and b.beam_active(1) == 0, "light-ON: HIGH = beam broken"
    b.mat.v = 0
    assert b.mat_active() == 1, "closed = LOW = on the mat"
    b.mat.v = 1
    assert b.mat_active() == 0, "open (or a cut cable) = off the mat"


def test_active_levels_follow_pins_py_not_the_code():
    # a wiring change is a pinmap.json change only: flip BEAM5 to dark-ON (active low)
    import pins
    saved = pins.PINS["BEAM5"]
    pins.PINS["BEAM5"] = saved[:3] + (1,) + saved[4:]
    try:
        b = board_pico.Board()
        b.beams[5].v = 0
        b.beams[4].v = 0
        assert b.beam_active(5) == 1 and b.beam_active(4) == 0
    finally:
        pins.PINS["BEAM5"] = saved


def test_link_modules_wait_for_the_app_to_boot():
    # main.py builds the board before its integrity check: the link's modules (USB port,
    # machine code, ringlink) are imported only when the App boots, after that check
    b = board_pico.Board(usbd=object())
    for m in ("usbcdc", "fastlink", "ringlink"):
        assert m not in sys.modules, m + " imported with the board"
    b.usbd = rp2fake.USBDevice()
    b.open_link()
    assert b.link is not None and b.rx is b.link and "fastlink" in sys.modules


def test_reset_cause_and_identity():
    b = board_pico.Board()
    assert b.reset_cause() == M.RESET_WATCHDOG
    assert b.unique_id() == "E6614104032A2B2C"
    assert b.wdt(8000).timeout == 8000
    assert not b.dev, "a real board without a manifest is locked, not unverified"


def test_escape_needs_the_no_spin_button_held():
    FakePin.made.clear()
    assert not board_pico.escape_requested()
    orig = FakePin.__init__

    def held(self, n, mode=-1, pull=-1, value=None):
        orig(self, n, mode, pull, value)
        self.v = 0
    FakePin.__init__ = held
    try:
        assert board_pico.escape_requested()
    finally:
        FakePin.__init__ = orig


mptest.main(globals())
