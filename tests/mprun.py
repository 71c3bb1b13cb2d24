"""Run firmware code and firmware tests under the real `micropython` unix-port binary."""
import os
import subprocess
import tempfile
from pathlib import Path

from ringctl.mpunix import micropython_binary

ROOT = Path(__file__).resolve().parent.parent
FW_LIB = ROOT / "firmware" / "lib"
FW_TESTS = ROOT / "tests" / "firmware"
FW_BENCH = ROOT / "firmware" / "bench"     # rp2fake: the rp2 port's machine and USB-CDC rules


def mp_env(extra_path=()):
    env = dict(os.environ)
    env["MICROPYPATH"] = ":".join([str(p) for p in extra_path] +
                                  [str(FW_LIB), str(FW_TESTS), str(FW_BENCH), ".frozen",
                                   "~/.micropython/lib"])
    return env


def run_mp(script, *args, timeout=120, extra_path=(), heapsize="2M"):
    """One run in a temporary directory of its own (TMPDIR, where the firmware tests make
    their boards' file systems), removed after it: a run leaves nothing in /tmp."""
    cmd = [micropython_binary(), "-X", "heapsize=" + heapsize, str(script), *map(str, args)]
    with tempfile.TemporaryDirectory(prefix="mprun") as tmp:
        env = mp_env(extra_path)
        env["TMPDIR"] = tmp
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env,
                              cwd=str(ROOT))
