"""Annotated evidence: a judged frame with its ring boundary, coins, other objects and verdict drawn on.

`annotate(img, result) -> img` is pure (the input frame is not changed): `result` is what
`classify` returned (or any dict of the same shape; `ring` and `others` are optional). Used by
`ring vision classify --annotate DIR`, by `train` when it refuses a photo, and by `ring run`
to keep the still frames that decided each spin in the audit log.

Colours: green = coin flat and inside with its face read; amber = coin whose face or position
is doubtful; red = coin outside, on the rim or not lying flat; blue = chip or other object.
"""
import cv2
import numpy as np

GREEN, AMBER, RED, BLUE, WHITE, BLACK = (60, 200, 60), (0, 190, 255), (40, 40, 230), (230, 150, 40), \
    (255, 255, 255), (0, 0, 0)
VERDICT_COLOUR = {"heads": GREEN, "tails": GREEN, "odds": GREEN, "no-spin": RED, "unsure": AMBER}


def _text(img, text, org, scale, colour, thick):
    """Text with a dark outline, readable on any layout."""
    x, y = org
    for dx, dy in ((-1, -1), (1, -1), (-1, 1), (1, 1)):
        cv2.putText(img, text, (x + dx, y + dy), cv2.FONT_HERSHEY_SIMPLEX, scale, BLACK, thick, cv2.LINE_AA)
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thick, cv2.LINE_AA)


def coin_colour(c):
    if not c.get("flat") or not c.get("inside"):
        return RED
    return GREEN if c.get("face") else AMBER


def coin_label(c):
    face = {"heads": "H", "tails": "T"}.get(c.get("face"), "?")
    return (f"{face} {c.get('confidence', 0):.2f} {'flat' if c.get('flat') else 'NOT FLAT'} "
            f"{'in' if c.get('inside') else 'OUT/RIM'}")


def annotate(img, result):
    """-> a copy of the BGR frame `img` with the verdict `result` drawn on it."""
    out = img.copy() if img.ndim == 3 else cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    h, w = out.shape[:2]
    s = max(h, w) / 1280            # text and line scale: the same look at 720p and 4K
    lw = max(1, int(round(2 * s)))
    ring = result.get("ring")
    if ring and ring.get("center") and ring.get("axes"):
        cx, cy = ring["center"]
        a, b = ring["axes"]
        cv2.ellipse(out, ((float(cx), float(cy)), (2 * float(a), 2 * float(b)), float(ring.get("angle_deg", 0))),
                    WHITE, lw, cv2.LINE_AA)
    # entries without image coordinates (e.g. a multi-camera verdict's coins in ring mm) are
    # left out: the verdict and its reasons are still drawn
    for o in [o for o in result.get("others") or [] if o.get("center")]:
        x, y = o["center"]
        r = max(2.0, float(o.get("radius") or 0))
        cv2.circle(out, (int(round(x)), int(round(y))), int(round(r * 1.1)), BLUE, lw, cv2.LINE_AA)
        _text(out, o.get("kind", "object") + (" IN RING" if o.get("inside") else ""),
              (int(x - r), int(y - 1.2 * r)), 0.5 * s, BLUE, max(1, lw // 2))
    for c in [c for c in result.get("coins") or [] if c.get("center")]:
        x, y = c["center"]
        r = max(2.0, float(c.get("radius") or 0))
        col = coin_colour(c)
        cv2.circle(out, (int(round(x)), int(round(y))), int(round(r * 1.15)), col, lw, cv2.LINE_AA)
        _text(out, coin_label(c), (int(x - r), int(y + 1.15 * r + 18 * s)), 0.55 * s, col, max(1, lw // 2))
    verdict = str(result.get("result", "?")).upper()
    pad = int(12 * s)
    lines = [str(r) for r in result.get("reasons") or []]
    box_h = int((46 + 24 * len(lines)) * s) + pad
    band = out[:min(h, box_h)]
    band[:] = (band * 0.45).astype(out.dtype)     # darken behind the text
    _text(out, verdict, (pad, int(38 * s)), 1.2 * s, VERDICT_COLOUR.get(result.get("result"), WHITE), max(2, lw))
    if "ms" in result:
        _text(out, f"{result['ms']:.1f} ms", (w - int(150 * s), int(30 * s)), 0.6 * s, WHITE, max(1, lw // 2))
    for i, line in enumerate(lines):
        _text(out, line, (pad, int((64 + 24 * i) * s)), 0.6 * s, WHITE, max(1, lw // 2))
    return out


def encode_png(img):
    """PNG bytes of a (annotated) frame, for the audit log."""
    ok, buf = cv2.imencode(".png", img)
    if not ok:
        raise ValueError("frame cannot be encoded as PNG")
    return np.asarray(buf).tobytes()
