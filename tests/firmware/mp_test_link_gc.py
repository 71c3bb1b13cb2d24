# No automatic collection inside the link pass: a command's answer (its ack) is queued before any collection the pass's garbage triggers (issue 18: a collection is ~10 ms on the chip).
import gc
import mptest
import fwrig
import ringlink as rl
import ringmsg as M

KEY = bytes(range(32))


class Line:
    """The real App's link (virtual time) with a host Session at the other end."""

    def __init__(self, rig):
        self.rig = rig
        self.dev = rl.Session(KEY, rl.ROLE_DEVICE, {"fw": "t", "image": bytes(8), "boot_id": 9,
                                                    "reset": 0, "device_id": "GC",
                                                    "interp": "mp"}, ring_slots=16)
        rig.app.session = self.dev
        self.host = rl.Session(KEY, rl.ROLE_HOST, {"name": "gc"})
        self.inbox = []
        self.out = []
        rig.board.link_read = self.link_read
        rig.board.link_write = lambda data: self.out.append(bytes(data))
        now = rig.ft.ticks_ms()
        self.dev.start(now)
        self.host.start(now)
        rig.ready(host=False)

    def link_read(self, buf):
        if not self.inbox:
            return 0
        d = self.inbox.pop(0)
        buf[:len(d)] = d
        return len(d)

    def host_turn(self):
        now = self.rig.ft.ticks_ms()
        for b in self.out:
            self.host.feed(b, now)
        del self.out[:]
        while True:
            m = self.host.recv()
            if m is None:
                break
            self.host.ack(m[2])
        while True:
            b = self.host.poll(now)
            if b is None:
                break
            self.inbox.append(b)

    def run(self, ms):
        for _ in range(ms // 10):
            self.rig.step_ms(10)
            self.host_turn()
            self.rig.app.link_service()


def _garbage(kb):
    for _ in range(kb):
        bytearray(1024)


def test_a_command_pass_runs_without_a_collection_and_collects_right_after():
    rig = fwrig.Rig("linkgc")
    try:
        line = Line(rig)
        line.run(500)
        assert line.host.connected, "link up"
        line.host.send(rl.MT_CMD, M.pack_cmd(M.CMD_STATUS, 7), rig.ft.ticks_ms())
        line.host_turn()
        svc = rig.app.link_service  # (a bound method is an allocation: made before)
        gc.collect()
        gc.disable()
        _garbage(16)               # 16 KB a collection would give back
        gc.threshold(512)          # any pass makes more garbage than this: a collection is due
        gc.enable()
        before = gc.mem_alloc()
        svc()                      # STATUS: several events, frames sealed and written
        inside = gc.mem_alloc()
        _garbage(1)                # the first allocation after the pass collects
        after = gc.mem_alloc()
        gc.threshold(-1)
        assert line.out, "the answer frames were written in the pass"
        assert inside > before, "nothing was collected inside the pass (%d -> %d)" % (before, inside)
        assert after < before - 8 * 1024, "the held-off collection ran right after it"
        assert gc.isenabled(), "collections are on again after the pass"
    finally:
        gc.threshold(-1)
        rig.restore()


def test_collections_come_back_on_when_a_command_raises():
    rig = fwrig.Rig("linkgc2")
    try:
        line = Line(rig)
        line.run(300)

        def boom(*a):
            raise RuntimeError("boom")
        rig.app.command = boom
        line.host.send(rl.MT_CMD, M.pack_cmd(M.CMD_STATUS, 8), rig.ft.ticks_ms())
        line.host_turn()
        mptest.raises(RuntimeError, rig.app.link_service)
        assert gc.isenabled()
    finally:
        rig.restore()


mptest.main(globals())
