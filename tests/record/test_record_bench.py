"""`ring bench log` runs and its figures mean what they say (small sizes here; the figures
in the README come from the default run)."""
import json

from ringctl.cli import main


def test_bench_log_prints_its_figures(capsys):
    assert main(["bench", "log", "--records", "4000", "--appends", "50", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["durable_appends_per_s"] > 0 and out["records"] == 4000
    assert out["verify_s_per_million"] > 0 and out["verify_peak_mb"] > out["interpreter_mb"] - 1
    assert out["forked_10k_problems"] >= 1000        # every 10th link of 10k broken: all named
