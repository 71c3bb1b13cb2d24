"""`ring` as a child process for end-to-end tests, and a simulated board with its key file."""
import os
import queue
import re
import subprocess
import sys
import threading
import time

import pytest

from ringctl.sim.simboard import SimBoard

RING = os.path.join(os.path.dirname(sys.executable), "ring")
# `ring run`'s wait for the simulated board's handshake, and the tests' wait for "link up": the
# default 8 s was once too short for the firmware's start under two test workers and a benchmark
LINK_WAIT = ["--link-wait", "30"]
LINK_UP_S = 40


class Proc:
    """A running `ring` command: its output lines read on a thread, waited for by content."""

    def __init__(self, args, env, **popen):
        self.p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, bufsize=1, env=env, **popen)
        self.lines = queue.Queue()
        self.seen = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            self.lines.put(line.rstrip("\n"))

    def send(self, text):
        self.p.stdin.write(text + "\n")
        self.p.stdin.flush()

    def _wait(self, found, what, timeout):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                line = self.lines.get(timeout=0.1)
            except queue.Empty:
                continue
            self.seen.append(line)
            hit = found(line)
            if hit:
                return hit
        raise AssertionError(f"{what!r} not seen; output so far:\n" + "\n".join(self.seen))

    def expect(self, fragment, timeout=10.0):
        """-> the first line containing `fragment`."""
        return self._wait(lambda line: line if fragment in line else None, fragment, timeout)

    def expect_re(self, pattern, timeout=10.0):
        """-> the match of the first line matching the regular expression `pattern`."""
        return self._wait(lambda line: re.search(pattern, line), pattern, timeout)

    def wait_exit(self, timeout):
        """-> the exit status; a process still running after `timeout` s fails the test with
        everything it printed since (a hung shutdown's thread stacks among it)."""
        try:
            return self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            time.sleep(0.5)
            while not self.lines.empty():
                self.seen.append(self.lines.get())
            raise AssertionError(f"still running {timeout} s later; output:\n"
                                 + "\n".join(self.seen[-200:])) from None


@pytest.fixture
def board(tmp_path):
    """A simulated ring board (the firmware under micropython) and its key file."""
    key = os.urandom(32)
    b = SimBoard(str(tmp_path / "flash"), key=key)
    b.start()
    keyfile = tmp_path / "board.key"
    keyfile.write_bytes(key)
    os.chmod(keyfile, 0o600)
    yield b, str(keyfile)
    b.stop()
    # pytest shows a test's captured output only when it fails: the board's own log then says
    # whether the firmware ran, restarted or hung (a link that never came up under load)
    log = tmp_path / "flash" / "board.log"
    if log.exists():
        print("board.log (last 40 lines):\n" + "\n".join(log.read_text(errors="replace").splitlines()[-40:]))
    print("board restarts %d, watchdog resets %d" % (b.restarts, b.watchdog_resets))
