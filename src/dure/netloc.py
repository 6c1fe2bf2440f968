"""Whether a host is this machine (the server's auth-off rule, a model provider's locality)."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

LOOPBACK_NAMES = {"localhost"}


def is_loopback(host: str) -> bool:
    """Only this machine can reach `host` (a name or an address, IPv6 with or without [])."""
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def is_local_url(url: str) -> bool:
    """Whether `url` points at this machine."""
    return is_loopback(urlsplit(url).hostname or "")
