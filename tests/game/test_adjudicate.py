"""Spin adjudication: every 7.3 case, 7.2/7.6 boxer calls, 7.5 actors, 7.4 lost coins, unsure paths."""
import pytest

from ringctl.event import Event
from ringctl.fw import ringmsg as rm
from ringctl.game.adjudicate import AdjudicationError, SpinAdjudicator


def coin(face, flat=True, inside=True):
    return {"center": [100, 100], "radius": 24, "face": face, "flat": flat, "inside": inside,
            "confidence": 0.99}


def verdict(result, faces=None, reasons=(), **kw):
    if faces is None:
        faces = {"heads": ("heads", "heads"), "tails": ("tails", "tails"), "odds": ("heads", "tails"),
                 "no-spin": ("heads", "tails"), "unsure": ("heads", None)}[result]
    v = {"image": "f.jpg", "result": result, "reasons": list(reasons), "coins": [coin(f) for f in faces], "ms": 4.0}
    v.update(kw)
    return v


class Ring:
    """Builds one spin's device events with increasing event ids and times."""

    def __init__(self):
        self.adj = SpinAdjudicator(spin_id=7)
        self.n = 0

    def ev(self, code, t_us, a=0, b=0, text=""):
        self.n += 1
        self.adj.feed(Event(0xB007, self.n, code, t_us, a, b, text))
        return self

    def landed(self, first=1_000_000, rest=True):
        self.ev(rm.EV_IMPACT, first, 0, 900).ev(rm.EV_IMPACT, first + 40_000, 1, 700)
        if rest:
            self.ev(rm.EV_REST, first + 2_500_000, 500, 40)
        return self


@pytest.mark.parametrize("result", ["heads", "tails", "odds"])
def test_valid_spin_camera_and_sensors_agree(result):
    out = Ring().landed().adj.decide(verdict(result))
    assert out.result == result and out.light == {"heads": rm.LIGHT_HEADS, "tails": rm.LIGHT_TAILS,
                                                  "odds": rm.LIGHT_ODDS}[result]
    assert out.reasons[0].startswith("6.9") and out.evidence["impacts"] == 2


def test_7_3_1_boundary_break_bars_even_if_camera_reads_heads():
    r = Ring().landed()
    r.ev(rm.EV_BEAM, 1_100_000, 5, 1800)
    out = r.adj.decide(verdict("heads"))
    assert out.result == "no-spin" and out.final and out.light == rm.LIGHT_BARRED
    assert any(x.startswith("7.3.1") and "sector 5" in x for x in out.reasons)


def test_7_3_1_camera_sees_coin_outside():
    out = Ring().landed().adj.decide(verdict("no-spin", reasons=["7.3.1 coin outside the ring"]))
    assert out.result == "no-spin" and out.reasons == ["7.3.1 coin outside the ring"]


def test_7_3_2_wall_strike_bars():
    r = Ring().landed()
    r.ev(rm.EV_WALL, 1_020_000, 3100)
    out = r.adj.decide(verdict("tails"))
    assert out.result == "no-spin" and any(x.startswith("7.3.2") for x in out.reasons)


def test_7_3_3_spinner_off_mat_while_spinning_bars_but_not_after_landing():
    r = Ring()
    r.ev(rm.EV_MAT, 500_000, 0).landed()
    out = r.adj.decide(verdict("heads"))
    assert out.result == "no-spin" and any(x.startswith("7.3.3") for x in out.reasons)
    r = Ring().landed()
    r.ev(rm.EV_MAT, 1_500_000, 0)      # walked off after the coins were down: allowed
    assert r.adj.decide(verdict("heads")).result == "heads"


def test_7_3_4_coin_not_flat_bars():
    out = Ring().landed().adj.decide(verdict("no-spin", reasons=["7.3.4 coin not lying flat"]))
    assert out.result == "no-spin" and out.reasons == ["7.3.4 coin not lying flat"]


def test_every_reason_is_kept_with_its_rule():
    r = Ring()
    r.ev(rm.EV_MAT, 10, 0).landed().ev(rm.EV_BEAM, 1_050_000, 2, 900).ev(rm.EV_WALL, 1_060_000, 2000)
    r.ev(rm.EV_BARRED, 1_070_000, rm.BAR_BEAM, 2)
    out = r.adj.decide(verdict("no-spin", reasons=["7.3.4 coin not lying flat"]))
    rules = sorted({x.split(" ")[0] for x in out.reasons})
    assert rules == ["7.3.1", "7.3.2", "7.3.3", "7.3.4"]


