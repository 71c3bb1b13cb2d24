"""Session behaviour on a simulated line: exactly-once delivery, auth failures, timers, versions."""
import pytest

from ringctl.fw import ringlink as rl

import linksim
from linksim import DEV_INFO, KEY, Line, run

WANT_EV = [b"ev%d" % i for i in range(300)]
WANT_CMD = [b"cmd%d" % i for i in range(50)]


@pytest.mark.parametrize("seed,faults", [
    (1, {}),
    (2, {"drop": 0.15}),
    (3, {"drop": 0.1, "dup": 0.1, "corrupt": 0.05, "delay": (1, 30)}),
    (4, {"drop": 0.05, "delay": (1, 20), "cut_every": 2500}),
])
def test_exactly_once_in_order_both_ways(seed, faults):
    ev, cmds, host, dev = run(seed, **faults)
    assert ev == WANT_EV
    assert cmds == WANT_CMD
    assert host.alarms == 0 and dev.alarms == 0     # line noise is never a security alarm
    if faults.get("drop"):
        assert dev.retransmits > 0


def _pair():
    host = rl.Session(KEY, rl.ROLE_HOST, {"name": "t"})
    dev = rl.Session(KEY, rl.ROLE_DEVICE, DEV_INFO, ring_slots=4, window=2)
    host.start(0)
    dev.start(0)
    return host, dev


def _talk(host, dev, t0, t1, step=1, h2d=None, d2h=None):
    for t in range(t0, t1, step):
        for a, b, cap in ((host, dev, h2d), (dev, host, d2h)):
            while (out := a.poll(t)) is not None:
                if cap is not None:
                    cap.append(out)
                b.feed(out, t)


def test_handshake_reports_hello_fields():
    host, dev = _pair()
    _talk(host, dev, 0, 5)
    assert host.connected and dev.connected
    pi = host.peer_info
    assert pi["proto_major"] == rl.PROTO_MAJOR and pi["boot_id"] == DEV_INFO["boot_id"]
    assert pi["fw"] == "0.1.0" and pi["device_id"] == "SIM0001"
    assert pi["interp"].startswith("micropython") and pi["reset"] == 1
    assert pi["image"] == "0102030405060708"


def test_ring_full_is_reported_not_dropped():
    host, dev = _pair()
    seqs = [dev.send(rl.MT_EVENT, b"x", 0) for _ in range(5)]
    assert seqs[:4] == [1, 2, 3, 4] and seqs[4] == -1
    _talk(host, dev, 0, 10)
    got = []
    while (m := host.recv()) is not None:
        got.append(m)
    assert len(got) == 2                              # window 2: no more until acked
    assert dev.send(rl.MT_EVENT, b"y", 10) == -1      # host has not acked (not durable yet)
    for m in got:
        host.ack(m[2])
    _talk(host, dev, 10, 20)
    while (m := host.recv()) is not None:
        got.append(m)
        host.ack(m[2])
    _talk(host, dev, 20, 30)
    assert [m[2] for m in got] == [1, 2, 3, 4]
    assert dev.unacked == 0 and dev.send(rl.MT_EVENT, b"y", 30) == 5


def test_reflected_forged_and_old_session_frames_are_alarms():
    host, dev = _pair()
    h2d, d2h = [], []
    dev.send(rl.MT_EVENT, b"first", 0)
    dev.send(rl.MT_EVENT, b"second", 0)
    _talk(host, dev, 0, 10, h2d=h2d, d2h=d2h)
    session1 = [f for f in d2h if rl.Deframer().feed(f)[0][0] != rl.MT_HELLO]
    for t in (100, 200, 300):             # three more sessions (line reopened 3 times)
        host.start(t)
        dev.start(t)
        _talk(host, dev, t, t + 10)
    assert host.handshakes == 4 and host.connected
    assert [host.recv()[1], host.recv()[1], host.recv()] == [b"first", b"second", None]
    a0, s0 = host.alarms, host.stale
    assert len(session1) >= 2             # the two events and the ACKs
    for fr in session1:                   # replay from 3 sessions ago (older than OLD_KEYS)
        host.feed(fr, 400)
    assert host.alarms == a0 + len(session1)
    host.feed(h2d[-1], 400)               # reflected: the host's own frame comes back
    assert host.alarms == a0 + len(session1) + 1
    dev_alarms = dev.alarms
    dev.feed(d2h[-1], 400)                # reflected toward the device
    assert dev.alarms == dev_alarms + 1
    assert host.recv() is None and host.stale == s0


