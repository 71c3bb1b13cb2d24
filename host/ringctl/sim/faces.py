"""Procedural coin faces (height maps) for the renderer: a head profile vs a tails design.

Both faces share the rim and have the same mean and spread of relief, so a rendered coin's
brightness says nothing about its face (a reader must look at the design, not "bright vs dark").
"""
import functools

import cv2
import numpy as np

TEX = 256          # texture side in px; the coin disc has radius TEX/2 - 1
_R = TEX / 2 - 1
_C = TEX / 2


def _arc_glyphs(img, rng, r_in, r_out, start, end, value):
    """Text-like marks along an arc (a legend): short strokes of random widths and gaps."""
    a = start
    while a < end:
        w = rng.uniform(0.035, 0.075)
        kind = rng.integers(0, 3)
        pts = []
        for aa, rr in ((a, r_in), (a + w, r_in), (a + w, r_out), (a, r_out)):
            pts.append((_C + rr * np.cos(aa), _C + rr * np.sin(aa)))
        pts = np.array(pts, np.float32)
        if kind == 0:       # a solid block letter
            cv2.fillConvexPoly(img, (pts * 16).astype(np.int32), value, cv2.LINE_AA, shift=4)
        else:               # two strokes (an "H"- or "L"-ish letter)
            p = (pts * 16).astype(np.int32)
            cv2.line(img, tuple(p[0]), tuple(p[3]), value, 3, cv2.LINE_AA, shift=4)
            q = p[1] if kind == 1 else (p[2] + p[1]) // 2
            cv2.line(img, tuple(p[3]), tuple(q), value, 3, cv2.LINE_AA, shift=4)
        a += w + rng.uniform(0.02, 0.05)


def _rim(img):
    cv2.circle(img, (int(_C * 16), int(_C * 16)), int(_R * 16), 1.0, -1, cv2.LINE_AA, 4)
    cv2.circle(img, (int(_C * 16), int(_C * 16)), int(_R * 0.89 * 16), 0.35, -1, cv2.LINE_AA, 4)
    cv2.circle(img, (int(_C * 16), int(_C * 16)), int(_R * 0.86 * 16), 0.0, -1, cv2.LINE_AA, 4)


def _heads(rng):
    img = np.zeros((TEX, TEX), np.float32)
    _rim(img)
    s = _R
    # head: skull, face, nose, chin, neck: a left-facing profile
    cv2.ellipse(img, (int(_C + 0.05 * s), int(_C - 0.08 * s)), (int(0.36 * s), int(0.42 * s)),
                -10, 0, 360, 0.8, -1, cv2.LINE_AA)
    nose = np.array([[_C - 0.28 * s, _C - 0.16 * s], [_C - 0.44 * s, _C + 0.02 * s],
                     [_C - 0.28 * s, _C + 0.05 * s]], np.float32)
    cv2.fillConvexPoly(img, (nose * 16).astype(np.int32), 0.8, cv2.LINE_AA, 4)
    neck = np.array([[_C - 0.12 * s, _C + 0.25 * s], [_C + 0.28 * s, _C + 0.18 * s],
                     [_C + 0.36 * s, _C + 0.62 * s], [_C - 0.18 * s, _C + 0.62 * s]], np.float32)
    cv2.fillConvexPoly(img, (neck * 16).astype(np.int32), 0.65, cv2.LINE_AA, 4)
    cv2.circle(img, (int(_C - 0.17 * s), int(_C - 0.14 * s)), int(0.05 * s), 0.4, -1, cv2.LINE_AA)
    cv2.ellipse(img, (int(_C + 0.02 * s), int(_C + 0.12 * s)), (int(0.12 * s), int(0.05 * s)),
                15, 0, 180, 0.45, 3, cv2.LINE_AA)
    for k in range(6):   # hair waves at the back of the head
        y = _C - 0.38 * s + k * 0.1 * s
        pts = np.array([[_C + 0.05 * s + 0.06 * s * np.sin(t * 3 + k), y + t * 0.04 * s]
                        for t in np.linspace(0, 6, 12)], np.float32)
        pts[:, 0] += np.linspace(0, 0.3 * s, 12)
        cv2.polylines(img, [(pts * 16).astype(np.int32)], False, 1.0, 2, cv2.LINE_AA, 4)
    _arc_glyphs(img, rng, 0.68 * s, 0.8 * s, np.pi * 0.65, np.pi * 2.35, 0.9)
    return img


