"""Boot-only modules (app.BOOT_ONLY: the pin map, the integrity check) leave sys.modules once the simulated board runs the deployed image, and nothing brings them back in play."""
import time

from ringctl.board.build import build
from ringctl.fw import ringmsg as M
from ringctl.sim.rig import Rig


def _heap(rig):
    t = time.monotonic()
    rig.client.send_cmd(M.CMD_STATUS)
    ev = rig.wait_event(M.EV_HEAP, 5, since=t)
    assert ev is not None, "no EV_HEAP after CMD_STATUS"
    return dict(kv.split("=", 1) for kv in ev[1].text.split())


def test_boot_only_modules_are_gone_after_boot_and_stay_gone(tmp_path):
    out = tmp_path / "build"
    build(out, target="sim")
    with Rig(tmp_path / "flash", deploy=out) as rig:
        rig.wait_ready(15)
        assert _heap(rig)["boot"] == "0"
        # the paths that touch the configuration and the pins' levels at run time
        assert rig.command(M.CMD_CONFIG_GET, "").b == M.R_OK
        assert rig.command(M.CMD_CONFIG_SET, "heap_report_s=30").b == M.R_OK
        rig.command(M.CMD_CONFIG_SET, "no_such_key=1")
        assert rig.command(M.CMD_ARM).b == M.R_OK
        rig.board.send_sensor("mat 1")
        rig.board.send_sensor("beam 3 pulse 4000")
        assert rig.wait_event(M.EV_BARRED, 3) is not None
        rig.board.send_sensor("mat 0")
        assert rig.command(M.CMD_SPIN_DONE).b == M.R_OK
        assert rig.command(M.CMD_SELFTEST).b == M.R_OK
        time.sleep(0.5)
        assert _heap(rig)["boot"] == "0"
