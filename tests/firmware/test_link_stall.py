"""A host that holds the line open and stops reading never blocks the firmware's writes: linkio on a blocking pty (as USB-CDC stdout is) under `micropython`."""
import os
import subprocess
import sys
import tty

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from mprun import ROOT, micropython_binary, mp_env  # noqa: E402

SCRIPT = r"""
import sys, time
from linkio import TxBuffer
tx = open(sys.argv[1], "r+b")          # blocking, like sys.stdout.buffer on the Pico
mode = sys.argv[2]
q = TxBuffer(tx, piece=1, budget=128)
frame = bytes([0]) + bytes(range(1, 100)) + bytes([0])
worst = 0
t_end = time.ticks_add(time.ticks_ms(), 1500)
n = 0
while time.ticks_diff(t_end, time.ticks_ms()) > 0:
    t = time.ticks_us()
    if mode == "plain":
        tx.write(frame)                # what board_pico did before issue 18
    else:
        q.put(frame)
        q.flush()
    worst = max(worst, time.ticks_diff(time.ticks_us(), t))
    n += 1
print("done", n, worst, q.max_us, q.dropped)
"""


def _run(tmp_path, mode, timeout=10):
    master, slave = os.openpty()
    tty.setraw(slave)
    path = os.ttyname(slave)
    script = tmp_path / "stall.py"
    script.write_text(SCRIPT)
    try:
        # the host side: master held open, never read
        return subprocess.run([micropython_binary(), str(script), path, mode],
                              capture_output=True, text=True, timeout=timeout, env=mp_env(),
                              cwd=str(ROOT))
    finally:
        os.close(slave)
        os.close(master)


def test_writes_never_block_when_the_host_stops_reading(tmp_path):
    out = _run(tmp_path, "linkio")
    assert out.returncode == 0, out.stderr
    _, n, _worst_us, _max_flush_us, dropped = out.stdout.split()
    assert int(dropped) > 0, "the line filled up (frames dropped, the link resends them)"
    assert int(n) > 100, "the loop kept running: %s passes in 1.5 s" % n
    # how long a pass takes is the bench's business (ring bench firmware), not a timed test


def test_plain_writes_do_block(tmp_path):
    # the proof the test above can fail: an unguarded write blocks on the full pty forever
    try:
        out = _run(tmp_path, "plain", timeout=4)
    except subprocess.TimeoutExpired:
        return
    raise AssertionError("a plain write did not block on a stalled pty: %s" % out.stdout)
