# Deploy-manifest integrity on the board: ok, unverified (no manifest), changed / missing / unexpected files.
import json
import mptest
import integrity
import fwrig


def make(root, files):
    import os
    try:
        os.mkdir(root + "/lib")
    except OSError:
        pass
    for n in os.listdir(root + "/lib"):
        os.remove(root + "/lib/" + n)
    hashes = {}
    for rel, data in files.items():
        with open(root + "/" + rel, "w") as f:
            f.write(data)
        hashes[rel] = integrity.file_sha256(root + "/" + rel)
    with open(root + "/manifest.json", "w") as f:
        json.dump({"format": 1, "files": hashes, "image": integrity.image_hash(hashes)}, f)
    return hashes


FILES = {"main.py": "import app\n", "lib/app.mpy": "M\x06code", "lib/spin.mpy": "M\x06spin"}


def test_ok_and_image_hash_stable():
    r = fwrig.tmpdir("int1")
    h = make(r, FILES)
    st, img, probs = integrity.check(r)
    assert st == "ok" and not probs, probs
    assert img == integrity.image_hash(h) and len(img) == 64


def test_unverified_without_manifest():
    r = fwrig.tmpdir("int2")
    st, img, probs = integrity.check(r)
    assert st == "unverified" and img is None and "manifest" in probs[0]


def test_changed_missing_unexpected():
    import os
    r = fwrig.tmpdir("int3")
    make(r, FILES)
    with open(r + "/lib/spin.mpy", "w") as f:
        f.write("M\x06evil")
    os.remove(r + "/lib/app.mpy")
    with open(r + "/lib/extra.py", "w") as f:
        f.write("print(1)")
    st, img, probs = integrity.check(r)
    assert st == "mismatch"
    assert "changed lib/spin.mpy" in probs and "missing lib/app.mpy" in probs, probs
    assert "unexpected lib/extra.py" in probs, probs


def test_manifest_image_tampered():
    r = fwrig.tmpdir("int4")
    make(r, FILES)
    with open(r + "/manifest.json") as f:
        m = json.load(f)
    m["image"] = "0" * 64
    with open(r + "/manifest.json", "w") as f:
        json.dump(m, f)
    st, _, probs = integrity.check(r)
    assert st == "mismatch" and "image hash" in probs[0], probs


def test_mismatch_locks_the_app():
    r = fwrig.tmpdir("int5")
    make(r, FILES)
    with open(r + "/lib/app.mpy", "w") as f:
        f.write("changed")
    import board_sim
    import app as APP
    b = board_sim.Board(root=r, link_fd=None, sock_path="")
    a = APP.App(b)
    a.boot()
    assert a.integrity == "mismatch"
    a.spin.host(True, 0)
    a.spin.selftest_result(0, 0)           # a passing self-test does not unlock it
    err = a.spin.arm(0, 0)
    assert err and "redeploy" in err, err


mptest.main(globals())
