"""`ring vision train` ends with a verdict a technician understands; the figures stay behind --json."""
import json

from ringctl.vision.verdict import train_verdict


def _report(worst, typical, heads=10, tails=10):
    return {"photos": {"heads": heads, "tails": tails}, "loo_errors": 0,
            "loo_margin_min": worst, "loo_margin_median": typical}


def test_well_separated_faces_say_so_and_what_comes_next():
    well, lines = train_verdict(_report(0.54, 0.62), "coins.model")
    text = "\n".join(lines)
    assert well and text.startswith("The two faces separate well")
    assert '"model": "coins.model"' in text and "ring doctor --config" in text
    assert "retake" not in text


def test_poorly_separated_faces_say_what_to_do():
    well, lines = train_verdict(_report(0.04, 0.12), "m")
    text = "\n".join(lines)
    assert not well and "separate, but poorly" in text and "'unsure'" in text
    assert "retake the photos" in text and "Next:" not in text


def test_too_few_photos_are_named():
    _, lines = train_verdict(_report(0.5, 0.6, heads=5), "m")
    assert any("Take more photos: 5 heads, 10 tails" in l for l in lines)
    _, lines = train_verdict(_report(0.5, 0.6, heads=10), "m")       # the procedure takes 12
    assert any("Take more photos: 10 heads, 10 tails; 12 of each" in l for l in lines)


def test_cli_prints_the_verdict_and_json_on_request(tmp_path, capsys):
    from ringctl.cli import main
    out = tmp_path / "s"
    assert main(["sim", "scenes", "-o", str(out), "-n", "0"]) == 0
    assert main(["vision", "calibrate", str(out / "empty.png"), "--ring-mm", "395",
                 "-o", str(out / "ring.json")]) == 0
    args = ["vision", "train", "--heads", str(out / "heads"), "--tails", str(out / "tails"),
            "--ring", str(out / "ring.json"), "-o", str(tmp_path / "m.json")]
    capsys.readouterr()
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "The two faces separate well" in text and "--json" in text and "{" not in text
    assert main(args + ["--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["cross_validation"]["loo_errors"] == 0 and d["saved"].endswith("m.json")


def test_photos_without_spread_turns_are_told_to_turn_the_coin():
    """A model with no relit templates (the photos' turns did not spread round the coin) says so."""
    _, lines = train_verdict(dict(_report(0.5, 0.6, heads=12, tails=12), relit_templates=0), "m")
    assert any("turning the coin a clock-hour" in l and "other lamps" in l for l in lines)
    _, lines = train_verdict(dict(_report(0.5, 0.6, heads=12, tails=12), relit_templates=26), "m")
    assert not any("other lamps" in l for l in lines)


def test_a_face_alike_at_every_turn_is_told_to_train_in_the_ring_under_its_own_lamps():
    """A face whose photos' turns cannot be read (sealed-15's heads at its site: a phantom's oval,
    near blank at the exposure its coin needed; its registered turns do not spread and the search
    finds none) gives no relit templates; the technician is told what else it may be, and the
    fix, not only to retake the photos turned."""
    report = dict(_report(0.5, 0.6, heads=12, tails=12), relit_templates=0, relit_refused="turns")
    _, lines = train_verdict(report, "m")
    assert any("looks alike at every turn" in l and "train in the ring under its own lamps" in l for l in lines), lines
    _, lines = train_verdict(dict(_report(0.5, 0.6, heads=12, tails=12), relit_templates=0, relit_refused="apart"), "m")
    assert any("do not keep the two faces apart" in l for l in lines) and not any("clock-hour (30 deg)" in l for l in lines)
