# Test rig for firmware tests: virtual time, the real App on board_sim's fake pins, and a sensor-trace player.
# Runs under micropython. Time is virtual: app/sensors/events modules get a FakeTime in place of
# `time`, so a 3-second trace replays in milliseconds and every reaction time is exact.
import os
import json
import time as _rt

import app as APP
import sensors as SENS
import events as EVM
import guard as GRD
import board_sim
import ringmsg as M

_TMASK = 0x3FFFFFFF
_THALF = 0x20000000


class FakeTime:
    def __init__(self, start_us=1000000):
        self.us = start_us

    def ticks_us(self):
        return self.us & _TMASK

    def ticks_ms(self):
        return (self.us // 1000) & _TMASK

    def ticks_diff(self, a, b):
        return ((a - b + _THALF) & _TMASK) - _THALF

    def ticks_add(self, a, d):
        return (a + d) & _TMASK

    def sleep_us(self, us):
        self.us += us

    def sleep_ms(self, ms):
        self.us += ms * 1000


class BusyTime(FakeTime):
    """The guard's clock: its hard handler busy-waits the glitch filter, so each reading moves
    the shared virtual time on by 1 us (as a real busy-wait would)."""

    def __init__(self, ft):
        self.ft = ft

    def ticks_us(self):
        self.ft.us += 1
        return self.ft.us & _TMASK

    def ticks_ms(self):
        return self.ft.ticks_ms()


def tmpdir(name):
    # TMPDIR: the run's own directory (tests/mprun.py), removed after it
    d = "%s/mpfw_%s_%d" % (os.getenv("TMPDIR") or "/tmp", name,
                           os.getpid() if hasattr(os, "getpid") else _rt.ticks_us())
    try:
        os.mkdir(d)
    except OSError:
        pass
    for n in os.listdir(d):
        os.remove(d + "/" + n)
    return d


class Rig:
    """App + board_sim Board on virtual time. Events are read back from the app's queue."""

    def __init__(self, name, cfg=None, key=True, files=None, board=None, chk=None):
        """board: any board object (default board_sim's); chk: integrity result for boot."""
        self.ft = FakeTime()
        for mod in (APP, SENS, EVM, board_sim):
            mod.time = self.ft
        GRD.time = BusyTime(self.ft)
        self.root = tmpdir(name)
        if key:
            with open(self.root + "/key.bin", "wb") as f:
                f.write(bytes(range(32)))
        if cfg is not None:
            with open(self.root + "/config.json", "w") as f:
                json.dump(cfg, f)
        for n, data in (files or {}).items():
            with open(self.root + "/" + n, "w") as f:
                f.write(data)
        if board is None:
            board = board_sim.Board(root=self.root, link_fd=None, sock_path="")
        self.board = board
        self.board.link_write = lambda data: None       # no host process in unit tests
        self.app = APP.App(self.board)
        self.app.apply_config()
        self.app.boot(chk)
        self.app.session = None   # events stay in the app's queue; drain() reads them
        self.events = []        # (code, a, b, text) as they left the queue
        self.lights = []        # (state, edge_us)
        self.board.on_light = lambda st, bits, edge: self.lights.append((st, edge))

    def restore(self):
        for mod in (APP, SENS, EVM, board_sim, GRD):
            mod.time = _rt

    # ---- driving -------------------------------------------------------------------------
    def drain(self):
        if self.app.session is not None:
            return          # a link session sends the queue (pump_link): it is not ours
        q = self.app.events
        while True:
            ev = q.peek()
            if ev is None:
                break
            _, _, code, _, a, b, text = M.unpack_event(bytes(ev))
            self.events.append((code, a, b, text))
            q.pop()

    def step_ms(self, ms=1):
        """Advance virtual time ms by ms: edges handed off every ms (the fast task), the
        timer task's pass (envelopes, timers, light) every timer_ms."""
        a = self.app
        for _ in range(ms):
            self.ft.us += 1000
            a.process_edges()
            if (self.ft.us // 1000) % a.timer_ms == 0:
                a.timer_once()
        self.drain()

    def ready(self, host=True):
        """Boot self-test passed (fault-free sensors) and, optionally, the host connected."""
        sp = self.app.spin
        sp.selftest_result(0, self.ft.ticks_us())
        if host:
            sp.host(True, self.ft.ticks_us())
        self.step_ms(5)

    def apply(self, step):
        """One trace step: [t_ms, kind, args...] (kinds as in firmware/SIM.md + arm/host/cmd)."""
        kind = step[1]
        b = self.board
        if kind == "beam":
            b.beams[step[2]].set_active(step[3])
        elif kind == "mat":
            b.mat.set_active(step[2])
        elif kind == "button":
            b.buttons[("nospin", "arm").index(step[2])].set_active(step[3])
        elif kind == "piezo":
            b.adc[step[2]].peak = step[3]
        elif kind == "wall":
            b.adc[2].peak = step[2]
            b.wall_trig.set_active(1)
            b.wall_trig.set_active(0)
        elif kind == "floor":
            a = b.adc[step[2]]
            a.mean = step[3]
            a.noise = step[4]
        elif kind == "glitch":
            # the wire: active for step[3] us; the pin reads clear on time even while the
            # start edge's handler (the guard's glitch filter) is still running
            pin = b.beams[step[2]]
            pin.pulse_start(step[3])
            left = self.ft.ticks_diff(pin.until, self.ft.ticks_us())
            if left > 0:
                self.ft.us += left
            pin.pulse_end()
        elif kind == "selftest":
            self.selftest()
        elif kind == "arm":
            self.app.command(M.CMD_ARM, 1, "")
        elif kind == "done":
            self.app.command(M.CMD_SPIN_DONE, 2, "")
        elif kind == "host":
            self.app.spin.host(bool(step[2]), self.ft.ticks_us())
        else:
            raise ValueError("unknown trace step %r" % (step,))
        self.app.process_edges()

    def play(self, steps, end_ms):
        """Steps sorted by t_ms (relative to now); runs until end_ms."""
        t = 0
        i = 0
        while t <= end_ms:
            while i < len(steps) and steps[i][0] <= t:
                self.apply(steps[i])
                i += 1
            self.step_ms(1)
            t += 1
        self.drain()

    def selftest(self):
        """The boot/command self-test on virtual time (same sampling as App.selftest)."""
        a = self.app
        a.selftest_begin()
        for _ in range(APP.SELFTEST_MS // 10):
            a.selftest_sample()
            self.step_ms(10)
        mask = a.selftest_end()
        self.drain()
        return mask

    # ---- reading results -------------------------------------------------------------------
    def codes(self, code):
        return [e for e in self.events if e[0] == code]

    def phases(self):
        return [M.PHASE_NAMES[e[1]] for e in self.events if e[0] == M.EV_PHASE]

    def light_names(self):
        return [M.LIGHT_NAMES[s] for s, _ in self.lights]


def load_trace(name):
    for base in ("tests/firmware/traces/", "traces/"):
        try:
            with open(base + name + ".json") as f:
                return json.load(f)
        except OSError:
            pass
    raise OSError("trace %s not found" % name)
