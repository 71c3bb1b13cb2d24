# The real App and ringlink over the Pico's own link port (board_pico + usbcdc) against the USB host model (rp2fake.USBDevice) with a host Session: handshake, a command's ack at the next USB frame, a host that stops reading and comes back (every event once, in order).
import mptest
import fwrig           # (imports board_sim with the unix port's machine first)
import rp2fake
import ringlink as rl
import ringmsg as M

rp2fake.install()
import board_pico      # noqa: E402

KEY = bytes(range(32))


class UsbLine:
    """board_pico's link port on the USB host model, a host Session on the other side, the
    App's link pass run whenever the port is readable (what link_rx_task waits for) and on
    the timer's 20 ms housekeeping; one USB frame per virtual ms."""

    def __init__(self, name):
        self.usb = rp2fake.USBDevice()
        b = board_pico.Board(usbd=self.usb)
        b.read_key = lambda: KEY
        self.rig = fwrig.Rig(name, board=b, chk=("ok", "00" * 8, []))
        self.board = b
        del b.link_write           # the Rig stubs it out: the real one again
        self.app = self.rig.app
        self.dev = rl.Session(KEY, rl.ROLE_DEVICE, {"fw": "t", "image": bytes(8), "boot_id": 5,
                                                    "reset": 0, "device_id": "USB",
                                                    "interp": "mp"}, ring_slots=16)
        self.app.session = self.dev
        self.host = rl.Session(KEY, rl.ROLE_HOST, {"name": "usb"})
        self.usb.enumerate()
        now = self.rig.ft.ticks_ms()
        self.dev.start(now)
        self.host.start(now)
        self.rig.ready(host=False)
        self.got = []
        self.got_ms = []
        self.pos = 0

    def now(self):
        return self.rig.ft.ticks_ms()

    def host_turn(self):
        now = self.now()
        data = bytes(self.usb.got[self.pos:])
        self.pos = len(self.usb.got)
        if data:
            self.host.feed(data, now)
        while True:
            m = self.host.recv()
            if m is None:
                break
            e = M.unpack_event(m[1])
            self.got.append((e[1], e[2], e[4], e[5]))   # event_id, code, a, b
            self.got_ms.append(now)
            self.host.ack(m[2])
        while True:
            fr = self.host.poll(now)
            if fr is None:
                break
            self.usb.write(fr)

    def run(self, ms):
        for _ in range(ms):
            self.rig.ft.us += 1000
            self.usb.frame()
            self.host_turn()
            if self.board.link.ioctl(3, 1) or self.now() % 20 == 0:
                self.app.link_service()


def test_handshake_and_a_command_acked_at_the_next_usb_frame():
    ln = UsbLine("usblink1")
    try:
        ln.run(600)
        assert ln.host.connected and ln.app.spin.host_up, "link up over the USB model"
        cid = 77
        ln.host.send(rl.MT_CMD, M.pack_cmd(M.CMD_DISARM, cid), ln.now())
        una = ln.host._una
        t0 = ln.now()
        ln.host_turn()                      # the command goes out (OUT transfer done)
        assert ln.board.link.ioctl(3, 1) == 1, "the port is readable: the link task wakes"
        ln.app.link_service()               # one pass: read, verify, run, answer, write
        assert ln.host._una == una, "nothing reaches the host before the next USB frame"
        ln.run(1)
        assert ln.host._una == una + 1, "acked by the answer taken at the next frame"
        assert ln.now() - t0 == 1
        res = [g for g in ln.got if g[1] == M.EV_RESULT and g[2] == cid]
        assert res and res[0][3] == M.R_OK, "its EV_RESULT arrived with the ack"
    finally:
        ln.rig.restore()


def test_a_host_that_stops_reading_loses_no_event():
    ln = UsbLine("usblink2")
    try:
        ln.run(600)
        assert ln.host.connected
        ln.usb.reading = False                 # port held open, nothing read
        for k in range(30):                    # (the host's own ring holds 32 unacked)
            assert ln.host.send(rl.MT_CMD, M.pack_cmd(M.CMD_DISARM, 100 + k), ln.now()) > 0
            ln.run(5)
        ln.run(3000)                           # heartbeats and resends pile up meanwhile
        assert ln.board.link.room() < 132, "the port filled up: the app holds frames back"
        ln.usb.reading = True
        ln.run(5000)
        ids = [g[0] for g in ln.got]
        assert ids == sorted(set(ids)), "every event once, in order"
        assert ids == list(range(ids[0], ids[0] + len(ids))), "no event missing"
        done = set(g[2] for g in ln.got if g[1] == M.EV_RESULT)
        assert all(100 + k in done for k in range(30)), "every command answered"
    finally:
        ln.rig.restore()


mptest.main(globals())
