"""Host events to browsers: the board's view, and a slow client that never holds anyone up."""
import asyncio
import json
import time

from fakehost import FakeHost
from ringctl.console.live import Client, LiveHub, board_view


def test_board_view_progress_odds_and_state():
    snap = {"phase": "idle", "light": "odds", "results": ["heads", {"spin": 2, "result": "odds"}],
            "table": {"betting": "open", "odds_run": 1, "spinning": "player",
                      "game": {"name": "Ada", "calls": "tails", "count": 2}}}
    v = board_view(snap)
    assert v["spinner"] == {"name": "Ada", "calls": "tails", "by": "player"}
    assert v["progress"] == "TAILS 2 of 3" and v["odds"] == "ODDS 1 of 5"
    assert v["state"] == "PLACE YOUR BETS" and v["last"] == "odds"
    assert [r["result"] for r in v["results"]] == ["heads", "odds"]
    snap["phase"], snap["spin"] = "in-flight", {"number": 3}
    assert board_view(snap)["state"] == "SPINNING"
    snap["results"] = ["heads"] * 40
    assert len(board_view(snap)["results"]) == 30


def test_slow_client_loses_its_own_oldest_messages_with_a_gap():
    loop = asyncio.new_event_loop()
    c = Client(loop, public=False, maxlen=4)
    for i in range(10):
        c.offer(json.dumps({"seq": i}))
    got = [json.loads(c.queue.get_nowait()) for _ in range(c.queue.qsize())]
    assert any(m.get("kind") == "gap" for m in got)
    assert got[-1] == {"seq": 9} and c.dropped == 6
    loop.close()


def test_hub_never_makes_the_host_wait(tmp_path):
    host = FakeHost(str(tmp_path / "a.db"))
    hub = LiveHub(host)
    hub.start()
    loop = asyncio.new_event_loop()                      # a client whose loop never runs
    hub.add(Client(loop, public=True, maxlen=8))
    for i in range(500):
        host.publish("light", {"light": "armed"})
    deadline = time.monotonic() + 5
    while hub.published < 500 and time.monotonic() < deadline:
        time.sleep(0.01)
    hub.stop()
    loop.close()
    assert hub.published == 500           # the hub kept reading although the client never did


def test_public_gets_only_the_view_of_private_events():
    from ringctl.console.live import event_message
    from fakehost import HostEvent
    view = {"state": "RESULT: HEADS"}
    settle = HostEvent(5, 1.0, "settlement", {"spin": 1, "events": [{"bet": "b1", "pays": 5}]})
    msg = json.loads(event_message(settle, view, public=True))
    assert msg == {"seq": 5, "t": 1.0, "kind": "board", "board": view}
    assert event_message(HostEvent(6, 1.0, "alarm", {"text": "x"}), None, public=True) is None
    full = json.loads(event_message(settle, view))
    assert full["data"]["events"][0]["pays"] == 5


def test_result_patches_the_board_at_once():
    from ringctl.console.live import with_result
    view = {"state": "SPINNING", "last": None, "results": [{"result": "odds", "spin": 1}] * 30}
    v = with_result(view, {"spin": 2, "result": "heads"})
    assert v["state"] == "RESULT: HEADS" and v["last"] == "heads"
    assert len(v["results"]) == 30 and v["results"][-1] == {"result": "heads", "spin": 2}
    assert view["state"] == "SPINNING"                       # the cached view is not changed


def test_camera_view_is_scaled_with_its_overlays():
    import numpy as np
    from ringctl.console.camera import annotate, fit
    frame = np.zeros((2000, 2000, 3), np.uint8)
    coins = [{"center": [1000, 500], "radius": 40, "face": "tails", "flat": True, "inside": True,
              "confidence": 0.99}]
    small, c2, ring = fit(frame, coins, {"center": [1000, 1000], "axes": [900, 900],
                                         "angle_deg": 0}, 1000)
    assert small.shape[:2] == (1000, 1000)
    assert c2[0]["centre"] == [500, 250] and c2[0]["radius"] == 20
    assert ring["center"] == [500, 500] and ring["axes"] == [450, 450]
    img = annotate(small, c2, ring)
    assert img[250, 500 + 20 + 3].any()                      # the coin's circle is drawn
    assert img[500, 500 + 450].any()                         # and the ring boundary
    assert not frame.any()                                   # on a copy


def test_still_cropped_around_the_coins():
    import numpy as np
    from ringctl.console.camera import crop_to_coins
    frame = np.zeros((2000, 2000, 3), np.uint8)
    coins = [{"center": [1500, 300], "radius": 20}, {"center": [1560, 320], "radius": 20}]
    img, moved, ring = crop_to_coins(frame, coins, {"center": [1000, 1000]})
    assert img.shape[0] >= 240 and img.shape[1] >= 240 and img.shape[1] < 600
    x0, y0 = 1500 - moved[0]["centre"][0], 300 - moved[0]["centre"][1]
    assert moved[1]["centre"] == [1560 - x0, 320 - y0]
    assert ring["center"] == [1000 - x0, 1000 - y0]
