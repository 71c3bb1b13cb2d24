"""A firmware test run under micropython makes its boards' file systems in a directory of its own
(tests/mprun.py) and leaves nothing in /tmp after it."""
import os

from mprun import run_mp


def test_a_firmware_run_leaves_no_directory_behind(tmp_path):
    script = tmp_path / "mk.py"
    script.write_text("import fwrig\nd = fwrig.tmpdir('leak')\n"
                      "open(d + '/key.bin', 'wb').write(b'k')\nprint(d)\n")
    proc = run_mp(script, timeout=30)
    made = proc.stdout.strip().splitlines()[-1]
    assert proc.returncode == 0, proc.stderr
    assert "/mprun" in made and "/mpfw_leak_" in made
    assert not os.path.exists(made)
