"""`ring vision calibrate|train|classify` end to end on `ring sim scenes` output, bad input in one line."""
import json

from ringctl.sim import scenes


def test_cli_end_to_end(tmp_path, capsys):
    from ringctl.cli import main
    out = tmp_path / "s"
    assert main(["sim", "scenes", "-o", str(out), "-n", "3", "--seed", "2"]) == 0
    mm = scenes.ring_mm(scenes.base_spec(2))
    assert main(["vision", "calibrate", str(out / "empty.png"), "--ring-mm", f"{mm:.1f}",
                 "-o", str(out / "ring.json")]) == 0
    assert main(["vision", "train", "--heads", str(out / "heads"), "--tails", str(out / "tails"),
                 "--ring", str(out / "ring.json"), "-o", str(out / "model.json")]) == 0
    capsys.readouterr()
    imgs = sorted(str(p) for p in out.glob("scene*.png"))
    assert main(["vision", "classify", "--ring", str(out / "ring.json"), "--model", str(out / "model.json"),
                 "--json", *imgs]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    truth = json.loads((out / "truth.json").read_text())
    assert len(lines) == 3
    for line in lines:
        v = json.loads(line)
        assert set(v) == {"image", "result", "reasons", "coins", "others", "ring", "ms"}
        assert v["result"] == truth[v["image"].rsplit("/", 1)[1]]["result"], v
    assert main(["vision", "classify", "--ring", str(out / "nope.json"), "--model", "m", "x.png"]) == 2
    (tmp_path / "bad.png").write_text("not an image")
    assert main(["vision", "classify", "--ring", str(out / "ring.json"), "--model", str(out / "model.json"),
                 str(tmp_path / "bad.png")]) == 2
    assert "cannot read image" in capsys.readouterr().err
