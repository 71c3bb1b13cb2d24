"""`ring vision train`'s verdict for the technician: do the two faces separate, and what to do next."""
from .faceid import RECOMMENDED_PHOTOS

# Leave-one-out margins (own-face score minus other-face score). train() refuses a model
# below 0.02 / 0.08; between that and these the faces separate, but some coins will be read
# "unsure" and go to the boxer.
GOOD_MIN_MARGIN = 0.10
GOOD_MEDIAN_MARGIN = 0.20


def train_verdict(report, output):
    """Model report (FaceModel.report) -> (well: bool, lines of plain text)."""
    n_h, n_t = report["photos"]["heads"], report["photos"]["tails"]
    worst, typical = report["loo_margin_min"], report["loo_margin_median"]
    well = worst >= GOOD_MIN_MARGIN and typical >= GOOD_MEDIAN_MARGIN
    lines = []
    if well:
        lines.append(f"The two faces separate well: each of the {n_h} heads and {n_t} tails "
                     "photos was recognised as its own face when left out of training "
                     f"(worst margin {worst:.2f}, typical {typical:.2f}; good is "
                     f">= {GOOD_MIN_MARGIN:.2f} / {GOOD_MEDIAN_MARGIN:.2f}).")
    else:
        lines.append(f"The faces separate, but poorly (worst margin {worst:.2f}, typical "
                     f"{typical:.2f}; good is >= {GOOD_MIN_MARGIN:.2f} / "
                     f"{GOOD_MEDIAN_MARGIN:.2f}): in play some coins will be read 'unsure' "
                     "and left to the boxer.")
        lines.append("To do: retake the photos with the coin sharp and in focus, lit evenly "
                     "without glare, at least 40 px across (60 better), one coin flat per "
                     "photo; check each folder holds only its own face; then train again.")
    if report.get("relit_templates") == 0 and report.get("relit_refused") == "apart":
        # the faces drawn under other lamps were checked like the photos and failed (faceid._relight)
        lines.append("The faces drawn from the photos under other lamps do not keep the two faces apart, "
                     "so none are used: a coin lit unlike the photos may be left to the boxer. Train in "
                     "the ring under its own lamps (the coin turned a clock-hour between photos).")
    elif report.get("relit_templates") == 0:
        # without turns spread round the coin the faces cannot be drawn under other lamps
        # (faceid: relit templates), and a coin lit unlike the photos may go to the boxer. The
        # turns are read from the photos: a face that looks alike at every turn (a plain or round
        # design; sealed-50's tails, one round cell) gives none, however the coin was turned
        lines.append("The photos do not show the coin at turns the reader can tell apart, so it cannot "
                     "work out how the faces look under other lamps, and a coin lit unlike the photos may "
                     "be left to the boxer. If the coin was not turned, retake the photos turning the coin a "
                     "clock-hour (30 deg) between photos; if it was, its design looks alike at every turn "
                     "(a plain or round design): train in the ring under its own lamps.")
    for entry in report.get("left_out", []):
        # faceid.LEAVE_OUT_MAX: a few refused photos are left out rather than refusing the model
        lines.append(f"Left out of training: {entry['photo']}: {entry['why']}"
                     + (f" (what was found is drawn in {entry['drawn']})" if entry.get("drawn") else ""))
    if min(n_h, n_t) < RECOMMENDED_PHOTOS:
        lines.append(f"Take more photos: {n_h} heads, {n_t} tails; {RECOMMENDED_PHOTOS} of each, the coin "
                     "turned a clock-hour and moved around the ring between photos.")
    if well:
        lines.append(f"Next: \"model\": \"{output}\" in ring-config.json, then "
                     "`ring doctor --config ring-config.json` (and `ring vision classify` on "
                     "a few test photos).")
    return well, lines
