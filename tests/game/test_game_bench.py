"""`ring bench rules` is registered and prints its figures (a short run; the full one is a command)."""
import json

from ringctl.cli import main
from ringctl.game.bench import session
from ringctl.game.engine import Engine


def test_bench_rules_prints_sizes_and_rounding(capsys):
    assert main(["bench", "rules", "--json", "--max-ops", "10000", "--payments", "3"]) == 0
    res = json.loads(capsys.readouterr().out)
    size = res["sizes"]["10000"]
    assert size["engine_ops_per_s"] > 0 and size["replay_ops_per_s"] > 0
    assert res["rounding_worst_pay_ms"] > 0 and len(res["chip_sets"]) >= 20
    assert max(c["denominations"] for c in res["chip_sets"]) == 10


def test_bench_session_is_clean_play_that_repeats():
    block = session()
    eng = Engine()
    for _ in range(2):
        events = [e for op in block for e in eng.apply(op)]
        assert not [e for e in events if e["event"] == "rejected"]
        assert eng.game is None and not eng.wagers and eng.betting == "idle"
    kinds = {e["event"] for e in events}
    assert {"settled", "election", "changed", "game-over"} <= kinds
