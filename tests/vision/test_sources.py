"""vision.sources: an image folder read in order, and a missing file refused in one line."""
import cv2
import numpy as np
import pytest

from ringctl.errors import UserError
from ringctl.vision import sources


def test_sources(tmp_path):
    img = np.zeros((20, 30, 3), np.uint8)
    for i in range(3):
        cv2.imwrite(str(tmp_path / f"{i}.png"), img + i)
    with sources.open_source(str(tmp_path)) as src:
        got = list(src)
    assert [int(f[0, 0, 0]) for f, _ in got] == [0, 1, 2] and src.size == (30, 20)
    src = sources.open_source(iter([img, img]), fps=10)
    assert src.read()[1] == 0.0 and src.read()[1] == 0.1 and src.read()[0] is None
    with pytest.raises(UserError):
        sources.open_source(str(tmp_path / "missing.mp4"))
