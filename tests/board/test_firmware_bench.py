"""`ring bench firmware`'s hot-path part: the micropython script runs the current firmware's paths, the RP2040 scaling is the documented arithmetic."""
import pytest

from ringctl.board import bench


@pytest.fixture(scope="module")
def hot():
    return bench._mp_json()


def test_hot_paths_cover_what_the_issue_names(hot):
    for k in ("edge_to_lamp_us", "irq_handler_us", "timer_pass_us", "link_pass_us",
              "supervisor_pass_us", "frame_send_us", "frame_receive_us", "hello_us",
              "tx_byte_us", "rx_byte_us", "asyncio_wake_us"):
        assert isinstance(hot[k], (int, float)) and hot[k] >= 0, k
    assert hot["edge_path"] == "hard"
    assert hot["edge_to_lamp_us"] >= hot["glitch_us"], "the lamp comes after the glitch filter"
    # the rp2 USB-CDC model: a stalled host never makes one write wait (was 1000 ms)
    assert hot["tx_block_ms"] == 0
    assert set(hot["idle_load_us_per_s"]) == {"timer", "link", "supervisor", "heartbeats"}


def test_scaling_is_factor_times_unix_plus_unscaled_waits(hot):
    est = bench.rp2040_estimates(hot, 200.0)
    assert est["frame_send_ms"] == round(hot["frame_send_us"] * 200 / 1000, 3)
    g = hot["glitch_us"]
    want = (g + (hot["edge_to_lamp_us"] - g) * 200 + bench.HARD_IRQ_ENTRY_US) / 1000
    assert est["edge_to_lamp_ms_p99"] == round(want, 3)
    assert est["idle_cpu_share"] == round(sum(hot["idle_load_us_per_s"].values()) * 200 / 1e6, 3)
    assert est["burst_breaks_buffered"] >= 150, "a 150-break burst fits the event ring"


def test_command_to_ack_is_the_link_pass_plus_both_frames_bytes(hot):
    est = bench.rp2040_estimates(hot, 200.0)
    assert hot["command_frame_bytes"] >= 30 + 2 and hot["command_answer_bytes"] >= 30 + 2
    line = (hot["command_frame_bytes"] * hot["rx_byte_us"]
            + hot["command_answer_bytes"] * hot["tx_byte_us"])
    assert est["command_to_ack_cpu_ms"] == round(hot["command_to_ack_us"] * 200 / 1000, 3)
    assert est["command_to_ack_line_ms"] == round(line * 200 / 1000, 3)
    assert est["command_to_ack_ms"] == round((hot["command_to_ack_us"] + line) * 200 / 1000, 3)


def test_calibration_factor_is_the_geometric_mean():
    # a machine exactly 100x faster on one loop and 400x on the other two -> 252
    refs = {"ref_loop_ms": 4.58, "ref_listcomp_ms": 0.075, "ref_fib_ms": 0.595}
    f, ratios = bench.factor_from(refs)
    assert [round(ratios[k]) for k in ("ref_loop_ms", "ref_listcomp_ms", "ref_fib_ms")] == \
        [100, 400, 400]
    assert round(f) == 252