def _tails(rng):
    img = np.zeros((TEX, TEX), np.float32)
    _rim(img)
    s = _R
    # a seven-pointed star over two bars with lettering, and a legend with a date gap
    pts = []
    for k in range(14):
        rr = (0.3 if k % 2 == 0 else 0.13) * s
        a = -np.pi / 2 + k * np.pi / 7
        pts.append([_C + rr * np.cos(a), _C - 0.12 * s + rr * np.sin(a)])
    cv2.fillPoly(img, [(np.array(pts, np.float32) * 16).astype(np.int32)], 0.85, cv2.LINE_AA, 4)
    cv2.rectangle(img, (int(_C - 0.55 * s), int(_C + 0.2 * s)), (int(_C + 0.55 * s), int(_C + 0.24 * s)),
                  0.7, -1, cv2.LINE_AA)
    txt = np.zeros((TEX, TEX), np.uint8)   # putText draws on 8-bit images only
    cv2.putText(txt, "ONE PENNY", (int(_C - 0.5 * s), int(_C + 0.44 * s)), cv2.FONT_HERSHEY_DUPLEX,
                0.0036 * s, 230, 2, cv2.LINE_AA)
    img = np.maximum(img, txt.astype(np.float32) / 255)
    cv2.rectangle(img, (int(_C - 0.45 * s), int(_C + 0.5 * s)), (int(_C + 0.45 * s), int(_C + 0.53 * s)),
                  0.7, -1, cv2.LINE_AA)
    _arc_glyphs(img, rng, 0.68 * s, 0.8 * s, np.pi * 1.1, np.pi * 1.9, 0.9)
    _arc_glyphs(img, rng, 0.68 * s, 0.8 * s, np.pi * 0.15, np.pi * 0.85, 0.9)
    return img


# Relief designs made from real coins of scikit-image's `coins` plate ((x, y, r) of the heads
# and tails coin): the photo's grey levels become the relief's height, so the coin is struck in
# metal and lit from any direction like the drawn designs. Tuning variety only (sets tune-*).
RELIEF_PLATE = {100: ((270, 117, 25), (299, 261, 26)), 101: ((154, 50, 22), (101, 195, 21)),
                102: ((272, 192, 21), (114, 266, 21)),   # 102: sealed-5 only
                103: ((276, 51, 20), (206, 124, 20)),    # 103: sealed-6 only
                104: ((100, 58, 19), (43, 124, 19)),     # 104: sealed-7 only
                105: ((46, 53, 19), (155, 126, 17))}     # 105: sealed-10 only
