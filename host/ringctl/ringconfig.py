"""The ring config file (`--config ring-config.json`): load, type-check every value, resolve paths.

Shared by `ring run` and `ring doctor`. Relative paths resolve against the config file's
folder (not the shell's working directory), so a config and the files it names can be moved
together. Every value is checked at load and a bad one is a one-line error naming the key.
"""
import json
import math
import os
from pathlib import Path

from .errors import UserError

# key -> (kind, what it is, valid-value hint)
KEYS = {
    "ring": ("path", "ring calibration (ring vision calibrate -o RING.json)", "a file name"),
    "model": ("path", "face model (ring vision train -o MODEL)", "a file name"),
    "rig": ("path", "several cameras' calibration (ring vision calibrate-views)", "a file name"),
    "key": ("path", "the board's key file ($RING_HOME/keys/<device-id>.key)", "a file name"),
    "log": ("path", "the audit log database", "a file name"),
    "quiet_s": ("seconds", "quiet time after the last impact before a result", "a number of "
                "seconds between 0.1 and 10, e.g. 1.0"),
    "stills": ("count", "camera stills kept as evidence per spin", "a whole number 1-20, e.g. 3"),
    "port": ("text", "the board's serial port", "a device path or \"auto\""),
    "camera": ("camera", "camera index, video file, URL or image folder; a list for several",
               "e.g. 0, \"rtsp://...\" or [0, 1]"),
}
PATH_KEYS = tuple(k for k, v in KEYS.items() if v[0] == "path")
RANGES = {"quiet_s": (0.1, 10.0), "stills": (1, 20)}


def load_config(path):
    """-> dict with only known keys, values checked, paths absolute. {} for path None."""
    if path is None:
        return {}
    p = Path(path)
    if p.is_dir():
        raise UserError(f"--config {p} is a folder; give the ring config file (JSON, e.g. "
                        "docs/ring-config.example.json)")
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"config file {p} not found; give an existing --config or leave it out") from None
    except (OSError, UnicodeDecodeError) as exc:
        why = getattr(exc, "strerror", None) or "not UTF-8 text"
        raise UserError(f"cannot read config file {p} ({why}); give a readable JSON file") from None
    try:
        cfg = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"config file {p} is not valid JSON (line {exc.lineno}: {exc.msg})") from None
    if not isinstance(cfg, dict):
        raise UserError(f"config file {p} must hold a JSON object like "
                        "docs/ring-config.example.json")
    unknown = sorted(set(cfg) - set(KEYS))
    if unknown:
        raise UserError(f"config file {p}: unknown key(s) {unknown}; known: {sorted(KEYS)}")
    out = {}
    for key, value in cfg.items():
        out[key] = _check(p, key, value)
    return out


def _check(p, key, value):
    kind, what, hint = KEYS[key]

    def bad(why):
        return UserError(f"config file {p}: \"{key}\" ({what}) {why}; give {hint}")
    if value is None:
        raise bad("is null")
    if kind == "path":
        if not isinstance(value, str) or not value.strip():
            raise bad(f"must be a path string, not {json.dumps(value)}")
        q = Path(value).expanduser()
        return str(q if q.is_absolute() else (p.resolve().parent / q))
    if kind == "seconds":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise bad(f"must be a number, not {json.dumps(value)}")
    elif kind == "count":
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad(f"must be a whole number, not {json.dumps(value)}")
    elif kind == "text":
        if not isinstance(value, str) or not value.strip():
            raise bad(f"must be a string, not {json.dumps(value)}")
        return value
    elif kind == "camera":
        if isinstance(value, list) and value:
            return [_camera(p, v, bad) for v in value]
        return _camera(p, value, bad)
    lo, hi = RANGES[key]
    if not lo <= value <= hi:
        raise bad(f"is {value}, outside {lo}..{hi}")
    return value


def _camera(p, value, bad):
    if isinstance(value, bool) or not isinstance(value, (int, str)) or value == "":
        raise bad(f"must be an index or a string (or a list of them), not {json.dumps(value)}")
    if isinstance(value, str) and not value.isdigit() and "://" not in value:
        q = Path(value).expanduser()
        return str(q if q.is_absolute() else (p.resolve().parent / q))
    return str(value)


def open_log(log_path, flag="--log"):
    """The audit log (record.log.AuditLog), or a one-line error naming what is wrong with the
    path: a folder, a file that is not an audit log, a read-only folder, a full disk."""
    import sqlite3
    from .record.log import AuditLog
    p = os.path.abspath(log_path)
    if os.path.isdir(p):
        raise UserError(f"{flag} {log_path} is a folder; give the audit log file (e.g. "
                        f"{os.path.join(log_path, 'audit.db')})")
    from .atomic import check_writable_dir
    folder = os.path.dirname(p)
    if not os.path.exists(p):
        # A new log: prove its folder takes writes first (read-only, full, a file in the way).
        check_writable_dir(folder, f"the audit log ({flag} {log_path}): folder")
    elif os.statvfs(p).f_flag & os.ST_RDONLY:
        raise UserError(f"{flag} {log_path} is on a read-only file system; the audit log must "
                        "be writable: remount it read-write or choose another --log", code=1)
    try:
        return AuditLog(p)
    except sqlite3.DatabaseError as exc:
        if "not a database" in str(exc) or "malformed" in str(exc):
            raise UserError(f"{flag} {log_path} is not an audit log (SQLite: {exc}); give the "
                            "audit.db that `ring run` made, or a new file name") from None
        raise UserError(f"cannot open audit log {log_path} ({exc}); check the folder is "
                        "writable and the disk has space", code=1) from None
    except OSError as exc:
        raise UserError(f"cannot open audit log {log_path} ({exc.strerror}); check the folder "
                        "is writable and the disk has space", code=1) from None
