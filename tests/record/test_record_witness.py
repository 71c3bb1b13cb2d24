"""The board as the log's witness (host side against the board's own code, firmware/lib/witness.py):
truncation, recomputed rewrites, a copy without its -wal and a rolled-back flash are caught;
the chain alone catches none of them."""
import os
import shutil
import sqlite3
from types import SimpleNamespace


from ringctl.cli import main
from ringctl.event import Event
from ringctl.fw import ringmsg as rm
from ringctl.fw import witness as W
from ringctl.fw.ringlink import hmac_key
from ringctl.record import AuditLog
from ringctl.record.records import record_event
from ringctl.record.witness import Evidence, WitnessFeed

KEY = bytes(range(100, 132))
BOOT = 0xB007


class Board:
    """The firmware's Witness behind a link that delivers its answers to the host in order,
    each recorded before the host acts on it (as RingHost does)."""

    def __init__(self, flash, log):
        self.flash = str(flash)
        self.witness = W.Witness(lambda n: os.path.join(self.flash, n), hmac_key)
        self.log = log
        self.feed = None
        self.eid = 0
        self.sent = []
        self.busy = False

    def reboot(self):
        self.witness = W.Witness(lambda n: os.path.join(self.flash, n), hmac_key)

    def send_cmd(self, code, text=""):
        self.sent.append((code, text))
        r = self.witness.command(code, text, self.busy)
        if r is not None:
            self.eid += 1
            b, a, txt = r
            ev = Event(BOOT, self.eid, rm.EV_WITNESS, 0, a, b, txt)
            record_event(self.log, ev)
            self.feed.on_event(ev)
        return len(self.sent)


def provisioned(tmp_path):
    flash = tmp_path / "flash"
    flash.mkdir()
    (flash / W.KEY_FILE).write_bytes(KEY)
    (tmp_path / "witness.key").write_bytes(KEY)
    return flash


def play(tmp_path, spins=4, per_spin=7, alarm=None):
    flash = provisioned(tmp_path)
    log = AuditLog(tmp_path / "audit.db")
    board = Board(flash, log)
    feed = board.feed = WitnessFeed(log, board, alarm=alarm)
    feed.start()
    n = 0
    for spin in range(spins):
        for _ in range(per_spin):
            n += 1
            log.append("event", {"spin": spin, "n": n, "who": "boxer Ana"}, event=(1, n))
        log.append("spin", {"spin": spin, "outcome": "heads"})
        feed.sync()
    return log, board, feed, flash


def verify(path, flash, key=KEY):
    return AuditLog(path, readonly=True).verify(witness=Evidence.from_flash(flash, key))


def names(report):
    return {p["problem"] for p in report["problems"]}


def test_witnessed_log_verifies_and_every_receipt_checks(tmp_path):
    log, board, feed, flash = play(tmp_path)
    assert feed.receipts == 4 and board.witness.seq == log.head()[0] - 1   # last receipt is newer
    rep = verify(log.path, flash)
    assert rep["ok"], rep["problems"]
    assert rep["witness"]["receipts"] == 4 and rep["witness"]["receipts_bad"] == 0
    assert rep["witness"]["unwitnessed_records"] == 1
    # one commit (flash write) per spin, never per record
    commits = [W.unpack_feed(t)[1] & W.F_COMMIT for c, t in board.sent if c == rm.CMD_WITNESS]
    assert sum(commits) == 4 and len(commits) > 4


def test_truncation_before_the_last_receipt_is_caught(tmp_path):
    log, board, feed, flash = play(tmp_path)
    last = log.head()[0]
    log.close()
    db = sqlite3.connect(tmp_path / "audit.db")
    db.execute("DROP TRIGGER records_no_delete")
    db.execute("DELETE FROM records WHERE seq > ?", (last - 6,))
    db.commit()
    assert AuditLog(tmp_path / "audit.db", readonly=True).verify()["problems"] == [
        {"seq": None, "problem": "triggers-missing",
         "detail": "append-only triggers removed: records_no_delete"}]
    rep = verify(tmp_path / "audit.db", flash)
    assert "witness-truncated" in names(rep)


def forge(src, dst, edit_seq, new_data):
    """Root's best rewrite: every record copied into a fresh log with one changed and the
    whole chain recomputed with the real code (it verifies on its own)."""
    old = AuditLog(src, readonly=True)
    new = AuditLog(dst)
    for r in old.records():
        data = new_data if r.seq == edit_seq else r.data
        event = (r.boot_id, r.event_id) if r.boot_id is not None else None
        new.append(r.kind, data, blob=r.blob, event=event, ts=r.ts_us / 1e6)
    new.close()
    old.close()