# Relief designs from other scikit-image pictures ((picture, x, y, r) of heads and tails): a
# portrait for heads and an animal or object for tails, as on many real coins. 106: sealed-11
# only; 107: sealed-12 only; ... 111: sealed-16 only (stained cells; a page of printed lettering);
# 112: sealed-17 only (a micrograph of a cell; a brick wall); 113: sealed-18 only (a deep-sky
# photograph; a line of printed text); 114: sealed-19 only (a snake emblem; a bed of gravel);
# 115: sealed-20 only (a patch of grass; a retinal micrograph); 116: sealed-21 only (a colour
# wheel; a checkerboard); 117: sealed-22 only (a motorcycle; smooth random blobs); 118: sealed-23
# only (two portraits of 25 px, one a side: a face on both sides, few and soft edges); 119:
# sealed-24 only (crops of pictures used before: the mission emblem on the astronaut's
# shoulder; the cat's whiskers, fine bright lines); 120: sealed-25 only (a third small portrait,
# a man in glasses; a motorcycle's spoked front wheel); 121: sealed-26 only (a fourth small
# portrait, a smiling man; the lattice of a rocket's launch tower with two star-shaped flares);
# 122: sealed-27 only (a fifth small portrait, a smiling woman; the grain of a wooden table);
# 123: sealed-28 only (a sixth small portrait; a corner of the moon's cratered surface);
# 124: sealed-29 only (a seventh small portrait; the legs of the cameraman's tripod on grass);
# 125: sealed-30 only (an eighth small portrait; the branching blood vessels of a retina);
# 126: sealed-31 only (a ninth small portrait; the space shuttle on its pad, from the astronaut's
# photograph); 127: sealed-32 only (a tenth small portrait; the cat's eye, from chelsea);
# 128: sealed-33 only (an eleventh small portrait; a bright galaxy among faint ones, from the
# Hubble deep field); 129: sealed-34 only (a twelfth small portrait; a stained gland of
# immunohistochemistry); 130: sealed-35 only (a thirteenth small portrait; the numerals and a
# corner of the clock's face); 131: sealed-36 only (a fourteenth small portrait; the bowl of a
# spoon against the saucer's rim, from coffee); 132: sealed-37 only (a fifteenth small portrait;
# the cat's eye and nose, from chelsea); 133: sealed-38 only (a sixteenth small portrait; the
# cooling fins of a motorcycle's engine, from stereo_motorcycle); 134: sealed-39 only (a
# seventeenth small portrait; the lattice of a launch tower at dusk, from rocket); 135: sealed-40
# only (an eighteenth small portrait; the cameraman's camera on its tripod head, from camera);
# 136: sealed-41 only (a nineteenth small portrait; craters and a mare's edge, from moon);
# 137: sealed-42 only (a twentieth small portrait; the astronaut's gloved hand and sleeve);
# 138: sealed-43 only (a twenty-first small portrait; the cup's handle on its saucer, from coffee);
# 139: sealed-44 only (a twenty-second small portrait; a cat's eye and its brow, from cat);
# 140: sealed-45 only (a twenty-third small portrait; a tissue section's glands, from
# immunohistochemistry);
# 141: sealed-46 only (a twenty-fourth small portrait; the tripod's legs on grass, from camera);
# 142: sealed-47 only (a twenty-fifth small portrait; the rocket's nose cone against the sky, from rocket);
# 143: sealed-48 only (a twenty-sixth small portrait; a patch of weathered brick wall, from brick);
# 144: sealed-49 only (a twenty-seventh small portrait; a patch of loose gravel, from gravel);
# 145: sealed-50 only (a twenty-eighth small portrait; one cell filling the field, from cell);
# 146: sealed-51 only (a twenty-ninth small portrait; a motorcycle's engine and frame, from stereo_motorcycle);
# 147: sealed-52 only (a thirtieth small portrait; a scratched wooden tabletop beside a saucer, from coffee);
# 148: sealed-53 only (a thirty-first small portrait; blood vessels branching across a retina, from retina);
# 149: sealed-54 only (a thirty-second small portrait; a cat's eye, nose and whiskers, from cat);
# 150: sealed-55 only (a thirty-third small portrait; blades of grass in a corner of grass);
# 151: sealed-56 only (a thirty-fourth small portrait; the astronaut's suited shoulder and helmet ring
#      before the flag's stripes, from astronaut)
RELIEF_PICTURE = {106: (("astronaut", 225, 125, 105), ("chelsea", 235, 150, 140)),
                  107: (("camera", 250, 150, 110), ("coffee", 300, 200, 170)),
                  108: (("rocket", 320, 220, 190), ("moon", 250, 300, 200)),
                  109: (("clock", 200, 150, 130), ("retina", 705, 705, 560)),
                  110: (("shepp_logan_phantom", 200, 200, 190), ("horse", 200, 164, 160)),
                  111: (("immunohistochemistry", 256, 256, 200), ("page", 192, 95, 90)),
                  112: (("cell", 275, 330, 260), ("brick", 256, 256, 240)),
                  113: (("hubble_deep_field", 500, 436, 400), ("text", 224, 86, 84)),
                  114: (("logo", 250, 250, 220), ("gravel", 256, 256, 240)),
                  115: (("grass", 256, 256, 240), ("microaneurysms", 51, 51, 50)),
                  116: (("colorwheel", 185, 185, 175), ("checkerboard", 100, 100, 95)),
                  117: (("stereo_motorcycle", 370, 250, 240), ("binary_blobs", 256, 256, 240)),
                  118: (("lfw_subset[23]", 12, 12, 12), ("lfw_subset[77]", 12, 12, 12)),
                  119: (("astronaut", 130, 400, 100), ("chelsea", 130, 300, 110)),
                  120: (("lfw_subset[39]", 12, 12, 12), ("stereo_motorcycle", 600, 370, 90)),
                  121: (("lfw_subset[61]", 12, 12, 12), ("rocket", 130, 300, 110)),
                  122: (("lfw_subset[45]", 12, 12, 12), ("coffee", 540, 120, 55)),
                  123: (("lfw_subset[8]", 12, 12, 12), ("moon", 130, 380, 110)),
                  124: (("lfw_subset[92]", 12, 12, 12), ("camera", 330, 420, 85)),
                  125: (("lfw_subset[17]", 12, 12, 12), ("retina", 420, 760, 150)),
                  126: (("lfw_subset[130]", 12, 12, 12), ("astronaut", 420, 110, 90)),
                  127: (("lfw_subset[50]", 12, 12, 12), ("chelsea", 300, 120, 60)),
                  128: (("lfw_subset[66]", 12, 12, 12), ("hubble_deep_field", 720, 470, 80)),
                  129: (("lfw_subset[31]", 12, 12, 12), ("immunohistochemistry", 380, 140, 90)),
                  130: (("lfw_subset[84]", 12, 12, 12), ("clock", 330, 150, 70)),
                  131: (("lfw_subset[97]", 12, 12, 12), ("coffee", 370, 260, 75)),
                  132: (("lfw_subset[65]", 12, 12, 12), ("chelsea", 330, 200, 90)),
                  133: (("lfw_subset[72]", 12, 12, 12), ("stereo_motorcycle", 420, 275, 80)),
                  134: (("lfw_subset[56]", 12, 12, 12), ("rocket", 575, 200, 60)),
                  135: (("lfw_subset[28]", 12, 12, 12), ("camera", 290, 160, 65)),
                  136: (("lfw_subset[36]", 12, 12, 12), ("moon", 380, 140, 90)),
                  137: (("lfw_subset[53]", 12, 12, 12), ("astronaut", 350, 300, 80)),
                  138: (("lfw_subset[14]", 12, 12, 12), ("coffee", 180, 250, 70)),
                  139: (("lfw_subset[42]", 12, 12, 12), ("cat", 170, 115, 60)),
                  140: (("lfw_subset[19]", 12, 12, 12), ("immunohistochemistry", 120, 400, 80)),
                  141: (("lfw_subset[5]", 12, 12, 12), ("camera", 200, 400, 70)),
                  142: (("lfw_subset[11]", 12, 12, 12), ("rocket", 330, 120, 80)),
                  143: (("lfw_subset[88]", 12, 12, 12), ("brick", 300, 200, 90)),
                  144: (("lfw_subset[47]", 12, 12, 12), ("gravel", 140, 330, 85)),
                  145: (("lfw_subset[80]", 12, 12, 12), ("cell", 435, 375, 95)),
                  146: (("lfw_subset[3]", 12, 12, 12), ("stereo_motorcycle", 300, 300, 90)),
                  147: (("lfw_subset[25]", 12, 12, 12), ("coffee", 480, 330, 60)),
                  148: (("lfw_subset[58]", 12, 12, 12), ("retina", 300, 350, 90)),
                  149: (("lfw_subset[69]", 12, 12, 12), ("cat", 340, 190, 90)),
                  150: (("lfw_subset[33]", 12, 12, 12), ("grass", 380, 130, 90)),
                  151: (("lfw_subset[74]", 12, 12, 12), ("astronaut", 90, 250, 80))}
