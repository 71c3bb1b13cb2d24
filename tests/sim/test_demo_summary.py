"""What a newcomer sees at the end of `ring demo` (issue 17): a plain-language summary above
the JSON, what the game leaves open, and no temporary folder left behind unless --workdir."""
import argparse
import json
import os

import pytest

from ringctl.sim import demo, session
from ringctl.sim.session import shows_forced_case

SUMMARY = {"spins": 12, "agree": 10, "wrong": 0, "unsure": 1, "false_no_spin": 1, "no_spin": 3,
           "rest_to_result_ms_p50": 120.0, "rest_to_result_ms_p99": 310.0,
           "results_before_true_rest": 0, "edge_to_light_ms_p99": 0.4, "firmware": "mp",
           "audit_log": "/x/audit.db", "chain_ok": True,
           "results": {"heads": 4, "tails": 3, "odds": 2, "no-spin": 3},
           "truth": {"heads": 4, "tails": 3, "odds": 3, "no-spin": 2},
           "mix": {"clean": 8, "clean_valid": 7, "forced": 4},
           "open": {"game": {"calls": "heads", "name": "Ada", "wager": "b1", "valid_spins": 2,
                             "count": 1, "invalid_run": 0, "awaiting_election": False,
                             "frozen": False},
                    "spinning": "player", "betting": "closed",
                    "wagers": [{"id": "b1", "on": "spinner", "amount": 10, "pending": 0},
                               {"id": "b7", "on": "tails", "amount": 5, "pending": 0}]}}


def test_plain_summary_says_the_mix_the_calls_and_what_is_open():
    text = "\n".join(demo.plain_summary(dict(SUMMARY, workdir_kept=False)))
    assert "12 spins: 9 valid (4 heads, 3 tails, 2 odds), 3 no spin" in text
    assert "truth had 2 no spin" in text and "No wrong call" in text
    assert "Tosses: 8 clean (7 of them valid spins), 4 forced" in text
    assert "1 valid spin(s) voided as no spin" in text
    assert "removed with the temporary folder" in text
    assert "Ada's game, calling heads: 1 of 3" in text
    assert "wager b1: 10 on spinner" in text and "wager b7: 5 on tails" in text


def test_nothing_open_is_said_too():
    done = dict(SUMMARY, workdir_kept=True, wrong=2, open={"game": None, "spinning": None,
                                                           "betting": "idle", "wagers": []})
    text = "\n".join(demo.plain_summary(done))
    assert "Nothing is open" in text and "WRONG CALLS: 2" in text and "kept at /x/audit.db" in text


class FakeSession:
    made = []

    def __init__(self, work, **kw):
        self.work = work
        FakeSession.made.append(work)
        self.board_tty, self.firmware, self.log_path = "pty", "mp", os.path.join(work, "audit.db")
        self.rig = argparse.Namespace(views=[1], report={"coverage": {"text": "whole ring"}})
        self.host = None

    def __enter__(self):
        open(self.log_path, "w").close()
        return self

    def __exit__(self, *exc):
        pass

    def play_spin(self, seed, force=None):
        return None

    def summary(self):
        return dict(SUMMARY, audit_log=self.log_path)


@pytest.mark.parametrize("keep", [False, True])
def test_the_temporary_folder_is_removed_unless_workdir(monkeypatch, tmp_path, capsys, keep):
    monkeypatch.setattr(session, "DemoSession", FakeSession)
    FakeSession.made.clear()
    args = argparse.Namespace(spins=1, seed=1, json=False, coin_px=44.0, fps=25.0, ring_mm=1500.0,
                              cameras=1, console=None,
                              workdir=str(tmp_path / "w") if keep else None)
    monkeypatch.setattr(demo.Printer, "spin", lambda self, rec: None)
    assert demo.run(args) == 0
    out = capsys.readouterr().out.splitlines()
    assert os.path.isdir(FakeSession.made[0]) == keep
    i = out.index("summary:")
    assert out[i + 1].startswith("  12 spins") and json.loads(out[-1])["workdir_kept"] == keep


def test_forced_lean_counts_only_when_a_coin_ends_leaning():
    flat = {"leaning": False}
    assert not shows_forced_case({"coins": [flat, flat], "reasons": ["7.3.1 coin 1 ..."]}, "lean")
    assert shows_forced_case({"coins": [flat, {"leaning": True}], "reasons": []}, "lean")
    assert shows_forced_case({"coins": [], "reasons": ["7.3.2 coin 0 hit"]}, "wall")
    assert not shows_forced_case({"coins": [], "reasons": ["7.3.1 coin 0"]}, "wall")


def test_the_physics_lean_really_leans():
    from ringctl.sim.physics import simulate_toss
    truth = simulate_toss(3, force="lean", max_s=3).truth
    assert shows_forced_case(truth, "lean")
    leaning = [c for c in truth["coins"] if c["leaning"]]
    assert leaning and leaning[0]["tilt_deg"] > 20
