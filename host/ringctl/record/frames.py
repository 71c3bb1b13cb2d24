"""`ring log frames`: one spin's evidence as files a person opens — its camera frames as JPEG images (the annotated copies too, where the host kept them) with the spin's records beside them.

    OUT/spin0003-frame0042.jpg             a still frame that decided spin 3 (audit seq 42)
    OUT/spin0003-frame0043-annotated.jpg   its annotated copy (ring, coins, verdict drawn on)
    OUT/spin0003-frame0042.json            the camera's verdict for that frame
    OUT/spin0003-records.txt               every record of the spin, one readable line each
    OUT/spin0003-records.jsonl             the same records as JSON (epoch ts), for machines

The folder is written whole or not at all: into a temporary sibling first, renamed at the end.
"""
import json
import os
import shutil
import tempfile

from ..errors import UserError
from . import show


def spin_records(log, spin):
    """Spin `spin`'s records in chain order: the `vision` record in force (the files that judged
    it), those that name it, and the table's settlement of it (the engine's spin op that follows
    them, before the next spin is armed)."""
    out, started, done, vision = [], False, False, None
    for r in log.records(with_blobs=False):
        n = show._spin_of(r)
        if r.kind == "vision" and not started:
            vision = r
        if n == spin:
            if not started and vision is not None:
                out.append(vision)
            out.append(r)
            started = True
        elif started and not done:
            if r.kind == "arm" and n is not None and n != spin:
                done = True
            elif r.kind == "op" and (r.data.get("op") or {}).get("op") == "spin":
                out.append(r)
    # only the spin's own frames are read with their JPEG bytes, not the whole log's
    return [r._replace(blob=_blob(log, r.seq)) if r.kind == "frame" else r for r in out]


def _blob(log, seq):
    row = log.db.execute("SELECT blob FROM records WHERE seq = ?", (seq,)).fetchone()
    return row[0] if row else None


def export_spin(log, spin, out_dir):
    """Write spin `spin`'s frames and records into the new folder `out_dir`. -> counts."""
    try:
        recs = spin_records(log, spin)
    except ValueError as exc:       # a record's data is not JSON (an older host wrote it so)
        raise UserError(f"audit log {log.path} holds a record whose data is not readable JSON "
                        f"({exc}); `ring log export` keeps the raw text", code=1) from None
    if not recs:
        raise UserError(f"no records of spin {spin} in {log.path}: `ring log show --kind arm` "
                        "lists the spins it holds", code=1)
    target = os.path.abspath(out_dir)
    if os.path.exists(target) and not (os.path.isdir(target) and not os.listdir(target)):
        raise UserError(f"{out_dir} already exists and is not an empty folder: give a new "
                        "folder for -o", code=2)
    parent = os.path.dirname(target)
    if not os.path.isdir(parent):
        raise UserError(f"folder {parent} does not exist: create it or give another -o", code=2)
    try:
        tmp = tempfile.mkdtemp(prefix=".%s." % os.path.basename(target), dir=parent)
    except OSError as exc:
        raise UserError(f"cannot write in {parent}: {exc.strerror}; choose a writable folder "
                        "for -o", code=1) from None
    try:
        counts = _write(recs, spin, tmp)
        if os.path.isdir(target):
            os.rmdir(target)
        os.rename(tmp, target)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise UserError(f"cannot write spin {spin}'s evidence to {out_dir}: {exc.strerror} "
                        "(disk full or read-only?); nothing was written", code=1) from None
    return counts


def _write(recs, spin, folder):
    stem = os.path.join(folder, "spin%04d" % spin)
    frames = annotated = 0
    for r in recs:
        if r.kind != "frame" or r.blob is None:
            continue
        meta = (r.data or {}).get("meta")
        is_annotated = isinstance(meta, dict) and bool(meta.get("annotated"))
        name = "%s-frame%04d%s" % (stem, r.seq, "-annotated" if is_annotated else "")
        with open(name + ".jpg", "wb") as f:
            f.write(r.blob)
        if not is_annotated and meta is not None:
            with open(name + ".json", "w", encoding="utf-8") as f:
                json.dump(meta, f, indent=1)
        annotated += is_annotated
        frames += not is_annotated
    with open(stem + "-records.txt", "w", encoding="utf-8") as f:
        for r in recs:
            f.write(show.line(r) + "\n")
    with open(stem + "-records.jsonl", "w", encoding="utf-8") as f:
        for r in recs:
            f.write(json.dumps(show.as_json(r)) + "\n")
    return {"spin": spin, "records": len(recs), "frames": frames, "annotated": annotated}