# pictures that need arguments to come out the same on every call, or that come as a tuple
# (stereo_motorcycle: left view, right view, disparity): the picture is the first; NAME[i] is
# picture i of a stack (lfw_subset: 200 greyscale pictures of 25 x 25, 0..1)
PICTURE_ARGS = {"binary_blobs": dict(rng=117, blob_size_fraction=0.07)}


def _plate_relief(face, design):
    from skimage import data
    if design in RELIEF_PICTURE:
        name, x, y, r = RELIEF_PICTURE[design][face == "tails"]
        name, _, index = name.partition("[")
        picture = getattr(data, name)(**PICTURE_ARGS.get(name, {}))
        picture = picture[0] if isinstance(picture, tuple) else picture
        picture = (picture[int(index[:-1])] * 255).astype(np.uint8) if index else picture
        picture = picture.astype(np.uint8) * 255 if picture.dtype == bool else picture
        # some pictures carry an alpha plane (RGBA): only the colour planes make relief
        grey = cv2.cvtColor(picture[..., :3], cv2.COLOR_RGB2GRAY) if picture.ndim == 3 else picture
    else:
        x, y, r = RELIEF_PLATE[design][face == "tails"]
        grey = data.coins()
    g = grey[y - r:y + r + 1, x - r:x + r + 1].astype(np.float32) / 255
    img = np.zeros((TEX, TEX), np.float32)
    _rim(img)
    disc = cv2.resize(g, (TEX, TEX), interpolation=cv2.INTER_CUBIC)
    yy, xx = np.mgrid[0:TEX, 0:TEX]
    field = (xx - _C) ** 2 + (yy - _C) ** 2 < (0.86 * _R) ** 2
    img[field] = disc[field]
    return img


