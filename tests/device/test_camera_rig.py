"""The camera placement table and figure in the hardware pack come from the coverage check."""
import re

from ringctl.device import camera_rig, pinmap

HW = pinmap.ROOT / "hardware"


def test_install_placement_table_is_the_coverage_check():
    text = (HW / "INSTALL.md").read_text()
    rows = re.findall(r"^\| (.+?) \| (\d) \| ([\d.]+ x [\d.]+ m) \| ([\d.]+ mm) \| ([\d.]+) \| ([\d.]+) \| (pass|FAIL) \|$",
                      text, re.M)
    assert [(a, int(b), c, d, float(e), float(f), g) for a, b, c, d, e, f, g in rows] == camera_rig.table()
    verdict = {r[0]: r[-1] for r in camera_rig.table()}
    assert verdict['4K UHD (1/2.8"), two cameras'] == "FAIL"      # 38 px: under 40
    assert verdict['4K UHD (1/2.8"), four cameras'] == "pass"


def test_camera_figure_is_up_to_date():
    assert (HW / "cameras.svg").read_text() == camera_rig.svg(), \
        "regenerate with: python -m ringctl.device.camera_rig"
