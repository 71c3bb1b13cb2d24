# Spin phases (idle -> armed -> in flight -> landed -> at rest -> reported) and the firmware's own "barred" calls; pure logic, time passed in.
# In-flight detection (be honest): the board has no sensor that sees the coins leave the kip.
# IN_FLIGHT therefore means "armed AND the spinner stands on the mat (for mat_settle_ms)":
# from then on the throw can come at any moment. The first piezo impact is LANDED. With
# use_mat=0 (no mat fitted) ARMED goes to IN_FLIGHT at once. An impact while still ARMED (the
# spinner never stood on the mat) is barred under 7.3.3.
from ringmsg import (PH_IDLE, PH_ARMED, PH_IN_FLIGHT, PH_LANDED, PH_AT_REST, PH_REPORTED,
                     PH_FAULT, EV_PHASE, EV_BEAM, EV_WALL, EV_MAT, EV_BUTTON, EV_IMPACT,
                     EV_REST, EV_BARRED, EV_FAULT, EV_HOST, BAR_BEAM, BAR_WALL, BAR_MAT,
                     BAR_BUTTON, BTN_NOSPIN, BTN_ARM, LIGHT_IDLE, LIGHT_ARMED,
                     LIGHT_IN_FLIGHT, LIGHT_BARRED, LIGHT_FAULT, LIGHT_LINK_LOST,
                     FAULT_BEAM, FAULT_HOST, FAULT_INTEGRITY)
from sensors import tdiff

WALL_HOLDOFF_US = 50000   # one strike rings the comparator several times: one event per 50 ms


