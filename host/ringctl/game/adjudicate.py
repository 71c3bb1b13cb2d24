"""Spin adjudication: fuse the ring board's events with the camera's verdict into one outcome (rule 7).

Use, one `SpinAdjudicator` per spin:

    adj = SpinAdjudicator(spin_id)
    adj.feed(event)                 # each board event of this spin (ringctl.event.Event)
    adj.call_no_spin("boxer", "7.1.2", "not spun high enough")   # a human call (7.1/7.2/7.5)
    out = adj.decide(verdicts, need=3)   # verdicts of still frames (vision.classify), or None
    if out.result == "unsure":
        out = adj.resolve("boxer", "heads", "both heads, read by eye")   # recorded
    adj.steps                       # every call, refusal and decision, for the audit log

Order of precedence, safest first (a wrong heads/tails that gets paid is the worst failure):
  1. no-spin: any human call (7.2, final 7.6), any sensor barring (7.3.1 boundary, 7.3.2 wall,
     7.3.3 mat) and any camera no-spin reason (7.3.1, 7.3.4); every reason is kept;
  2. unsure: camera missing/stalled, fewer still frames than needed, frames disagree, camera
     unsure, or the ring's own evidence is incomplete (no impact, no at-rest, lost events,
     sensor fault);
  3. heads/tails/odds from the camera, only if every still frame agrees (this is the one
     place that rule lives) and its coins agree with its result.
"""
from ..fw import ringmsg as rm

RESULTS = ("heads", "tails", "odds", "no-spin", "unsure")
ENTITLED = ("boxer", "supervisor")  # 7.1: the boxer or a game supervisor; 7.5: never a player
LIGHT_FOR = {"heads": rm.LIGHT_HEADS, "tails": rm.LIGHT_TAILS, "odds": rm.LIGHT_ODDS,
             "no-spin": rm.LIGHT_BARRED, "unsure": rm.LIGHT_UNSURE}
CALL_RULES = {"6.1": "the coins were not on the kip one head up and one tail up when spun",
              "7.1.1": "the spinner has not spun the coins",
              "7.1.2": "the coins were not spun to a reasonable height above the spinner's head",
              "7.3.1": "a coin landed or came to rest outside the ring",
              "7.3.2": "a coin hit something other than the other coin or the ring side below the layout",
              "7.3.3": "the spinner was not completely inside the ring when spinning",
              "7.3.4": "a coin does not lie flat in the ring",
              "7.4.1": "a coin was thrown out of the ring"}


class AdjudicationError(Exception):
    """A refused call (wrong actor, outcome already final, ...): carries the deciding rule."""

    def __init__(self, rule, reason):
        super().__init__("%s: %s" % (rule, reason))
        self.rule = rule
        self.reason = reason


class Outcome:
    """One spin's outcome. `reasons` are "rule text" strings; `final` = cannot be overridden."""

    def __init__(self, result, reasons, decided_by, final=False, evidence=None, override=None):
        assert result in RESULTS
        self.result = result
        self.reasons = list(reasons)
        self.decided_by = decided_by
        self.final = final
        self.evidence = evidence or {}
        self.override = override   # {"actor", "from", "reason"} when a human changed it

    @property
    def light(self):
        return LIGHT_FOR[self.result]

    def as_json(self):
        return {"result": self.result, "reasons": self.reasons, "decided_by": self.decided_by,
                "final": self.final, "light": rm.LIGHT_NAMES[self.light], "evidence": self.evidence,
                "override": self.override}

    def __repr__(self):
        return "Outcome(%s, %r)" % (self.result, self.reasons)


def _check_actor(actor, what):
    if actor in ENTITLED:
        return
    if actor in ("player", "spinner"):
        raise AdjudicationError("7.5", "a player, spinner or not, may not %s" % what)
    raise AdjudicationError("7.1", "only the boxer or a game supervisor may %s (not %r)" % (what, actor))


def _only_missing_coins(v):
    """A camera no-spin whose only reason is coins not found: not evidence of a void (7.3.1
    needs a coin seen outside), so it is judged as unsure."""
    reasons = v.get("reasons") or []
    return bool(reasons) and all("fewer than two coins" in r for r in reasons)


