"""The ring board as the audit log's witness, host side: feed it the log, check its evidence.

WitnessFeed (in RingHost): after each spin, send the board the body digest of every record
it has not yet chained (firmware/lib/witness.py computes the log's hashes itself from them)
and ask for a commit; the board persists its head and answers with a receipt, an HMAC under
the witness key, which is recorded like every device event. The host never holds the key.

Evidence (in `ring log verify --witness PORT|FLASH_DIR --witness-key FILE`): the board's
head, read from a copy of its flash or asked live over a fresh nonce, and the receipts
found in the log, each checked with the surveillance office's copy of the key.
"""
import binascii
import json
import os
from pathlib import Path

from ..errors import UserError
from ..fw import ringmsg as rm
from ..fw import witness as W
from ..fw.ringlink import hmac_key

RECEIPT_MARK = '"name":"witness"'   # cheap test before parsing an event record
RESERVE = 16       # link send-ring slots always left for play commands (arm, light, spin done)
MAX_BATCH = 32     # witness commands per sync (2 records each)


def load_key(path):
    try:
        key = Path(path).read_bytes()
    except OSError as exc:
        raise UserError("cannot read the witness key %s: %s" % (path, exc.strerror or exc), code=1)
    if len(key) != W.KEY_LEN:
        raise UserError("%s is %d bytes, not a %d-byte witness key (the file `ring device "
                        "provision --witness-copy` wrote)" % (path, len(key), W.KEY_LEN), code=1)
    return key


class Evidence:
    """What the board says it witnessed, and the key to check it (and the log's receipts)."""

    def __init__(self, key, source, seq, head=None, mac=None, nonce=None, state_mac=None):
        self.key = key
        self.source = source
        self.seq = seq               # the board's witnessed seq
        self.head = head             # bytes (from flash) or None (live: only its mac)
        self.mac = mac               # live answer: head_mac over nonce
        self.nonce = nonce
        self.state_mac = state_mac   # flash: receipt mac stored with the head
        self.log = None
        self.receipts = 0
        self.receipts_bad = 0
        self.last_receipt = 0

    @classmethod
    def from_flash(cls, flash_dir, key):
        p = Path(flash_dir) / W.STATE_FILE
        if not p.exists():
            return cls(key, str(p), 0, head=W.GENESIS,             # never committed: genesis
                       state_mac=W.receipt_mac(hmac_key, key, 0, W.GENESIS))
        try:
            seq, head, mac = W.unpack_state(p.read_bytes())
        except ValueError as exc:
            raise UserError("%s is not a witness state (%s)" % (p, exc), code=1)
        return cls(key, str(p), seq, head=head, state_mac=mac)

    @classmethod
    def from_port(cls, port, key, query, device_id=None):
        """Ask the live board for its head over a fresh nonce (the host being checked cannot
        replay an old answer). `query(port, device_id, nonce) -> (seq, mac)` talks to the
        board (ringctl.device.witness_query.query_head)."""
        nonce = os.urandom(16)
        seq, mac = query(port, device_id, nonce)
        return cls(key, port, seq, mac=mac, nonce=nonce)

    # ---- during the verify walk ----------------------------------------------------------
    def saw(self, seq, kind, text, stored_hash):
        """Each record as the walk reads it: receipts are checked against the log's own record
        at the receipt's seq (already verified by the walk, since it comes earlier)."""
        if kind != "event" or text is None or RECEIPT_MARK not in text:
            return
        data = json.loads(text)
        if data.get("code") != rm.EV_WITNESS or data.get("b") != W.W_RECEIPT:
            return
        self.receipts += 1
        at = data.get("a")
        self.last_receipt = max(self.last_receipt, at or 0)
        h = self.log.hash_at(at) if at else "0" * 64
        ok = False
        if h is not None:
            try:
                want = W.receipt_mac(hmac_key, self.key, at, bytes.fromhex(h))
                ok = binascii.unhexlify(data.get("text", "")) == want
            except (ValueError, TypeError):
                ok = False
        if not ok:
            self.receipts_bad += 1
            self._problems.add(seq, "witness-receipt",
                               "the board's receipt for seq %s does not match the log's record %s: "
                               "records up to seq %s were rewritten (or the receipt forged)"
                               % (at, at, at) if h is not None else
                               "the board's receipt names seq %s, which is not in the log" % at)

    def start(self, log, problems):
        self.log = log
        self._problems = problems

    def check(self, log, walk, problems):
        """After the walk: the board's head against the log. -> summary for the report."""
        last = walk.last_seq
        head_hex = None
        if self.head is not None:
            if W.receipt_mac(hmac_key, self.key, self.seq, self.head) != self.state_mac:
                problems.add(None, "witness-key", "%s is not signed by this witness key: wrong "
                             "key file, or the flash copy was altered" % self.source)
            head_hex = binascii.hexlify(self.head).decode()
        if self.seq > last:
            problems.add(last + 1 if last else None, "witness-truncated",
                         "the board witnessed %d records, the log ends at seq %d: records %d..%d "
                         "were cut off" % (self.seq, last, last + 1, self.seq))
        elif self.seq:
            h = log.hash_at(self.seq)
            if h is None:
                problems.add(self.seq, "witness-truncated",
                             "the board witnessed seq %d, which is missing from the log" % self.seq)
            elif head_hex is not None and h != head_hex:
                problems.add(self.seq, "witness-rewritten",
                             "record %d differs from what the board witnessed: the log up to it "
                             "was rewritten" % self.seq)
            elif self.mac is not None and W.head_mac(hmac_key, self.key, self.nonce, self.seq,
                                                      bytes.fromhex(h)) != self.mac:
                problems.add(self.seq, "witness-rewritten",
                             "the board's live head at seq %d does not match the log (rewritten), "
                             "or the key is not this board's" % self.seq)
        if self.last_receipt > self.seq:
            problems.add(None, "witness-rollback",
                         "the log holds a receipt for seq %d but the board's head is at %d: the "
                         "board's flash was restored from an older copy" % (self.last_receipt, self.seq))
        return {"source": self.source, "board_seq": self.seq, "receipts": self.receipts,
                "receipts_bad": self.receipts_bad,
                "unwitnessed_after": self.seq if last > self.seq else None,
                "unwitnessed_records": max(0, last - self.seq)}


