"""A simulated board plus a host LinkClient on its pty: the harness the firmware bench and the board tests share."""
import os
import tempfile
import time

from ..errors import UserError
from ..fw import ringmsg as M
from .simboard import SimBoard


class Rig:
    """SimBoard + LinkClient. Events are kept in `self.seen` (and acked at once: nothing here
    records them durably; the real host acks after its audit log has them)."""

    def __init__(self, flash_dir=None, key=None, board_env=None, deploy=None):
        from ..link.client import LinkClient   # pyserial-based host end
        self._tmp = None
        if flash_dir is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="ringrig")
            flash_dir = self._tmp.name
        self.key = key or os.urandom(32)
        self.board = SimBoard(flash_dir, self.key, env=board_env, deploy=deploy).start()
        self.client = LinkClient(self.board.tty, self.key)
        self.seen = []          # (t_monotonic, Event)

    def close(self):
        try:
            self.client.close()
        finally:
            self.board.stop()
            if self._tmp is not None:
                self._tmp.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def wait_up(self, timeout=10.0):
        if not self.client.wait_up(timeout):
            raise UserError("simulated board link did not come up within %.0f s (see %s)"
                            % (timeout, self.board.flash / "board.log"), code=1)

    def wait_event(self, code, timeout=5.0, since=0.0, pred=None):
        """-> (t_arrival, Event) for the first event with `code` that arrived after `since`."""
        for t, ev in self.seen:
            if t >= since and ev.code == code and (pred is None or pred(ev)):
                return t, ev
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return None
            ev = self.client.get_event(timeout=left)
            if ev is None:
                return None
            t = time.monotonic()
            self.seen.append((t, ev))
            self.client.ack(ev)
            if t >= since and ev.code == code and (pred is None or pred(ev)):
                return t, ev

    def command(self, code, text="", timeout=5.0):
        """Send a command; -> the EV_RESULT event (b = 0 ok)."""
        cid = self.client.send_cmd(code, text)
        got = self.wait_event(M.EV_RESULT, timeout, pred=lambda e: e.a == cid)
        if got is None:
            raise UserError("no answer to %s within %.0f s" % (M.CMD_NAMES.get(code, code), timeout),
                            code=1)
        return got[1]

    def wait_ready(self, timeout=10.0):
        """Link up and the boot self-test passed (phase idle)."""
        self.wait_up(timeout)
        got = self.wait_event(M.EV_SELFTEST, timeout)
        if got is None or got[1].a != 0:
            raise UserError("simulated board self-test did not pass: %s"
                            % (got[1].text if got else "no EV_SELFTEST"), code=1)
