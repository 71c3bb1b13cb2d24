"""A ring board fault in words: what is wrong (from the FAULT_* bits the board reports) and how the boxer's team clears it.

The board holds its fault phase (fault light, arming refused) until its self-test passes; the
host never claims otherwise. Clearing, without a restart: fix the cause, `clear` (the host sends
CMD_SELFTEST: the board re-tests its beams, piezos and buttons), then a game supervisor
acknowledges the fault's alarm (`sup ack ID`). Only then does the host arm again.
"""
import re

from ..fw import ringmsg as rm

STATUS_FAULT = re.compile(r"\bf=([0-9a-fA-F]+)\b")   # EV_STATS text: the fault bits, hex

RETEST = ("type 'clear' to re-test the ring sensors (the board's self-test); when it passes a "
          "game supervisor acknowledges with 'sup ack %s'")


def what(mask, text=""):
    """The fault bits -> one line naming each failed part."""
    parts = []
    beams = [n for n in range(8) if mask & (1 << n)]
    if beams:
        parts.append("beam sector%s %s broken at idle (blocked or misaligned: 7.3.1 boundary "
                     "unguarded)" % ("s" if len(beams) > 1 else "", ", ".join(map(str, beams))))
    piezos = [n for n in range(4) if mask & (1 << (8 + n))]
    if piezos:
        parts.append("piezo channel%s %s silent (disconnected)"
                     % ("s" if len(piezos) > 1 else "", ", ".join(map(str, piezos))))
    if mask & (1 << 12):
        parts.append("no-spin button stuck pressed")
    if mask & (1 << 13):
        parts.append("arm button stuck pressed")
    if mask & rm.FAULT_WALL:
        parts.append("wall piezo silent (7.3.2 strikes unseen)")
    if mask & rm.FAULT_INTEGRITY:
        parts.append("firmware files differ from the deploy manifest")
    if not parts:
        parts.append(text or "the board reports a fault")
    return "; ".join(parts)


def how_to_clear(mask, alarm_id=None):
    """The clearing step for these bits (alarm_id: the fault alarm a supervisor acknowledges;
    None: "its alarm")."""
    if mask & rm.FAULT_INTEGRITY:
        return ("redeploy the firmware ('ring device deploy'); a re-test does not clear an "
                "integrity fault")
    fix = []
    if mask & rm.FAULT_BEAM:
        fix.append("clear or re-align the beam (nothing across the ring edge; `ring doctor "
                   "--walk-test` if it persists)")
    if mask & (rm.FAULT_PIEZO | rm.FAULT_WALL):
        fix.append("reconnect the piezo cable")
    if mask & rm.FAULT_BUTTON:
        fix.append("free the stuck button")
    return (("; ".join(fix) + ", then " if fix else "fix the cause, then ") + RETEST % ("ID" if alarm_id is None else alarm_id))