class WitnessFeed:
    """RingHost's side: keeps the board's chain level with the log, one commit per spin.

    `on_event(ev)` takes every EV_WITNESS (after it is recorded); `sync()` sends what the
    board lacks and asks for a receipt. Until the board has said where it stands (its answer
    to the head query sent by `start()`), nothing is sent."""

    def __init__(self, log, link, alarm=None):
        self.log = log
        self.link = link
        self.alarm = alarm or (lambda kind, text: None)   # RingHost._alarm: recorded, shown
        self.board_seq = None        # the board's witnessed seq, once it told us
        self.problem = None
        self.receipts = 0
        self.commit_due = False
        self.resume = False          # a send failed: ask the board's head again, then go on

    def start(self):
        """Ask where the board's chain stands (after the link comes up or the board restarts)."""
        self.board_seq = None
        self._send(rm.CMD_WITNESS_HEAD, binascii.hexlify(os.urandom(16)).decode())

    def _send(self, code, text):
        """A command to the board; a link that cannot take it (queue full, link down) only
        delays witnessing: the board's head is asked for again and the feed resumes."""
        try:
            self.link.send_cmd(code, text)
            return True
        except UserError:
            self.board_seq = None
            self.resume = True
            return False

    def on_event(self, ev):
        if ev.code != rm.EV_WITNESS:
            return
        if ev.b == W.W_REFUSED:
            if ev.text != self.problem and "send from" not in ev.text and ev.text != W.BUSY:
                self.alarm("witness", "audit witness: the ring board refuses: %s" % ev.text)
            self.problem = ev.text
            self.board_seq = None
            if "send from" in ev.text or ev.text == W.BUSY:
                self.board_seq = ev.a          # resume from where the board really is
                self.problem = None
                self.commit_due = True         # the receipt asked for is still owed
            return
        head_seq = self.log.head()[0]
        if ev.a > head_seq:
            self.problem = ("the ring board has witnessed %d records but this audit log has %d: "
                            "records were cut off, or this is not this board's log" % (ev.a, head_seq))
            self.board_seq = None
            self.alarm("witness-mismatch", "AUDIT WITNESS: " + self.problem)
            return
        self.problem = None
        if ev.b == W.W_HEAD:
            self.board_seq = ev.a
        else:
            self.receipts += 1

    def sync(self, commit=True):
        """Send the records the board lacks, as many as the link's send ring has room for
        (RESERVE slots stay free for play commands); the rest go on the next call. With
        `commit` (once per spin) the last batch that reaches the log's head asks for the
        board's receipt, now or on the call that catches up. -> records sent."""
        self.commit_due = self.commit_due or commit
        if self.board_seq is None:
            if self.resume:
                self.resume = False
                self.start()
            return 0
        head_seq = self.log.head()[0]
        if head_seq <= self.board_seq:
            return 0
        session = getattr(self.link, "session", None)
        cmds = MAX_BATCH if session is None else min(MAX_BATCH, session.tx_free - RESERVE)
        if cmds <= 0:
            return 0
        until = min(head_seq, self.board_seq + cmds * W.FEED_MAX)
        last = self.commit_due and until == head_seq
        start, batch, first = self.board_seq, [], self.board_seq + 1
        for seq, digest in self.log.digests(self.board_seq, until):
            batch.append(digest)
            if len(batch) == W.FEED_MAX or seq == until:
                commit = last and seq == until
                self.board_seq = seq               # before the board can answer
                if commit:
                    self.commit_due = False
                if not self._send(rm.CMD_WITNESS, W.pack_feed(first, batch, commit)):
                    self.commit_due = self.commit_due or commit
                    break
                if self.board_seq != seq:          # refused already (a synchronous link)
                    break
                first, batch = seq + 1, []
        return max(0, (self.board_seq or 0) - start)
