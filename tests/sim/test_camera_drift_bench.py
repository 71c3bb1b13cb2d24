"""sim.camera_drift_bench: `ring bench camera-drift` judges each scene under every change and
counts a wrong call where the scene is not that call (or a valid spin voided)."""
import json

from ringctl.sim import camera_drift_bench


def test_the_bench_prints_every_change_per_set_and_no_wrong_call(capsys):
    assert camera_drift_bench.main(["--sets", "tune-1080p:2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    r = out["sets"]["tune-1080p"]
    assert set(r["changes"]) == set(camera_drift_bench.CHANGES) and r["scenes"] == 2
    for change, t in r["changes"].items():
        assert t["right"] + t["unsure"] + t["wrong"] == 2, change
    # a cast past what balance puts right is named on every scene, and never called through
    assert r["changes"]["20% warmer"]["cast_named"] == 2 and r["changes"]["20% warmer"]["unsure"] == 2
    assert r["changes"]["none"]["moved_named"] == 0 and r["changes"]["none"]["cast_named"] == 0
    assert out["wrong"] == []


def test_a_bad_set_is_one_line():
    import pytest
    from ringctl.errors import UserError
    with pytest.raises(UserError, match="unknown scene set 'nope'"):
        camera_drift_bench.main(["--sets", "nope:3"])
    with pytest.raises(UserError, match="give NAME or NAME:SCENES"):
        camera_drift_bench.main(["--sets", "edge-tune:x"])


def test_the_notes_are_counted_by_their_own_words():
    from ringctl.vision import drift
    first = {"result": "unsure", "reasons": ["unsure: unexplained object in the ring"]}
    called = drift.realigned({"result": "heads", "reasons": ["both coins heads"]}, drift.Move(3.0, 4.0), first)
    assert [r for r in called["reasons"] if camera_drift_bench.BACK in r] == [called["reasons"][1]]
    unsure = drift.realigned({"result": "unsure", "reasons": ["unsure: 1 coin found"]}, drift.Move(3.0, 4.0), first)
    assert camera_drift_bench.MOVED in unsure["reasons"][0] and "about 5 px" in unsure["reasons"][0]
    turned = drift.Move(0.2, 0.0, 0.3, (960.0, 540.0), 500.0)
    called = drift.realigned({"result": "tails", "reasons": ["both coins tails"]}, turned, first)
    assert camera_drift_bench.BACK in called["reasons"][1] and "turned 0.3 deg" in called["reasons"][1]
