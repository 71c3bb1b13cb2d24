"""Overhead-camera vision for the Two-Up ring: find the ring, find and judge both coins.

Pure functions on numpy arrays (BGR uint8 frames); cameras only appear in `sources`.

API
- `calibrate(empty_ring_img, coin_mm=30.8, ring_mm=3000) -> RingModel` (`to_json()`,
  `RingModel.from_json(text)`, `.save(path)`, `RingModel.load(path)`): inner boundary
  (circle or ellipse), background, scale, `coin_radius_px`, `warnings` (coins < 40 px).
  `unsettled_ok=True`: a band all round just inside the edge found gives a model with both
  boundaries (`unsettled`, `band_inner`) that nothing but `faceid.settle` takes (`load(path,
  unsettled_ok=True)`); `settle(ring, heads_imgs, tails_imgs, empty=None) -> (ring, line)`
  chooses by the coins' size, before `train`; the ring it gives is `unconfirmed`
  (`settled_by_coins`), which `load` refuses too until `confirm(by, at)` (`ring vision
  confirm-edge`) records who looked at the boundary drawn.
- `train(heads_imgs, tails_imgs, ring, empty=None, refused=None) -> FaceModel` (`save(path)`,
  `FaceModel.load(path)`, `.report` = cross-validation figures, `left_out` photos); raises
  UserError when the faces do not separate, and `faceid.TrainingPhotoError` (a UserError with
  `.name`, `.why`, `.image`, `.found`) when more photos are refused than may be left out
  (`faceid.LEAVE_OUT_MAX`; those left out go to `refused`).
- `classify(img, ring, model, whole=True, elsewhere=0) -> dict`, a stable shape (issue 4,
  extended by issue 12; `whole`: a camera's whole frame, not a crop; `elsewhere`: below):
    result: "heads" | "tails" | "odds" | "no-spin" | "unsure"
    reasons: [str] rule-cited ("7.3.1 coin outside the ring", "7.3.2 a chip in the ring: ...",
             "unsure: ..."); no-spin only on evidence seen (a coin outside / on the rim, tilted,
             leaning, one on the other); coins touching or fewer than two found: "unsure"; a
             frame is judged in its calibration's colour balance and exposure (`balance`) with a
             player's shade across the ring divided out (`shade`), and an unsure
             or void frame lying off (moved or turned) the empty ring's photo again moved
             back onto it (`drift`)
    coins: [{center: [x, y] image px, radius: px, face: "heads"|"tails"|None, flat: bool,
             inside: bool, confidence: 0..1}]   (every coin-like object judged as a coin)
    others: [{center, radius, kind: "chip"|"token"|"object"|"doubtful", inside: bool}]
             (found objects that are not coins: chips, tokens, unexplained objects)
    ring: {center: [x, y], axes: [a, b], angle_deg}   (the calibrated inner boundary)
    by_count: [str]   (the reasons that rest on the frame's coins in the ring being fewer than
             two: a coin or an object in doubt outside, one outline taken for two coins one on
             the other; `classify(img, ring, model, elsewhere=N)` counts N more coins that other
             cameras see in the ring, as `views.judge_views` does for a view of part of the ring)
    ms: float   (time in classify, decoding excluded)
  Consumers that only know the issue-4 keys (result, reasons, coins, ms) keep working.
- `annotate.annotate(img, result) -> img`: a copy of the frame with the ring, each coin (face,
  flat, inside, confidence), other objects and the verdict with its reasons drawn on (pure).
- `open_source(spec)`: camera index / video file / RTSP-HTTP URL / image folder / callable or
  iterator (the simulator); each has `read() -> (frame or None, t_s)`, `size`, `fps`, `close()`.
Several cameras over one ring (issue 13; modules imported by name):
- `viewcal.calibrate_rig([(name, sheet_img, empty_img)], ring_mm) -> Rig` (`save`, `Rig.load`):
  each camera's homography to ring mm from a printed ArUco sheet, the ring's centre from its
  edge and known diameter; `Rig.views` = [CameraView(name, H, ring_model)].
- `coverage.coverage(rig) -> {ok, coin_px_min, cameras_per_point, text, ...}` (fails < 40 px).
- `views.judge_views(frames, rig, model) -> dict` (classify's shape, coins in ring mm, plus
  per-view verdicts): same coin merged, judged where largest, disagreement -> unsure; each
  view is judged by `classify` on crops around what differs from its empty ring, and again
  with the other views' coins in the ring counted when its verdict rests on its own count.
- `rest.StillnessWatch(ring).update(frame, t_s)`, `rest.window_for(verdict)`: the stillness rule.
- `paired.PairedSources(sources).read() -> ([frame per camera], t)`: parallel, paired by time.
Synthetic scenes to test it on are stand-ins and live in `ringctl.sim` (render, scenes, faces).
CLI: `ring vision calibrate|calibrate-views|sheet|train|classify|classify-views` (cli.py);
`ring bench vision --json` (sim/vision_bench.py).
"""
from .sources import open_source

__all__ = ["open_source", "calibrate", "RingModel", "train", "FaceModel", "classify"]


def __getattr__(name):
    # Lazy: `ring --help` and the simulator's renderer do not pay for the whole pipeline.
    if name in ("calibrate", "RingModel"):
        from . import ring
        return getattr(ring, name)
    if name in ("train", "FaceModel"):
        from . import faceid
        return getattr(faceid, name)
    if name in ("classify",):
        from . import judge
        return judge.classify
    raise AttributeError(name)
