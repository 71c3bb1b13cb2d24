"""The ring config: every value type-checked at load with its key named; paths relative to the config file."""
import json
import os

import pytest

from ringctl import cli
from ringctl.errors import UserError
from ringctl.ringconfig import load_config

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _write(tmp_path, obj, name="ring-config.json"):
    p = tmp_path / "site" / name
    p.parent.mkdir(exist_ok=True)
    p.write_text(obj if isinstance(obj, str) else json.dumps(obj))
    return p


def test_relative_paths_resolve_against_the_config_folder(tmp_path, monkeypatch):
    p = _write(tmp_path, {"ring": "ring.json", "model": "sub/coins.model", "log": "/abs/a.db",
                          "camera": "photos", "quiet_s": 1, "stills": 3, "port": "auto"})
    monkeypatch.chdir("/")
    cfg = load_config(str(p))
    assert cfg["ring"] == str(tmp_path / "site" / "ring.json")
    assert cfg["model"] == str(tmp_path / "site" / "sub" / "coins.model")
    assert cfg["log"] == "/abs/a.db" and cfg["camera"] == str(tmp_path / "site" / "photos")
    assert load_config(str(_write(tmp_path, {"camera": 0})))["camera"] == "0"
    assert load_config(str(_write(tmp_path, {"camera": "rtsp://cam/1"})))["camera"] == "rtsp://cam/1"


@pytest.mark.parametrize("obj,named", [
    ({"quiet_s": "1s"}, '"quiet_s"'), ({"quiet_s": True}, '"quiet_s"'),
    ({"quiet_s": 0}, '"quiet_s"'), ({"quiet_s": None}, '"quiet_s"'),
    ({"stills": 2.5}, '"stills"'), ({"stills": "3"}, '"stills"'), ({"stills": 0}, '"stills"'),
    ({"ring": 3}, '"ring"'), ({"ring": ""}, '"ring"'), ({"model": ["a"]}, '"model"'),
    ({"key": {}}, '"key"'), ({"log": False}, '"log"'), ({"port": 5}, '"port"'),
    ({"camera": 1.5}, '"camera"'), ({"cameras": 1}, "unknown key(s) ['cameras']"),
    ([1, 2], "must hold a JSON object"), ("{not json", "not valid JSON (line 1"),
    ('{"a": 1', "not valid JSON"),
])
def test_every_bad_value_is_one_line_naming_the_key(tmp_path, obj, named):
    with pytest.raises(UserError) as e:
        load_config(str(_write(tmp_path, obj)))
    msg = str(e.value)
    assert named in msg and "\n" not in msg, msg


def test_ring_run_with_a_bad_config_is_one_line_and_exit_2(tmp_path, capsys):
    p = _write(tmp_path, {"quiet_s": "1s"})
    assert cli.main(["run", "--port", "/dev/null", "--config", str(p)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and '"quiet_s"' in err and "Traceback" not in err
    assert cli.main(["run", "--config", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["ring-config.example.json", "ring-config-two-cameras.example.json"])
def test_the_example_configs_load_and_hold_no_machine_specific_paths(name):
    path = os.path.join(ROOT, "docs", name)
    raw = json.load(open(path))
    for key, value in raw.items():
        if key == "camera":
            continue            # camera device names (/dev/video0) are the camera's, not a home folder
        if isinstance(value, str):
            assert not os.path.isabs(value) and not value.startswith("~"), (key, value)
    cfg = load_config(path)
    assert {"model", "log"} <= set(cfg) and ("ring" in cfg or "rig" in cfg)
