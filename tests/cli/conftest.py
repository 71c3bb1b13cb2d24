"""Bad places to read from and write to: missing, a folder, the wrong kind of file, a read-only
file system and a full one (real tmpfs mounts: root ignores file modes, so a read-only folder
has to be a read-only file system)."""
import subprocess
from pathlib import Path

import pytest


def _mount(path, opts):
    path.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(path)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, (
        "tests/cli needs to mount small tmpfs file systems (read-only, full) and could not: "
        + proc.stderr.strip() + "; run the tests as root or in a container with CAP_SYS_ADMIN")


@pytest.fixture(scope="session")
def places(tmp_path_factory):
    base = tmp_path_factory.mktemp("bad")
    ro, full = base / "ro", base / "full"
    _mount(ro, "size=1m,mode=0755")
    (ro / "old.txt").write_text("kept\n")
    subprocess.run(["mount", "-o", "remount,ro", str(ro)], check=True)
    _mount(full, "size=256k,mode=0755")
    filler = full / "filler"
    try:
        with open(filler, "wb") as f:
            while True:
                f.write(b"\0" * 4096)
                f.flush()
    except OSError:
        pass
    (base / "adir").mkdir()
    (base / "notes.txt").write_text("meeting notes: check the beams on Tuesday\n")
    places = {"missing": str(base / "nope" / "x"), "dir": str(base / "adir"),
              "notes": str(base / "notes.txt"), "ro": str(ro), "full": str(full),
              "base": str(base)}
    yield places
    for m in (ro, full):
        subprocess.run(["umount", "-l", str(m)], capture_output=True)

