"""`ring bench training --scale`: each ring's boundary moved, and how often training refuses it for
the coins' size (faceid.check_scale); a right calibration is never refused."""
import json

from ringctl.cli import main


def test_the_scale_sweep_trains_on_the_right_boundary_and_refuses_one_found_off(capsys):
    assert main(["bench", "training", "--sets", "tune-1080p:1", "--scale", "1,1.1", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)["sets"]["tune-1080p"]
    assert r["by_boundary"] == {"1": {"trained": 1}, "1.1": {"scale": 1}}, r


def test_a_bad_scale_list_is_one_line_naming_the_fix(capsys):
    assert main(["bench", "training", "--scale", "1,x"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--scale '1,x': give factors like 0.9,1,1.1" in err, err
