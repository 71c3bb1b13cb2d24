"""End to end: real firmware under micropython on a pty, simulated ring and camera, the host.

One seeded session plays clean spins and the fault drills of issue 6: a boundary break in
flight (light barred before rest), the board killed and restarted mid-spin (spin void,
nothing lost, reconnect), the camera stalling (fault light, the boxer's call recorded).
"""
import hashlib
import time

import pytest

from ringctl.sim.session import DemoSession

import commissioned


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    work = tmp_path_factory.mktemp("demo")
    # the site is commissioned once per test session (tests/console/test_browser.py's too)
    with commissioned.shared(), DemoSession(str(work), seed=11, coin_px=44, fps=15, say=lambda s: None) as d:
        yield d


def test_the_log_names_the_rig_and_model_that_judge_the_spins_first(demo):
    """Commissioned as the technician does, the demo's rig and face model are saved in its work
    folder, and the host records them (SHA-256 each) before anything else (records.record_vision)."""
    first = next(iter(demo.log.records(with_blobs=False)))
    assert first.kind == "vision" and set(first.data) == {"rig", "model"}
    for f in first.data.values():
        with open(f["file"], "rb") as fh:
            assert f["sha256"] == hashlib.sha256(fh.read()).hexdigest()


def test_clean_spins_agree_with_ground_truth(demo):
    recs = [demo.play_spin(seed=s) for s in (101, 102, 103)]
    assert all(r["check"] != "wrong" for r in recs), recs
    valid = [r for r in recs if r["check"] != "unsure"]
    assert valid, "every spin was unsure"
    assert all(r["outcome"] == r["truth"] for r in valid)
    assert demo.link.link_up


def test_boundary_break_in_flight_bars_the_light_before_rest(demo):
    since = time.monotonic()
    rec = demo.play_spin(seed=7, force="outside")
    assert rec["outcome"] == "no-spin"
    assert any(r.startswith("7.3.1") for r in rec["reasons"])
    t_barred, _ = demo.board.wait_line("light barred", timeout=0.5, since=since)
    t_rest_true = demo.last_toss.t0 + demo.last_toss.truth["rest_t"]
    assert t_barred < t_rest_true, "light barred only after the coins came to rest"


def test_board_killed_mid_spin_voids_the_spin_and_loses_nothing(demo):
    def pull_the_plug(toss):
        time.sleep(max(0.0, toss.t0 + toss.truth["first_impact_t"] + 0.05 - time.monotonic()))
        demo.board.restart()

    before = demo.log.count()
    rec = demo.play_spin(seed=8, during=pull_the_plug)
    assert rec["board_restarted"]
    assert rec["outcome"] == "no-spin"
    assert demo.link.wait_up(10.0), "link did not come back after the board restarted"
    assert demo.log.verify()["ok"]
    assert demo.log.count() > before
    # the next spin is played normally on the new boot
    rec = demo.play_spin(seed=102)
    assert rec["check"] != "wrong"
    assert not rec["board_restarted"]


def test_stalled_camera_gives_fault_light_and_a_recorded_boxer_call(demo):
    cam = demo.camera

    def stall(toss):
        real_read = cam.read

        def dead():
            time.sleep(0.05)
            return None, None
        cam.read = dead
        time.sleep(toss.truth["rest_t"] + 6.0)
        cam.read = real_read

    since = time.monotonic()
    rec = demo.play_spin(seed=103, during=stall)
    assert rec["truth"] == "tails"          # the seed's precondition: the camera is needed
    assert rec["camera_fault"]
    assert rec["check"] == "unsure"
    demo.board.wait_line("light fault", timeout=0.5, since=since)
    overrides = list(demo.log.records(kind="override", with_blobs=False))
    assert overrides and overrides[-1].data["actor"] == "boxer"
    assert demo.log.verify()["ok"]
