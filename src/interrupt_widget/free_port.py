"""A free TCP port for a server another process starts and must be told its port first.

Asking the kernel for port 0 and closing the socket is racy in a busy machine: the same
kernel hands that port out again as the local end of any outgoing connection (a browser's,
a client's), which can take it before the server binds. Ports below the ephemeral range are
never handed out that way, so the port is picked there, at random, and checked free.
"""

from __future__ import annotations

import random
import socket
from pathlib import Path

_EPHEMERAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")
_LOWEST = 10_000
_TRIES = 200
_pick = random.SystemRandom()


def _first_ephemeral_port() -> int:
    try:
        return int(_EPHEMERAL_RANGE.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32_768  # Linux's default; other systems differ, and the bind below checks


def _binds(host: str, port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind((host, port))
        except OSError:
            return False
        return True


def free_port(host: str = "127.0.0.1") -> int:
    """A port on `host` that nothing listens on now, outside the range outgoing
    connections take theirs from; the kernel's pick when that range leaves no room."""
    top = _first_ephemeral_port()
    if top - _LOWEST > 1_000:
        for _ in range(_TRIES):
            port = _pick.randrange(_LOWEST, top)
            if _binds(host, port):
                return port
    with socket.socket() as sock:
        sock.bind((host, 0))
        chosen: int = sock.getsockname()[1]
        return chosen