class Spin:
    """Phase machine. `out` provides: emit(code, t_us, a, b, text=None) (t_us = ticks_us),
    show(light_state, edge_t_us or None) and now_us() (ticks_us). Every input takes the time
    of its edge so the reaction time can be measured."""

    def __init__(self, cfg, out):
        self.cfg = cfg
        self.out = out
        self.phase = PH_FAULT       # nothing is healthy until the boot self-test passed
        self.fault = 0              # FAULT_* bits currently set
        self.barred = 0             # BAR_* of this spin, 0 = not barred
        self.mat_on = 0
        self.mat_since = 0          # ticks_ms the spinner stepped on
        self.broken = 0             # confirmed broken beams (bitmask)
        self.broken_since = 0       # ticks_ms when the first of them broke
        self.first_impact = 0
        self.last_impact = 0
        self.host_up = False
        self.host_lost_shown = False
        self.last_wall = 0
        self.t_landed_ms = 0
        self.refused = None

    # ---- phase helpers ------------------------------------------------------------------
    def _phase(self, new, t_us):
        old = self.phase
        if new == old:
            return
        self.phase = new
        self.out.emit(EV_PHASE, t_us, new, old)

    def active(self):
        """Armed or coins in the air / landing: the window in which the firmware bars."""
        return PH_ARMED <= self.phase <= PH_AT_REST

    def bar(self, reason, detail, t_us):
        """7.3 / 7.2: light first (no host involved), then the event."""
        if self.barred or not self.active():
            return False
        self.barred = reason
        self.out.show(LIGHT_BARRED, t_us)
        self.out.emit(EV_BARRED, t_us, reason, detail)
        return True

    # ---- commands -----------------------------------------------------------------------
    def arm(self, t_us, now_ms):
        """CMD_ARM or the arm button. -> None, or why not (text for EV_RESULT)."""
        if self.fault & FAULT_INTEGRITY:
            return "locked: firmware files differ from the deploy manifest; redeploy"
        if self.phase == PH_FAULT:
            return "fault 0x%x: fix it and run the self-test" % self.fault
        if self.phase != PH_IDLE:
            return "already armed (phase %d)" % self.phase
        if not self.host_up:
            return "host link down"
        if self.broken:
            return "beam broken at sectors 0x%02x: clear the ring boundary (7.3.1)" % self.broken
        self.barred = 0
        self.first_impact = 0
        self.last_impact = 0
        self._phase(PH_ARMED, t_us)
        self.out.show(LIGHT_ARMED, None)
        if not self.cfg["use_mat"]:
            self._in_flight(t_us)
        elif self.mat_on:
            self.mat_since = now_ms   # already standing there: settle from now
        return None

    def _in_flight(self, t_us):
        self._phase(PH_IN_FLIGHT, t_us)
        if not self.barred:
            self.out.show(LIGHT_IN_FLIGHT, None)

    def disarm(self, t_us):
        if self.phase == PH_FAULT:
            return
        self._phase(PH_IDLE, t_us)
        self.barred = 0
        self.out.show(LIGHT_IDLE, None)

    def spin_done(self, t_us):
        """CMD_SPIN_DONE: the host adjudicated; the result light is the host's (CMD_LIGHT)."""
        if not self.active():
            return "no spin in progress (phase %d)" % self.phase
        self._phase(PH_REPORTED, t_us)
        self._phase(PH_IDLE, t_us)
        self.barred = 0
        return None

    def set_fault(self, bits, text, t_us):
        self.fault |= bits
        self._phase(PH_FAULT, t_us)
        self.out.show(LIGHT_FAULT, None)
        self.out.emit(EV_FAULT, t_us, self.fault, 0, text)

    def selftest_result(self, mask, t_us):
        """mask = FAULT_* bits found by the self-test (0 = pass)."""
        keep = self.fault & (FAULT_INTEGRITY | FAULT_HOST)
        self.fault = keep | mask
        if self.fault & ~FAULT_HOST:
            self._phase(PH_FAULT, t_us)
            self.out.show(LIGHT_FAULT, None)
            return False
        self._phase(PH_IDLE, t_us)
        self.out.show(LIGHT_LINK_LOST if not self.host_up else LIGHT_IDLE, None)
        return True

    # ---- host heartbeat ------------------------------------------------------------------
    def host(self, up, t_us):
        if up == self.host_up:
            return
        self.host_up = up
        self.out.emit(EV_HOST, t_us, 1 if up else 0, 0)
        if up:
            self.fault &= ~FAULT_HOST
            if self.phase == PH_IDLE:
                self.out.show(LIGHT_IDLE, None)
            return
        self.fault |= FAULT_HOST
        if self.active():
            # never keep a spin open with nobody to adjudicate it
            self._phase(PH_IDLE, t_us)
            self.barred = 0
        if self.phase != PH_FAULT:
            self.out.show(LIGHT_LINK_LOST, None)

    # ---- sensors ---------------------------------------------------------------------------
    def beam_break(self, s, t_us, now_ms):
        if not self.broken:
            self.broken_since = now_ms
        self.broken |= 1 << s
        if self.active() and self.phase != PH_AT_REST:
            self.bar(BAR_BEAM, s, t_us)      # 7.3.1
        self.out.emit(EV_BEAM, t_us, s, 0)   # b=0: break started (still broken)

    def beam_clear(self, s, t_start_us, dur_us):
        self.broken &= ~(1 << s)
        self.out.emit(EV_BEAM, t_start_us, s, dur_us)

    def wall(self, t_us, level):
        if tdiff(t_us, self.last_wall) < WALL_HOLDOFF_US and self.last_wall:
            return
        self.last_wall = t_us or 1
        if self.active() and self.phase != PH_AT_REST:
            self.bar(BAR_WALL, level, t_us)  # 7.3.2
        self.out.emit(EV_WALL, t_us, level, 0)

    def mat(self, on, t_us, now_ms):
        self.mat_on = on
        if on:
            self.mat_since = now_ms
        elif self.phase == PH_IN_FLIGHT:
            self.bar(BAR_MAT, 0, t_us)       # 7.3.3 left the spinning area while spinning
        self.out.emit(EV_MAT, t_us, on, 0)

    def button(self, btn, pressed, t_us, now_ms):
        if btn == BTN_NOSPIN and pressed:
            self.bar(BAR_BUTTON, btn, t_us)  # 7.2 / 7.6 the boxer's call
        self.out.emit(EV_BUTTON, t_us, btn, pressed)
        if btn == BTN_ARM and pressed and self.phase == PH_IDLE:
            err = self.arm(t_us, now_ms)
            if err:
                self.refused = err   # the app reports it as EV_RESULT (command id 0 = button)

    def impact(self, ch, level, t_us, now_ms):
        self.out.emit(EV_IMPACT, t_us, ch, level)
        ph = self.phase
        if ph == PH_ARMED:
            self.bar(BAR_MAT, 1, t_us)       # 7.3.3 coins came down, spinner never on the mat
        if ph == PH_ARMED or ph == PH_IN_FLIGHT:
            self.first_impact = now_ms
            self.t_landed_ms = now_ms
            self._phase(PH_LANDED, t_us)
        if ph in (PH_ARMED, PH_IN_FLIGHT, PH_LANDED):
            self.last_impact = now_ms

    def tick(self, now_ms, quiet_since_ms, t_us):
        """Timers. quiet_since_ms: ticks_ms of the last piezo sample above rest_threshold."""
        ph = self.phase
        cfg = self.cfg
        if ph == PH_ARMED and self.mat_on and tdiff(now_ms, self.mat_since) >= cfg["mat_settle_ms"]:
            self._in_flight(t_us)
        elif ph == PH_LANDED:
            last = quiet_since_ms
            if tdiff(self.last_impact, last) > 0:
                last = self.last_impact
            quiet = tdiff(now_ms, last)
            if quiet >= cfg["quiet_ms"]:
                self._phase(PH_AT_REST, t_us)
                self.out.emit(EV_REST, t_us, quiet, tdiff(self.last_impact, self.first_impact))
        elif ph == PH_IDLE and self.broken and tdiff(now_ms, self.broken_since) >= cfg["blocked_ms"]:
            self.set_fault(self.broken & FAULT_BEAM,
                           "beam broken at idle for %d ms: sectors 0x%02x blocked or misaligned"
                           % (cfg["blocked_ms"], self.broken), t_us)