class SpinAdjudicator:
    """Collects one spin's evidence and decides it once; later human steps are recorded."""

    def __init__(self, spin_id=None, stale_s=2.0):
        self.spin_id = spin_id
        self.stale_s = stale_s       # a camera verdict older than this is "stalled"
        self.events = []             # ringctl.event.Event, in arrival order
        self.calls = []              # human no-spin calls (7.1/7.2/7.4.1)
        self.steps = []              # everything recorded, in order (for the audit log)
        self.outcome = None
        self.lost = None             # LostCoinProcedure when 7.4 was started

    # ---- evidence -----------------------------------------------------------------------
    def feed(self, event):
        """Add one board event (ringctl.event.Event) of this spin."""
        self.events.append(event)
        if event.code == rm.EV_BUTTON and event.a == rm.BTN_NOSPIN and event.b == 1:
            # The no-spin button is the boxer's: a boxer's call (7.2), final (7.6).
            self._add_call("boxer", "7.2", "boxer pressed no spin", source="button", t_us=event.t_us)
        elif event.code == rm.EV_BARRED and event.a == rm.BAR_BUTTON:
            self._add_call("boxer", "7.2", "boxer called no spin (device)", source="device",
                           t_us=event.t_us)

    def call_no_spin(self, actor, rule="7.1.1", reason=""):
        """A human declares the spin invalid (7.1 / 7.3 / 7.2). Players are refused (7.5),
        and the refusal is recorded too. -> the recorded step."""
        if rule not in CALL_RULES:
            raise AdjudicationError("7.1", "unknown rule %r for a no-spin call; use one of %s"
                                    % (rule, ", ".join(CALL_RULES)))
        try:
            _check_actor(actor, "declare a spin invalid")
        except AdjudicationError as exc:
            self.steps.append({"step": "call-refused", "actor": actor, "rule": exc.rule,
                               "reason": exc.reason})
            raise
        if self.outcome is not None and self.outcome.result != "no-spin":
            # 7.2: "where possible before the coins come to rest": after the decision it is an
            # override of the announced result, which resolve() records with a reason.
            raise AdjudicationError("7.2", "the spin was already decided (%s): use resolve() with "
                                           "a reason to override it" % self.outcome.result)
        return self._add_call(actor, rule, reason or CALL_RULES[rule], source="call")

    def _add_call(self, actor, rule, reason, source, t_us=None):
        step = {"step": "no-spin-call", "actor": actor, "rule": rule, "reason": reason,
                "source": source, "t_us": t_us}
        self.calls.append(step)
        self.steps.append(step)
        return step

    def coin_out_of_ring(self, coins=1, actor="boxer", coin_set=None):
        """Start the lost-coin procedure (7.4); its first step is the no-spin call (7.4.1)."""
        _check_actor(actor, "run the lost-coin procedure")
        if self.lost is not None:
            raise AdjudicationError("7.4", "the lost-coin procedure for this spin has already "
                                           "started: go on with its steps")
        reason = "%d coin(s) thrown out of the ring" % coins
        self._add_call(actor, "7.4.1", reason, source="7.4")
        if self.outcome is not None and self.outcome.result != "no-spin":
            # 7.4.1 then 7.6: the "no spin" call voids the spin for good, whatever was decided
            # before (an unsure spin is no longer the boxer's to call heads or tails).
            prev = self.outcome
            self.outcome = Outcome("no-spin", ["7.4.1 %s (%s): no spin" % (reason, actor),
                                               "7.6 a called no spin is invalid regardless of how "
                                               "the coins come to rest"] + prev.reasons,
                                   actor, final=True, evidence=prev.evidence,
                                   override={"actor": actor, "kind": "void", "from": prev.result,
                                             "reason": "7.4.1 " + reason})
            self.steps.append({"step": "void", "actor": actor, "from": prev.result,
                               "result": "no-spin", "reason": reason, "rule": "7.4.1"})
        self.lost = LostCoinProcedure(coins, actor, coin_set, self.steps)
        return self.lost

    # ---- deciding -----------------------------------------------------------------------
    def decide(self, verdicts, now_s=None, need=1):
        """Decide once. `verdicts`: a camera verdict dict (issue-4 JSON), a list of them (still
        frames: at least `need` of them, all agreeing), or None when the camera is missing or
        stalled."""
        if self.outcome is not None:
            raise AdjudicationError("6.9", "spin already decided: %s" % self.outcome.result)
        ev = self._evidence()
        if verdicts is None:
            verdicts = []
        elif isinstance(verdicts, dict):
            verdicts = [verdicts]
        ev["frames"] = len(verdicts)
        no_spin = []                          # (rule-cited reason) strings
        final_calls = [c for c in self.calls]
        rest_t = ev["rest"]["t_us"] if ev["rest"] else None
        for c in final_calls:
            late = c["t_us"] is not None and rest_t is not None and c["t_us"] > rest_t
            no_spin.append("%s %s (%s)%s" % (c["rule"], c["reason"], c["actor"],
                                             ", called after the coins came to rest (7.2: where "
                                             "possible before)" if late else ""))
        if final_calls:
            no_spin.append("7.6 a called no spin is invalid regardless of how the coins come to rest")
        no_spin += self._sensor_bars(ev)
        for v in verdicts:
            if isinstance(v, dict) and v.get("result") == "no-spin" and not _only_missing_coins(v):
                for r in v.get("reasons") or ["7.3 camera: no spin"]:
                    if r not in no_spin:
                        no_spin.append(r)
        if no_spin:
            no_spin = list(dict.fromkeys(no_spin))       # each reason once, first-seen order
            return self._decided("no-spin", no_spin, "boxer" if final_calls else "ring", True, ev)

        unsure = self._evidence_gaps(ev)
        results = []
        if not verdicts:
            unsure.append("camera verdict missing or stalled: boxer to call the spin (manual)")
        for v in verdicts:
            problem = self._check_verdict(v, now_s)
            if problem:
                unsure.append(problem)
            else:
                results.append(v["result"])
        if verdicts and len(verdicts) < need:
            unsure.append("unsure: only %d still frame(s) of the coins on camera, need %d: boxer "
                          "to call" % (len(verdicts), need))
        if len(set(results)) > 1:
            unsure.append("still frames disagree (%s): boxer to call" % ", ".join(sorted(set(results))))
        if any(isinstance(v, dict) and isinstance(v.get("coins"), list) and len(v["coins"]) < 2 for v in verdicts):
            # no void without evidence (issue 12): the board's count says how many coins landed
            unsure.append("camera found fewer than two coins and nothing seen leaving; board sensed %d "
                          "coin landing%s and no boundary break: boxer to call"
                          % (ev["impacts"], "" if ev["impacts"] == 1 else "s"))
        if unsure:
            return self._decided("unsure", unsure, "ring", False, ev)
        result = results[0]
        reasons = ["6.9 %s: camera (%d agreeing frame%s) and ring sensors agree"
                   % (result, len(results), "" if len(results) == 1 else "s")]
        return self._decided(result, reasons, "camera", False, ev)

    def resolve(self, actor, result, reason):
        """The boxer (or a game supervisor) confirms or overrides the outcome, with a reason.
        A no-spin is final (7.6) and cannot be turned into a result."""
        if self.outcome is None:
            raise AdjudicationError("6.9", "decide() the spin before resolving it")
        if result not in RESULTS or result == "unsure":
            raise AdjudicationError("6.9", "resolve to heads, tails, odds or no-spin, not %r" % (result,))
        try:
            _check_actor(actor, "call or override a spin")
            if not reason or not str(reason).strip():
                raise AdjudicationError("6.9", "a confirmation or override needs a recorded reason")
            if self.outcome.final:
                raise AdjudicationError("7.6", "the spin was declared no spin: it stays invalid")
        except AdjudicationError as exc:
            self.steps.append({"step": "resolve-refused", "actor": actor, "result": result,
                               "rule": exc.rule, "reason": exc.reason})
            raise
        prev = self.outcome
        kind = "confirm" if result == prev.result else "override"
        rule = "7.1" if result == "no-spin" else "6.9"
        reasons = ["%s boxer's call: %s (%s by %s; was %s)" % (rule, reason, kind, actor, prev.result)]
        out = Outcome(result, reasons + prev.reasons, actor, final=(result == "no-spin"),
                      evidence=prev.evidence, override={"actor": actor, "kind": kind, "from": prev.result,
                                                        "reason": reason})
        self.outcome = out
        self.steps.append({"step": kind, "actor": actor, "from": prev.result, "result": result,
                           "reason": reason, "rule": rule})
        return out

    # ---- internals ----------------------------------------------------------------------
    def _decided(self, result, reasons, by, final, ev):
        self.outcome = Outcome(result, reasons, by, final, ev)
        self.steps.append({"step": "decided", "result": result, "reasons": reasons, "decided_by": by})
        return self.outcome

    def _evidence(self):
        ev = {"beams": [], "walls": [], "mat_off_us": [], "impacts": 0, "first_impact_us": None,
              "last_impact_us": None, "rest": None, "overflow": 0, "faults": [], "host_lost": False,
              "barred": [], "phases": []}
        for e in self.events:
            code, t, a, b, text = e.code, e.t_us, e.a, e.b, e.text
            if code == rm.EV_BEAM:
                ev["beams"].append({"sector": a, "us": b, "t_us": t})
            elif code == rm.EV_WALL:
                ev["walls"].append({"level": a, "t_us": t})
            elif code == rm.EV_MAT and a == 0:
                ev["mat_off_us"].append(t)
            elif code == rm.EV_IMPACT:
                ev["impacts"] += 1
                if ev["first_impact_us"] is None:
                    ev["first_impact_us"] = t
                ev["last_impact_us"] = t
            elif code == rm.EV_REST:
                ev["rest"] = {"quiet_ms": a, "impact_span_ms": b, "t_us": t}
            elif code == rm.EV_OVERFLOW:
                ev["overflow"] += a
            elif code == rm.EV_FAULT:
                ev["faults"].append({"mask": a, "text": text})
            elif code == rm.EV_HOST and a == 0:
                ev["host_lost"] = True
            elif code == rm.EV_BARRED:
                ev["barred"].append({"bar": a, "detail": b})
            elif code == rm.EV_PHASE:
                ev["phases"].append({"phase": rm.PHASE_NAMES[a] if 0 <= a < len(rm.PHASE_NAMES) else a,
                                     "t_us": t})
        return ev

    @staticmethod
    def _sensor_bars(ev):
        out = []
        # The board reports a break twice (b = 0 at its start, b = duration at its end): one
        # reason per break, with its duration once known; "still broken" if it never ended.
        breaks, open_at = [], {}
        for beam in ev["beams"]:
            k = open_at.pop(beam["sector"], None) if beam["us"] > 0 else None
            if k is not None:
                breaks[k] = beam                      # the end of a break already listed
            else:
                if beam["us"] == 0:
                    open_at[beam["sector"]] = len(breaks)
                breaks.append(beam)
        for beam in breaks:
            out.append("7.3.1 coin crossed the ring boundary (beam sector %d, %s)"
                       % (beam["sector"], "%d us" % beam["us"] if beam["us"] else "still broken"))
        if ev["walls"]:
            n = len(ev["walls"])
            out.append("7.3.2 coin hit the ring wall above the layout (%s, peak level %d)"
                       % ("1 strike" if n == 1 else "%d strikes" % n,
                          max(w["level"] for w in ev["walls"])))
        first = ev["first_impact_us"]
        for t in ev["mat_off_us"]:
            # 7.3.3 applies "when spinning": leaving the mat after the coins landed is allowed.
            if first is None or t < first:
                out.append("7.3.3 spinner not completely inside the ring when spinning (left the mat)")
                break
        for bar in ev["barred"]:
            if bar["bar"] == rm.BAR_BUTTON:
                continue  # already counted as the boxer's call
            text = rm.BAR_NAMES.get(bar["bar"], "7.3 device barred the spin (code %d)" % bar["bar"])
            rule = text.split(" ", 1)[0]
            if not any(r.startswith(rule) for r in out):
                out.append(text + " (device)")
        return out

    @staticmethod
    def _evidence_gaps(ev):
        gaps = []
        if ev["overflow"]:
            gaps.append("device dropped %d event(s): a barring event may be missing" % ev["overflow"])
        for f in ev["faults"]:
            gaps.append("ring sensor fault during the spin (0x%x %s)" % (f["mask"], f["text"]))
        if ev["host_lost"]:
            gaps.append("device lost the host link during the spin")
        if ev["impacts"] == 0:
            gaps.append("no coin impact sensed: cannot confirm the coins landed in the ring")
        if ev["rest"] is None and not any(p["phase"] == "at-rest" for p in ev["phases"]):
            gaps.append("ring sensors did not report the coins at rest")
        return gaps

    def _check_verdict(self, v, now_s):
        if not isinstance(v, dict):
            return "camera verdict unreadable: boxer to call"
        if v.get("result") == "no-spin" and _only_missing_coins(v):
            return "camera found fewer than two coins (%s): boxer to call" % "; ".join(v["reasons"])
        if v.get("stale") or (now_s is not None and v.get("t_s") is not None
                              and now_s - v["t_s"] > self.stale_s):
            return "camera verdict stalled: boxer to call the spin (manual)"
        result = v.get("result")
        if result == "unsure" or result not in RESULTS:
            why = "; ".join(v.get("reasons") or []) or "no reason given"
            return "camera unsure (%s): boxer to call" % why
        coins = v.get("coins")
        if not isinstance(coins, list) or len(coins) != 2:
            seen = len(coins) if isinstance(coins, list) else "no"
            return "camera saw %s coins, not 2: boxer to call" % seen
        faces = sorted(c.get("face") or "?" for c in coins)
        if any(not c.get("flat", False) or not c.get("inside", False) for c in coins):
            return "camera says %s but a coin is not flat or not inside: boxer to call" % result
        expect = {"heads": ["heads", "heads"], "tails": ["tails", "tails"], "odds": ["heads", "tails"]}
        if faces != expect[result]:
            return "camera says %s but reads faces %s: boxer to call" % (result, "/".join(faces))
        return None


