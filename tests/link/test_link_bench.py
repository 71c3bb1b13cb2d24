"""`ring bench link` runs end to end and prints the promised JSON keys (figures are not asserted)."""
import json

from ringctl.link import bench


def test_bench_link_json_smoke(capsys):
    assert bench.main(["--json", "--frames", "30", "--samples", "20"]) == 0
    res = json.loads(capsys.readouterr().out)
    for k in ("cpython_frames_per_s", "micropython_frames_per_s", "rtt_ms_p50", "rtt_ms_p99"):
        assert res[k] > 0, k
    assert res["rtt_ms_p50"] <= res["rtt_ms_p99"] and res["rtt_samples"] == 20
    for k in ("idle_frames_per_s_h2d", "idle_frames_per_s_d2h", "peer_silent_ms_max_host",
              "peer_silent_ms_max_device", "replay_host_lost_after_ms"):
        assert res[k] is not None and res[k] > 0, k
