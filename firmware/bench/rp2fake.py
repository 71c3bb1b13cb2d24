# Stand-ins for the rp2 port on the unix port: a `machine` module for board_pico and the USB-CDC stdout's blocking rule (bench + tests).
import io
import time
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


# ---- machine.USBDevice (MicroPython 1.23+, shared/tinyusb/mp_usbd_runtime.c) with a USB host --------
def _builtin_cfg():
    """rp2's built-in configuration: one CDC-ACM (the REPL) on interfaces 0-1, endpoints
    0x81 (notifications), 0x02 / 0x82 (data), interface string 4."""
    import usbcdc
    cdc = usbcdc.descriptor(0, 1, 4)
    n = 9 + len(cdc)
    return bytes((9, 2, n & 0xFF, n >> 8, 2, 1, 0, 0x80, 250)) + cdc


class USBBuiltin:
    itf_max = 2
    ep_max = 3
    str_max = 5
    desc_dev = bytes((18, 1, 0x00, 0x02, 0xEF, 0x02, 0x01, 64, 0x8A, 0x2E, 0x05, 0x00,
                      0x00, 0x01, 1, 2, 3, 1))      # 2E8A:0005, IAD device class

    def __init__(self):
        self.desc_cfg = _builtin_cfg()


class StubUSB:
    """machine.USBDevice whose submit_xfer only says yes and allocates nothing (the chip's is
    C): times and weighs the link port's own Python. `t_in`: when the first IN transfer (the
    answer: the ack can leave) was submitted since it was last cleared."""

    def __init__(self, builtin=None):
        self.BUILTIN_DEFAULT = builtin if builtin is not None else USBBuiltin()
        self.builtin_driver = None
        self.t_in = None

    def active(self, v=None):
        return True

    def config(self, *a):
        pass

    def submit_xfer(self, ep, buf):
        if ep & 0x80 and self.t_in is None:
            self.t_in = time.ticks_us()
        return True


