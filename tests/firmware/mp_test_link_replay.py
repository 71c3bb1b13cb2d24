# A dead host must look dead even to a replaying attacker (issue 15), under micropython AND CPython.
# The host goes silent; an attacker replays everything it recorded from this host and from
# an earlier host process (HELLOs, heartbeat ACKs, commands) in many rhythms. The board must
# go link-lost within its window every time and stay lost; the same for the host side.
import ringlink as rl
import ringmsg as M
import mptest

KEY = bytes(range(32))
DEV_INFO = {"fw": "t", "image": b"\x01" * 8, "boot_id": 0xB007, "reset": 1,
            "device_id": "SIMREPLAY", "interp": "micropython"}
STEP = 5          # ms per simulation step
RUN_DEAD = 8000   # ms of replaying after the peer died


class Lcg:
    """Same numbers on both runtimes (random differs between them)."""

    def __init__(self, seed):
        self.x = seed * 2654435761 + 1

    def below(self, n):
        self.x = (self.x * 1103515245 + 12345) & 0x7FFFFFFF
        return (self.x >> 8) % n


def frames_of(out):
    return rl.Deframer().feed(out)


def talk(a, b, t, cap_ab=None, cap_ba=None, a_alive=True, b_alive=True):
    """One step: what each live side sends reaches the other (and is recorded)."""
    for s, peer, cap, alive in ((a, b, cap_ab, a_alive), (b, a, cap_ba, b_alive)):
        while True:
            out = s.poll(t)
            if out is None:
                break
            if not alive:
                continue
            if cap is not None:
                cap.append(out)
            peer.feed(out, t)


def rhythm(rng, kind):
    """Next gap (ms) between replayed frames for one attacker rhythm."""
    if kind == 0:
        return 1 + rng.below(1900)            # any gap up to 1.9 s
    if kind == 1:
        return (50, 200, 1000, 1900)[rng.below(4)]
    if kind == 2:
        return 1 if rng.below(4) else 400 + rng.below(600)   # bursts
    return 190 + rng.below(20)                # faster than the heartbeat, like a live host


def recorded_host_frames(t_end):
    """A device up with two host processes in turn; -> (dev, host, frames host->device, now)."""
    dev = rl.Session(KEY, rl.ROLE_DEVICE, DEV_INFO, ring_slots=8, window=4)
    dev.start(0)
    rec = []
    old = rl.Session(KEY, rl.ROLE_HOST, {"name": "earlier"})   # an earlier host process
    old.start(0)
    t = 0
    while t < 1500:
        if t % 300 == 0:
            old.send(rl.MT_CMD, M.pack_cmd(M.CMD_STATUS, t), t)
        talk(old, dev, t, rec)
        while old.recv() is not None:
            pass
        t += STEP
    host = rl.Session(KEY, rl.ROLE_HOST, {"name": "live"})
    host.start(t)
    while t < t_end:
        if t % 250 == 0:
            host.send(rl.MT_CMD, M.pack_cmd(M.CMD_STATUS, t), t)
        if t % 170 == 0:
            dev.send(rl.MT_EVENT, M.pack_event(1, t, M.EV_HEAP, t), t)
        talk(host, dev, t, rec)
        m = host.recv()
        while m is not None:
            host.ack(m[2])
            m = host.recv()
        t += STEP
    assert host.connected and dev.connected and not dev.host_lost(t), "no live session"
    return dev, host, [f for out in rec for f in [out]], t


def test_device_goes_link_lost_under_every_replay_rhythm():
    worst = 0
    for trial in range(24):
        rng = Lcg(trial)
        kind = trial % 4
        dev, host, rec, t = recorded_host_frames(3000 + 100 * rng.below(20))
        hellos = [f for f in rec if frames_of(f)[0][0] == rl.MT_HELLO]
        assert len(hellos) >= 2, "HELLOs of both host processes recorded"
        dead = t                              # the host sends nothing from here on
        nxt = t + rng.below(50)
        lost_at = None
        while t < dead + RUN_DEAD:
            while nxt <= t:
                # HELLOs half the time (they were the original bypass), else anything
                pool = hellos if rng.below(2) else rec
                dev.feed(pool[rng.below(len(pool))], t)
                nxt += rhythm(rng, kind)
            while dev.poll(t) is not None:   # the device's frames reach no one
                pass
            lost = dev.host_lost(t)
            if lost and lost_at is None:
                lost_at = t
            assert lost or lost_at is None, "trial %d: link came back at %d" % (trial, t)
            t += STEP
        assert lost_at is not None, "trial %d: never link-lost" % trial
        late = lost_at - dead
        assert late <= rl.DEVICE_HOST_LOST_MS + STEP, "trial %d: lost after %d ms" % (trial, late)
        worst = max(worst, late)
    print("device link-lost at most %d ms after the host died (window %d)"
          % (worst, rl.DEVICE_HOST_LOST_MS))


