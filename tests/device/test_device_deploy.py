"""Deploy planning and dry-run output, the mpremote command it runs, and `ring device list`."""
import hashlib
import json
from types import SimpleNamespace

import pytest

from ringctl import cli
from ringctl.device import deploy
from ringctl.link import boards
from ringctl.device.target import FlashDirTarget, MpremoteTarget


def _build(d, files, image="c0ffee00deadbeef1122"):
    d.mkdir(parents=True, exist_ok=True)
    shas = {}
    for rel, data in files.items():
        (d / rel).parent.mkdir(parents=True, exist_ok=True)
        (d / rel).write_bytes(data)
        shas[rel] = hashlib.sha256(data).hexdigest()
    (d / "manifest.json").write_text(json.dumps({"files": shas, "image": image}))
    return d


FILES = {"main.py": b"import app\napp.run()\n", "lib/app.mpy": b"M\x06app" * 50,
         "lib/ringlink.mpy": b"M\x06link" * 80, "lib/pins.mpy": b"M\x06pins"}


@pytest.fixture
def flash(tmp_path):
    d = tmp_path / "flash"
    d.mkdir()
    (d / "key.bin").write_bytes(b"k" * 32)
    (d / "config.json").write_text("{}")
    return d


def test_first_deploy_copies_everything_then_nothing(tmp_path, flash, capsys):
    b = _build(tmp_path / "b1", FILES)
    argv = ["device", "deploy", "--build-dir", str(b), "--flash-dir", str(flash)]
    assert cli.main(argv + ["--dry-run"]) == 0
    out = capsys.readouterr().out
    for rel in FILES:
        assert "copy    %s" % rel in out
    assert "4 file(s) to copy" in out and "dry run: nothing copied" in out
    assert not (flash / "main.py").exists(), "dry run must not write"

    assert cli.main(argv) == 0
    for rel, data in FILES.items():
        assert (flash / rel).read_bytes() == data
    assert (flash / "manifest.json").read_bytes() == (b / "manifest.json").read_bytes()
    capsys.readouterr()
    assert cli.main(argv + ["--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "0 file(s) to copy (0 B), 4 unchanged, 0 to remove" in out
    assert "  copy " not in out


def test_dry_run_lists_exactly_the_changed_files(tmp_path, flash, capsys):
    tgt = FlashDirTarget(flash)
    b1 = _build(tmp_path / "b1", FILES)
    files, _, raw = deploy.load_build(b1)
    deploy.apply(deploy.plan(files, None), b1, tgt, raw)
    new = dict(FILES)
    new["lib/app.mpy"] = b"M\x06app2"             # changed
    new["lib/light.mpy"] = b"M\x06light"          # new
    del new["lib/pins.mpy"]                        # gone: must be removed (stale shadowing)
    b2 = _build(tmp_path / "b2", new, image="feedface")
    assert cli.main(["device", "deploy", "--build-dir", str(b2), "--flash-dir", str(flash),
                     "--dry-run"]) == 0
    out = capsys.readouterr().out
    copied = sorted(line.split()[1] for line in out.splitlines() if line.startswith("  copy"))
    assert copied == ["lib/app.mpy", "lib/light.mpy"]
    assert "(changed)" in out and "(new)" in out
    assert "  remove  lib/pins.mpy" in out
    assert sorted(line.split()[1] for line in out.splitlines()
                  if line.startswith("  skip")) == ["lib/ringlink.mpy", "main.py"]
    assert "board image: c0ffee00deadbeef1122" in out and "build image: feedface" in out
    # Applying it: the stale file goes, per-board files stay.
    files2, _, raw2 = deploy.load_build(b2)
    deploy.apply(deploy.plan(files2, tgt.read("manifest.json")), b2, tgt, raw2)
    assert not (flash / "lib/pins.mpy").exists()
    assert (flash / "key.bin").read_bytes() == b"k" * 32 and (flash / "config.json").exists()
    assert deploy.plan(files2, tgt.read("manifest.json"))["copy"] == []


def test_tampered_build_is_refused(tmp_path, flash, capsys):
    b = _build(tmp_path / "b", FILES)
    (b / "lib/app.mpy").write_bytes(b"evil")
    assert cli.main(["device", "deploy", "--build-dir", str(b), "--flash-dir", str(flash),
                     "--dry-run"]) == 1
    assert "does not match its manifest hash" in capsys.readouterr().err


def test_manifest_formats_and_image_confirmation():
    files, image = deploy.parse_manifest({"files": [{"path": "/lib/a.mpy", "sha256": "ab"}],
                                          "image_hash": "ff00"})
    assert files == {"lib/a.mpy": "ab"} and image == "ff00"
    assert deploy.confirm_image("ff00aa", {"image_hash": "ff00"})[0]
    ok, msg = deploy.confirm_image("ff00aa", {"image_hash": "0000"})
    assert not ok and "ring device deploy" in msg


def test_mpremote_target_chains_one_call(tmp_path):
    calls = []

    def run(argv, **kw):
        calls.append(argv)
        return SimpleNamespace(returncode=0, stdout=b"", stderr=b"")
    t = MpremoteTarget("/dev/ttyACM7", run=run)
    t.write_many([(b"x", "lib/app.mpy"), (b"y", "main.py")])
    argv = calls[-1]
    assert argv[1:3] == ["connect", "/dev/ttyACM7"]
    assert argv.count("+") == 2 and argv[3] == "exec" and "'/lib'" in argv[4]
    cps = [argv[i + 2] for i, a in enumerate(argv) if a == "cp"]
    assert cps == [":/lib/app.mpy", ":/main.py"]
    t.reset()
    assert calls[-1][-1] == "reset"


def test_mpremote_failure_is_one_line(tmp_path):
    def run(argv, **kw):
        return SimpleNamespace(returncode=1, stdout=b"", stderr=b"mpremote: failed to access /dev/x")
    t = MpremoteTarget("/dev/x", run=run)
    with pytest.raises(Exception) as ei:
        t.remove(["a"])
    assert "failed to access" in str(ei.value) and "check the port" in str(ei.value)


def _port(dev, vid, pid, sn):
    return SimpleNamespace(device=dev, vid=vid, pid=pid, serial_number=sn,
                           description="Board CDC", location="1-1")


def test_list_none_found(monkeypatch, capsys):
    monkeypatch.setattr(boards, "comports", lambda: [_port("/dev/ttyS0", None, None, None),
                                                     _port("/dev/ttyUSB0", 0x0403, 0x6001, "FT1")])
    assert cli.main(["device", "list"]) == 0
    out = capsys.readouterr().out
    assert "no ring board found" in out and "dialout" in out and "BOOTSEL" in out


def test_list_points_at_a_board_in_bootsel(monkeypatch, tmp_path, capsys):
    for name, vid, pid in (("1-1", "2e8a", "000f"), ("1-2", "046d", "c52b"), ("1-3", "2e8a", "0005")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "idVendor").write_text(vid + "\n")
        (tmp_path / name / "idProduct").write_text(pid + "\n")
    assert boards.bootsel_boards(str(tmp_path)) == ["RP2350 (Pico 2)"]
    monkeypatch.setattr(boards, "comports", lambda: [])
    monkeypatch.setattr(boards, "bootsel_boards", lambda: ["RP2040 (Pico)"])
    assert cli.main(["device", "list"]) == 0
    assert "found a RP2040 (Pico) board in BOOTSEL mode" in capsys.readouterr().out


def test_list_and_pick(monkeypatch, capsys):
    ports = [_port("/dev/ttyACM1", 0x2E8A, 0x0005, "e6614103e7452d2f"),
             _port("/dev/ttyACM0", 0x2E8A, 0x0005, "E66141040B2A1C29"),
             _port("/dev/ttyACM2", 0x2E8A, 0x0003, "BOOT")]
    monkeypatch.setattr(boards, "comports", lambda: ports)
    assert cli.main(["device", "list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].split()[:2] == ["/dev/ttyACM0", "E66141040B2A1C29"]
    assert out[2].split()[:2] == ["/dev/ttyACM1", "E6614103E7452D2F"]
    assert len(out) == 3
    with pytest.raises(Exception, match="2 ring boards found"):
        boards.pick_port()
    assert boards.serial_for_port("/dev/ttyACM1") == "E6614103E7452D2F"


def test_stray_code_file_is_removed_data_files_kept(tmp_path, flash, capsys):
    # A hand-copied lib/debug.py would shadow or fail the board's integrity check.
    (flash / "lib").mkdir()
    (flash / "lib" / "debug.py").write_text("print('x')")
    (flash / "boot.txt").write_text("log")
    b = _build(tmp_path / "b", FILES)
    assert cli.main(["device", "deploy", "--build-dir", str(b), "--flash-dir", str(flash)]) == 0
    assert "  remove  lib/debug.py" in capsys.readouterr().out
    assert not (flash / "lib" / "debug.py").exists() and (flash / "boot.txt").exists()


def test_mpremote_lists_code_with_the_integrity_rules():
    from ringctl.device import target as T
    calls = []

    def run(argv, **kw):
        calls.append(argv)
        return SimpleNamespace(returncode=0, stdout=b"main.py\nlib/app.mpy\n", stderr=b"")
    assert MpremoteTarget("/dev/x", run=run).list_code() == ["lib/app.mpy", "main.py"]
    code = calls[0][calls[0].index("exec") + 1]
    assert code == T.list_code_script() and T._is_code("x.py") and not T._is_code("key.bin")


def test_board_side_scripts_run_under_micropython(tmp_path):
    # The scripts deploy sends through `mpremote exec` must work on MicroPython itself:
    # run them under the unix port against a fake flash root and compare with CPython.
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from mprun import run_mp
    from ringctl.device import target as T
    root = tmp_path / "flash"
    (root / "lib").mkdir(parents=True)
    files = {"main.py": b"x" * 1300, "lib/app.mpy": b"M\x06" * 9, "lib/notes.txt": b"n"}
    for rel, data in files.items():
        (root / rel).write_bytes(data)
    (root / "key.bin").write_bytes(b"k" * 32)
    script = tmp_path / "s.py"
    script.write_text(T.hash_script(["main.py", "lib/app.mpy", "lib/gone.mpy"], str(root) + "/")
                      + "\n" + T.list_code_script(str(root) + "/") + "\n")
    proc = run_mp(script, timeout=30)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.split("\n")
    assert lines[:3] == ["main.py " + hashlib.sha256(files["main.py"]).hexdigest(),
                         "lib/app.mpy " + hashlib.sha256(files["lib/app.mpy"]).hexdigest(),
                         "lib/gone.mpy -"]
    assert sorted(l for l in lines[3:] if l) == ["lib/app.mpy", "main.py"]
