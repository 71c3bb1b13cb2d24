"""Deploy: plan which built firmware files differ from the board's manifest, copy only those, reset, confirm.

The plan compares the sha256 of every file in the build's manifest with the manifest the
board holds (/manifest.json, written last by the previous deploy). The manifest is removed
before copying and written after, so an interrupted deploy leaves no manifest and the next
deploy copies everything (and the firmware's integrity check reports FAULT_INTEGRITY).
"""
import hashlib
import json
from pathlib import Path

from ..errors import UserError

MANIFEST = "manifest.json"
# Never touched by deploy: provisioned per board.
PROTECTED = {"key.bin", "config.json", MANIFEST}


def parse_manifest(data):
    """Manifest bytes/dict -> (files {path: sha256hex}, image hash or ''). Tolerates
    {"files": {path: sha}} and {"files": [{"path", "sha256"}]}."""
    if data is None:
        return {}, ""
    m = json.loads(data) if isinstance(data, (bytes, str)) else data
    files = m.get("files", {})
    if isinstance(files, list):
        files = {f["path"]: f["sha256"] for f in files}
    files = {p.lstrip("/"): (v["sha256"] if isinstance(v, dict) else v) for p, v in files.items()}
    image = m.get("image") or m.get("image_hash") or m.get("image_sha256") or ""
    return files, image


def load_build(build_dir):
    """-> (files {path: sha}, image, manifest bytes). UserError if the build is not usable."""
    d = Path(build_dir)
    mpath = d / MANIFEST
    if not mpath.is_file():
        raise UserError(f"no {MANIFEST} in build dir {d}; run `ring device build` first", code=1)
    raw = mpath.read_bytes()
    try:
        files, image = parse_manifest(raw)
    except (ValueError, KeyError, TypeError) as exc:
        raise UserError(f"{mpath} is not a deploy manifest ({exc}); rebuild with "
                        "`ring device build`", code=1) from None
    for rel, sha in files.items():
        f = d / rel
        if not f.is_file():
            raise UserError(f"build dir {d} lacks {rel} listed in its manifest; rebuild", code=1)
        if hashlib.sha256(f.read_bytes()).hexdigest() != sha:
            raise UserError(f"{f} does not match its manifest hash; rebuild with "
                            "`ring device build`", code=1)
    return files, image, raw


def check_target(manifest_bytes, want):
    """A build for one target does not run on the other (machine code: build.py); builds from
    before targets existed carry none and are taken as they are."""
    got = json.loads(manifest_bytes).get("target")
    if got is not None and got != want:
        raise UserError(f"this build is for the {got} target, not a {want} board; run "
                        f"`ring device build --target {want}`", code=1)


def plan(build_files, board_manifest_bytes, board_code=(), board_hashes=None, manifest_bytes=None):
    """-> dict(copy=[(path, reason)], skip=[path], remove=[path], board_image=str, manifest=bool).

    board_hashes: sha256 of the files as they really are on the board ({path: hex or None});
    when given they decide, so a file changed behind the manifest's back is copied again.
    board_code: code files found on the board (a stray one would fail its integrity check).
    manifest_bytes: the build's manifest; decides whether /manifest.json must be written."""
    try:
        board_files, board_image = parse_manifest(board_manifest_bytes)
    except (ValueError, KeyError, TypeError):
        board_files, board_image = {}, ""   # unreadable manifest: copy everything
    copy, skip = [], []
    for path in sorted(build_files):
        claimed = board_files.get(path)
        real = board_hashes.get(path) if board_hashes is not None else claimed
        if real == build_files[path]:
            skip.append(path)
        elif real is None:
            copy.append((path, "new"))
        elif claimed == build_files[path]:
            copy.append((path, "changed on the board since the last deploy"))
        else:
            copy.append((path, "changed"))
    # Files the old image had and the new one lacks: a stale lib/x.py would shadow x.mpy.
    remove = sorted(p for p in set(board_files) | set(board_code)
                    if p not in build_files and p not in PROTECTED)
    write_manifest = bool(copy or remove) or (manifest_bytes is not None and
                                              board_manifest_bytes != manifest_bytes)
    return {"copy": copy, "skip": skip, "remove": remove, "board_image": board_image,
            "manifest": write_manifest}


def format_plan(p, build_dir, build_files, image, target_name):
    """The dry-run text: exactly what would be copied and removed."""
    d = Path(build_dir)
    lines = ["deploy plan for %s" % target_name,
             "  board image: %s" % (p["board_image"] or "none (no manifest on the board)"),
             "  build image: %s (from %s)" % (image or "?", d)]
    total = 0
    for path, why in p["copy"]:
        size = (d / path).stat().st_size
        total += size
        lines.append("  copy    %-28s %7d B  sha256 %s  (%s)" % (
            path, size, build_files[path][:16], why))
    for path in p["skip"]:
        lines.append("  skip    %-28s unchanged" % path)
    for path in p["remove"]:
        lines.append("  remove  %-28s not in this build" % path)
    if p.get("manifest", p["copy"] or p["remove"]):
        lines.append("  write   %-28s last, after the files" % MANIFEST)
    lines.append("%d file(s) to copy (%d B), %d unchanged, %d to remove" % (
        len(p["copy"]), total, len(p["skip"]), len(p["remove"])))
    return "\n".join(lines)


def apply(p, build_dir, target, manifest_bytes):
    """Copy the planned files to the target; manifest removed first and written last."""
    d = Path(build_dir)
    if not p["copy"] and not p["remove"] and not p.get("manifest"):
        return 0
    target.remove([MANIFEST])
    target.remove(p["remove"])
    target.write_many([((d / path).read_bytes(), path) for path, _ in p["copy"]])
    target.write_many([(manifest_bytes, MANIFEST)])
    return len(p["copy"])


def confirm_image(expected, hello):
    """Compare the image hash the board reported in HELLO with the build's -> message."""
    hello = hello or {}
    if hello.get("error"):
        return False, "copied, but the new image is not confirmed: " + hello["error"]
    got = hello.get("image_hash") or hello.get("image") or ""
    if not expected:
        return True, "build manifest has no image hash; nothing to confirm"
    if got == expected or (got and expected.startswith(got)):
        return True, "board runs image %s" % got
    return False, ("board reports image %s, build is %s: the copy did not take effect; check "
                   "`ring doctor` (FAULT_INTEGRITY), then re-run `ring device deploy`"
                   % (got or "none", expected))