def test_host_sees_a_dead_board_under_replay():
    for trial in range(12):
        rng = Lcg(100 + trial)
        dev = rl.Session(KEY, rl.ROLE_DEVICE, DEV_INFO, ring_slots=8, window=4)
        host = rl.Session(KEY, rl.ROLE_HOST, {"name": "live"})
        dev.start(0)
        host.start(0)
        rec = []
        t = 0
        while t < 2500:
            if t % 130 == 0:
                dev.send(rl.MT_EVENT, M.pack_event(1, t, M.EV_HEAP, t), t)
            talk(host, dev, t, None, rec)
            m = host.recv()
            while m is not None:
                host.ack(m[2])
                m = host.recv()
            t += STEP
        assert host.connected and host.peer_silent_ms(t) < rl.HOST_LINK_LOST_MS
        dead = t
        nxt = t
        lost_at = None
        kind = trial % 4
        while t < dead + RUN_DEAD:
            while nxt <= t:
                host.feed(rec[rng.below(len(rec))], t)
                nxt += rhythm(rng, kind)
            while host.poll(t) is not None:
                pass
            lost = not host.connected or host.peer_silent_ms(t) > rl.HOST_LINK_LOST_MS
            if lost and lost_at is None:
                lost_at = t
            t += STEP
            assert lost or lost_at is None or host.state != rl.ST_UP, "host link came back"
        assert lost_at is not None and lost_at - dead <= rl.HOST_LINK_LOST_MS + STEP, (
            trial, lost_at, dead)


def test_live_host_is_never_lost_while_an_attacker_replays():
    # the other half of the proof: the fix must not make a live host look dead
    rng = Lcg(7)
    dev, host, rec, t = recorded_host_frames(3000)
    end = t + 6000
    nxt = t
    while t < end:
        while nxt <= t:
            dev.feed(rec[rng.below(len(rec))], t)
            nxt += 1 + rng.below(300)
        talk(host, dev, t)
        while host.recv() is not None:
            pass
        assert not dev.host_lost(t), "live host counted as lost at %d (silent %d ms)" % (
            t, dev.peer_silent_ms(t))
        assert host.connected
        t += STEP


def test_replayed_ack_gives_no_liveness_credit():
    dev, host, rec, t = recorded_host_frames(2000)
    acks = [f for f in rec if frames_of(f)[0][0] == rl.MT_ACK]
    assert acks
    before = dev.peer_silent_ms(t)
    for f in acks:
        dev.feed(f, t + 500)
    assert dev.peer_silent_ms(t + 500) >= before + 500


def test_board_alarm_counts_ride_in_its_acks_and_replays_cannot_reset_them():
    dev, host, rec, t = recorded_host_frames(1800)
    old_d2h = []
    for _ in range(60):                           # record a few board ACKs (alarms 0)
        for s, peer, cap in ((host, dev, None), (dev, host, old_d2h)):
            while True:
                out = s.poll(t)
                if out is None:
                    break
                if cap is not None:
                    cap.append(out)
                peer.feed(out, t)
        t += STEP
    assert host.peer_alarms == 0 and host.peer_key_errors == 0
    forged = rl.encode(rl.seal(rl._keypair(bytes(32)), rl.MT_CMD, 0, 9, 0, b"xx"))
    dev.feed(forged, t)
    dev.feed(forged, t)
    assert dev.alarms == 2
    for _ in range(60):
        talk(host, dev, t)
        t += STEP
    assert host.peer_alarms == 2, host.peer_alarms
    acks = [f for f in old_d2h if frames_of(f)[0][0] == rl.MT_ACK]
    for f in acks:                                # an attacker replays "alarms 0"
        host.feed(f, t)
    assert host.peer_alarms == 2


# ---- the real App on virtual time: armed, host silent, attacker replays ------------------
def test_app_disarms_and_shows_link_lost_under_replay():
    import fwrig
    for trial in range(3):
        rig = fwrig.Rig("replay%d" % trial)
        try:
            _app_trial(rig, fwrig, Lcg(50 + trial), trial % 4)
        finally:
            rig.restore()


