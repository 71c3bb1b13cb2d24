"""`ring vision calibrate|train|classify` end to end on `ring sim scenes` output, bad input in one line."""
import json

import cv2
from visionkit import calibrated_scenes

from ringctl.vision import faceid, judge
from ringctl.vision.ring import RingModel


def test_cli_end_to_end(tmp_path, capsys):
    from ringctl.cli import main
    out = tmp_path / "s"
    ring, model, imgs = calibrated_scenes(main, out, 3, 2)
    capsys.readouterr()
    assert main(["vision", "classify", "--ring", str(ring), "--model", str(model),
                 "--json", *imgs]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    truth = json.loads((out / "truth.json").read_text())
    assert len(lines) == 3
    rm, fm = RingModel.load(ring), faceid.FaceModel.load(model)
    for line in lines:
        v = json.loads(line)
        assert set(v) == {"image", "result", "reasons", "coins", "others", "ring", "by_count", "ms"}
        # the command reports the judge's own verdict on that file...
        own = judge.classify(cv2.imread(v["image"]), rm, fm)
        assert (v["result"], v["reasons"]) == (own["result"], own["reasons"]), v
        # ...and that verdict is never a wrong call: the truth, or unsure (the boxer looks)
        assert v["result"] in (truth[v["image"].rsplit("/", 1)[1]]["result"], "unsure"), v
    assert main(["vision", "classify", "--ring", str(out / "nope.json"), "--model", "m", "x.png"]) == 2
    (tmp_path / "bad.png").write_text("not an image")
    assert main(["vision", "classify", "--ring", str(ring), "--model", str(model),
                 str(tmp_path / "bad.png")]) == 2
    assert "cannot read image" in capsys.readouterr().err
