"""Provisioning: fresh 32-byte key on the board and the host, host copy mode 0600, key never printed."""
import base64
import os
import stat

import pytest

from ringctl import cli
from ringctl.device import keys, provision


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("RING_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def _key_spellings(key):
    return [key.hex(), key.hex().upper(), base64.b64encode(key).decode(), repr(key)[2:-1]]


def test_provision_sim_board(tmp_path, home, capfd):
    flash = tmp_path / "flash"
    flash.mkdir()
    old = os.umask(0)  # a careless umask must not widen the key file
    try:
        assert cli.main(["device", "provision", "--flash-dir", str(flash),
                         "--device-id", "SIM0001", "--witness-copy", str(tmp_path / "w.key")]) == 0
    finally:
        os.umask(old)
    out, err = capfd.readouterr()
    host = home / "keys" / "SIM0001.key"
    key = host.read_bytes()
    assert len(key) == 32 and (flash / "key.bin").read_bytes() == key
    assert stat.S_IMODE(host.stat().st_mode) == 0o600
    assert stat.S_IMODE((flash / "key.bin").stat().st_mode) == 0o600
    for s in _key_spellings(key):
        assert s not in out and s not in err
    assert provision.fingerprint(key) in out and str(host) in out
    assert keys.key_problem("SIM0001") is None
    wkey = (tmp_path / "w.key").read_bytes()     # the surveillance copy, and the board's
    assert len(wkey) == 32 and wkey != key and (flash / "witness.key").read_bytes() == wkey
    assert stat.S_IMODE((tmp_path / "w.key").stat().st_mode) == 0o600
    assert not [p for p in home.rglob("*") if p.is_file() and p.read_bytes() == wkey]
    for s in _key_spellings(wkey):
        assert s not in out and s not in err
    from ringctl.fw import witness
    from ringctl.fw.ringlink import hmac_key
    w = witness.Witness(lambda n: str(flash / n), hmac_key)   # the board starts a fresh, signed chain
    assert w.problem is None and w.seq == 0
    assert not [p for p in host.parent.iterdir() if p.name != host.name], "temp file left"


def test_second_provision_needs_force_and_changes_the_key(tmp_path, home, capfd):
    flash = tmp_path / "flash"
    flash.mkdir()
    argv = ["device", "provision", "--flash-dir", str(flash), "--device-id", "SIM0002",
            "--keep-witness"]
    assert cli.main(argv) == 0
    first = (home / "keys" / "SIM0002.key").read_bytes()
    assert cli.main(argv) == 2
    assert "--force" in capfd.readouterr().err
    assert (flash / "key.bin").read_bytes() == first
    assert cli.main(argv + ["--force"]) == 0
    second = (home / "keys" / "SIM0002.key").read_bytes()
    assert second != first and (flash / "key.bin").read_bytes() == second
    out, err = capfd.readouterr()
    for s in _key_spellings(second):
        assert s not in out + err


def test_bad_device_id_and_loose_mode(home):
    with pytest.raises(Exception, match="not valid"):
        keys.key_path("../etc/passwd")
    p = keys.key_path("SIM0003")
    keys.write_private(p, b"x" * 32)
    os.chmod(p, 0o644)
    assert "chmod 600" in keys.key_problem("SIM0003")
    assert "provision" in keys.key_problem("SIM0404")


def test_board_failure_leaves_host_key_alone(home):
    class Broken:
        name = "broken"

        def write_many(self, items, private=False):
            raise OSError("board gone")
    keys.write_private(keys.key_path("SIM0004"), b"o" * 32)
    with pytest.raises(OSError):
        provision.provision(Broken(), "SIM0004", force=True)
    assert keys.key_path("SIM0004").read_bytes() == b"o" * 32


def test_witness_copy_is_required_and_never_on_the_host(tmp_path, home, capfd):
    flash = tmp_path / "flash"
    flash.mkdir()
    base = ["device", "provision", "--flash-dir", str(flash), "--device-id", "SIM0005"]
    assert cli.main(base) == 2
    assert "--witness-copy" in capfd.readouterr().err
    assert cli.main(base + ["--witness-copy", str(home / "w.key")]) == 2
    assert "must not be kept on the host" in capfd.readouterr().err
    assert not (flash / "key.bin").exists()
    (tmp_path / "w.key").write_bytes(b"old")
    assert cli.main(base + ["--witness-copy", str(tmp_path / "w.key")]) == 2
    assert (tmp_path / "w.key").read_bytes() == b"old"
