# Application messages carried by the ring link: event, command, phase and light codes, packed once for both runtimes.
# Shared by the firmware and the host (imported there as ringctl.fw.ringmsg): stdlib only,
# MicroPython/CPython common subset. The transport (framing, auth, delivery) is ringlink.py.
import struct

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

# ---- device -> host events -------------------------------------------------------------
# payload: <IIBqii boot_id, event_id, code, t_us, a, b> then optional UTF-8 text.
# (boot_id, event_id) is unique per event for the board's life: the host deduplicates on it
# across link sessions, so an event resent after a reconnect is recorded once.
EVENT_FMT = "<IIBqii"
EVENT_HDR = const(25)

EV_BOOT = const(1)        # a=reset cause (RESET_*), b=free heap
EV_SELFTEST = const(2)    # a=0 pass/1 fail, b=fault bitmask (FAULT_*), text=details
EV_FAULT = const(3)       # a=fault bitmask, text=what to check
EV_PHASE = const(4)       # a=new phase (PH_*), b=previous phase
EV_BEAM = const(5)        # a=sector 0..7, b=break duration in us
EV_WALL = const(6)        # a=peak level (ADC counts), rule 7.3.2
EV_MAT = const(7)         # a=1 spinner on the mat, 0 off it (rule 7.3.3)
EV_BUTTON = const(8)      # a=BTN_*, b=1 pressed / 0 released
EV_IMPACT = const(9)      # a=piezo channel, b=peak level
EV_REST = const(10)       # a=quiet ms observed, b=ms from first impact to last impact
EV_LIGHT = const(11)      # a=LIGHT_* now shown, b=us from triggering edge to light (-1: command)
EV_BARRED = const(12)     # a=BAR_* reason, b=detail (sector, button); firmware called no spin itself
EV_CONFIG = const(13)     # text="key=value" (answer to CMD_CONFIG_GET / after SET)
EV_OVERFLOW = const(14)   # a=number of events that could not be queued (never silent)
EV_HEAP = const(15)       # a=free heap bytes, b=peak used bytes
EV_RESULT = const(16)     # a=command id, b=0 ok / error code, text=error message
EV_HOST = const(17)       # a=1 host link up, 0 host silent (device disarmed, light LINK_LOST)
EV_STATS = const(18)      # a=loop_us p99, b=heap peak bytes, text="k=v ..." (answer to CMD_STATUS)
EV_LINK = const(19)       # a=board's link security alarms, b=wrong-key HELLOs (totals this boot), text="k=v ..." counters (on a rise, <= 1/s, and on CMD_STATUS)
EV_WITNESS = const(20)    # a=witnessed seq, b=witness.W_* (receipt/head/refused), text=mac hex or why

# EV_RESULT b: how the board took command a (text says why when it did not)
R_OK = const(0)           # done
R_REFUSED = const(1)      # not now: wrong phase, fault light, self-test running
R_INVALID = const(2)      # a bad argument (light code, config key or value)
R_UNKNOWN = const(3)      # a command code this firmware does not know
RESULT_NAMES = {R_OK: "ok", R_REFUSED: "refused", R_INVALID: "invalid", R_UNKNOWN: "unknown"}

EVENT_NAMES = {
    EV_BOOT: "boot", EV_SELFTEST: "selftest", EV_FAULT: "fault", EV_PHASE: "phase",
    EV_BEAM: "beam", EV_WALL: "wall", EV_MAT: "mat", EV_BUTTON: "button",
    EV_IMPACT: "impact", EV_REST: "rest", EV_LIGHT: "light", EV_BARRED: "barred",
    EV_CONFIG: "config", EV_OVERFLOW: "overflow", EV_HEAP: "heap", EV_RESULT: "result",
    EV_HOST: "host", EV_STATS: "stats", EV_LINK: "link", EV_WITNESS: "witness",
}

# ---- host -> device commands -----------------------------------------------------------
# payload: <BI code, command id> then optional UTF-8 text argument.
CMD_FMT = "<BI"
CMD_HDR = const(5)

