"""The technician's commands for several cameras: sheet, calibrate-views (coverage check), doctor --rig."""
import json

from ringctl.cli import main
from ringctl.device.doctor import FAIL, Report, check_rig


def test_calibrate_views_saves_the_rig_and_fails_the_coverage_under_40_px(tmp_path, capsys):
    assert main(["sim", "rig-photos", str(tmp_path), "--ring-mm", "1200", "--cameras", "2",
                 "--coin-px", "30"]) == 0
    cams = []
    for n in "AB":
        cams += ["--camera", n, str(tmp_path / f"sheet_{n}.png"), str(tmp_path / f"empty_{n}.png")]
    rig = tmp_path / "rig.json"
    capsys.readouterr()
    assert main(["vision", "calibrate-views", *cams, "--ring-mm", "1200", "-o", str(rig), "--json"]) == 1
    out = capsys.readouterr()
    rep = json.loads(out.out)
    assert abs(rep["ring"]["measured_diameter_mm"] - 1200) < 6
    assert rep["coverage"]["coin_px_min"] < 40 and "coverage check failed" in out.err
    report = Report()
    check_rig(report, str(rig))
    assert report.items[-1]["status"] == FAIL and "30 px per coin" in report.items[-1]["detail"]
    # one image for a two-camera rig: a one-line error naming the fix
    assert main(["vision", "classify-views", "--rig", str(rig), "--model", str(rig),
                 str(tmp_path / "empty_A.png")]) != 0
    assert "one image per camera" in capsys.readouterr().err


def test_sheet_is_written_and_a_missing_rig_is_a_failed_check(tmp_path, capsys):
    assert main(["vision", "sheet", "-o", str(tmp_path / "sheet.png"), "--px-per-mm", "1"]) == 0
    assert "print at 100 %" in capsys.readouterr().out
    report = Report()
    check_rig(report, str(tmp_path / "none.json"))
    assert report.items[-1]["status"] == FAIL and "calibrate-views" in report.items[-1]["detail"]


def test_the_two_camera_config_example_is_accepted():
    from ringctl.device.pinmap import ROOT
    from ringctl.ringconfig import load_config
    cfg = load_config(str(ROOT / "docs" / "ring-config-two-cameras.example.json"))
    assert cfg["rig"] and len(cfg["camera"]) == 2
