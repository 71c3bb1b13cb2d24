"""LinkClient on a pty against an in-process device Session: deferred acks, version refusal, REPL, unplug."""
import os
import pty
import select
import threading
import time
import tty

import pytest

from ringctl.fw import ringlink as rl, ringmsg
from ringctl.link import LinkClient, LinkVersionError

from linksim import DEV_INFO, KEY


class FakeBoard:
    """A device Session served on a pty master by a thread (CPython stand-in for the board)."""

    def __init__(self, key=KEY):
        self.master, self.slave = pty.openpty()
        tty.setraw(self.slave)
        self.path = os.ttyname(self.slave)
        self.s = rl.Session(key, rl.ROLE_DEVICE, DEV_INFO)
        self.lock = threading.Lock()
        self.cmds = []
        self.stop = False
        self.mute = False
        self.s.start(self.now())
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()

    @staticmethod
    def now():
        return int(time.monotonic() * 1000)

    def run(self):
        while not self.stop:
            r, _, _ = select.select([self.master], [], [], 0.005)
            with self.lock:
                if r:
                    try:
                        data = os.read(self.master, 4096)
                    except OSError:
                        return
                    self.s.feed(data, self.now())
                while (m := self.s.recv()) is not None:
                    cmd = ringmsg.unpack_cmd(m[1])
                    self.cmds.append(cmd)
                    if cmd[0] == ringmsg.CMD_STATUS:     # as the firmware: its link counters
                        self.s.send(rl.MT_EVENT, ringmsg.pack_event(
                            DEV_INFO["boot_id"], 1000 + len(self.cmds), ringmsg.EV_LINK, 0,
                            self.s.alarms, self.s.key_errors, self.s.report_text()), self.now())
                while (out := self.s.poll(self.now())) is not None:
                    if not self.mute:
                        os.write(self.master, out)

    def event(self, i):
        with self.lock:
            return self.s.send(rl.MT_EVENT, ringmsg.pack_event(DEV_INFO["boot_id"], i,
                                                               ringmsg.EV_BEAM, i, 3, 0), self.now())

    def close(self):
        self.stop = True
        self.t.join(1)
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass


def _wait(pred, timeout=3.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.005)
    return pred()


def test_events_are_acked_only_after_the_app_records_them():
    board = FakeBoard()
    c = LinkClient(board.path, KEY, reopen_ms=50)
    try:
        assert c.wait_up(3)
        assert c.peer_info["device_id"] == DEV_INFO["device_id"]
        for i in (1, 2, 3):
            board.event(i)
        evs = [c.get_event(2) for _ in range(3)]
        assert [e.event_id for e in evs] == [1, 2, 3] and evs[0].code == ringmsg.EV_BEAM
        time.sleep(0.3)
        assert board.s.unacked == 3          # nothing recorded yet: the board keeps them all
        c.ack(evs[2])                        # out of order: 1 and 2 are still not durable
        time.sleep(0.1)
        assert board.s.unacked == 3
        c.ack(evs[0])
        assert _wait(lambda: board.s.unacked == 2)
        c.ack(evs[1])
        assert _wait(lambda: board.s.unacked == 0)
        cmd_id = c.send_cmd(ringmsg.CMD_ARM)
        assert c.wait_cmds_acked(2)
        assert board.cmds == [(ringmsg.CMD_ARM, cmd_id, "")]
    finally:
        c.close()
        board.close()


def test_incompatible_major_is_refused_with_a_clear_error():
    master, slave = pty.openpty()
    tty.setraw(slave)
    c = LinkClient(os.ttyname(slave), KEY, reopen_ms=50)
    try:
        p = bytearray(rl.build_hello_device(bytes(16), bytes(16), DEV_INFO))
        p[2 * rl.NONCE_LEN] = rl.PROTO_MAJOR + 1          # a future firmware
        fr = rl.seal(rl.hello_keys(KEY)[1], rl.MT_HELLO, rl.FL_ADVERT, 7, 1, bytes(p))
        time.sleep(0.2)
        os.write(master, rl.encode(fr))
        with pytest.raises(LinkVersionError) as ei:
            c.wait_up(2)
        msg = str(ei.value)
        assert ("protocol %d.0" % (rl.PROTO_MAJOR + 1) in msg
                and "%d.%d" % (rl.PROTO_MAJOR, rl.PROTO_MINOR) in msg
                and "ring device deploy" in msg)
        assert not c.link_up
    finally:
        c.close()
        os.close(master)
        os.close(slave)


def test_repl_banner_is_reported():
    master, slave = pty.openpty()
    tty.setraw(slave)
    c = LinkClient(os.ttyname(slave), KEY, reopen_ms=50)
    try:
        time.sleep(0.2)
        os.write(master, b"Traceback (most recent call last):\r\n  File \"main.py\", line 3\r\n"
                         b"MicroPython v1.29.0 on 2026-07-05; Raspberry Pi Pico\r\n>>> ")
        assert _wait(lambda: c.at_repl, 2)
        assert not c.wait_up(0.3)
    finally:
        c.close()
        os.close(master)
        os.close(slave)


def test_unplug_is_survived_and_nothing_is_lost(tmp_path):
    board = FakeBoard()
    link = tmp_path / "ttyACM-ring"
    link.symlink_to(board.path)
    c = LinkClient(str(link), KEY, reopen_ms=50)
    got = []
    try:
        assert c.wait_up(3)
        board.event(1)
        got.append(c.get_event(2))
        # unplug: the board's end vanishes; events made meanwhile wait in its ring
        board.stop = True
        board.t.join(1)
        os.close(board.master)
        old_slave = board.slave
        assert _wait(lambda: c.stats()["line_errors"] >= 1 and not c.link_up)
        link.unlink()           # before the old pty is freed: its number may go to another pty
        board.master, board.slave = pty.openpty()        # replug under a new tty name
        tty.setraw(board.slave)
        os.close(old_slave)
        board.s.start(board.now())
        board.event(2)
        board.event(3)
        link.symlink_to(os.ttyname(board.slave))
        board.stop = False
        board.t = threading.Thread(target=board.run, daemon=True)
        board.t.start()
        assert c.wait_up(3)
        got += [c.get_event(2), c.get_event(2)]
        assert [e.event_id for e in got] == [1, 2, 3]
        for e in got:
            c.ack(e)
        assert _wait(lambda: board.s.unacked == 0)
        st = c.stats()
        assert st["opens"] >= 2 and st["handshakes"] >= 2 and st["app_duplicates"] == 0
    finally:
        c.close()
        board.close()


def test_on_event_callback_failure_is_retried_in_order():
    board = FakeBoard()
    seen, fails = [], []

    def on_event(ev):
        if ev.event_id == 2 and not fails:
            fails.append(ev.event_id)
            raise OSError("disk full")        # the app could not record it this time
        seen.append(ev.event_id)
        c.ack(ev)

    c = LinkClient(board.path, KEY, on_event=on_event, reopen_ms=50)
    try:
        assert c.wait_up(3)
        for i in (1, 2, 3):
            board.event(i)
        assert _wait(lambda: seen == [1], 1)
        assert _wait(lambda: seen == [1, 2, 3], 3)
        assert fails == [2] and c.stats()["callback_errors"] == 1
        assert _wait(lambda: board.s.unacked == 0)
    finally:
        c.close()
        board.close()
