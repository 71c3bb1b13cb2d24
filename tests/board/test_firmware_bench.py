"""`ring bench firmware`'s hot-path part: the micropython script runs the current firmware's paths, the RP2040 scaling is the documented arithmetic."""
import pytest

from ringctl.board import bench


@pytest.fixture(scope="module")
def hot():
    return bench._mp_json()


def test_hot_paths_cover_what_the_issue_names(hot):
    for k in ("edge_to_lamp_us", "irq_handler_us", "timer_pass_us", "link_pass_us",
              "supervisor_pass_us", "frame_send_us", "frame_receive_us", "hello_us",
              "link_read_us", "link_write_us", "usb_rx_cb_us", "usb_tx_cb_us", "poll_ioctl_us",
              "asyncio_wake_us", "command_garbage_bytes", "hb_rx_garbage_bytes",
              "hb_tx_garbage_bytes", "command_alloc_bytes", "hb_rx_alloc_bytes",
              "hb_tx_alloc_bytes"):
        assert isinstance(hot[k], (int, float)) and hot[k] >= 0, k
    assert hot["edge_path"] == "hard"
    assert hot["edge_to_lamp_us"] >= hot["glitch_us"], "the lamp comes after the glitch filter"
    # the link port against the USB host model: a stalled host never makes one write wait
    # (was 1000 ms on the REPL's stdout)
    assert hot["tx_block_ms"] == 0
    assert set(hot["idle_load_us_per_s"]) == {"timer", "link", "supervisor", "heartbeats"}
    # the collector's threshold counts freed call frames too: never less than the garbage
    for k in ("command", "hb_rx", "hb_tx"):
        assert hot[k + "_alloc_bytes"] >= hot[k + "_garbage_bytes"] * 0.95, k


def test_scaling_is_factor_times_unix_plus_unscaled_waits(hot):
    est = bench.rp2040_estimates(hot, 200.0)
    assert est["frame_send_ms"] == round(hot["frame_send_us"] * 200 / 1000, 3)
    g = hot["glitch_us"]
    want = (g + (hot["edge_to_lamp_us"] - g) * 200 + bench.HARD_IRQ_ENTRY_US) / 1000
    assert est["edge_to_lamp_ms_p99"] == round(want, 3)
    assert est["idle_cpu_share"] == round(sum(hot["idle_load_us_per_s"].values()) * 200 / 1e6, 3)
    assert est["burst_breaks_buffered"] >= 150, "a 150-break burst fits the event ring"


def test_command_to_ack_is_wake_plus_pass_plus_the_next_usb_frame(hot):
    est = bench.rp2040_estimates(hot, 200.0)
    assert hot["command_frame_bytes"] >= 30 + 2 and hot["command_answer_bytes"] >= 30 + 2
    wake = hot["usb_rx_cb_us"] + hot["poll_ioctl_us"] + hot["asyncio_wake_us"]
    cpu = (wake + hot["command_to_ack_median_us"]) * 200 / 1000
    assert est["command_to_ack_cpu_ms"] == round(cpu, 3)
    # the answer waits for the host's next IN token: half a 1 ms frame at the median
    assert est["command_to_ack_ms_p50"] == round(cpu + 0.5, 3)
    p99 = cpu + 1.0 + est["command_to_ack_loop_wait_ms_p99"]
    assert abs(est["command_to_ack_ms_p99"] - p99) < 0.002
    # one call each way on the link port: the frame's size does not multiply anything
    line = (hot["usb_rx_cb_us"] + hot["link_read_us"] + hot["link_write_us"]) * 200 / 1000
    assert est["command_to_ack_line_ms"] == round(line, 3)
    # the pass step by step (hot), scaled the same way; the steps are parts of the pass
    steps = est["command_steps_ms"]
    assert set(steps) >= {"deframe_verify_unpack", "command", "event_to_link", "seal_encode",
                          "link_read", "link_write", "wake", "pass_hot"}
    assert steps["seal_encode"] == round(hot["command_steps_us"]["seal_encode"] * 200 / 1000, 3)
    parts = sum(v for k, v in steps.items() if k not in ("pass_hot", "wake"))
    assert 0 < parts <= steps["pass_hot"] * 1.5, (parts, steps)
    # the floor: the same figure with the pass's interpreted work at zero (wake, link port
    # I/O, the C and machine-code work of two tags, two CRCs and COBS both ways)
    c = hot["command_c_work_us"]
    assert 0 < c < hot["command_to_ack_median_us"], (c, hot["command_to_ack_median_us"])
    floor = (wake + hot["link_read_us"] + hot["link_write_us"] + c) * 200 / 1000
    assert est["command_to_ack_floor_ms_p50"] == round(floor + 0.5, 3)
    assert abs(est["command_to_ack_floor_ms_p99"]
               - (floor + 1.0 + est["command_to_ack_loop_wait_ms_p99"])) < 0.002
    assert est["command_to_ack_floor_ms_p50"] < est["command_to_ack_ms_p50"]


def test_loop_wait_p99_model():
    # nothing busy: no wait; one job busy 2% of the time (20/s x 1 ms): P(wait > x) =
    # 20 x (1 - x) / 1000 = 1% at x = 0.5 ms
    assert bench.loop_wait_p99_ms([(1.0, 5.0)]) == 0.0
    assert abs(bench.loop_wait_p99_ms([(20.0, 1.0)]) - 0.5) < 1e-6
    assert bench.loop_wait_p99_ms([(20.0, 1.0), (1.0, 12.0)]) > 2.0, "a long collection dominates"


def test_calibration_factor_is_the_geometric_mean():
    # a machine exactly 100x faster on one loop and 400x on the other two -> 252
    refs = {"ref_loop_ms": 4.58, "ref_listcomp_ms": 0.075, "ref_fib_ms": 0.595}
    f, ratios = bench.factor_from(refs)
    assert [round(ratios[k]) for k in ("ref_loop_ms", "ref_listcomp_ms", "ref_fib_ms")] == \
        [100, 400, 400]
    assert round(f) == 252


def test_pico_heap_scales_live_only_and_counts_arm_code_unscaled():
    res = {"heap_peak_bytes": 170000, "board_heap_bytes": {"sim": 120000, "pico": 117000},
           "native_heap_gap_bytes": {"ringlink.py": 900, "fastlink.py": 100},
           "native_code_bytes": {"armv6m": {"ringlink.py": 3500, "fastlink.py": 900}}}
    got = bench.pico_heap(res)
    slack = bench.GC_EVERY + bench.PASS_SLACK
    live = 170000 - slack - 3000 + 1000       # as bytecode: the unix port's code is off-heap
    assert got["heap_peak_bytes_32bit_est"] == int(live * bench.HEAP32_RATIO + 4400 + slack)
    # the firmware's own constants (gc.threshold, the pass slack): the same bytes on the chip
    src = (bench.FW_DIR / "lib" / "app.py").read_text()
    assert "GC_EVERY = const(%d)" % bench.GC_EVERY in src
    assert "PASS_SLACK = const(%d)" % bench.PASS_SLACK in src


def test_unix_port_keeps_machine_code_off_its_heap():
    # what the Pico estimate corrects for: ringlink's native functions take no heap here
    gap = bench.native_heap_gap()
    assert set(gap) >= {"ringlink.py", "fastlink.py"} and gap["ringlink.py"] > 0, gap