class LostCoinProcedure:
    """Rule 7.4 as recorded steps. `ready` says whether play may resume; `missing` says what
    is still to be done. Steps go into the adjudicator's step list (the audit log)."""

    def __init__(self, coins, actor, coin_set, steps):
        if coins < 1:
            raise AdjudicationError("7.4", "at least one coin must be lost")
        self.coins = coins
        self.coin_set = coin_set
        self.steps = steps
        self.found = None          # coins recovered by 7.4.2
        self.checked = None        # 7.4.4 result
        self.choice = None         # 7.4.3: "new" (from the remaining coins) or "original"
        self.new_set = None        # 7.4.5
        self.continue_remaining = False
        self._step("7.4.1", "no spin called", actor=actor, coins=coins)

    def _step(self, rule, what, **kw):
        step = {"step": "lost-coin", "rule": rule, "what": what, "coin_set": self.coin_set}
        step.update(kw)
        self.steps.append(step)
        return step

    def retrieve(self, found):
        """7.4.2: the immediate effort to retrieve the coins; `found` = how many came back."""
        if not 0 <= found <= self.coins:
            raise AdjudicationError("7.4.2", "found must be 0..%d" % self.coins)
        self.found = found
        return self._step("7.4.2", "retrieval", found=found)

    def check_found(self, ok, actor="boxer"):
        """7.4.4: the boxer carefully checks a found coin before it can be used again."""
        if actor != "boxer":
            raise AdjudicationError("7.4.4", "found coins are checked by the boxer")
        if not self.found:
            raise AdjudicationError("7.4.4", "no coin was found to check")
        self.checked = bool(ok)
        return self._step("7.4.4", "found coin checked", actor=actor, ok=self.checked)

    def offer(self, choice):
        """7.4.3: the remaining coins are offered; the spinner picks new coins ("new") or asks
        for the original coins back ("original", only when found and checked good)."""
        if choice not in ("new", "original"):
            raise AdjudicationError("7.4.3", "choice is 'new' or 'original'")
        if choice == "original" and not (self.found == self.coins and self.checked):
            raise AdjudicationError("7.4.3", "the original coins are back only when all were found "
                                             "and checked by the boxer (7.4.4)")
        self.choice = choice
        return self._step("7.4.3", "spinner selected coins", choice=choice)

    def bring_new_set(self, new_set, current_spinner_continues=False):
        """7.4.5: more than one coin lost -> a new set; the current spinner may finish with
        the remaining coins of the old set."""
        self.new_set = new_set
        self.continue_remaining = bool(current_spinner_continues)
        return self._step("7.4.5", "new coin set taken to the ring; old set removed",
                          new_set=new_set, current_spinner_continues=self.continue_remaining)

    @property
    def missing(self):
        need = []
        if self.found is None:
            need.append("7.4.2 retrieve the coin(s)")
        elif self.found and self.checked is None:
            need.append("7.4.4 boxer checks the found coin(s)")
        if self.choice is None:
            need.append("7.4.3 offer the remaining coins to the spinner")
        if self.coins > 1 and self.new_set is None:
            need.append("7.4.5 bring a new coin set")
        return need

    @property
    def ready(self):
        return not self.missing
