"""Rest from video: per-object stillness over a time window.

Coins come to rest 1.6-8.4 s after the throw and wobble fast just before, so a coin counts as
still only after `window_s` without motion. Only still frames are judged; that several of them must agree before a call is the
adjudicator's rule (game.adjudicate), not this module's.
"""
import cv2
import numpy as np



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
        n, lbl, stats, cents = cv2.connectedComponentsWithStatsWithAlgorithm(fg, 8, cv2.CV_32S, cv2.CCL_GRANA)
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