CMD_ARM = const(1)          # "no more bets, come in spinner" (rule 6.3)
CMD_DISARM = const(2)       # end the spin window (no spin); the light goes back to idle
CMD_LIGHT = const(3)        # text=str(LIGHT_*): the host's verdict light
CMD_SELFTEST = const(4)     # run the sensor self-test now; EV_SELFTEST follows the EV_RESULT
CMD_CONFIG_GET = const(5)   # text=key, or "" for every key (one EV_CONFIG each)
CMD_CONFIG_SET = const(6)   # text="key=value"; validated, EV_RESULT says why if refused
CMD_RESET = const(7)        # reboot: text "repl" = into the MicroPython REPL, else the controller
CMD_STATUS = const(8)       # device answers with EV_PHASE, EV_HEAP, EV_MAT, EV_STATS, EV_LINK
CMD_SPIN_DONE = const(9)    # host adjudicated the spin: device goes REPORTED -> IDLE
CMD_WITNESS = const(10)     # text=witness.pack_feed(): record digests to chain (+ commit: receipt)
CMD_WITNESS_HEAD = const(11)  # text=nonce hex: EV_WITNESS with the live head signed over it

CMD_NAMES = {
    CMD_ARM: "arm", CMD_DISARM: "disarm", CMD_LIGHT: "light", CMD_SELFTEST: "selftest",
    CMD_CONFIG_GET: "config-get", CMD_CONFIG_SET: "config-set", CMD_RESET: "reset",
    CMD_STATUS: "status", CMD_SPIN_DONE: "spin-done", CMD_WITNESS: "witness",
    CMD_WITNESS_HEAD: "witness-head",
}

# ---- spin phases (issue 3) -------------------------------------------------------------
PH_IDLE = const(0)          # between spins
PH_ARMED = const(1)         # bets closed, waiting for the spinner to toss
PH_IN_FLIGHT = const(2)     # spinner left the mat: coins in the air
PH_LANDED = const(3)        # first coin impact
PH_AT_REST = const(4)       # impacts quiet: coins lie still, the camera decides
PH_REPORTED = const(5)      # board reported the spin; waiting for CMD_SPIN_DONE
PH_FAULT = const(6)         # a sensor fault holds the board (self-test failed)
PHASE_NAMES = ("idle", "armed", "in-flight", "landed", "at-rest", "reported", "fault")

# ---- why the firmware barred a spin (rule 7.3 / 7.2) ---------------------------------
BAR_BEAM = const(1)      # 7.3.1 a coin crossed or lies on the ring boundary
BAR_WALL = const(2)      # 7.3.2 a coin hit the ring wall above the layout
BAR_MAT = const(3)       # 7.3.3 spinner left the spinning area
BAR_BUTTON = const(4)    # 7.2 / 7.6 boxer pressed "no spin"
BAR_NAMES = {BAR_BEAM: "7.3.1 coin crossed the ring boundary",
             BAR_WALL: "7.3.2 coin hit the ring wall",
             BAR_MAT: "7.3.3 spinner not inside the spinning area",
             BAR_BUTTON: "7.2 boxer called no spin"}

# ---- buttons ---------------------------------------------------------------------------
BTN_NOSPIN = const(1)       # boxer's no-spin button (rule 7.2)
BTN_ARM = const(2)          # boxer's come-in-spinner button (rule 6.3)

# ---- light states: what the boxer sees -------------------------------------------------
LIGHT_OFF = const(0)        # all lamps off
LIGHT_IDLE = const(1)       # ready, no spin
LIGHT_ARMED = const(2)      # come in spinner
LIGHT_IN_FLIGHT = const(3)  # coins in the air
LIGHT_BARRED = const(4)     # no spin (rule 7): set by the board itself
LIGHT_HEADS = const(5)      # host verdict
LIGHT_TAILS = const(6)      # host verdict
LIGHT_ODDS = const(7)       # host verdict
LIGHT_UNSURE = const(8)     # host unsure: the boxer calls it
LIGHT_FAULT = const(9)      # sensor fault: no play
LIGHT_LINK_LOST = const(10) # host silent: board disarmed
LIGHT_SELFTEST = const(11)  # self-test running
LIGHT_NAMES = ("off", "idle", "armed", "in-flight", "barred", "heads", "tails", "odds",
               "unsure", "fault", "link-lost", "selftest")

