# The real ring board (Raspberry Pi Pico / Pico 2): the only module that touches machine pins, ADC, WDT and USB serial.
import sys
import os
import select
import machine

import ringmsg as M

try:
    import pins
except ImportError:   # not generated yet: the issue-3 pin set
    pins = None


def _g(name, default):
    return getattr(pins, name, default) if pins is not None else default


BEAM_PINS = _g("BEAM_PINS", (2, 3, 4, 5, 6, 7, 8, 9))
BTN_PINS = (_g("BTN_NOSPIN", 10), _g("BTN_ARM", 11))
MAT_PIN = _g("MAT", 12)
LIGHT_PINS = _g("LIGHT_PINS", (13, 14, 15, 16))
WALL_TRIG = _g("WALL_TRIG", 20)
ADC_PINS = (_g("PIEZO0", 26), _g("PIEZO1", 27), _g("WALL", 28))
LED_PIN = _g("LED", 25)

_BOTH = machine.Pin.IRQ_FALLING | machine.Pin.IRQ_RISING


class Board:
    name = "pico"
    dev = False     # no manifest = not deployed = locked (FAULT_INTEGRITY)
    root = "/"

    def __init__(self):
        P = machine.Pin
        self.beams = [P(n, P.IN, P.PULL_UP) for n in BEAM_PINS]
        self.buttons = [P(n, P.IN, P.PULL_UP) for n in BTN_PINS]
        self.mat = P(MAT_PIN, P.IN, P.PULL_UP)
        self.wall_trig = P(WALL_TRIG, P.IN, P.PULL_UP)
        self.adc = [machine.ADC(P(n)) for n in ADC_PINS]
        self.lamps = [P(n, P.OUT, value=0) for n in LIGHT_PINS]
        self.ledpin = P(LED_PIN, P.OUT, value=0)
        self.rx = sys.stdin.buffer
        self.tx = sys.stdout.buffer
        self.rx_poll = select.poll()
        self.rx_poll.register(sys.stdin, select.POLLIN)
        self.one = bytearray(1)
        self._cause = self._reset_cause()

    def path(self, name):
        return "/" + name

    def urandom(self, n):
        return os.urandom(n)

    def unique_id(self):
        import binascii
        return binascii.hexlify(machine.unique_id()).decode().upper()

    def _reset_cause(self):
        c = machine.reset_cause()
        if c == machine.PWRON_RESET:
            return M.RESET_POWER_ON
        if c == machine.WDT_RESET:
            return M.RESET_WATCHDOG
        if hasattr(machine, "SOFT_RESET") and c == machine.SOFT_RESET:
            return M.RESET_SOFT
        return M.RESET_OTHER

    def reset_cause(self):
        return self._cause

    def read_key(self):
        try:
            with open("/key.bin", "rb") as f:
                k = f.read()
        except OSError:
            return None
        return k if len(k) == 32 else None

    def wake_flag(self):
        import asyncio
        return asyncio.ThreadSafeFlag()   # set from pin IRQs

    def wdt(self, ms):
        return machine.WDT(timeout=ms)

    def reset(self, repl=False):
        if repl:
            with open("/repl.flag", "w") as f:
                f.write("1")
        machine.reset()

    def led(self, v):
        self.ledpin.value(v)

    def beam_active(self, s):
        return self.beams[s].value() ^ 1

    def button_active(self, k):
        return self.buttons[k].value() ^ 1

    def mat_active(self):
        return self.mat.value() ^ 1

    def irq_beam(self, s, h):
        self.beams[s].irq(h, _BOTH)

    def irq_button(self, k, h):
        self.buttons[k].irq(h, _BOTH)

    def irq_mat(self, h):
        self.mat.irq(h, _BOTH)

    def irq_wall(self, h):
        self.wall_trig.irq(h, machine.Pin.IRQ_RISING)

    def link_read(self, buf):
        n = 0
        lim = len(buf)
        while n < lim:
            got = False
            for _ in self.rx_poll.ipoll(0):
                got = True
            if not got:
                break
            if not self.rx.readinto(self.one):
                break
            buf[n] = self.one[0]
            n += 1
        return n

    def link_write(self, data):
        try:
            self.tx.write(data)
        except OSError:
            pass   # host gone: the link protocol resends

    def on_light(self, state, bits, edge_us):
        pass

    def on_lamps(self, bits):
        pass

    def on_phase(self, ph):
        pass

    def tasks(self, app):
        return []


def escape_requested():
    """Boot-time technician escape: no-spin button held at power-on -> stay at the REPL."""
    p = machine.Pin(BTN_PINS[0], machine.Pin.IN, machine.Pin.PULL_UP)
    return p.value() == 0
