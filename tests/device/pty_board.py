"""A minimal board for device tests: a ringlink device Session on a pty, answering like the firmware.

Used to prove devlink/doctor over the real LinkClient when the full simulated board is not
needed: self-test with a chosen fault mask, status (mat), light commands.
"""
import os
import select
import threading
import time
import tty

from ringctl.fw import ringlink as rl
from ringctl.fw import ringmsg as M


class PtyBoard:
    def __init__(self, key, fault=0, device_id="SIMPTY01", image=b"\x11\x22\x33\x44\x55\x66\x77\x88",
                 backlog=()):
        self.master, slave = os.openpty()
        tty.setraw(slave)
        self.path = os.ttyname(slave)
        self._slave = slave
        self.fault = fault
        self.boot_id = 0xB0070001
        self.n = 0
        self.lights = []
        self.cmds = []
        info = {"fw": "0.1.0-pty", "image": image, "boot_id": self.boot_id,
                "reset": M.RESET_POWER_ON, "device_id": device_id,
                "interp": "micropython 1.29.0 linux (pty test board)"}
        self.s = rl.Session(key, rl.ROLE_DEVICE, info, ring_slots=32, window=8)
        self._stop = False
        self._pending = list(backlog)
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()

    def _ms(self):
        return int(time.monotonic() * 1000)

    def _ev(self, code, a=0, b=0, text=None):
        self.n += 1
        self.s.send(rl.MT_EVENT, M.pack_event(self.boot_id, self.n, code, self.n * 1000, a, b,
                                              text), self._ms())

    def _on_cmd(self, payload):
        code, cmd_id, text = M.unpack_cmd(payload)
        self.cmds.append((code, text))
        if code == M.CMD_SELFTEST:
            self._ev(M.EV_SELFTEST, 1 if self.fault else 0, self.fault,
                     "fault mask %x" % self.fault if self.fault else None)
        elif code == M.CMD_STATUS:
            self._ev(M.EV_PHASE, M.PH_IDLE, M.PH_IDLE)
            self._ev(M.EV_MAT, 1)
            self._ev(M.EV_LINK, 0, 0, "crc=0 mal=0 ovr=0 stale=0 dup=0 hs=1 lost=0")
        elif code == M.CMD_LIGHT:
            self.lights.append(int(text))
            self._ev(M.EV_LIGHT, int(text), -1)
        self._ev(M.EV_RESULT, cmd_id, 0)

    def _run(self):
        self.s.start(self._ms())
        while not self._stop:
            r, _, _ = select.select([self.master], [], [], 0.005)
            now = self._ms()
            if r:
                try:
                    data = os.read(self.master, 4096)
                except OSError:
                    data = b""
                self.s.feed(data, now)
            if self.s.connected and self._pending:
                for code, a, b in self._pending:
                    self._ev(code, a, b)
                self._pending = []
            while True:
                m = self.s.recv()
                if m is None:
                    break
                if m[0] == rl.MT_CMD:
                    self._on_cmd(m[1])
            while True:
                out = self.s.poll(now)
                if out is None:
                    break
                try:
                    os.write(self.master, out)
                except OSError:
                    pass

    def close(self):
        self._stop = True
        self._t.join(2)
        for fd in (self.master, self._slave):
            try:
                os.close(fd)
            except OSError:
                pass
