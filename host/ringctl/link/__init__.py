"""Host end of the ring link: pyserial transport, port discovery, key files, dump, bench.

The protocol itself is ringctl.fw.ringlink (firmware/lib/ringlink.py, the one copy).
"""
from ..event import Event  # noqa: F401
from .client import LinkClient, LinkError, LinkVersionError  # noqa: F401
from .keys import load_key, load_key_file  # noqa: F401
from .ports import resolve_port  # noqa: F401