def test_previous_session_leftovers_are_stale_not_alarms():
    host, dev = _pair()
    d2h = []
    dev.send(rl.MT_EVENT, b"a", 0)
    _talk(host, dev, 0, 10, d2h=d2h)
    host.start(50)
    dev.start(50)
    _talk(host, dev, 50, 60)
    host.feed(d2h[-1], 70)
    assert host.alarms == 0 and host.stale == 1


def test_same_session_replay_is_a_duplicate_and_not_delivered_twice():
    host, dev = _pair()
    d2h = []
    dev.send(rl.MT_EVENT, b"a", 0)
    _talk(host, dev, 0, 10, d2h=d2h)
    assert host.recv()[1] == b"a"
    ev_frames = [f for f in d2h if rl.Deframer().feed(f)[0][0] == rl.MT_EVENT]
    host.feed(ev_frames[0], 11)
    assert host.recv() is None and host.duplicates == 1


def test_resend_after_reconnect_without_duplicates():
    host, dev = _pair()
    line = Line(linksim.random.Random(0))
    dev.send(rl.MT_EVENT, b"a", 0)
    dev.send(rl.MT_EVENT, b"b", 0)
    _talk(host, dev, 0, 10)
    m1 = host.recv()
    m2 = host.recv()
    host.ack(m1[2])                       # b delivered but not yet durable when the line drops
    host.start(20)
    dev.start(20)
    _talk(host, dev, 20, 40)
    assert host.recv() is None            # b is not handed over a second time
    assert dev.unacked == 1
    host.ack(m2[2])
    _talk(host, dev, 40, 50)
    assert dev.unacked == 0
    del line


def test_peer_reboot_restarts_numbering_but_recv_seq_keeps_growing():
    host, dev = _pair()
    dev.send(rl.MT_EVENT, b"a", 0)
    _talk(host, dev, 0, 10)
    s1 = host.recv()[2]
    info = dict(DEV_INFO, boot_id=4242)
    dev2 = rl.Session(KEY, rl.ROLE_DEVICE, info)
    dev2.start(20)
    dev2.send(rl.MT_EVENT, b"after reboot", 20)
    _talk(host, dev2, 20, 800, step=5)
    m = host.recv()
    assert m[1] == b"after reboot" and m[2] > s1
    host.ack(s1)                          # late ack from before the reboot: harmless
    host.ack(m[2])
    _talk(host, dev2, 800, 810)
    assert dev2.unacked == 0 and host.peer_resets == 1


def test_host_link_lost_after_1s_and_device_host_lost_after_2s():
    host, dev = _pair()
    _talk(host, dev, 0, 10)
    assert host.connected and not dev.host_lost(10)
    last_h = 10 - host.peer_silent_ms(10)
    last_d = 10 - dev.peer_silent_ms(10)
    host.poll(last_h + 1000)
    assert host.connected                 # 1000 ms of silence: still up
    host.poll(last_h + 1001)
    assert not host.connected and host.link_losses == 1
    assert not dev.host_lost(last_d + 2000) and dev.host_lost(last_d + 2001)
    assert dev.peer_silent_ms(last_d + 2001) > rl.DEVICE_HOST_LOST_MS


def test_heartbeats_keep_an_idle_link_up():
    host, dev = _pair()
    _talk(host, dev, 0, 5000, step=10)
    assert host.connected and dev.connected and host.link_losses == 0
    assert 15 <= host.frames_tx <= 40     # about one every 200 ms


