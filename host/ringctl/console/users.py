"""Console users: names, roles and scrypt password hashes in one JSON file (mode 0600)."""
import hashlib
import hmac
import json
import os
import re
import secrets
import tempfile

from ..errors import UserError

ROLES = ("boxer", "supervisor", "surveillance")
NAME_RE = re.compile(r"^[a-z][a-z0-9_.-]{1,31}$")
MIN_PASSWORD = 10
# scrypt: n=2**14, r=8 -> 16 MiB and ~50 ms per check: memory-hard, cheap enough for a login.
SCRYPT = {"n": 1 << 14, "r": 8, "p": 1}


def default_path():
    from ..record.log import default_path as audit_path
    return os.path.join(os.path.dirname(audit_path()), "console-users.json")


def hash_password(password, salt=None, params=None):
    params = params or SCRYPT
    salt = salt if salt is not None else secrets.token_bytes(16)
    dk = hashlib.scrypt(password.encode(), salt=salt, n=params["n"], r=params["r"], p=params["p"],
                        maxmem=64 << 20, dklen=32)
    return {"kdf": "scrypt", **params, "salt": salt.hex(), "hash": dk.hex()}


def check_password(password, stored):
    if stored.get("kdf") != "scrypt":
        return False
    dk = hashlib.scrypt(password.encode(), salt=bytes.fromhex(stored["salt"]), n=stored["n"],
                        r=stored["r"], p=stored["p"], maxmem=64 << 20, dklen=32)
    return hmac.compare_digest(dk.hex(), stored["hash"])


# A fixed dummy hash checked for unknown names, so a wrong name costs as long as a wrong password.
_DUMMY = hash_password("x" * MIN_PASSWORD, salt=b"\0" * 16)


class Users:
    """The user file. Reads it fresh on every login so `ring console user add` takes effect
    without restarting the host."""

    def __init__(self, path):
        self.path = str(path)

    def load(self):
        try:
            with open(self.path) as f:
                data = json.load(f)
        except FileNotFoundError:
            return {}
        except json.JSONDecodeError as exc:
            raise UserError(f"console user file {self.path} is not valid JSON (line {exc.lineno}); "
                            "restore it or remove it and add the users again")
        return data.get("users", {})

    def save(self, users):
        d = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(d, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".console-users.")
        with os.fdopen(fd, "w") as f:
            json.dump({"users": users}, f, indent=1, sort_keys=True)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o600)
        os.replace(tmp, self.path)

    def add(self, name, role, password, replace=False):
        if not NAME_RE.match(name or ""):
            raise UserError(f"user name {name!r} is not allowed: 2-32 characters, lower-case "
                            "letters, digits, '_', '.', '-', starting with a letter")
        if role not in ROLES:
            raise UserError(f"role {role!r} is not a role; use one of {', '.join(ROLES)}")
        if len(password or "") < MIN_PASSWORD:
            raise UserError(f"password too short: at least {MIN_PASSWORD} characters")
        users = self.load()
        if name in users and not replace:
            raise UserError(f"user {name!r} exists; add --replace to set a new password or role")
        users[name] = {"role": role, "password": hash_password(password)}
        self.save(users)

    def remove(self, name):
        users = self.load()
        if name not in users:
            raise UserError(f"no user {name!r}; 'ring console user list' shows them")
        del users[name]
        self.save(users)

    def roles(self):
        return {n: u["role"] for n, u in sorted(self.load().items())}

    def authenticate(self, name, password):
        """-> role, or None for a wrong name or password (same cost either way)."""
        user = self.load().get(name)
        ok = check_password(password, user["password"] if user else _DUMMY)
        return user["role"] if (user and ok) else None
