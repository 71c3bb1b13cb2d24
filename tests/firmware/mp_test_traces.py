# Spin phases driven by sensor traces (tests/firmware/traces/*.json) through the real App on fake pins, virtual time.
import mptest
import fwrig
import ringmsg as M


def run_trace(name):
    tr = fwrig.load_trace(name)
    rig = fwrig.Rig(name)
    try:
        rig.ready()
        rig.events = []
        rig.lights = []
        rig.play(tr["steps"], tr["end_ms"])
        ex = tr["expect"]
        ph = rig.phases()
        assert ph == ex["phases"], "phases %r, expected %r" % (ph, ex["phases"])
        bars = rig.codes(M.EV_BARRED)
        if ex["barred"] is None:
            assert not bars, "unexpected bar %r" % (bars,)
        else:
            assert len(bars) == 1, "expected exactly one EV_BARRED, got %r" % (bars,)
            assert bars[0][1] == ex["barred"][0], "bar reason %d" % bars[0][1]
            if ex["barred"][1] is not None:
                assert bars[0][2] == ex["barred"][1], "bar detail %d" % bars[0][2]
            # the light went to barred on the same pass as the event (no host command)
            assert "barred" in rig.light_names()
        assert M.LIGHT_NAMES[rig.app.light.state] == ex["light"], \
            "light %s, expected %s" % (M.LIGHT_NAMES[rig.app.light.state], ex["light"])
        assert bool(rig.codes(M.EV_REST)) == ex["rest"], "rest events %r" % (rig.codes(M.EV_REST),)
        if "presses" in ex:
            presses = [e for e in rig.codes(M.EV_BUTTON) if e[2] == 1]
            assert len(presses) == ex["presses"], "presses %r" % (presses,)
        if "fault" in ex:
            assert rig.app.spin.fault & ex["fault"] == ex["fault"], "fault 0x%x" % rig.app.spin.fault
            assert rig.app.spin.phase == M.PH_FAULT
            err = rig.app.spin.arm(0, 0)
            assert err and "fault" in err, "arm must be refused in a fault: %r" % err
        if "then" in tr:
            rig.play([], tr["then"]["end_ms"])
            ph2 = rig.phases()
            want = ex["phases"] + tr["then"]["expect_phases_add"]
            assert ph2 == want, "after more time: %r, expected %r" % (ph2, want)
        return rig
    finally:
        rig.restore()


def test_clean_landing():
    rig = run_trace("clean_landing")
    rest = rig.codes(M.EV_REST)[0]
    assert rest[1] >= 1000, "quiet %d ms < quiet_ms" % rest[1]
    # 900 + 925 on piezo 0 are two impacts (two 10 ms samples apart, the envelope fell back
    # between them: a bounce)
    assert len(rig.codes(M.EV_IMPACT)) == 3, rig.codes(M.EV_IMPACT)


def test_bounce():
    rig = run_trace("bounce")
    rest = rig.codes(M.EV_REST)[0]
    assert rest[2] == 800, "first->last impact span %d ms" % rest[2]
    assert len(rig.codes(M.EV_IMPACT)) == 4


def test_boundary_crossing():
    rig = run_trace("boundary_crossing")
    beams = rig.codes(M.EV_BEAM)
    assert beams[0][1] == 5 and beams[0][2] == 0, beams        # break start, sent at once
    assert beams[1][1] == 5 and 3000 <= beams[1][2] <= 5000, beams  # then its duration


def test_slow_settle():
    run_trace("slow_settle")


def test_chatter():
    run_trace("chatter")


def test_blocked_beam():
    rig = run_trace("blocked_beam")
    assert rig.codes(M.EV_FAULT), "fault event expected"


def test_unplugged_piezo():
    rig = run_trace("unplugged_piezo")
    st = rig.codes(M.EV_SELFTEST)[0]
    assert st[1] == 1 and st[2] & 0x200, st
    assert "piezo1" in st[3], st[3]


def test_host_silent():
    rig = run_trace("host_silent")
    hosts = rig.codes(M.EV_HOST)
    assert hosts and hosts[-1][1] == 0, hosts


def test_wall_strike():
    rig = run_trace("wall_strike")
    walls = rig.codes(M.EV_WALL)
    assert len(walls) == 1 and walls[0][1] > 20000, walls


def test_mat_exit():
    run_trace("mat_exit")


def test_no_mat_throw():
    run_trace("no_mat_throw")


def test_glitch_ignored():
    rig = run_trace("glitch")
    assert rig.app.beams.glitches == 1
    assert not rig.codes(M.EV_BEAM)



# Traces recorded from the physics simulator (ring sim toss --timeline), see each file's "about".
def test_recorded_clean_toss():
    run_trace("recorded_clean")


def test_recorded_coin_out_via_wall():
    run_trace("recorded_outside")


def test_recorded_coin_clears_curtain_is_for_the_host():
    run_trace("recorded_wall")


def test_recorded_spinner_off_mat():
    run_trace("recorded_mat")


mptest.main(globals())