def test_rto_backoff_doubles_and_is_clamped():
    host, dev = _pair()
    _talk(host, dev, 0, 10)
    dev.send(rl.MT_EVENT, b"lost", 10)
    rtos = []
    t = 10
    while t < 20000:                      # nothing reaches the host any more
        dev.poll(t)
        rtos.append(dev.rto_ms)
        t += 1
    assert rl.RTO_MAX in rtos
    seen = sorted(set(rtos))
    assert all(b == min(a * 2, rl.RTO_MAX) for a, b in zip(seen, seen[1:]))
    assert dev.retransmits >= 5


def test_incompatible_major_is_refused_with_a_clear_message(monkeypatch):
    host, dev = _pair()
    monkeypatch.setattr(rl, "PROTO_MAJOR", 2)
    dev2 = rl.Session(KEY, rl.ROLE_DEVICE, DEV_INFO)
    dev2.start(0)
    out = dev2.poll(0)                    # an advert built with major 2
    monkeypatch.setattr(rl, "PROTO_MAJOR", 1)
    host.feed(out, 1)
    assert host.state == rl.ST_REFUSED and not host.connected
    assert "protocol 2.0" in host.error and "1.0" in host.error
    assert host.version_errors == 1


def test_repl_output_is_detected():
    host, _ = _pair()
    host.feed(b"\r\nMicroPython v1.29.0 on 2026-07-05; Raspberry Pi Pico\r\nType \"help()\"", 5)
    host.feed(b" for more information.\r\n>>> ", 6)
    assert host.repl_detected(400)
    host2, _ = _pair()
    host2.feed(b">>> ", 5)                # a bare prompt with nothing after it
    assert host2.repl_detected(400) and not host2.deframer.repl


def test_constant_time_compare_and_key_length():
    assert rl.ct_equal(b"abc", b"abc") and not rl.ct_equal(b"abc", b"abd")
    assert not rl.ct_equal(b"abc", b"ab")
    with pytest.raises(ValueError):
        rl.Session(b"short", rl.ROLE_HOST)


def test_time_wraps_like_ticks_ms():
    host = rl.Session(KEY, rl.ROLE_HOST, {"name": "t"})
    dev = rl.Session(KEY, rl.ROLE_DEVICE, DEV_INFO)
    t0 = 0x3FFFFFFF - 300                 # ticks_ms wraps at 2**30 on the board
    host.start(t0)
    dev.start(t0)
    dev.send(rl.MT_EVENT, b"x", t0)
    for i in range(0, 1200, 5):
        t = (t0 + i) & 0x3FFFFFFF
        for a, b in ((host, dev), (dev, host)):
            while (out := a.poll(t)) is not None:
                b.feed(out, t)
        while (m := host.recv()) is not None:
            host.ack(m[2])
    assert host.connected and host.link_losses == 0 and dev.unacked == 0


def test_replayed_host_hello_neither_drops_the_session_nor_redelivers():
    host, dev = _pair()
    h2d = []
    _talk(host, dev, 0, 10, h2d=h2d)
    old_hello = [f for f in h2d if rl.Deframer().feed(f)[0][0] == rl.MT_HELLO][0]
    host.send(rl.MT_CMD, b"c1", 10)
    _talk(host, dev, 10, 20)
    assert dev.recv()[1] == b"c1"
    dev.feed(old_hello, 21)               # attacker replays the host's old HELLO
    assert dev.connected
    host.send(rl.MT_CMD, b"c2", 22)
    _talk(host, dev, 22, 40)              # the device's reply is stale for the host
    assert dev.connected and host.connected and host.link_losses == 0
    assert dev.recv()[1] == b"c2" and dev.recv() is None
    assert host.stale >= 1 and host.unacked == 0


def _frames(wire):
    """Encoded frames -> their mtypes."""
    return [rl.Deframer().feed(f)[0][0] for f in wire]


