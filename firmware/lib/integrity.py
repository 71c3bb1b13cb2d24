# Deploy-manifest integrity: sha256 of every deployed file vs /manifest.json, and the image hash (same code on board and host build).
# Stdlib only, MicroPython/CPython common subset: host/ringctl/board/build.py imports it as
# ringctl.fw.integrity so the board and the build compute the image hash identically.
import hashlib
import binascii
import json
import os

MANIFEST = "manifest.json"
FORMAT = 1
# Files under these folders that are not in the manifest count as tampering (a stray lib/x.py
# would shadow a deployed module). Data files the board writes itself are exempt.
CHECKED_DIRS = ("", "lib")
EXEMPT = ("manifest.json", "config.json", "config.json.tmp", "key.bin", "repl.flag",
          "crash.txt", "boot.txt")
CODE_EXT = (".py", ".mpy")


def _hex(b):
    return binascii.hexlify(b).decode()


def file_sha256(path, buf=None):
    h = hashlib.sha256()
    buf = buf or bytearray(512)
    mv = memoryview(buf)
    with open(path, "rb") as f:
        while True:
            n = f.readinto(buf)
            if not n:
                break
            h.update(mv[:n])
    return _hex(h.digest())


def image_hash(files):
    """files: {relative path: sha256 hex}. -> sha256 hex over 'path hex\\n' lines, sorted."""
    h = hashlib.sha256()
    for p in sorted(files):
        h.update(("%s %s\n" % (p, files[p])).encode())
    return _hex(h.digest())


def _join(root, rel):
    if not root or root == "/":
        return "/" + rel
    return root.rstrip("/") + "/" + rel


def _listed(root, d):
    try:
        names = os.listdir(_join(root, d) if d else (root or "/"))
    except OSError:
        return []
    out = []
    for n in names:
        if n.endswith(CODE_EXT) and n not in EXEMPT:
            out.append(d + "/" + n if d else n)
    return out


def check(root):
    """-> (status, image_hex, problems). status: 'ok', 'unverified' (no manifest: dev/sim run),
    or 'mismatch' (problems lists what differs; the board locks until redeployed)."""
    try:
        with open(_join(root, MANIFEST)) as f:
            man = json.load(f)
    except OSError:
        return "unverified", None, ["no manifest.json (not deployed with 'ring device deploy')"]
    except ValueError:
        return "mismatch", None, ["manifest.json is not valid JSON"]
    files = man.get("files") if isinstance(man, dict) else None
    if not isinstance(files, dict) or not files:
        return "mismatch", None, ["manifest.json has no file list"]
    problems = []
    img = image_hash(files)
    if man.get("image") != img:
        problems.append("manifest image hash does not match its file list")
    buf = bytearray(512)
    for rel in sorted(files):
        try:
            got = file_sha256(_join(root, rel), buf)
        except OSError:
            problems.append("missing " + rel)
            continue
        if got != files[rel]:
            problems.append("changed " + rel)
    for d in CHECKED_DIRS:
        for rel in _listed(root, d):
            if rel not in files:
                problems.append("unexpected " + rel)
    return ("mismatch" if problems else "ok"), img, problems