@functools.lru_cache(maxsize=16)
def height_map(face, design=0):
    """Relief height map (TEX x TEX float32, 0..1) of `face` ('heads'|'tails') of coin `design`
    (a drawn design, or >= 100: a real coin of RELIEF_PLATE or a picture of RELIEF_PICTURE)."""
    if face not in ("heads", "tails"):
        raise ValueError(f"coin face must be 'heads' or 'tails', not {face!r}")
    if int(design) in RELIEF_PLATE or int(design) in RELIEF_PICTURE:
        img = _plate_relief(face, int(design))
    else:
        rng = np.random.default_rng(1000 + 2 * int(design) + (face == "tails"))
        img = _heads(rng) if face == "heads" else _tails(rng)
    img = cv2.GaussianBlur(img, (0, 0), 1.2)
    # equalise relief statistics inside the field (inside the rim) across the two faces
    yy, xx = np.mgrid[0:TEX, 0:TEX]
    field = (xx - _C) ** 2 + (yy - _C) ** 2 < (0.86 * _R) ** 2
    v = img[field]
    img[field] = (v - v.mean()) / (v.std() + 1e-6) * 0.25 + 0.3
    img = np.clip(img, 0, 1)
    img.setflags(write=False)
    return img


@functools.lru_cache(maxsize=4)
def disc_alpha():
    """Antialiased coin disc (TEX x TEX float32 0..1)."""
    a = np.zeros((TEX, TEX), np.uint8)
    cv2.circle(a, (int(_C * 16), int(_C * 16)), int(_R * 16), 255, -1, cv2.LINE_AA, 4)
    a = a.astype(np.float32) / 255
    a.setflags(write=False)
    return a
