"""Rest from video: per-object stillness over a time window, and verdicts from several still frames.

Coins come to rest 1.6-8.4 s after the throw and wobble fast just before (NOTES.md), so a coin
counts as still only after `window_s` without motion; the frames adjudicated are still ones,
and several agreeing frames are required before a call (`adjudicate_frames`).
"""
import cv2
import numpy as np

from . import judge


class MotionCheck:
    """Feed every frame to `update(frame, t_s)`; it says which objects have been still how long."""

    def __init__(self, ring, window_s=0.5, diff_level=18, moving_frac=0.02):
        self.ring = ring
        self.window_s = float(window_s)
        self.diff_level = diff_level
        self.moving_frac = moving_frac
        self._bg = cv2.cvtColor(ring.background, cv2.COLOR_BGR2GRAY)
        self._prev = None
        self._tracks = []     # [x, y, still_since_t]
        self._r = ring.coin_radius_px / ring.factor

    def update(self, frame, t_s):
        """-> {"still": bool, "still_s": float, "coins": [{"center", "still_s", "moving"}]}."""
        grey = cv2.cvtColor(self.ring.small(frame), cv2.COLOR_BGR2GRAY)
        prev, self._prev = self._prev, grey
        if prev is None:
            prev = grey
        moving = cv2.absdiff(grey, prev) > self.diff_level
        fg = (cv2.absdiff(grey, self._bg) > self.diff_level).astype(np.uint8) | moving.astype(np.uint8)
        n, lbl, stats, cents = cv2.connectedComponentsWithStats(fg, connectivity=8)
        min_area = 0.2 * np.pi * self._r * self._r
        tracks = []
        for k in range(1, n):
            x, y, w, h, area = stats[k]
            if area < min_area:
                continue
            frac = float(moving[y:y + h, x:x + w].mean())
            cx, cy = cents[k]
            old = min(self._tracks, key=lambda tr: (tr[0] - cx) ** 2 + (tr[1] - cy) ** 2, default=None)
            near = old is not None and (old[0] - cx) ** 2 + (old[1] - cy) ** 2 < (0.5 * self._r) ** 2
            since = old[2] if near and frac < self.moving_frac else (t_s if frac >= self.moving_frac else
                                                                       (old[2] if near else t_s))
            tracks.append([cx, cy, since, frac >= self.moving_frac])
        self._tracks = [tr[:3] for tr in tracks]
        f = self.ring.factor
        coins = [{"center": [round((tr[0] + 0.5) * f, 1), round((tr[1] + 0.5) * f, 1)],
                  "still_s": round(t_s - tr[2], 3), "moving": bool(tr[3])} for tr in tracks]
        still_s = min((c["still_s"] for c in coins), default=0.0)
        return {"still": bool(coins) and still_s >= self.window_s, "still_s": still_s, "coins": coins}


def adjudicate_frames(frames, ring, model, min_agree=3):
    """Combine the verdicts of several still frames: a call needs `min_agree` frames agreeing and
    none calling anything else; otherwise "unsure"."""
    verdicts = [judge.classify(f, ring, model) for f in frames]
    calls = [v["result"] for v in verdicts if v["result"] != "unsure"]
    need = min(min_agree, len(frames))
    out = dict(verdicts[-1]) if verdicts else {"coins": [], "ms": 0.0}
    out["frames"] = len(verdicts)
    out["ms"] = round(sum(v["ms"] for v in verdicts), 2)
    if calls and len(set(calls)) == 1 and len(calls) >= need:
        best = next(v for v in reversed(verdicts) if v["result"] == calls[0])
        out.update(result=calls[0], reasons=best["reasons"], coins=best["coins"], agree=len(calls))
    elif len(set(calls)) > 1:
        out.update(result="unsure", reasons=["unsure: still frames disagree (" + ", ".join(sorted(set(calls))) + ")"],
                   agree=0)
    else:
        out.update(result="unsure", agree=len(calls),
                   reasons=[f"unsure: only {len(calls)} of {len(verdicts)} still frames give a call, need {need}"])
    return out
