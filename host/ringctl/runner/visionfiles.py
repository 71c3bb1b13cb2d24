"""What judges a session's spins, for the audit log's `vision` record (records.record_vision)."""
import hashlib
from pathlib import Path

from ..errors import UserError

# the `vision` record of a host with no camera: a spin after it was not judged by the files an
# earlier session's record names (surveillance reads the last one before each spin)
NO_CAMERA = {"camera": "none: the boxer calls every spin"}


def vision_in_use(cfg, ring_model=None):
    """For the audit log (records.record_vision): the files that judge this session's spins, the
    one camera's ring calibration (`ring_model`, loaded) or the rig's, and the face model, each
    with its SHA-256; for a ring settled by the coins' size, how, and who confirmed it."""
    out = {}
    for key in ("ring" if ring_model is not None else "rig", "model"):
        try:
            out[key] = {"file": cfg[key], "sha256": hashlib.sha256(Path(cfg[key]).read_bytes()).hexdigest()}
        except OSError as exc:
            raise UserError(f"cannot read {cfg[key]} again to record it ({exc.strerror}); check the file and "
                            "start again") from None
    if ring_model is not None and ring_model.settled_by_coins:
        out["ring"]["settled_by_coins"] = {k: v for k, v in ring_model.settled_by_coins.items()
                                           if k in ("how", "drawn", "drawn_sha256", "confirmed")}
    return out
