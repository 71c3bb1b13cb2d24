"""Console sessions: signed session cookies, single-use CSRF tokens, login rate limit and lockout.

A session lives in this process only (a restarted host logs everyone out). The cookie holds
the session id signed with a per-process secret (itsdangerous), HttpOnly and SameSite=Strict.
Every state-changing request must carry one of the session's CSRF tokens; each token works
once (a replayed token is refused) and every answer to such a request hands out the next.
"""
import secrets
import threading
import time
from collections import deque

from itsdangerous import BadSignature, URLSafeTimedSerializer

COOKIE = "ring_session"
IDLE_S = 4 * 3600            # a session unused this long is gone
MAX_AGE_S = 14 * 3600        # and none outlives a long shift
TOKENS_KEPT = 32             # outstanding CSRF tokens per session (several tabs, queued posts)
# login throttling: per name, FAILS_TO_LOCK wrong passwords in a row lock it for LOCK_S;
# per client address, at most ADDR_ATTEMPTS attempts in ADDR_WINDOW_S.
FAILS_TO_LOCK = 5
LOCK_S = 300.0
ADDR_ATTEMPTS = 10
ADDR_WINDOW_S = 60.0


class Session:
    __slots__ = ("sid", "user", "role", "created", "seen", "tokens", "used")

    def __init__(self, user, role):
        self.sid = secrets.token_urlsafe(24)
        self.user = user
        self.role = role             # None: not logged in (the login form's own session)
        self.created = self.seen = time.time()
        self.tokens = deque(maxlen=TOKENS_KEPT)
        self.used = deque(maxlen=4 * TOKENS_KEPT)


class SessionStore:
    def __init__(self, secret=None, clock=time.time):
        self.serializer = URLSafeTimedSerializer(secret or secrets.token_bytes(32), salt="ring-console")
        self.sessions = {}
        self.lock = threading.Lock()
        self.clock = clock

    def create(self, user=None, role=None):
        s = Session(user, role)
        s.created = s.seen = self.clock()
        with self.lock:
            self._expire()
            self.sessions[s.sid] = s
        return s

    def cookie_value(self, session):
        return self.serializer.dumps(session.sid)

    def from_cookie(self, value):
        """-> the live Session for a cookie value, or None (missing, forged, expired)."""
        if not value:
            return None
        try:
            sid = self.serializer.loads(value, max_age=MAX_AGE_S)
        except BadSignature:
            return None
        with self.lock:
            s = self.sessions.get(sid)
            now = self.clock()
            if s is None or now - s.seen > IDLE_S or now - s.created > MAX_AGE_S:
                self.sessions.pop(sid, None)
                return None
            s.seen = now
            return s

    def drop(self, session):
        with self.lock:
            self.sessions.pop(session.sid, None)

    def _expire(self):
        now = self.clock()
        for sid in [k for k, s in self.sessions.items()
                    if now - s.seen > IDLE_S or now - s.created > MAX_AGE_S]:
            del self.sessions[sid]

    # ---- CSRF --------------------------------------------------------------------------------
    def issue_token(self, session):
        tok = secrets.token_urlsafe(18)
        with self.lock:
            session.tokens.append(tok)
        return tok

    def spend_token(self, session, token):
        """-> None when the token is good (and now spent), else why it is refused."""
        if not token:
            return "missing CSRF token: reload the page"
        with self.lock:
            if token in session.tokens:
                session.tokens.remove(token)
                session.used.append(token)
                return None
            if token in session.used:
                return "CSRF token already used (replayed): reload the page"
        return "CSRF token not issued to this session: reload the page"


class LoginThrottle:
    """Rate limit per client address and lockout per user name."""

    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self.lock = threading.Lock()
        self.fails = {}            # name -> consecutive failures
        self.locked_until = {}     # name -> clock time
        self.attempts = {}         # address -> deque of clock times

    def check(self, name, addr):
        """-> None to go ahead, or (status, message) refusing the attempt."""
        now = self.clock()
        with self.lock:
            q = self.attempts.setdefault(addr, deque())
            while q and now - q[0] > ADDR_WINDOW_S:
                q.popleft()
            if len(q) >= ADDR_ATTEMPTS:
                return 429, "too many login attempts from this address: wait a minute"
            q.append(now)
            until = self.locked_until.get(name, 0.0)
            if until > now:
                return 423, "user %s is locked after %d wrong passwords: try again in %d s " \
                    "or ask a supervisor" % (name, FAILS_TO_LOCK, until - now + 1)
        return None

    def failed(self, name):
        """-> True when this failure locks the name."""
        with self.lock:
            n = self.fails.get(name, 0) + 1
            self.fails[name] = n
            if n >= FAILS_TO_LOCK:
                self.fails[name] = 0
                self.locked_until[name] = self.clock() + LOCK_S
                return True
        return False

    def succeeded(self, name):
        with self.lock:
            self.fails.pop(name, None)
            self.locked_until.pop(name, None)
