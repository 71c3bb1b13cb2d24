"""Records of who may use the ring's screens: console logins, refusals, lockouts, user changes.

Kept in the audit log beside the play records so the regulator sees every access attempt;
written by the console outside the spin (RingHost stays the only writer of play records).
"""


def record_login(log, user, ok, addr, role=None, why=None):
    data = {"user": user, "ok": bool(ok), "addr": addr}
    if role:
        data["role"] = role
    if why:
        data["why"] = why
    return log.append("console-login", data)


def record_logout(log, user, role, addr):
    return log.append("console-logout", {"user": user, "role": role, "addr": addr})


def record_user_change(log, action, name, role=None, by=None):
    """action: add | replace | remove (from `ring console user ...`)."""
    return log.append("console-user", {"action": action, "name": name, "role": role,
                                       "by": by})