def test_device_barring_code_alone_bars():
    r = Ring().landed()
    r.ev(rm.EV_BARRED, 1_070_000, rm.BAR_WALL, 0)
    out = r.adj.decide(verdict("heads"))
    assert out.result == "no-spin" and any(x.startswith("7.3.2") for x in out.reasons)


def test_7_2_7_6_boxer_no_spin_is_final_even_if_coins_land_well():
    r = Ring()
    r.ev(rm.EV_BUTTON, 800_000, rm.BTN_NOSPIN, 1).landed()
    out = r.adj.decide(verdict("heads"))
    assert out.result == "no-spin" and out.final and out.decided_by == "boxer"
    assert any(x.startswith("7.2") for x in out.reasons) and any(x.startswith("7.6") for x in out.reasons)
    with pytest.raises(AdjudicationError) as exc:
        r.adj.resolve("boxer", "heads", "they landed fine")
    assert exc.value.rule == "7.6"
    assert r.adj.outcome.result == "no-spin"


def test_7_1_supervisor_call_counts():
    r = Ring().landed()
    r.adj.call_no_spin("supervisor", "7.1.2", "not above the spinner's head")
    out = r.adj.decide(verdict("tails"))
    assert out.result == "no-spin" and any(x.startswith("7.1.2") and "supervisor" in x for x in out.reasons)


@pytest.mark.parametrize("actor, rule", [("player", "7.5"), ("spinner", "7.5"), ("dealer", "7.1")])
def test_7_5_players_cannot_declare_invalid(actor, rule):
    r = Ring().landed()
    with pytest.raises(AdjudicationError) as exc:
        r.adj.call_no_spin(actor, "7.1.1")
    assert exc.value.rule == rule
    assert r.adj.steps[-1]["step"] == "call-refused"           # the attempt is on record
    assert r.adj.decide(verdict("heads")).result == "heads"    # and changed nothing


def test_7_4_lost_coin_procedure_one_coin():
    r = Ring().landed()
    lost = r.adj.coin_out_of_ring(coins=1, coin_set="set-A")
    assert r.adj.decide(verdict("heads")).result == "no-spin"            # 7.4.1
    assert not lost.ready and lost.missing[0].startswith("7.4.2")
    lost.retrieve(found=1)
    with pytest.raises(AdjudicationError):
        lost.offer("original")                    # not yet checked (7.4.4)
    lost.check_found(ok=True)
    lost.offer("original")                        # 7.4.3: the spinner asked for it back
    assert lost.ready
    assert [s["rule"] for s in r.adj.steps if s["step"] == "lost-coin"] == ["7.4.1", "7.4.2", "7.4.4", "7.4.3"]


def test_7_4_5_two_coins_lost_needs_new_set():
    r = Ring()
    lost = r.adj.coin_out_of_ring(coins=2, coin_set="set-A")
    lost.retrieve(found=0)
    lost.offer("new")
    assert lost.missing == ["7.4.5 bring a new coin set"]
    lost.bring_new_set("set-B", current_spinner_continues=True)
    assert lost.ready and r.adj.steps[-1]["current_spinner_continues"] is True
    with pytest.raises(AdjudicationError):
        r.adj.coin_out_of_ring(actor="player")


@pytest.mark.parametrize("setup, camera, why", [
    ("landed", None, "camera verdict missing"),
    ("landed", {"stale": True}, "stalled"),
    ("landed", "unsure", "camera unsure"),
    ("landed", [("heads",), ("tails",)], "disagree"),
    ("landed", ("heads", ("heads", "tails")), "reads faces"),
    ("landed", ("heads", ("heads",)), "not 2"),
    ("no-rest", ("heads",), "at rest"),
    ("no-impact", ("heads",), "no coin impact"),
    ("overflow", ("heads",), "dropped"),
    ("fault", ("heads",), "fault"),
])
def test_unsure_never_guesses(setup, camera, why):
    r = Ring()
    if setup == "no-rest":
        r.landed(rest=False)
    elif setup != "no-impact":
        r.landed()
    if setup == "overflow":
        r.ev(rm.EV_OVERFLOW, 1_200_000, 3)
    if setup == "fault":
        r.ev(rm.EV_FAULT, 1_200_000, rm.FAULT_WALL, 0, "wall piezo silent")
    if camera is None:
        v = None
    elif isinstance(camera, dict):
        v = dict(verdict("heads"), **camera)
    elif camera == "unsure":
        v = verdict("unsure", reasons=["coin face unreadable"])
    elif isinstance(camera, list):
        v = [verdict(*c) for c in camera]
    else:
        v = verdict(*camera)
    out = r.adj.decide(v)
    assert out.result == "unsure" and out.light == rm.LIGHT_UNSURE
    assert any(why in x for x in out.reasons), out.reasons


