# The real ring board (Raspberry Pi Pico / Pico 2): the only module that touches machine pins, ADC, WDT and USB.
import os
import time
import machine

import ringmsg as M

BEAM_NAMES = tuple("BEAM%d" % i for i in range(8))
BTN_NAMES = ("BTN_NOSPIN", "BTN_ARM")

_BOTH = machine.Pin.IRQ_FALLING | machine.Pin.IRQ_RISING
_SCRATCH = 0x4005800C      # RP2040 WATCHDOG_BASE + SCRATCH0: kept across resets, not power
LAMP_WATCH_MS = 125        # the lamp watchdog's period (FAST blink half-period)


def _input(pins, name):
    """(Pin, active_low) for an input, configured exactly as pinmap.json says: the wiring
    (light-ON beams, closed-LOW contacts, pull-ups) changes there, never here."""
    gpio, _, pull, active_low, _ = pins.PINS[name]
    P = machine.Pin
    mode = P.PULL_UP if pull == pins.PULL_UP else (
        getattr(P, "PULL_DOWN", None) if pull == pins.PULL_DOWN else None)
    return P(gpio, P.IN, mode), active_low


class Board:
    name = "pico"
    dev = False     # no manifest = not deployed = locked (FAULT_INTEGRITY)
    root = "/"

    def __init__(self, usbd=None):
        """usbd: the runtime USB device the link's own CDC port goes on (default
        machine.USBDevice(); the REPL keeps the built-in port)."""
        # pins.py (generated from hardware/pinmap.json: numbers, pulls, active levels) is
        # boot-only: imported here, never at module level, so app.forget_boot_modules() can
        # give its heap back once the board and the App are built
        import pins
        P = machine.Pin
        # active_low per input: the app records the *active* level (1 = broken / pressed /
        # on the mat / strike) as pin.value() ^ active_low (board_sim does the same)
        beams = [_input(pins, n) for n in BEAM_NAMES]
        self.beams = [b[0] for b in beams]
        self.beam_low = bytes(b[1] for b in beams)
        btns = [_input(pins, n) for n in BTN_NAMES]
        self.buttons = [b[0] for b in btns]
        self.button_low = bytes(b[1] for b in btns)
        self.mat, self.mat_low = _input(pins, "MAT")
        self.wall_trig, self.wall_low = _input(pins, "WALL_TRIG")
        self.adc = [machine.ADC(P(n)) for n in (pins.PIEZO0, pins.PIEZO1, pins.WALL)]
        self.lamps = [P(n, P.OUT, value=0) for n in pins.LIGHT_PINS]
        self.ledpin = P(pins.LED, P.OUT, value=0)
        self.usbd = usbd
        self.rx = self.link = None    # open_link(), from App.boot()
        self.dropped = 0          # frames the link's buffer had no room for (host not reading)
        self.max_us = 0           # longest link write (it never waits on the host)
        self.cause = self._reset_cause()     # main.py refines it (resets.py)
        self.timer = None

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
        return self.cause

    def scratch(self, i):
        """Watchdog scratch register i (0..3; 4..7 belong to the bootrom's reboot)."""
        return machine.mem32[_SCRATCH + 4 * i]

    def set_scratch(self, i, v):
        machine.mem32[_SCRATCH + 4 * i] = v

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

    def reset(self, repl=False, why=None):
        """why: resets.WHY_* mark for the next boot (machine.reset() reads as "watchdog" on
        rp2: without the mark every deliberate reset would look like a hang)."""
        if repl:
            with open("/repl.flag", "w") as f:
                f.write("1")
        if why is not None:
            self.set_scratch(0, why)
        machine.reset()

    def led(self, v):
        self.ledpin.value(v)

    def beam_active(self, s):
        return self.beams[s].value() ^ self.beam_low[s]

    def button_active(self, k):
        return self.buttons[k].value() ^ self.button_low[k]

    def mat_active(self):
        return self.mat.value() ^ self.mat_low

    # Every input IRQ is hard: a soft one is queued (depth 8, overflow silent), stamped only
    # after the running C call or collection, and cannot bar within a millisecond (issue 18).
    def irq_beam(self, s, h):
        self.beams[s].irq(h, _BOTH, hard=True)

    def irq_button(self, k, h):
        self.buttons[k].irq(h, _BOTH, hard=True)

    def irq_mat(self, h):
        self.mat.irq(h, _BOTH, hard=True)

    def irq_wall(self, h):
        # the strike edge: rising when active HIGH (the LM393), falling when active LOW
        P = machine.Pin
        self.wall_trig.irq(h, P.IRQ_FALLING if self.wall_low else P.IRQ_RISING, hard=True)

    def lamp_watch(self, cb):
        """cb(timer) every LAMP_WATCH_MS from a (virtual, soft) timer: it runs between any two
        bytecodes, so a loop stuck in Python still gets its lamps taken off a stale result."""
        self.timer = machine.Timer(period=LAMP_WATCH_MS, mode=machine.Timer.PERIODIC,
                                   callback=cb)

    def open_link(self):
        """The link on a USB-CDC port of its own (usbcdc.py): one call reads what the host
        sent, one call queues a frame; the app's link task polls it for readability. Its
        COBS and tag compare run as machine code (fastlink.py, into ringlink). Called by the
        App when it boots, after main.py's integrity check: the link's modules are not
        imported before that check has looked at them."""
        import fastlink
        from usbcdc import LinkCDC
        fastlink.install()
        self.rx = self.link = LinkCDC(machine.USBDevice() if self.usbd is None else self.usbd)
        # the port's own methods, bound once: no board layer in the link pass's calls
        # link_read(buf): what the host sent, up to len(buf), never waiting
        self.link_read = self.link.readinto
        self.tx_room = self.link.room

    def link_write(self, data):
        """Queue one encoded frame whole, or drop it when the buffer has no room for it (the
        host is not reading): the link protocol resends it. Never waits."""
        t = time.ticks_us()
        lk = self.link
        if lk.room() >= len(data):
            lk.write(data)
        else:
            self.dropped += 1
        d = time.ticks_diff(time.ticks_us(), t)
        if d > self.max_us:
            self.max_us = d

    def link_flush(self):
        pass            # the USB task sends the next piece when the host took the last one

    def tx_max_us(self):
        return self.max_us

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
    import pins
    p, low = _input(pins, "BTN_NOSPIN")
    return (p.value() ^ low) == 1
