# Stand-ins for the rp2 port on the unix port: a `machine` module for board_pico and the USB-CDC stdout's blocking rule (bench + tests).
import io
import sys

_POLL = 3            # MP_STREAM_POLL
_FILENO = 10         # MP_STREAM_GET_FILENO: "no fd", so select.poll asks ioctl(_POLL)
POLLIN = 1
POLLOUT = 4


class Pin:
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
        self.handler = None
        self.trigger = 0
        self.hard = None
        Pin.made[n] = self

    def value(self, v=None):
        if v is None:
            return self.v
        self.v = 1 if v else 0

    def irq(self, handler=None, trigger=0, hard=False):
        self.handler = handler
        self.trigger = trigger
        self.hard = hard

    def drive(self, v):
        """The wire changes: the IRQ handler runs if its trigger matches (as the chip would)."""
        v = 1 if v else 0
        if v == self.v:
            return
        self.v = v
        h = self.handler
        if h is not None and self.trigger & (Pin.IRQ_RISING if v else Pin.IRQ_FALLING):
            h(self)


class ADC:
    def __init__(self, pin):
        self.pin = pin

    def read_u16(self):
        return 1000


class WDT:
    def __init__(self, timeout):
        self.timeout = timeout
        self.feeds = 0

    def feed(self):
        self.feeds += 1


class Mem32:
    """machine.mem32 for the watchdog scratch registers (survive a reset, not a power cycle)."""

    def __init__(self):
        self.regs = {}

    def __getitem__(self, a):
        return self.regs.get(a, 0)

    def __setitem__(self, a, v):
        self.regs[a] = v & 0xFFFFFFFF


class Timer:
    ONE_SHOT = 0
    PERIODIC = 1
    made = []

    def __init__(self, *a, **kw):
        self.kw = kw
        Timer.made.append(self)

    def init(self, **kw):
        self.kw = kw

    def deinit(self):
        self.kw = None


class Machine:
    Pin = Pin
    ADC = ADC
    WDT = WDT
    Timer = Timer
    PWRON_RESET = 1
    WDT_RESET = 3
    cause = 1
    resets = 0
    mem32 = Mem32()

    @staticmethod
    def reset_cause():
        return Machine.cause

    @staticmethod
    def unique_id():
        return b"\xe6\x61\x41\x04\x03\x2a\x2b\x2c"

    @staticmethod
    def reset():
        Machine.resets += 1


def install():
    sys.modules["machine"] = Machine
    return Machine


class CDC(io.IOBase):
    """rp2 USB-CDC stdout as MicroPython 1.28 implements it (shared/tinyusb/mp_usbd_cdc.c):
    a 256-byte FIFO; POLLOUT when at least one byte is free; write() sends in 64-byte pieces
    and *waits up to 500 ms* for each piece to fit, then returns the count written. The host
    reads only while `reading` is set. `blocked_ms` adds up the waits a real chip would do."""

    FIFO = 256
    EP = 64
    TIMEOUT_MS = 500

    def __init__(self):
        self.held = 0
        self.reading = True
        self.out = bytearray()
        self.blocked_ms = 0
        self.worst_ms = 0
        self.writes = 0

    def ioctl(self, req, arg):
        if req == _POLL:
            r = 0
            if arg & POLLOUT and (self.reading or self.held < self.FIFO):
                r |= POLLOUT
            return r
        return -1 if req == _FILENO else 0

    def write(self, buf):
        self.writes += 1
        n = len(buf)
        i = 0
        waited = 0
        while i < n:
            k = min(n - i, self.EP)
            free = self.FIFO - self.held
            if not self.reading and k > free:
                waited += self.TIMEOUT_MS      # mp_usbd_cdc_tx_strn waits, then gives up
                k = free
                if k == 0:
                    break
            self.out += bytes(buf[i:i + k])
            if not self.reading:
                self.held += k
            i += k
        self.blocked_ms += waited
        if waited > self.worst_ms:
            self.worst_ms = waited
        return i


class CDCIn(io.IOBase):
    """rp2 USB-CDC stdin: POLLIN while bytes wait; readinto() blocks until the buffer is full
    (so board_pico polls before each byte)."""

    def __init__(self, data=b""):
        self.data = bytearray(data)

    def ioctl(self, req, arg):
        if req == _POLL:
            return POLLIN if (arg & POLLIN and self.data) else 0
        return -1 if req == _FILENO else 0

    def readinto(self, buf):
        n = min(len(buf), len(self.data))
        buf[:n] = self.data[:n]
        self.data = self.data[n:]
        return n
