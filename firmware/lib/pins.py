# Ring board pins and firmware defaults. GENERATED from hardware/pinmap.json by
# `ring device pinmap generate`: never edit by hand (a test fails if this file is stale).
# MicroPython/CPython common subset, stdlib only; the host imports it as ringctl.fw.pins.
try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

PINMAP_SHA256 = 'bbee3700e2c82c23ff818f26444cd6b48f1a547dd946f0d5235ed1aedb6b251e'
BOARDS = ('RPI_PICO', 'RPI_PICO2')
MICROPYTHON = '1.28.0'

# kind / pull codes used in PINS
KIND_INPUT = const(0)
KIND_OUTPUT = const(1)
KIND_ADC = const(2)
KIND_LED = const(3)
PULL_NONE = const(0)
PULL_UP = const(1)
PULL_DOWN = const(2)

# ---- GPIO numbers ----
BEAM0 = const(2)  # break-beam receiver, sector 0 (7.3.1 ring boundary), HIGH = broken (fail-safe)
BEAM1 = const(3)  # break-beam receiver, sector 1 (7.3.1)
BEAM2 = const(4)  # break-beam receiver, sector 2 (7.3.1)
BEAM3 = const(5)  # break-beam receiver, sector 3 (7.3.1)
BEAM4 = const(6)  # break-beam receiver, sector 4 (7.3.1)
BEAM5 = const(7)  # break-beam receiver, sector 5 (7.3.1)
BEAM6 = const(8)  # break-beam receiver, sector 6 (7.3.1)
BEAM7 = const(9)  # break-beam receiver, sector 7 (7.3.1)
BTN_NOSPIN = const(10)  # boxer's NO SPIN button (7.2, 7.6)
BTN_ARM = const(11)  # boxer's COME IN SPINNER / arm button (6.3)
LIGHT_RED = const(13)  # stack light red segment: barred / no spin / fault
LIGHT_AMBER = const(14)  # stack light amber segment: armed / in flight / unsure
LIGHT_GREEN = const(15)  # stack light green segment: valid result
BUZZER = const(16)  # stack light buzzer: sounds on barred
MAT = const(12)  # spinner's floor-mat switch, closed = spinner inside the spinning area (7.3.3)
PIEZO0 = const(26)  # layout piezo 0 envelope (coin impact / rest)
PIEZO0_ADC = const(0)
PIEZO1 = const(27)  # layout piezo 1 envelope (coin impact / rest)
PIEZO1_ADC = const(1)
LED = const(25)  # on-board LED: heartbeat
WALL_TRIG = const(20)  # ring-wall strike trigger, HIGH on strike (7.3.2)
WALL = const(28)  # ring-wall piezo envelope: strike level for EV_WALL (7.3.2)
WALL_ADC = const(2)

# ---- groups, in index order ----
BEAM_PINS = (BEAM0, BEAM1, BEAM2, BEAM3, BEAM4, BEAM5, BEAM6, BEAM7)
BUTTON_PINS = (BTN_NOSPIN, BTN_ARM)
LIGHT_PINS = (LIGHT_RED, LIGHT_AMBER, LIGHT_GREEN, BUZZER)
MAT_PINS = (MAT,)
PIEZO_PINS = (PIEZO0, PIEZO1)
STATUS_PINS = (LED,)
WALL_PINS = (WALL_TRIG, WALL)

# name -> (gpio, kind, pull, active_low, irq)
PINS = {
    'BEAM0': (BEAM0, KIND_INPUT, PULL_UP, 0, 1),
    'BEAM1': (BEAM1, KIND_INPUT, PULL_UP, 0, 1),
    'BEAM2': (BEAM2, KIND_INPUT, PULL_UP, 0, 1),
    'BEAM3': (BEAM3, KIND_INPUT, PULL_UP, 0, 1),
    'BEAM4': (BEAM4, KIND_INPUT, PULL_UP, 0, 1),
    'BEAM5': (BEAM5, KIND_INPUT, PULL_UP, 0, 1),
    'BEAM6': (BEAM6, KIND_INPUT, PULL_UP, 0, 1),
    'BEAM7': (BEAM7, KIND_INPUT, PULL_UP, 0, 1),
    'BTN_NOSPIN': (BTN_NOSPIN, KIND_INPUT, PULL_UP, 1, 1),
    'BTN_ARM': (BTN_ARM, KIND_INPUT, PULL_UP, 1, 1),
    'LIGHT_RED': (LIGHT_RED, KIND_OUTPUT, PULL_NONE, 0, 0),
    'LIGHT_AMBER': (LIGHT_AMBER, KIND_OUTPUT, PULL_NONE, 0, 0),
    'LIGHT_GREEN': (LIGHT_GREEN, KIND_OUTPUT, PULL_NONE, 0, 0),
    'BUZZER': (BUZZER, KIND_OUTPUT, PULL_NONE, 0, 0),
    'MAT': (MAT, KIND_INPUT, PULL_UP, 1, 1),
    'PIEZO0': (PIEZO0, KIND_ADC, PULL_NONE, 0, 0),
    'PIEZO1': (PIEZO1, KIND_ADC, PULL_NONE, 0, 0),
    'LED': (LED, KIND_LED, PULL_NONE, 0, 0),
    'WALL_TRIG': (WALL_TRIG, KIND_INPUT, PULL_UP, 0, 1),
    'WALL': (WALL, KIND_ADC, PULL_NONE, 0, 0),
}

# firmware configuration defaults (board /config.json overrides them)
DEFAULTS = {
    'adc_period_us': 10000,  # us: the timer task's period: piezo envelope sampling, debounce settle, spin timers (the envelopes hold a peak ~100 ms; 10 ms keeps an RP2040 under half busy)
    'blocked_ms': 2000,  # ms: beam broken this long at idle = blocked or misaligned (fault)
    'debounce_ms': 20,  # ms: button and mat contact debounce
    'glitch_us': 300,  # us: beam breaks shorter than this are electrical glitches, not coins (timed inside the beam IRQ while armed: edge -> red lamp = glitch_us + ~0.1 ms, so at most 700 for 1 ms)
    'heap_report_s': 30,  # s: seconds between EV_HEAP reports
    'host_timeout_ms': 2000,  # ms: host silent this long: disarm, light LINK_LOST (FAULT_HOST)
    'impact_threshold': 6000,  # adc_u16: piezo envelope above this is a coin impact
    'light_type': 'stacklight',  # what the LIGHT_* outputs drive (the firmware has no NeoPixel driver)
    'mat_settle_ms': 200,  # ms: spinner on the mat this long while armed = in flight
    'noise_floor_min': 16,  # adc_u16: self-test: a piezo channel quieter than this is disconnected
    'quiet_ms': 1000,  # ms: coins are at rest after this long without an impact
    'rest_threshold': 1500,  # adc_u16: envelope below this counts as quiet when timing rest
    'use_mat': 1,  # flag: 1: the mat gates in-flight and bars 7.3.3; 0: no mat fitted
    'wall_threshold': 8000,  # adc_u16: wall envelope peak above this is a strike (7.3.2)
}
