"""Tamper-evident audit log: SQLite (WAL), append-only, every record chained by SHA-256."""
from .log import AuditLog, Record, default_path  # noqa: F401
