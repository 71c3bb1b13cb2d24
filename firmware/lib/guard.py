# Hard-IRQ pin handlers: every input edge into the EdgeQueue, and while armed a beam break (or wall strike) that outlasts the glitch filter lights BARRED from the handler itself (7.3.1, 7.3.2).
# Runs as a hard IRQ on the Pico: before the loop, the link and even a collection, so the bar
# never waits for them. Rules for this file (a hard handler that raises is disabled for good):
# no allocation (heap_lock tests), no floats, no big ints, no calls into code that reports.
import time

from micropython import const

from ringmsg import LIGHT_BARRED

CONFIRMED = const(2)   # EdgeQueue level: a break the guard already timed (>= glitch_us), barred on


class Guard:
    """What the handlers share. `armed` is written by the loop from the spin phase (armed, in
    flight, landed and not barred yet); the handlers clear it when they bar, and leave the
    sector, edge time and edge -> lamp delay for the loop to report (take())."""

    def __init__(self, edges, light, glitch_us):
        self.edges = edges
        self.light = light
        self.glitch_us = glitch_us
        self.armed = 0
        self.bar_src = -1        # source that barred (beam 0..7, SRC_WALL), -1 = none pending
        self.t_edge = 0          # its edge, ticks_us
        self.lamp_us = 0         # edge -> lamp outputs set, us
        self.bars = 0
        self.glitches = 0        # breaks shorter than glitch_us seen while armed

    def bar(self, src, t):
        lt = self.light
        if lt.enabled:          # the lamps first (light.PATTERNS[LIGHT_BARRED]: red + buzzer)
            o = lt.out
            o[0].value(1)
            o[3].value(1)
            o[1].value(0)
            o[2].value(0)
        self.lamp_us = time.ticks_diff(time.ticks_us(), t)
        self.armed = 0
        lt.irq_show(LIGHT_BARRED)   # then the light's own state (blink phase, buzzer time)
        self.t_edge = t
        self.bar_src = src
        self.bars += 1


class PinIrq:
    """A contact's handler (buttons, mat): the edge into the queue. A bound method with one
    argument, made once: a closure with more than 4 cells would allocate on every call."""

    def __init__(self, edges, src, pin, active_low):
        self.edges = edges
        self.src = src
        self.pin = pin
        self.x = 1 if active_low else 0

    def irq(self, p):
        self.edges.push(self.src, self.pin.value() ^ self.x, time.ticks_us())


class BeamIrq:
    """A beam's handler. Armed and broken: the glitch filter runs right here (the pin is
    sampled until glitch_us has passed; a clear sample = a glitch, both edges queued with
    their times), then the lamps go red before the handler returns."""

    def __init__(self, guard, src, pin, active_low):
        self.guard = guard
        self.src = src
        self.pin = pin
        self.x = 1 if active_low else 0

    def irq(self, p):
        t = time.ticks_us()
        pin = self.pin
        x = self.x
        lvl = pin.value() ^ x
        g = self.guard
        if lvl and g.armed:
            gl = g.glitch_us
            while time.ticks_diff(time.ticks_us(), t) < gl:
                if not pin.value() ^ x:
                    g.edges.push(self.src, 1, t)   # a glitch: the filter in the loop sees
                    g.glitches += 1                # both edges and counts it
                    lvl = 0
                    t = time.ticks_us()
                    break
            else:
                g.bar(self.src, t)
                lvl = CONFIRMED
        g.edges.push(self.src, lvl, t)


class WallIrq:
    """The wall comparator's handler: a strike while armed bars at once (7.3.2; the
    comparator has its own threshold, no glitch filter); the level is read by the loop."""

    def __init__(self, guard, src, pin, active_low):
        self.guard = guard
        self.src = src


    def irq(self, p):
        # fires on the strike edge only: a short comparator pulse may read clear by now
        t = time.ticks_us()
        g = self.guard
        if g.armed:
            g.bar(self.src, t)
        g.edges.push(self.src, 1, t)
