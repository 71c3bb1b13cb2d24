# The boxer must tell every result apart at a glance: lamp patterns of different outcomes diverge fast.
import mptest
from light import PATTERNS, lamp_on
from ringmsg import (LIGHT_HEADS, LIGHT_TAILS, LIGHT_ODDS, LIGHT_UNSURE, LIGHT_BARRED,
                     LIGHT_FAULT, LIGHT_ARMED, LIGHT_IN_FLIGHT, LIGHT_LINK_LOST, LIGHT_NAMES)

RESULTS = (LIGHT_HEADS, LIGHT_TAILS, LIGHT_ODDS, LIGHT_UNSURE, LIGHT_BARRED, LIGHT_FAULT,
           LIGHT_ARMED, LIGHT_IN_FLIGHT, LIGHT_LINK_LOST)
GLANCE_MS = 150


def lamps(state, t):
    p = PATTERNS[state]
    return (lamp_on(p[0], t), lamp_on(p[1], t), lamp_on(p[2], t))


def first_difference_ms(a, b, horizon=2000):
    for t in range(0, horizon, 5):
        if lamps(a, t) != lamps(b, t):
            return t
    return None


def test_every_pair_of_outcomes_differs_within_a_glance():
    for i in range(len(RESULTS)):
        for j in range(i + 1, len(RESULTS)):
            a, b = RESULTS[i], RESULTS[j]
            t = first_difference_ms(a, b)
            assert t is not None and t <= GLANCE_MS, "%s and %s look the same for %s ms" % (
                LIGHT_NAMES[a], LIGHT_NAMES[b], t)


def test_faults_sound_the_buzzer_for_at_least_1_5_s():
    assert PATTERNS[LIGHT_FAULT][3] >= 1500


mptest.main(globals())
