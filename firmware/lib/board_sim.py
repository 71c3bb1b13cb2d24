# Simulated board for the MicroPython unix port: fake pins (machine.PinBase), link on a pty fd, sensors + light on an AF_UNIX socket (firmware/SIM.md).
import os
import sys
import time
import select
import socket
import struct
import asyncio
import machine

import ringmsg as M
from linkio import TxBuffer

PATH_MAX = 108
MAX_CLIENTS = 4          # sensor-socket clients at once (simulator, test, SimBoard's reader)
RESET_EXIT = 75          # process exit code meaning "reset me" (simboard.py restarts the board)

# trigger flags (same values as rp2's Pin.IRQ_FALLING / IRQ_RISING)
IRQ_FALLING = 4
IRQ_RISING = 8


class SimPin(machine.PinBase):
    """An input or output pin. set() from the socket plays the wire; a registered handler is
    called synchronously like a (soft) pin IRQ."""

    def __init__(self, name, level=1):
        super().__init__()
        self.name = name
        self.level = level
        self.handler = None
        self.trigger = 0
        self.until = None     # ticks_us a pulse ends at: the wire falls back then, even while
                              # a handler still runs (its edge IRQ follows when it returns)

    def value(self, v=None):
        if v is None:
            u = self.until
            if u is not None and time.ticks_diff(time.ticks_us(), u) >= 0:
                return self.level ^ 1
            return self.level
        self.level = 1 if v else 0
        return None

    def irq(self, handler=None, trigger=IRQ_FALLING | IRQ_RISING):
        self.handler = handler
        self.trigger = trigger

    def set(self, level):
        level = 1 if level else 0
        if level == self.level:
            return
        self.level = level
        h = self.handler
        if h is not None and self.trigger & (IRQ_RISING if level else IRQ_FALLING):
            h(self)


class SimInput(SimPin):
    """An input wired as pinmap.json says: `low` = 1 if active LOW. set_active(1) drives the
    wire to the active level (beam broken, pressed, on the mat, strike); cut() leaves it at
    the pull level, as a cut cable or a dead sensor would."""

    def __init__(self, name, low, pull_up):
        super().__init__(name, low)       # idle (inactive) level = low ^ 0
        self.low = low
        self.rest = 1 if pull_up else 0   # the level a cut wire floats to

    def set_active(self, on):
        self.set((1 if on else 0) ^ self.low)

    def pulse_start(self, us):
        """Active for `us` from now; the caller ends it with pulse_end() once the time is up
        (a handler reading the pin meanwhile sees it fall on time, as on the wire)."""
        self.until = time.ticks_add(time.ticks_us(), us)
        self.set_active(1)

    def pulse_end(self):
        self.until = None
        self.set_active(0)

    def cut(self):
        self.set(self.rest)


def _sim_input(name):
    import pins   # the same active levels as the real board; boot-only (app.forget_boot_modules)
    _, _, pull, low, _ = pins.PINS[name]
    return SimInput(name, low, pull == pins.PULL_UP)


class SimADC:
    """Envelope ADC with a peak hold: a value set between two reads is never missed (the
    real envelope detector holds peaks for ~100 ms). Floor = mean +- noise (LCG, no alloc)."""

    def __init__(self, mean=1200, noise=40):
        self.mean = mean
        self.noise = noise
        self.peak = 0
        self.seed = 12345

    def read_u16(self):
        self.seed = (self.seed * 1103515245 + 12345) & 0x3FFFFFFF
        v = self.mean
        if self.noise:
            v += (self.seed >> 8) % (2 * self.noise + 1) - self.noise
        if self.peak > v:
            v = self.peak
        self.peak = 0
        return 0 if v < 0 else (65535 if v > 65535 else v)


class TaskFlag:
    """The simulated IRQs run inside the asyncio loop (the socket task), where an Event wakes
    the fast task at once; a ThreadSafeFlag is only noticed at the loop's next I/O poll
    (~1 ms on the unix port). The Pico uses asyncio.ThreadSafeFlag (real IRQs)."""

    def __init__(self):
        self.e = asyncio.Event()

    def set(self):
        self.e.set()

    async def wait(self):
        await self.e.wait()
        self.e.clear()