def test_stale_by_age():
    r = Ring().landed()
    out = r.adj.decide(verdict("heads", t_s=100.0), now_s=103.5)
    assert out.result == "unsure"


def test_boxer_confirms_unsure_with_recorded_reason():
    r = Ring().landed()
    assert r.adj.decide(None).result == "unsure"
    with pytest.raises(AdjudicationError) as exc:
        r.adj.resolve("player", "heads", "I saw it")
    assert exc.value.rule == "7.5"
    with pytest.raises(AdjudicationError):
        r.adj.resolve("boxer", "heads", "  ")
    out = r.adj.resolve("boxer", "tails", "both tails, read by eye")
    assert out.result == "tails" and out.decided_by == "boxer"
    assert out.override == {"actor": "boxer", "kind": "override", "from": "unsure",
                            "reason": "both tails, read by eye"}
    assert [s["step"] for s in r.adj.steps] == ["decided", "resolve-refused", "resolve-refused", "override"]


def test_decide_only_once_from_events_decoded_off_the_wire():
    adj = SpinAdjudicator()
    adj.feed(Event.decode(rm.pack_event(1, 1, rm.EV_IMPACT, 10, 0, 5)))
    adj.feed(Event(1, 2, rm.EV_IMPACT, 20, 1, 5))
    adj.feed(Event(1, 3, rm.EV_PHASE, 30, rm.PH_AT_REST, rm.PH_LANDED))
    assert adj.decide(verdict("odds")).result == "odds"
    with pytest.raises(AdjudicationError):
        adj.decide(verdict("odds"))
    assert adj.outcome.as_json()["light"] == "odds"


def test_7_2_late_call_still_final_and_noted():
    r = Ring().landed()
    r.ev(rm.EV_BUTTON, 9_000_000, rm.BTN_NOSPIN, 1)     # after the at-rest report
    out = r.adj.decide(verdict("heads"))
    assert out.result == "no-spin" and "after the coins came to rest" in out.reasons[0]


def test_6_1_kip_call():
    r = Ring().landed()
    r.adj.call_no_spin("boxer", "6.1")
    out = r.adj.decide(verdict("odds"))
    assert out.result == "no-spin" and out.reasons[0].startswith("6.1 ")
    with pytest.raises(AdjudicationError):
        Ring().adj.call_no_spin("boxer", "9.9")


def test_a_beam_break_reported_at_start_and_end_is_one_reason():
    from ringctl.fw import ringmsg as rm
    from ringctl.game.adjudicate import SpinAdjudicator
    adj = SpinAdjudicator(1)
    for sector, us in [(1, 0), (2, 0), (1, 500), (2, 700), (5, 0)]:
        adj.feed(Event(1, 1, rm.EV_BEAM, 0, sector, us))
    bars = adj._sensor_bars(adj._evidence())
    assert bars == ["7.3.1 coin crossed the ring boundary (beam sector 1, 500 us)",
                    "7.3.1 coin crossed the ring boundary (beam sector 2, 700 us)",
                    "7.3.1 coin crossed the ring boundary (beam sector 5, still broken)"]


def test_still_frames_must_be_enough_and_all_agree():
    """The one place the rule lives: fewer still frames than needed, or frames that disagree,
    make the spin unsure (the boxer calls it); enough agreeing frames decide it."""
    assert Ring().landed().adj.decide([verdict("odds")] * 3, need=3).result == "odds"
    few = Ring().landed().adj.decide([verdict("odds")] * 2, need=3)
    assert few.result == "unsure" and any("only 2 still frame(s)" in r for r in few.reasons)
    split = Ring().landed().adj.decide([verdict("odds"), verdict("heads"), verdict("odds")], need=3)
    assert split.result == "unsure" and any("disagree" in r for r in split.reasons)


def test_7_4_1_lost_coin_after_an_unsure_decision_voids_it_for_good():
    r = Ring().landed()
    assert r.adj.decide(verdict("unsure")).result == "unsure"
    r.adj.coin_out_of_ring(coins=1)
    assert r.adj.outcome.result == "no-spin" and r.adj.outcome.final
    assert r.adj.outcome.override["kind"] == "void" and r.adj.outcome.reasons[0].startswith("7.4.1")
    for actor in ("boxer", "supervisor"):
        with pytest.raises(AdjudicationError) as exc:
            r.adj.resolve(actor, "heads", "both heads by eye")
        assert exc.value.rule == "7.6"
    with pytest.raises(AdjudicationError):
        r.adj.coin_out_of_ring(coins=1)          # one procedure per spin