# ---- reset causes (HELLO and EV_BOOT) ---------------------------------------------------
RESET_POWER_ON = const(1)   # power applied
RESET_WATCHDOG = const(3)   # the firmware hung: watchdog reset
RESET_SOFT = const(5)       # CMD_RESET or a soft reboot
RESET_OTHER = const(0)      # anything else (e.g. the reset button)
RESET_CRASH = const(6)      # main.py reset after an exception (firmware resets.py)
RESET_NAMES = {RESET_POWER_ON: "power-on", RESET_WATCHDOG: "watchdog",
               RESET_SOFT: "soft", RESET_OTHER: "other", RESET_CRASH: "crash"}

# ---- self-test / fault bits -------------------------------------------------------------
FAULT_BEAM = const(0x00FF)     # bit n: beam sector n broken at idle (blocked/misaligned)
FAULT_PIEZO = const(0x0F00)    # bit 8+n: piezo channel n has no noise floor (disconnected)
FAULT_BUTTON = const(0x3000)   # bit 12: no-spin stuck, bit 13: arm stuck
FAULT_WALL = const(0x4000)     # wall piezo silent
FAULT_INTEGRITY = const(0x8000)  # firmware files differ from the deploy manifest
FAULT_HOST = const(0x10000)    # host silent > 2 s


def pack_event(boot_id, event_id, code, t_us, a=0, b=0, text=None):
    head = struct.pack(EVENT_FMT, boot_id, event_id, code, t_us, a, b)
    if text:
        return head + (text.encode() if isinstance(text, str) else text)
    return head


def unpack_event(payload):
    """-> (boot_id, event_id, code, t_us, a, b, text). Raises ValueError if short."""
    if len(payload) < EVENT_HDR:
        raise ValueError("event payload too short")
    boot_id, event_id, code, t_us, a, b = struct.unpack_from(EVENT_FMT, payload, 0)
    text = bytes(payload[EVENT_HDR:]).decode() if len(payload) > EVENT_HDR else ""
    return boot_id, event_id, code, t_us, a, b, text


def pack_cmd(code, cmd_id, text=None):
    head = struct.pack(CMD_FMT, code, cmd_id)
    if text:
        return head + (text.encode() if isinstance(text, str) else text)
    return head


def unpack_cmd(payload):
    """-> (code, cmd_id, text). Raises ValueError if short."""
    if len(payload) < CMD_HDR:
        raise ValueError("command payload too short")
    code, cmd_id = struct.unpack_from(CMD_FMT, payload, 0)
    text = bytes(payload[CMD_HDR:]).decode() if len(payload) > CMD_HDR else ""
    return code, cmd_id, text


def describe_event(payload):
    """One readable line for logs and `ring link dump`."""
    boot_id, event_id, code, t_us, a, b, text = unpack_event(payload)
    name = EVENT_NAMES.get(code, "ev%d" % code)
    extra = ""
    if code == EV_PHASE and 0 <= a < len(PHASE_NAMES):
        extra = " " + PHASE_NAMES[a]
    elif code == EV_LIGHT and 0 <= a < len(LIGHT_NAMES):
        extra = " " + LIGHT_NAMES[a]
    elif code == EV_BARRED:
        extra = " " + BAR_NAMES.get(a, "?")
    s = "event %08x/%d %s t=%dus a=%d b=%d%s" % (boot_id, event_id, name, t_us, a, b, extra)
    if text:
        s += " " + repr(text)
    return s