class SimWDT:
    """The process cannot reset itself when it hangs, so the watchdog lives outside: every
    feed rewrites <flash>/wdt.feed ("<timeout ms>"); SimBoard kills and restarts the board
    (reset cause "watchdog") when the file is older than the timeout, like the RP2040's WDT."""

    def __init__(self, timeout, path=None):
        self.timeout = timeout
        self.feeds = 0
        self.f = None
        if path:
            try:
                self.f = open(path, "wb")
            except OSError:
                self.f = None
        self.feed()

    def feed(self):
        self.feeds += 1
        f = self.f
        if f is not None:
            try:
                f.seek(0)
                f.write(b"%d\n" % self.timeout)
                f.flush()
            except OSError:
                pass


class Board:
    name = "sim"
    dev = True      # a missing manifest means "unverified", not locked (documented)

    def __init__(self, root=None, link_fd=None, sock_path=None):
        self.root = root if root is not None else (os.getenv("RING_FLASH") or ".")
        fd = link_fd if link_fd is not None else os.getenv("RING_LINK_FD")
        if fd is None or fd == "":
            self.rx = sys.stdin.buffer
            self.tx = sys.stdout.buffer
        else:
            self.rx = self.tx = open(int(fd), "r+b")
        self.sock_path = sock_path if sock_path is not None else os.getenv("RING_SIM_SOCKET")
        # Inputs sit at the wire levels pinmap.json gives the real board (light-ON beams:
        # LOW = light received = clear); the socket protocol stays logical ("beam 3 1" =
        # broken) and set_active() turns it into the wire level.
        self.beams = [_sim_input("BEAM%d" % i) for i in range(8)]
        self.beam_low = bytes(p.low for p in self.beams)
        self.buttons = [_sim_input("BTN_NOSPIN"), _sim_input("BTN_ARM")]
        self.button_low = bytes(p.low for p in self.buttons)
        self.mat = _sim_input("MAT")
        self.mat_low = self.mat.low
        self.wall_trig = _sim_input("WALL_TRIG")
        self.wall_low = self.wall_trig.low
        self.adc = [SimADC(), SimADC(), SimADC()]
        self.lamps = [SimPin(n, 0) for n in ("LIGHT_RED", "LIGHT_AMBER", "LIGHT_GREEN", "BUZZER")]
        self.ledpin = SimPin("LED", 0)
        self.rx_poll = select.poll()
        self.rx_poll.register(self.rx, select.POLLIN)
        self.one = bytearray(1)
        self.nonblock = os.getenv("RING_LINK_NONBLOCK") == "1" and self.rx is self.tx
        # the pty fd is non-blocking: whole runs, a full line returns a short count
        self.txq = TxBuffer(self.tx, piece=0 if self.nonblock else 1)
        self.conns = []
        self.app = None
        try:
            self.cause = int(os.getenv("RING_RESET_CAUSE") or M.RESET_POWER_ON)
        except ValueError:
            self.cause = M.RESET_OTHER

    # ---- identity, storage -------------------------------------------------------------------
    def path(self, name):
        return self.root.rstrip("/") + "/" + name

    def urandom(self, n):
        return os.urandom(n)

    def unique_id(self):
        return os.getenv("RING_DEVICE_ID") or "SIM0000000001"

    def reset_cause(self):
        return self.cause

    # the RP2040's watchdog scratch registers: a file in the flash directory that survives
    # the process restart (a reset) and is cleared at power-on (resets.py)
    def scratch(self, i):
        try:
            with open(self.path("scratch"), "rb") as f:
                d = f.read()
            return struct.unpack_from("<I", d, 4 * i)[0]
        except (OSError, ValueError):
            return 0

    def set_scratch(self, i, v):
        regs = [self.scratch(k) for k in range(4)]
        regs[i] = v & 0xFFFFFFFF
        with open(self.path("scratch"), "wb") as f:
            f.write(struct.pack("<IIII", *regs))

    def read_key(self):
        try:
            with open(self.path("key.bin"), "rb") as f:
                k = f.read()
        except OSError:
            return None
        return k if len(k) == 32 else None

    def wake_flag(self):
        return TaskFlag()

    def wdt(self, ms):
        ms = int(os.getenv("RING_SIM_WDT_MS") or ms)     # tests shorten it
        self.wdt_obj = SimWDT(ms, self.path("wdt.feed"))
        return self.wdt_obj

    def reset(self, repl=False, why=None):
        if repl:
            with open(self.path("repl.flag"), "w") as f:
                f.write("1")
        if why is not None:
            self.set_scratch(0, why)
        raise SystemExit(RESET_EXIT)

    def lamp_watch(self, cb):
        """No timer interrupts under the unix port: a hung simulated board is restarted by
        SimBoard's watchdog; the lamp watchdog's logic is tested on virtual time."""
        return None

    def led(self, v):
        self.ledpin.value(v)

    # ---- inputs (active level: 1 = broken / pressed / on the mat) ----------------------------------
    def beam_active(self, s):
        p = self.beams[s]
        return p.value() ^ p.low      # a pulse reads clear once its time is up

    def button_active(self, k):
        p = self.buttons[k]
        return p.level ^ p.low

    def mat_active(self):
        return self.mat.level ^ self.mat.low

    def irq_beam(self, s, h):
        self.beams[s].irq(h, IRQ_FALLING | IRQ_RISING)

    def irq_button(self, k, h):
        self.buttons[k].irq(h, IRQ_FALLING | IRQ_RISING)

    def irq_mat(self, h):
        self.mat.irq(h, IRQ_FALLING | IRQ_RISING)

    def irq_wall(self, h):
        self.wall_trig.irq(h, IRQ_FALLING if self.wall_low else IRQ_RISING)

    # ---- link ------------------------------------------------------------------------------------
    def open_link(self):
        pass            # the pty (or stdin / stdout) is there from the start

    def link_read(self, buf):
        """Whatever the pty has, up to len(buf), never blocking. SimBoard makes the pty fd
        non-blocking (RING_LINK_NONBLOCK=1): one readinto takes what is there. Otherwise
        MicroPython's FileIO.readinto would block until the buffer is full, so poll before
        every byte (as board_pico does with USB-CDC stdin)."""
        if self.nonblock:
            try:
                n = self.rx.readinto(buf)
            except OSError:
                return 0
            return n or 0
        n = 0
        lim = len(buf)
        p = self.rx_poll
        one = self.one
        while n < lim:
            got = False
            for _ in p.ipoll(0):
                got = True
            if not got:
                break
            if not self.rx.readinto(one):
                break
            buf[n] = one[0]
            n += 1
        return n

    def link_write(self, data):
        """Never blocks on a host that does not read (linkio.TxBuffer); a frame with no room is
        dropped and resent by the link protocol."""
        self.txq.put(data)

    def link_flush(self):
        self.txq.flush()

    def tx_room(self):
        return self.txq.room()

    def tx_max_us(self):
        return self.txq.max_us

    # ---- light / phase reports to the simulator --------------------------------------------------
    def _say(self, line, only=None):
        for c in self.conns:
            if only is not None and c is not only:
                continue
            try:
                c.write(line)
            except OSError:
                pass

    def on_light(self, state, bits, edge_us):
        self._say("light %s %d%d%d%d %d\n" % (M.LIGHT_NAMES[state], bits & 1, (bits >> 1) & 1,
                                             (bits >> 2) & 1, (bits >> 3) & 1, edge_us))

    def on_lamps(self, bits):
        self._say("lamps %d%d%d%d\n" % (bits & 1, (bits >> 1) & 1, (bits >> 2) & 1, (bits >> 3) & 1))

    def on_phase(self, ph):
        self._say("phase %s\n" % M.PHASE_NAMES[ph])

    # ---- the sensor socket ------------------------------------------------------------------------
    def tasks(self, app):
        self.app = app
        if not self.sock_path:
            return []
        return [self._serve()]

    async def _serve(self):
        path = self.sock_path
        try:
            os.remove(path)
        except OSError:
            pass
        ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        ls.bind(struct.pack("H%ds" % PATH_MAX, socket.AF_UNIX, path.encode()))
        ls.listen(1)
        ls.setblocking(False)
        while True:
            try:
                c, _ = ls.accept()
            except OSError:
                await asyncio.sleep_ms(20)
                continue
            if len(self.conns) >= MAX_CLIENTS:     # the oldest client makes room
                old = self.conns.pop(0)
                try:
                    old.close()
                except OSError:
                    pass
            c.setblocking(False)
            self.conns.append(c)
            app = self.app
            self._say("hello %s %08x\n" % (self.unique_id(), app.boot_id if app else 0), c)
            asyncio.create_task(self._client(c))

    async def _client(self, c):
        s = asyncio.StreamReader(c)
        pend = b""
        while c in self.conns:
            try:
                data = await s.read(512)
            except OSError:
                break
            if not data:
                break
            pend += data
            while b"\n" in pend:
                line, _, pend = pend.partition(b"\n")
                err = self.apply(line.decode().strip(), c)
                if err:
                    self._say("err %s\n" % err, c)
        if c in self.conns:
            self.conns.remove(c)
        try:
            c.close()
        except OSError:
            pass

    def apply(self, line, client=None):
        """One protocol line (firmware/SIM.md). -> None or the error text."""
        f = line.split()
        if not f:
            return None
        try:
            cmd = f[0]
            if cmd == "beam":
                s = int(f[1])
                if not 0 <= s < 8:
                    return "beam sector must be 0..7"
                if f[2] == "cut":
                    self.beams[s].cut()
                elif f[2] == "pulse":
                    asyncio.create_task(self._pulse(self.beams[s], int(f[3])))
                else:
                    self.beams[s].set_active(int(f[2]))
            elif cmd == "mat":
                if f[1] == "cut":
                    self.mat.cut()
                else:
                    self.mat.set_active(int(f[1]))
            elif cmd == "button":
                k = ("nospin", "arm").index(f[1])
                if f[2] == "cut":
                    self.buttons[k].cut()
                else:
                    self.buttons[k].set_active(int(f[2]))
            elif cmd == "piezo":
                ch = int(f[1])
                if ch not in (0, 1):
                    return "piezo channel must be 0 or 1"
                a = self.adc[ch]
                a.peak = max(a.peak, int(f[2]))    # the envelope holds the highest peak
            elif cmd == "wall":
                self.adc[2].peak = max(self.adc[2].peak, int(f[1]))
                self.wall_trig.set_active(1)
                self.wall_trig.set_active(0)
            elif cmd == "floor":
                a = self.adc[int(f[1])]
                a.mean = int(f[2])
                a.noise = int(f[3])
            elif cmd == "ping":
                self._say("pong %s %d\n" % (f[1], time.ticks_us()), client)
            elif cmd == "state":
                app = self.app
                if app is not None:
                    self.on_phase(app.spin.phase)
                    lt = app.light
                    self.on_light(lt.state, lt.bits, -1)
            else:
                return "unknown line %r" % line
        except (IndexError, ValueError) as e:
            return "bad line %r (%s)" % (line, e)
        return None

    async def _pulse(self, pin, us):
        # the start edge's handler may run past the pulse's end (the guard times an armed
        # break inside its IRQ): the pin reads clear on time, its own edge comes after
        pin.pulse_start(us)
        end = pin.until
        if us < 1000:
            # short pulses (glitches, fast coins) are timed here exactly
            left = time.ticks_diff(end, time.ticks_us())
            if left > 0:
                time.sleep_us(left)
            pin.pulse_end()
            return
        while True:
            left = time.ticks_diff(end, time.ticks_us())
            if left <= 0:
                break
            await asyncio.sleep_ms((left - 1000) // 1000 if left > 2000 else 0)
        pin.pulse_end()
