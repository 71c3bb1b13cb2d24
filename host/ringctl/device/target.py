"""Where deploy and provision write: a real board through `mpremote`, or a simulated board's flash dir."""
import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path, PurePosixPath

from ..errors import UserError
from ..fw import integrity

# Code files the board's integrity check looks at (ringctl.fw.integrity): anything there that
# is not in the manifest is "unexpected" and locks the board, so deploy must remove it.
def list_code_script(root="/"):
    """MicroPython source printing the code files in the integrity-checked folders."""
    return ("import os\nfor d in %r:\n try: names = os.listdir(%r + d)\n except OSError: "
            "names = []\n for n in names:\n  if n.endswith(%r) and n not in %r: "
            "print((d + '/' if d else '') + n)" % (integrity.CHECKED_DIRS, root,
                                                 integrity.CODE_EXT, integrity.EXEMPT))


def hash_script(paths, root="/"):
    """MicroPython source printing 'path sha256hex' (or 'path -') for each file, hashed on
    the board itself in 512-byte reads (the heap stays small)."""
    return ("import hashlib, binascii\nfor p in %r:\n try:\n  h = hashlib.sha256()\n"
            "  with open(%r + p, 'rb') as f:\n   while True:\n    b = f.read(512)\n"
            "    if not b: break\n    h.update(b)\n"
            "  print(p, binascii.hexlify(h.digest()).decode())\n except OSError:\n"
            "  print(p, '-')" % (list(paths), root))


def _is_code(name):
    return name.endswith(integrity.CODE_EXT) and name not in integrity.EXEMPT


def _clean(remote):
    """Board path without the leading slash; refuse '..' so nothing escapes the flash dir."""
    p = PurePosixPath("/" + remote.lstrip("/"))
    if ".." in p.parts:
        raise UserError(f"bad board path {remote!r}")
    return str(p)[1:]


class FlashDirTarget:
    """The simulated board's flash: a plain directory (ring sim board --flash-dir)."""

    def __init__(self, flash_dir):
        self.root = Path(flash_dir)
        # A missing folder is a fresh board's empty flash: provision or deploy may come first.
        from ..atomic import check_writable_dir
        check_writable_dir(self.root, "--flash-dir")
        self.name = f"flash dir {self.root}"

    def read(self, remote):
        p = self.root / _clean(remote)
        return p.read_bytes() if p.is_file() else None

    def hashes(self, paths):
        """{path: sha256 hex of the file as it is, or None if absent}."""
        out = {}
        for rel in paths:
            p = self.root / _clean(rel)
            out[rel] = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else None
        return out

    def list_code(self):
        out = []
        for d in integrity.CHECKED_DIRS:
            p = self.root / d if d else self.root
            if p.is_dir():
                out += [(d + "/" + n if d else n) for n in os.listdir(p)
                        if (p / n).is_file() and _is_code(n)]
        return sorted(out)

    def write_many(self, items, private=False):
        """items: [(bytes, board_path)]; written as new files, then renamed into place."""
        for data, remote in items:
            p = self.root / _clean(remote)
            p.parent.mkdir(parents=True, exist_ok=True)
            tmp = p.with_name(p.name + ".part")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600 if private else 0o644)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, p)

    def remove(self, remotes):
        for r in remotes:
            p = self.root / _clean(r)
            if p.is_file():
                p.unlink()

    def reset(self):
        """A running simulated board is reset by the caller over the link (cmd_deploy); one
        that is not running reads the new files when started."""


class MpremoteTarget:
    """A board on a serial port, driven by `mpremote` (one chained call per step)."""

    def __init__(self, port, run=subprocess.run):
        self.port = port
        self.name = port
        self._run = run

    def _mpremote(self, *cmds, check=True):
        exe = shutil.which("mpremote") or str(Path(sys.executable).parent / "mpremote")
        argv = [exe, "connect", self.port]
        for i, c in enumerate(cmds):
            argv += (["+"] if i else []) + list(c)
        proc = self._run(argv, capture_output=True, timeout=120)
        if check and proc.returncode != 0:
            err = (proc.stderr or b"").decode(errors="replace").strip().splitlines()
            last = err[-1] if err else "no output"
            if "raw repl" in last.lower():
                raise UserError(f"mpremote cannot reach the REPL on {self.port} ({last}): the "
                                "ring controller is running; provision the host key so deploy "
                                "can ask it for the REPL, or hold NO SPIN while plugging the "
                                "board in (technician escape), then re-run", code=1)
            raise UserError(f"mpremote failed on {self.port}: {last}; check the port, that "
                            "no other program holds it (`ring run`, a terminal), and that the "
                            "board answers (`ring doctor`)", code=1)
        return proc

    def read(self, remote):
        proc = self._mpremote(["fs", "cat", ":/" + _clean(remote)], check=False)
        return proc.stdout if proc.returncode == 0 else None

    def exec(self, code):
        return self._mpremote(["exec", code]).stdout

    def hashes(self, paths):
        """Hash the files on the board itself (one mpremote call), not the manifest's claims."""
        out = {}
        text = self.exec(hash_script(sorted(_clean(p) for p in paths))).decode(errors="replace")
        for line in text.splitlines():
            parts = line.split()
            if len(parts) == 2:
                out[parts[0]] = None if parts[1] == "-" else parts[1]
        return {p: out.get(_clean(p)) for p in paths}

    def list_code(self):
        out = self.exec(list_code_script()).decode(errors="replace")
        return sorted(line.strip() for line in out.splitlines() if line.strip())

    def write_many(self, items, private=False):
        """Copy [(bytes, board_path)] through temp files; parent dirs are made first."""
        dirs = sorted({str(PurePosixPath("/" + _clean(r)).parent) for _, r in items} - {"/"})
        mk = "import os\nfor d in %r:\n try: os.mkdir(d)\n except OSError: pass" % (dirs,)
        with tempfile.TemporaryDirectory(prefix="ring-deploy-") as tmp:
            os.chmod(tmp, 0o700)  # keys pass through here
            cmds = [["exec", mk]] if dirs else []
            for i, (data, remote) in enumerate(items):
                local = Path(tmp) / ("f%d" % i)
                fd = os.open(local, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                cmds.append(["fs", "cp", str(local), ":/" + _clean(remote)])
            if cmds:
                self._mpremote(*cmds)

    def remove(self, remotes):
        if remotes:
            self._mpremote(*[["fs", "rm", ":/" + _clean(r)] for r in remotes])

    def reset(self):
        self._mpremote(["reset"])

    def __repr__(self):
        return "mpremote connect " + shlex.quote(self.port)
