"""`--port` takes pyserial URLs: a board behind a serial server (socket://) links up like a local one."""
import os
import socket
import threading
import time
import tty

from ringctl.sim.simboard import SimBoard
from ringctl.fw import ringmsg as M
from ringctl.link import LinkClient


class SerialServer:
    """A one-client TCP serial server (what ser2net / esp-link give): bytes both ways to a tty."""

    def __init__(self, tty_path):
        self.fd = os.open(tty_path, os.O_RDWR | os.O_NOCTTY)
        tty.setraw(self.fd)
        self.ls = socket.socket()
        self.ls.bind(("127.0.0.1", 0))
        self.ls.listen(1)
        self.port = self.ls.getsockname()[1]
        self.stop = False
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        c, _ = self.ls.accept()
        c.setblocking(False)
        os.set_blocking(self.fd, False)
        import select
        while not self.stop:
            r, _, _ = select.select([c, self.fd], [], [], 0.05)
            try:
                if c in r:
                    data = c.recv(4096)
                    if not data:
                        break
                    os.write(self.fd, data)
                if self.fd in r:
                    c.sendall(os.read(self.fd, 4096))
            except (BlockingIOError, InterruptedError):
                continue
        c.close()

    def close(self):
        self.stop = True
        self.ls.close()
        os.close(self.fd)


def test_socket_url_reaches_the_board(tmp_path):
    key = os.urandom(32)
    board = SimBoard(tmp_path / "flash", key).start()
    srv = SerialServer(board.tty)
    client = LinkClient("socket://127.0.0.1:%d" % srv.port, key)
    try:
        assert client.wait_up(15), "link over socket:// did not come up"
        cid = client.send_cmd(M.CMD_STATUS)
        end = time.monotonic() + 5
        got = None
        while time.monotonic() < end and got is None:
            ev = client.get_event(timeout=0.5)
            if ev is not None:
                client.ack(ev)
                if ev.code == M.EV_RESULT and ev.a == cid:
                    got = ev
        assert got is not None and got.b == 0, "CMD_STATUS not answered over socket://"
    finally:
        client.close()
        srv.close()
        board.stop()

