"""Secure by default: a server reachable from other hosts needs a token.

HTTP clients answer interrupts themselves, so anyone who reaches an open port
can approve gated tools. `serve` therefore refuses an address outside the
loopback range (`0.0.0.0`, `::`, a LAN address, a host name that resolves to
one) without a bearer token, unless the caller opts out by name
(`insecure_no_token=True`, `--insecure-no-token`), which logs a warning.
"""

from __future__ import annotations

import ipaddress
import logging
import socket

from interrupt_widget.errors import InsecureBindError

logger = logging.getLogger(__name__)

OPT_OUT_FLAG = "--insecure-no-token"
"""The command-line flag that serves a non-loopback address without a token."""


def _addresses(host: str) -> list[str]:
    literal = host.strip("[]")
    try:
        return [str(ipaddress.ip_address(literal))]
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(literal, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return []
    return [str(info[4][0]) for info in infos]


def is_loopback(host: str) -> bool:
    """Whether every address `host` names is a loopback one (127.0.0.0/8, ::1).

    A name that does not resolve counts as not loopback: the check fails closed.
    """
    addresses = _addresses(host)
    if not addresses:
        return False
    return all(ipaddress.ip_address(a.split("%", 1)[0]).is_loopback for a in addresses)


def check_bind(host: str, *, token: str | None, insecure_no_token: bool) -> None:
    """Refuse (`InsecureBindError`) to serve `host` beyond loopback without a token.

    With `insecure_no_token`, serve anyway and log a warning saying who can approve.
    """
    if token is not None or is_loopback(host):
        return
    if not insecure_no_token:
        raise InsecureBindError(
            f"refusing to serve {host} without a token: anyone who reaches this address "
            "could approve the agent's gated tools. Set a bearer token (--token or "
            f"$INTERRUPT_WIDGET_TOKEN), bind 127.0.0.1, or pass {OPT_OUT_FLAG} if another "
            "layer (a proxy, a firewall) authenticates every request"
        )
    logger.warning(
        "serving %s WITHOUT A TOKEN (%s): anyone who reaches this address can approve "
        "the agent's gated tools",
        host,
        OPT_OUT_FLAG,
    )
