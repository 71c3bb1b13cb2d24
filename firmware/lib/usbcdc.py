# The ring link's own USB-CDC serial port (a runtime interface on machine.USBDevice, beside the REPL's built-in one): reads and writes that never wait and return counts.
# Why not the REPL's port: rp2's sys.stdin gives no count of what waits and its readinto()
# blocks until the buffer is full, and POLLOUT on stdout promises one free byte, so the link
# had to read and write one byte per poll (~35 us a byte on the chip, 3.4 ms per command and
# answer). Here a frame is read with one call and written with one call.
#
# Written for this project from the USB CDC 1.2 / PSTN 1.2 specifications and the
# machine.USBDevice API (MicroPython 1.23+; rp2 enables it by default). micropython-lib's
# usb.device.cdc does the same job but is not on a package registry this project installs
# from, and it is bigger (usb.device.core + cdc: more heap) and allocates per read.
#
# The callbacks run from the USB task, which MicroPython schedules from the USB interrupt
# (soft context, between two bytecodes): they only move indices, submit transfers and never
# allocate on the receive path. Hard IRQs (the bar, guard.py) are not delayed by any of this.
import io
from micropython import const

_EP_SIZE = const(64)        # full-speed bulk packet
_RX_SLOTS = const(8)        # 8 x 64 = 512 bytes from the host in flight (~4 full frames)
_TX_BYTES = const(1024)     # ~7 full frames waiting for the host (the link resends the rest)
_TX_MAX = const(511)        # bytes per IN transfer at most (8 packets: one USB frame takes 19)

_FLUSH = const(1)           # MP_STREAM_FLUSH
_POLL = const(3)            # MP_STREAM_POLL
_CLOSE = const(4)           # MP_STREAM_CLOSE
_EINVAL = const(-22)        # -MP_EINVAL: request not supported
_POLLIN = const(1)
_POLLOUT = const(4)

# descriptor bits (USB 2.0 ch. 9, CDC 1.2, PSTN 1.2)
_IAD = const(0x0B)
_ITF = const(0x04)
_EP = const(0x05)
_CS_ITF = const(0x24)
_CDC = const(0x02)
_ACM = const(0x02)
_DATA = const(0x0A)
_EP_IN = const(0x80)
_BULK = const(0x02)
_INTR = const(0x03)

_SETUP = const(1)
_ACK = const(3)
_SET_LINE_CODING = const(0x20)
_GET_LINE_CODING = const(0x21)
_SET_LINE_STATE = const(0x22)
_SEND_BREAK = const(0x23)
_CLASS = const(0x20)        # bmRequestType bits 6..5 = 1: class request

NAME = "Ring link"          # the interface's string: the host's port list shows it


def descriptor(itf, ep, istr):
    """Configuration descriptor bytes of one CDC-ACM function: control interface itf with
    its notification endpoint ep | 0x80, data interface itf + 1 with bulk endpoints ep + 1
    (OUT) and (ep + 1) | 0x80 (IN); istr names both (string index)."""
    n = ep + 1
    return bytes((
        8, _IAD, itf, 2, _CDC, _ACM, 0, istr,                 # one function, two interfaces
        9, _ITF, itf, 0, 1, _CDC, _ACM, 0, istr,              # control interface, 1 endpoint
        5, _CS_ITF, 0x00, 0x20, 0x01,                         # header, CDC 1.20
        5, _CS_ITF, 0x01, 0x00, itf + 1,                      # call management: none
        4, _CS_ITF, 0x02, 0x02,                               # ACM: line coding + state
        5, _CS_ITF, 0x06, itf, itf + 1,                       # union: control, data
        7, _EP, ep | _EP_IN, _INTR, 8, 0, 255,                # notifications (never sent)
        9, _ITF, itf + 1, 0, 2, _DATA, 0, 0, 0,               # data interface, 2 endpoints
        7, _EP, n, _BULK, _EP_SIZE, 0, 0,                     # bulk OUT
        7, _EP, n | _EP_IN, _BULK, _EP_SIZE, 0, 0))           # bulk IN