class USBDevice:
    """The runtime USB device and, on the other side, a USB full-speed host as Linux's
    cdc_acm drives it:
    * OUT: the host's bytes go out in 64-byte packets, only into a transfer the device has
      submitted (none: NAK, the bytes wait on the host); a transfer completes on a short
      packet or when its buffer is full -> xfer_cb(ep, 0, n).
    * IN: the host takes a submitted IN transfer's bytes only at a USB frame (`frame()`,
      every 1 ms): a device's answer never leaves before the next frame. Up to 19 packets a
      frame (full-speed bulk); not at all while `reading` is False (the host holds the port
      open and reads nothing).
    * Callbacks run when the chip's USB task would: `task()` (called by frame() and after a
      host write), never inside submit_xfer().
    `frames` counts frames; `got` holds what the host received, with the frame it left in."""

    BUILTIN_NONE = None
    PACKET = 64
    PACKETS_PER_FRAME = 19

    def __init__(self):
        self.BUILTIN_DEFAULT = self.BUILTIN_CDC = USBBuiltin()
        self.builtin_driver = None
        self.is_active = False
        self.cbs = None
        self.pending = {}        # ep -> buffer of the submitted transfer
        self.filled = {}         # OUT ep -> bytes already in it
        self.done = []           # (ep, res, n) waiting for the USB task
        self.host_out = bytearray()
        self.got = bytearray()
        self.got_frames = []     # frame number each received byte left in
        self.reading = True
        self.frames = 0
        self.configured = False
        self.submits = 0

    def active(self, v=None):
        if v is not None:
            self.is_active = bool(v)
            if not v:
                self.configured = False
                self.pending = {}
        return self.is_active

    def config(self, desc_dev, desc_cfg, desc_strs=None, open_itf_cb=None, reset_cb=None,
               control_xfer_cb=None, xfer_cb=None):
        self.desc_dev = desc_dev
        self.desc_cfg = desc_cfg
        self.desc_strs = desc_strs
        self.cbs = (open_itf_cb, reset_cb, control_xfer_cb, xfer_cb)

    def submit_xfer(self, ep, buf):
        if not self.is_active:
            raise OSError(22)
        self.submits += 1
        if not self.configured or ep in self.pending:
            return False
        self.pending[ep] = buf
        self.filled[ep] = 0
        return True

    # ---- the host ------------------------------------------------------------------------------
    def enumerate(self):
        """Set configuration: open_itf_cb for the runtime interfaces (those at or past the
        built-in's itf_max), then the ACM requests a terminal program sends (line coding,
        DTR). -> the runtime function's interface descriptor bytes (checked by tests)."""
        cfg = self.desc_cfg
        assert cfg[0] == 9 and cfg[1] == 2 and cfg[2] | cfg[3] << 8 == len(cfg), "wTotalLength"
        itfs = 0
        i = 9
        first = None
        while i < len(cfg):
            if cfg[i + 1] == 4:
                itfs = max(itfs, cfg[i + 2] + 1)
            if cfg[i + 1] == 0x0B and cfg[i + 2] >= self.builtin_driver.itf_max and first is None:
                first = i
            i += cfg[i]
        assert i == len(cfg) and itfs == cfg[4], "bNumInterfaces / descriptor lengths"
        self.configured = True
        open_itf, _, control, _ = self.cbs
        open_itf(memoryview(cfg)[first:])
        itf = cfg[first + 2]
        coding = bytes((0x00, 0xC2, 0x01, 0x00, 0, 0, 8))
        self.control(0x21, 0x20, 0, itf, coding)     # SET_LINE_CODING 115200 8N1
        self.control(0x21, 0x22, 3, itf, b"")        # SET_CONTROL_LINE_STATE DTR | RTS
        self.task()
        return bytes(cfg[first:])

    def control(self, rtype, req, value, index, data):
        """One control transfer through the three stages -> False if stalled."""
        _, _, cb, _ = self.cbs
        setup = bytes((rtype, req, value & 0xFF, value >> 8, index & 0xFF, index >> 8,
                       len(data) & 0xFF, len(data) >> 8))
        r = cb(1, memoryview(setup))
        if r is False:
            return False
        if data:
            r[:len(data)] = data
            cb(2, memoryview(setup))
        return cb(3, memoryview(setup)) is not False

    def reset(self):
        """Bus reset: submitted transfers are gone without a callback."""
        self.pending = {}
        self.configured = False
        self.cbs[1]()

    def write(self, data):
        """The host program writes: the bytes go out as the device takes them."""
        self.host_out += data
        self.task()

    def task(self):
        """The chip's USB task: move the host's OUT bytes into submitted transfers and run
        the callbacks of completed transfers (which may submit more)."""
        for _ in range(64):
            self._out()
            if not self.done:
                return
            ep, res, n = self.done.pop(0)
            self.cbs[3](ep, res, n)

    def _out(self):
        while self.host_out:
            ep = None
            for e in self.pending:
                if not e & 0x80 and e not in [d[0] for d in self.done]:
                    ep = e
            if ep is None:
                return
            buf = self.pending[ep]
            k = min(self.PACKET, len(buf) - self.filled[ep], len(self.host_out))
            f = self.filled[ep]
            buf[f:f + k] = self.host_out[:k]
            self.host_out = self.host_out[k:]
            self.filled[ep] = f + k
            if k < self.PACKET or f + k == len(buf):
                del self.pending[ep]
                self.done.append((ep, 0, f + k))

    def frame(self):
        """One 1 ms USB frame: the host reads the IN endpoint (when `reading`)."""
        self.frames += 1
        if self.reading:
            left = self.PACKETS_PER_FRAME
            for ep in list(self.pending):
                if ep & 0x80 and left > 0:
                    buf = self.pending.pop(ep)
                    n = len(buf)
                    left -= (n + self.PACKET - 1) // self.PACKET
                    self.got += buf
                    self.got_frames += [self.frames] * n
                    self.done.append((ep, 0, n))
        self.task()
