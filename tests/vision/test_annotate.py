"""Annotated evidence (issue 12): annotate() draws the ring, coins, other objects and the verdict
without touching the frame it is given; `classify --annotate DIR` writes one picture per image."""
import json

import cv2
import numpy as np

from ringctl.vision.annotate import AMBER, BLUE, GREEN, RED, annotate, encode_png
from visionkit import calibrated_scenes


def _result(**kw):
    r = {"result": "odds", "reasons": ["one head and one tail"],
         "coins": [{"center": [300.0, 300.0], "radius": 30.0, "face": "heads", "flat": True, "inside": True,
                    "confidence": 0.9},
                   {"center": [500.0, 300.0], "radius": 30.0, "face": None, "flat": True, "inside": True,
                    "confidence": 0.3}],
         "others": [{"center": [800.0, 100.0], "radius": 40.0, "kind": "chip", "inside": False}],
         "ring": {"center": [480.0, 360.0], "axes": [300.0, 280.0], "angle_deg": 10.0}, "ms": 3.2}
    r.update(kw)
    return r


def _ring_pixel(img, x, y, r):
    """The colour drawn on the circle of radius r around (x, y), at its rightmost point."""
    return tuple(int(v) for v in img[int(y), int(round(x + r))])


def test_annotate_draws_everything_and_leaves_the_frame_alone():
    img = np.full((720, 960, 3), 90, np.uint8)
    before = img.copy()
    out = annotate(img, _result())
    assert np.array_equal(img, before)              # pure: a new picture
    assert out.shape == img.shape and out.dtype == np.uint8
    assert _ring_pixel(out, 300, 300, 30 * 1.15) == GREEN      # face read, flat, inside
    assert _ring_pixel(out, 500, 300, 30 * 1.15) == AMBER      # face not read
    assert _ring_pixel(out, 800, 100, 40 * 1.1) == BLUE        # the chip
    assert tuple(out[360, 780]) == (255, 255, 255)             # ring boundary (long axis ~ +x)
    assert out[:40].mean() < before[:40].mean()                # verdict banner darkens the top


def test_annotate_marks_bad_coins_red_and_survives_missing_keys():
    res = _result(result="no-spin", reasons=["7.3.4 coin not lying flat (tilted)"])
    res["coins"][0].update(flat=False, face=None)
    out = annotate(np.zeros((400, 1000, 3), np.uint8), res)
    assert _ring_pixel(out, 300, 300, 30 * 1.15) == RED
    bare = annotate(np.zeros((100, 100), np.uint8), {"result": "unsure"})   # grey frame, nothing else
    assert bare.shape == (100, 100, 3)
    multi = {"result": "odds", "reasons": ["one head and one tail"],            # multi-camera: ring mm
             "coins": [{"center_mm": [10.0, 20.0], "face": "heads", "flat": True, "inside": True}]}
    assert annotate(np.zeros((200, 300, 3), np.uint8), multi).shape == (200, 300, 3)
    png = encode_png(out)
    assert cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR).shape == out.shape


def test_classify_annotate_writes_a_picture_per_image(tmp_path, capsys):
    from ringctl.cli import main
    ring, model, imgs = calibrated_scenes(main, tmp_path / "s", 2, 4)
    capsys.readouterr()
    ann = tmp_path / "ann"
    assert main(["vision", "classify", "--ring", str(ring), "--model", str(model),
                 "--json", "--annotate", str(ann), *imgs]) == 0
    for line in capsys.readouterr().out.strip().splitlines():
        v = json.loads(line)
        pic = cv2.imread(v["annotated"])
        src = cv2.imread(v["image"])
        assert pic is not None and pic.shape == src.shape and not np.array_equal(pic, src)
    assert sorted(p.name for p in ann.iterdir()) == ["scene00.annotated.png", "scene01.annotated.png"]