def test_new_host_process_gets_no_frames_under_the_previous_hosts_keys():
    """A fresh host Session (host restart) has no old keys: anything the board sends under
    the previous host's keys after answering the new HELLO would be a false alarm there."""
    old, dev = _pair()
    dev.send(rl.MT_EVENT, b"e1", 0)
    _talk(old, dev, 0, 10)
    assert old.recv()[1] == b"e1"          # never acked: the board will resend it
    new = rl.Session(KEY, rl.ROLE_HOST, {"name": "restarted"})
    new.start(500)                         # old host process gone, the board still up
    hello = new.poll(500)
    dev.feed(hello, 501)
    dev.send(rl.MT_EVENT, b"e2", 501)      # the board app queued something in that pass
    d2h = []
    while (out := dev.poll(501)) is not None:    # reply, then nothing under the old keys
        d2h.append(out)
    assert _frames(d2h) == [rl.MT_HELLO]
    for fr in d2h:
        new.feed(fr, 502)
    _talk(new, dev, 502, 520)
    assert new.connected and dev.connected
    assert new.alarms == 0 and dev.alarms == 0
    got = []
    while (m := new.recv()) is not None:
        got.append(m[1])
        new.ack(m[2])
    assert got == [b"e1", b"e2"]           # resent under the new keys, nothing lost
    forged = rl.encode(rl.seal(rl._keypair(bytes(32)), rl.MT_EVENT, 0, 9, 0, b"x"))
    new.feed(forged, 530)
    assert new.alarms == 1                 # a forgery still is exactly one alarm


def test_replayed_hello_only_pauses_the_board_until_the_live_host_speaks():
    host, dev = _pair()
    h2d = []
    _talk(host, dev, 0, 10, h2d=h2d)
    old_hello = [f for f in h2d if _frames([f])[0] == rl.MT_HELLO][0]
    dev.feed(old_hello, 20)                # attacker replays the host's old HELLO
    dev.send(rl.MT_EVENT, b"e", 20)
    out = []
    while (o := dev.poll(20)) is not None:
        out.append(o)
    assert _frames(out) == [rl.MT_HELLO]   # the reply (stale for the host), then quiet
    for o in out:
        host.feed(o, 21)
    assert host.stale >= 1 and host.alarms == 0
    _talk(host, dev, 21, 300)              # the live host's next frame resumes the board
    assert host.connected and dev.connected and host.link_losses == 0
    assert host.recv()[1] == b"e" and host.alarms == 0 and dev.alarms == 0


def test_duplicated_hello_gets_the_same_answer_and_the_session_comes_up():
    """A HELLO duplicated on the line must not replace the offer the host already took."""
    host, dev = _pair()
    _talk(host, dev, 0, 10)
    host.start(100)                        # host reconnects; the board is still up
    hello = host.poll(100)
    replies = []
    for _ in range(2):                     # the line delivers it twice
        dev.feed(hello, 101)
        while (o := dev.poll(101)) is not None:
            replies.append(o)
    assert _frames(replies) == [rl.MT_HELLO] * 2 and replies[0] == replies[1]
    for o in replies:
        host.feed(o, 102)
    host.send(rl.MT_CMD, b"c", 103)
    _talk(host, dev, 103, 120)
    assert host.connected and dev.connected and dev.handshakes == 2
    assert dev.recv()[1] == b"c" and host.alarms == 0 and dev.alarms == 0


def test_no_advert_between_the_reply_and_the_hosts_first_frame():
    # A board whose host fell silent adverts every ADVERT_MS. When a new host's HELLO
    # arrives just as the next advert falls due, the reply must not be followed by an
    # ADVERT ("no session"): the host would drop the session it has just made and
    # handshake again (a CI run saw three handshakes where two were due).
    host, dev = _pair()
    _talk(host, dev, 0, 50)
    assert dev.connected
    for t in range(50, 2600):                 # the host is gone: from 2 s the board adverts
        dev.poll(t)
    host2 = rl.Session(KEY, rl.ROLE_HOST, {"name": "t2"})
    host2.start(2600)
    due = dev._advert_at                      # the HELLO lands when the next advert is due
    assert due > 2600
    hello = host2.poll(due)
    dev.feed(hello, due)
    while (out := dev.poll(due)) is not None:
        host2.feed(out, due)
    assert host2.connected, "the board's reply made the session"
    _talk(host2, dev, due + 1, due + 200)
    assert host2.connected and dev.connected
    assert host2.handshakes == 1 and host2.link_losses == 0