class LinkCDC(io.IOBase):
    """A CDC-ACM serial port on the runtime USB device, after the built-in (REPL) one.

    usbd: machine.USBDevice() (handed in: only board_pico touches machine). The built-in
    CDC keeps interfaces 0-1; this port is interfaces itf_max, itf_max + 1 (2 and 3 on rp2),
    which is how the host tells the two ports apart (host/ringctl/link/boards.py).
    Stream API: readinto(buf) -> bytes copied (0: nothing waiting), write(buf) -> bytes taken
    (0: the host is not reading and the buffer is full), ioctl POLLIN / POLLOUT for
    select.poll and asyncio. Neither ever waits.

    The USB task's callbacks run between any two bytecodes of the loop, so no counter is
    written from both sides: the callbacks own rx_w and tx_out, the loop owns rx_r and tx_in
    (all modulo twice the ring, so full and empty differ), and a "busy" flag is set before
    its transfer is submitted (a transfer can complete before submit_xfer() returns)."""

    def __init__(self, usbd, name=NAME):
        self.usbd = usbd
        self.slots = bytearray(_RX_SLOTS * _EP_SIZE)
        self.rx_mv = memoryview(self.slots)
        self.slot_mv = [self.rx_mv[i * _EP_SIZE:(i + 1) * _EP_SIZE] for i in range(_RX_SLOTS)]
        self.slot_n = bytearray(_RX_SLOTS)   # bytes each filled slot holds
        self.rx_w = 0         # callback: packets received (mod 2 x slots)
        self.rx_r = 0         # loop: packets read out (mod 2 x slots)
        self.rx_off = 0       # loop: bytes already read from the oldest packet
        self.rx_busy = False  # an OUT transfer is submitted (into slot rx_w % slots)
        self.tx = bytearray(_TX_BYTES)
        self.tx_mv = memoryview(self.tx)
        self.tx_in = 0        # loop: bytes queued (mod 2 x ring)
        self.tx_out = 0       # callback: bytes the host took (mod 2 x ring)
        self.tx_busy = 0      # bytes of the IN transfer in flight (0: none)
        self.open = False     # the host configured us (set configuration)
        self.dtr = False      # a program has the port open (DTR from SET_CONTROL_LINE_STATE)
        self.line_coding = bytearray(b"\x00\xc2\x01\x00\x00\x00\x08")   # 115200 8N1: cosmetic
        self.overruns = 0     # writes the ring could not take in full (host not reading)
        b = usbd.BUILTIN_DEFAULT
        self.itf = b.itf_max
        ep = b.ep_max
        self.ep_out = ep + 1
        self.ep_in = (ep + 1) | _EP_IN
        istr = b.str_max
        cfg = bytearray(b.desc_cfg)
        mine = descriptor(self.itf, ep, istr)
        total = len(cfg) + len(mine)
        cfg[2] = total & 0xFF                      # wTotalLength
        cfg[3] = total >> 8
        cfg[4] = self.itf + 2                      # bNumInterfaces
        self.desc_cfg = bytes(cfg) + mine
        usbd.active(False)
        usbd.builtin_driver = b
        usbd.config(b.desc_dev, self.desc_cfg, {istr: name}, self._open, self._reset,
                    self._control, self._xfer)
        usbd.active(True)

    # ---- USB callbacks (the USB task: soft context) -------------------------------------
    def _open(self, desc):
        self.open = True
        self._rx_submit()
        self._tx_submit()

    def _reset(self):
        # a bus reset: submitted transfers never complete
        self.open = False
        self.dtr = False
        self.rx_busy = False
        self.tx_busy = 0

    def _control(self, stage, req):
        if req[0] & 0x60 != _CLASS or req[4] | (req[5] << 8) != self.itf:
            return False
        r = req[1]
        if stage == _SETUP:
            if r == _SET_LINE_CODING or r == _GET_LINE_CODING:
                return self.line_coding
            return r == _SET_LINE_STATE or r == _SEND_BREAK
        if stage == _ACK and r == _SET_LINE_STATE:
            self.dtr = bool(req[2] & 1)
        return True

    def _xfer(self, ep, res, n):
        if ep == self.ep_out:
            self.rx_busy = False
            if res == 0 and n:        # 0 = XFER_RESULT_SUCCESS (tinyusb)
                self.slot_n[self.rx_w % _RX_SLOTS] = n
                self.rx_w = (self.rx_w + 1) % (2 * _RX_SLOTS)
            self._rx_submit()
        elif ep == self.ep_in:
            k = self.tx_busy
            if res == 0:
                self.tx_out = (self.tx_out + k) % (2 * _TX_BYTES)
            self.tx_busy = 0
            self._tx_submit()

    def _rx_submit(self):
        # one packet per transfer: it completes on the host's first short packet, so a frame
        # is handed over as soon as its last byte is in. No free slot: the endpoint NAKs and
        # the host waits (flow control: nothing is lost).
        if (self.open and not self.rx_busy
                and (self.rx_w - self.rx_r) % (2 * _RX_SLOTS) < _RX_SLOTS):
            self.rx_busy = True
            if not self.usbd.submit_xfer(self.ep_out, self.slot_mv[self.rx_w % _RX_SLOTS]):
                self.rx_busy = False

    def _tx_submit(self):
        if not self.open or self.tx_busy:
            return
        k = (self.tx_in - self.tx_out) % (2 * _TX_BYTES)
        if not k:
            return
        s = self.tx_out % _TX_BYTES
        if s + k > _TX_BYTES:
            k = _TX_BYTES - s                      # up to the end of the ring; the rest next
        if k > _TX_MAX:
            k = _TX_MAX
        if not k % _EP_SIZE:
            k -= 1          # never a multiple of 64: the last packet is short, no ZLP needed
        self.tx_busy = k
        if not self.usbd.submit_xfer(self.ep_in, self.tx_mv[s:s + k]):
            self.tx_busy = 0

    # ---- stream side (the asyncio loop) ---------------------------------------------------
    def readinto(self, buf):
        """Copy what the host sent, up to len(buf). -> count (0: nothing waiting)."""
        n = 0
        lim = len(buf)
        r = self.rx_r
        off = self.rx_off
        while r != self.rx_w and n < lim:
            h = r % _RX_SLOTS
            k = self.slot_n[h] - off
            if k > lim - n:
                k = lim - n
            base = h * _EP_SIZE + off
            buf[n:n + k] = self.rx_mv[base:base + k]
            n += k
            off += k
            if off >= self.slot_n[h]:
                r = (r + 1) % (2 * _RX_SLOTS)
                off = 0
        self.rx_off = off
        if r != self.rx_r:
            self.rx_r = r
            if not self.rx_busy:
                self._rx_submit()       # a slot came free: take the host's next packet
        return n

    def write(self, buf):
        """Queue bytes for the host; -> bytes taken (all, or what fits). Never waits."""
        n = len(buf)
        room = _TX_BYTES - (self.tx_in - self.tx_out) % (2 * _TX_BYTES)
        if n > room:
            self.overruns += 1
            n = room
            buf = memoryview(buf)[:n]
        if n:
            e = self.tx_in % _TX_BYTES
            k = _TX_BYTES - e
            if k >= n:
                self.tx_mv[e:e + n] = buf
            else:
                mv = memoryview(buf)
                self.tx_mv[e:] = mv[:k]
                self.tx_mv[:n - k] = mv[k:n]
            self.tx_in = (self.tx_in + n) % (2 * _TX_BYTES)
            if not self.tx_busy:
                self._tx_submit()
        return n

    def room(self):
        """Bytes write() takes now."""
        return _TX_BYTES - (self.tx_in - self.tx_out) % (2 * _TX_BYTES)

    def ioctl(self, req, arg):
        if req != _POLL:
            # flush / close: nothing to do; anything else (GET_FILENO: this port is no file
            # descriptor, so select.poll asks POLL instead) is not supported
            return 0 if req == _FLUSH or req == _CLOSE else _EINVAL
        r = 0
        if arg & _POLLIN and self.rx_w != self.rx_r:
            r |= _POLLIN
        if arg & _POLLOUT and self.room():
            r |= _POLLOUT
        return r
