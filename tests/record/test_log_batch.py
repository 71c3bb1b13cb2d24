"""`AuditLog.batch()`: appends made durable together (one sync of the log) or not at all."""
import pytest

from ringctl.record.log import AuditLog


def test_a_batch_is_durable_whole_and_chained(tmp_path):
    path = str(tmp_path / "a.db")
    log, reader = AuditLog(path), AuditLog(path)
    log.append("arm", {"spin": 1})
    with log.batch():
        a = log.append("frame", {"spin": 1}, blob=b"\xff\xd8jpeg")
        b = log.append("spin", {"spin": 1, "frames": [a]})
        assert reader.count() == 1          # nothing of the batch is seen before it ends
    assert (a, b) == (2, 3) and reader.count() == 3
    assert log.verify()["ok"]
    log.close()
    reader.close()


def test_a_failed_batch_leaves_nothing(tmp_path):
    log = AuditLog(str(tmp_path / "a.db"))
    log.append("arm", {"spin": 1})
    with pytest.raises(RuntimeError):
        with log.batch():
            log.append("frame", {"spin": 1}, blob=b"x")
            raise RuntimeError("the encoder failed")
    assert log.count() == 1 and log.verify()["ok"]
    assert log.append("spin", {"spin": 1}) == 2        # the chain goes on from the last record
    log.close()