class AppLine:
    """The real App's link on virtual time: a host Session at the other end of the line."""

    def __init__(self, rig):
        self.rig = rig
        self.app = rig.app
        self.ft = rig.ft
        self.dev = rl.Session(KEY, rl.ROLE_DEVICE, DEV_INFO, ring_slots=16, window=8)
        self.app.session = self.dev
        self.inbox = []
        self.out = []
        self.rec = []             # everything the host sent (the attacker's recording)
        self.alive = True
        self.got = []             # (code, a, b, text) of every event the host received
        rig.board.link_read = self.link_read
        rig.board.link_write = lambda data: self.out.append(bytes(data))
        self.host = rl.Session(KEY, rl.ROLE_HOST, {"name": "live"})
        self.dev.start(self.ft.ticks_ms())
        self.host.start(self.ft.ticks_ms())
        rig.ready(host=False)

    def link_read(self, buf):
        if not self.inbox:
            return 0
        data = self.inbox.pop(0)
        buf[:len(data)] = data
        return len(data)

    def run(self, ms, replay=None):
        host = self.host
        for _ in range(ms // 10):
            self.rig.step_ms(10)
            now = self.ft.ticks_ms()
            if self.alive:
                while True:
                    b = host.poll(now)
                    if b is None:
                        break
                    self.rec.append(b)
                    self.inbox.append(b)
            if replay is not None:
                replay(now)
            self.app.link_service()
            for b in self.out:
                if self.alive:
                    host.feed(b, now)
            del self.out[:]
            while True:
                m = host.recv()
                if m is None:
                    break
                e = M.unpack_event(m[1])
                self.got.append((e[2], e[4], e[5], e[6]))
                host.ack(m[2])

    def codes(self, code):
        return [e for e in self.got if e[0] == code]


def _app_trial(rig, fwrig, rng, kind):
    line = AppLine(rig)
    app = rig.app
    line.run(600)
    assert line.host.connected and app.spin.host_up, "link up, host seen"
    line.host.send(rl.MT_CMD, M.pack_cmd(M.CMD_ARM, 41), rig.ft.ticks_ms())
    line.run(300)
    assert app.spin.phase == M.PH_ARMED, "armed over the link: %s" % M.PHASE_NAMES[app.spin.phase]
    rec = line.rec
    hellos = [b for b in rec if frames_of(b)[0][0] == rl.MT_HELLO]
    line.alive = False
    dead = rig.ft.ticks_ms()
    nxt = [dead]

    def replay(now):
        while nxt[0] <= now:
            pool = hellos if rng.below(2) else rec
            line.inbox.append(pool[rng.below(len(pool))])
            nxt[0] += rhythm(rng, kind)

    window = app.cfg.v["host_timeout_ms"]
    lost_at = None
    for _ in range(RUN_DEAD // 10):
        line.run(10, replay)
        if not app.spin.host_up and lost_at is None:
            lost_at = rig.ft.ticks_ms()
    assert lost_at is not None, "board never saw the host as lost"
    assert lost_at - dead <= window + 20, "lost after %d ms (window %d)" % (lost_at - dead, window)
    assert not app.spin.host_up, "still lost at the end"
    assert app.spin.phase != M.PH_ARMED, "disarmed"
    assert rig.light_names()[-1] == "link-lost", rig.light_names()[-4:]


def test_app_reports_forgeries_aimed_at_the_board():
    """Issue 15 item 4: the board's own alarms reach the host (EV_LINK), one report a second
    however many forgeries arrive, and on every status command."""
    import fwrig
    rig = fwrig.Rig("alarms")
    try:
        line = AppLine(rig)
        line.run(600)
        assert line.host.connected
        forged = rl.encode(rl.seal(rl._keypair(bytes(32)), rl.MT_CMD, 0, 1, 0,
                                   M.pack_cmd(M.CMD_ARM, 9)))
        for _ in range(50):                 # a flood within 0.5 s
            line.inbox.append(forged)
            line.run(10)
        line.run(1500)
        reports = line.codes(M.EV_LINK)
        assert 1 <= len(reports) <= 2, reports          # <= one a second, not 50
        assert reports[-1][1] == 50 and reports[-1][2] == 0, reports[-1]
        assert "crc=0" in reports[-1][3]
        assert rig.app.spin.phase == M.PH_IDLE, "a forged ARM did nothing"
        line.host.send(rl.MT_CMD, M.pack_cmd(M.CMD_STATUS, 3), rig.ft.ticks_ms())
        line.run(200)
        assert len(line.codes(M.EV_LINK)) == len(reports) + 1
    finally:
        rig.restore()


if __name__ == "__main__":
    mptest.main(globals())