def test_recomputed_rewrite_passes_the_chain_but_not_the_witness(tmp_path, capsys):
    log, board, feed, flash = play(tmp_path)
    log.close()
    forged = tmp_path / "forged.db"
    forge(tmp_path / "audit.db", forged, 5, {"spin": 0, "n": 5, "who": "nobody"})
    assert AuditLog(forged, readonly=True).verify()["ok"]          # the chain alone is fooled
    rep = verify(forged, flash)
    assert {"witness-rewritten", "witness-receipt"} <= names(rep)
    assert main(["log", "verify", "--db", str(forged), "--witness", str(flash),
                 "--witness-key", str(tmp_path / "witness.key")]) == 1
    assert "witness-rewritten" in capsys.readouterr().err
    # rewriting only after the last witnessed record is the documented blind spot
    seq = board.witness.seq
    forge(tmp_path / "audit.db", tmp_path / "tail.db", seq + 1, {"late": True})
    assert verify(tmp_path / "tail.db", flash)["ok"]


def test_copy_without_its_wal_is_caught(tmp_path):
    log, board, feed, flash = play(tmp_path)
    log.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # what SQLite does every 1000 pages
    for n in range(5):                                 # the newest spin: still in the -wal
        log.append("event", {"late": n}, event=(2, n))
    feed.sync()
    copy = tmp_path / "copy"
    copy.mkdir()
    shutil.copy(tmp_path / "audit.db", copy / "audit.db")
    n = AuditLog(copy / "audit.db", readonly=True).verify()
    assert n["ok"] and n["head"]["seq"] < log.head()[0]            # fewer records, still "ok"
    assert "witness-truncated" in names(verify(copy / "audit.db", flash))


def test_wrong_key_and_rolled_back_flash(tmp_path):
    log, board, feed, flash = play(tmp_path, spins=2)
    assert "witness-key" in names(verify(log.path, flash, key=b"k" * 32))
    old_state = (flash / W.STATE_FILE).read_bytes()
    log.append("op", {"more": 1})
    feed.sync()
    (flash / W.STATE_FILE).write_bytes(old_state)     # someone restores the older flash
    assert "witness-rollback" in names(verify(log.path, flash))


def test_board_refuses_a_fork_and_the_host_resumes_after_a_reboot(tmp_path):
    log, board, feed, flash = play(tmp_path, spins=2)
    seq = board.witness.seq
    # a rewriting host trying to re-feed the board from seq 1
    r = board.witness.feed(W.pack_feed(1, [bytes(32)], commit=True))
    assert r[0] == W.W_REFUSED and board.witness.seq == seq
    # uncommitted digests are lost in a reboot; the host asks and resends from the flash
    log.append("op", {"x": 1})
    board.witness.feed(W.pack_feed(seq + 1, [bytes(32)]))
    board.reboot()
    assert board.witness.seq == seq
    feed.start()
    assert feed.board_seq == seq
    log.append("op", {"x": 2})
    feed.sync()
    assert verify(log.path, flash)["ok"]


def test_a_board_ahead_of_the_log_is_an_alarm(tmp_path):
    said = []
    log, board, feed, flash = play(tmp_path, spins=2)
    log.close()
    fresh = AuditLog(tmp_path / "new.db")               # e.g. audit.db replaced by an empty one
    feed2 = WitnessFeed(fresh, board, alarm=lambda kind, text: said.append((kind, text)))
    board.log, board.feed = fresh, feed2
    feed2.start()
    assert feed2.board_seq is None and said[-1][0] == "witness-mismatch" and "cut off" in said[-1][1]
    ahead = board.witness.seq
    fresh.append("op", {"new": 1})
    assert feed2.sync() == 0 and board.witness.seq == ahead   # nothing fed over the old chain


def test_a_long_backlog_goes_in_link_sized_pieces_with_one_commit(tmp_path):
    flash = provisioned(tmp_path)
    log = AuditLog(tmp_path / "audit.db")
    board = Board(flash, log)
    board.session = SimpleNamespace(tx_free=64 - 8)      # 8 commands already in flight
    feed = board.feed = WitnessFeed(log, board)
    feed.start()
    for n in range(200):
        log.append("event", {"n": n}, event=(1, n))
    sent = [feed.sync(commit=True)]
    while feed.board_seq < log.head()[0] - 1:
        sent.append(feed.sync(commit=False))
    from ringctl.record.witness import MAX_BATCH
    per_call = min(MAX_BATCH, 64 - 8 - 16) * W.FEED_MAX
    assert sent[0] == per_call and all(s <= per_call for s in sent)
    commits = [W.unpack_feed(t)[1] & W.F_COMMIT for c, t in board.sent if c == rm.CMD_WITNESS]
    assert sum(commits) == 1 and commits[-1] == 1        # one receipt, when caught up
    assert verify(log.path, flash)["ok"]


def test_a_board_busy_with_a_spin_defers_and_the_host_resends(tmp_path):
    log, board, feed, flash = play(tmp_path, spins=1)
    seq = board.witness.seq
    log.append("op", {"during": "spin"})
    board.busy = True                 # armed / coins in the air: the board hashes nothing
    feed.sync()
    assert board.witness.seq == seq and feed.board_seq == seq and feed.problem is None
    board.busy = False
    feed.sync()                       # the commit asked for before is still due
    assert board.witness.seq > seq
    assert verify(log.path, flash)["ok"]
