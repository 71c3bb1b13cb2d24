# Boxer alert light (24 V stack light: red / amber / green lamps + buzzer): patterns as data, driver, blink timing.
from ringmsg import (LIGHT_OFF, LIGHT_IDLE, LIGHT_ARMED, LIGHT_IN_FLIGHT, LIGHT_BARRED,
                     LIGHT_HEADS, LIGHT_TAILS, LIGHT_ODDS, LIGHT_UNSURE, LIGHT_FAULT,
                     LIGHT_LINK_LOST, LIGHT_SELFTEST)

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

# Lamp modes. Blink phases are counted from the moment the state was shown, so a new state
# always starts with its "on" half: the boxer sees the change at once.
OFF = const(0)
ON = const(1)
SLOW = const(2)   # 1 Hz: 500 ms on, 500 ms off
FAST = const(3)   # 4 Hz: 125 ms on, 125 ms off
ALT = const(4)    # 1 Hz in anti-phase with SLOW (two lamps alternating)

# state -> (red, amber, green, buzzer ms). Buzzer: sounds for that many ms from the change
# (0 = silent). Faults sound >= 1.5 s (issue 3). Documented in firmware/README.md. Any two
# states the boxer must tell apart differ within 125 ms of being shown (a glance; tested).
PATTERNS = {
    LIGHT_OFF:       (OFF, OFF, OFF, 0),
    LIGHT_IDLE:      (OFF, OFF, OFF, 0),      # dark; the board LED shows it is alive
    LIGHT_ARMED:     (OFF, ON, OFF, 0),       # 6.3 "come in spinner": amber steady
    LIGHT_IN_FLIGHT: (OFF, FAST, OFF, 0),     # coins up / landing: amber fast blink
    LIGHT_BARRED:    (ON, OFF, OFF, 1000),    # 7.3 / 7.4.1 "barred": red steady + 1 s buzz
    LIGHT_HEADS:     (OFF, OFF, ON, 0),       # valid spin, heads: green steady
    LIGHT_TAILS:     (OFF, OFF, FAST, 0),     # valid spin, tails: green fast blink (tells from
                                              # heads' steady green within 125 ms)
    LIGHT_ODDS:      (OFF, ON, ON, 0),        # odds: amber + green steady
    LIGHT_UNSURE:    (OFF, FAST, FAST, 0),    # host not sure: amber + green fast, boxer decides
    LIGHT_FAULT:     (FAST, OFF, OFF, 2000),  # fault: red fast blink + 2 s buzz
    LIGHT_LINK_LOST: (FAST, FAST, OFF, 1500),  # host silent: red + amber fast blink + 1.5 s buzz
    LIGHT_SELFTEST:  (ON, ON, ON, 100),       # lamp test while the self-test runs + chirp
}


def lamp_on(mode, since_ms):
    """Whether a lamp in `mode` is lit `since_ms` after the state was shown."""
    if mode == ON:
        return 1
    if mode == SLOW:
        return 1 if (since_ms % 1000) < 500 else 0
    if mode == FAST:
        return 1 if (since_ms % 250) < 125 else 0
    if mode == ALT:
        return 0 if (since_ms % 1000) < 500 else 1
    return 0


class Light:
    """Drives 4 outputs (objects with .value(v)); show() is allocation-free and immediate.

    on_change(state, edge_us) is called after a logical change (not from IRQs), on_lamps(bits)
    after any output change; both may be None.
    """

    def __init__(self, outputs, ticks_ms, enabled=True):
        self.out = outputs
        self.ticks_ms = ticks_ms
        self.enabled = enabled
        self.state = LIGHT_OFF
        self.t0 = 0
        self.bits = 0          # bit0 red, bit1 amber, bit2 green, bit3 buzzer
        self.changed = False   # logical change not yet reported (event + socket)
        self.edge_us = -1      # edge -> outputs delay of the last change, -1 = command/timer
        self.on_lamps = None
        for o in outputs:
            o.value(0)

    def show(self, state, edge_us=-1):
        """Switch to `state` now (no allocation: callable from the fast path)."""
        if state == self.state and not self.changed:
            return
        self.state = state
        self.t0 = self.ticks_ms()
        self.edge_us = edge_us
        self.changed = True
        self._apply(0)

    def irq_show(self, state):
        """show() from a hard IRQ (the guard's bar, the lamp watchdog): no allocation, no
        callbacks; `changed` stays set so the loop reports it."""
        self.state = state
        self.t0 = self.ticks_ms()
        self.changed = True
        self._apply(0, False)

    def tick(self, report=True):
        """Advance blinking / end the buzzer; call every few ms (report=False from an IRQ)."""
        now = self.ticks_ms()
        d = now - self.t0
        if d < 0:        # ticks_ms wrapped (every ~12 days): restart the pattern
            self.t0 = now
            d = 0
        self._apply(d, report)

    def _apply(self, since, report=True):
        p = PATTERNS[self.state]
        bits = lamp_on(p[0], since) | (lamp_on(p[1], since) << 1) | (lamp_on(p[2], since) << 2)
        if since < p[3]:
            bits |= 8
        if bits != self.bits:
            self.bits = bits
            if self.enabled:
                o = self.out
                o[0].value(bits & 1)
                o[1].value((bits >> 1) & 1)
                o[2].value((bits >> 2) & 1)
                o[3].value((bits >> 3) & 1)
            if report and self.on_lamps is not None:
                self.on_lamps(bits)
