"""One image per target: the Pico's machine code is ARMv6-M, the simulated board's x86-64; everything else is the same bytes; the unix port loads only its own; deploy refuses the wrong one."""
import json
import subprocess

import pytest

from ringctl.board import build as B
from ringctl.device import deploy
from ringctl.errors import UserError
from ringctl.mpunix import micropython_binary

ARCH = {0: "bytecode", 2: "x64", 4: "armv6m"}    # .mpy header byte 2 >> 2 (MP_NATIVE_ARCH_*)


def mpy_arch(path):
    head = path.read_bytes()[:4]
    assert head[:2] == b"M\x06", path
    return ARCH.get(head[2] >> 2, head[2] >> 2)


@pytest.fixture(scope="module")
def images(tmp_path_factory):
    d = tmp_path_factory.mktemp("images")
    return {t: (d / t, B.build(d / t, target=t)) for t in B.TARGETS}


def test_native_modules_are_built_for_each_targets_architecture(images):
    native = sorted(p.stem for p in (B.SRC / "lib").glob("*.py") if B.has_native(p))
    assert "ringlink" in native and "fastlink" in native, native
    for target, want in (("pico", "armv6m"), ("sim", "x64")):
        out, man = images[target]
        assert man["target"] == target
        for m in native:
            assert mpy_arch(out / "lib" / (m + ".mpy")) == want, (target, m)
        # the rest is plain bytecode, identical in both images
        plain = [p for p in (out / "lib").glob("*.mpy") if p.stem not in native]
        assert plain and all(mpy_arch(p) == "bytecode" for p in plain)
    pico, sim = images["pico"][1]["files"], images["sim"][1]["files"]
    assert set(pico) == set(sim)
    assert [f for f in pico if pico[f] != sim[f]] == sorted(
        "lib/%s.mpy" % m for m in native)


@pytest.mark.parametrize("target,loads", [("sim", True), ("pico", False)])
def test_the_unix_port_runs_the_sim_image_and_refuses_the_picos(images, target, loads):
    out, _ = images[target]
    r = subprocess.run([micropython_binary(), "-c",
                        "import ringlink; s = ringlink.Session(bytes(32), 'device'); print('ok')"],
                       capture_output=True, text=True, timeout=30,
                       env={"MICROPYPATH": "%s:.frozen" % (out / "lib")})
    if loads:
        assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr
    else:
        assert r.returncode != 0 and "incompatible .mpy arch" in r.stdout + r.stderr


def test_native_code_sizes_are_measured_per_architecture():
    arm, x64 = B.native_code_bytes("armv6m"), B.native_code_bytes("x64")
    assert set(arm) == set(x64) >= {"ringlink.py", "fastlink.py"}
    # Thumb code is denser than x86-64's; both are real machine code, not zero
    assert all(0 < arm[m] < x64[m] for m in arm), (arm, x64)


def test_deploy_refuses_a_build_for_the_other_target(images):
    for target, other in (("pico", "sim"), ("sim", "pico")):
        raw = (images[target][0] / "manifest.json").read_bytes()
        deploy.check_target(raw, target)
        with pytest.raises(UserError) as e:
            deploy.check_target(raw, other)
        assert "--target %s" % other in str(e.value) and "\n" not in str(e.value)
    deploy.check_target(json.dumps({"files": {}}).encode(), "sim")   # older builds: no target


def test_unknown_target_is_a_one_line_error(tmp_path):
    with pytest.raises(UserError) as e:
        B.build(tmp_path / "x", target="esp32")
    assert "pico, sim" in str(e.value)
