"""A port for a server this project starts (PostgreSQL, a metastore service, a cluster's master, a Thrift or Connect
server) when none is given: one that only another listener can take before the server binds it.

A port the OS picks (a bind to port 0) lies in its ephemeral range, the range every outgoing connection on the
machine also draws its local port from. A Spark driver binds its server 10 to 30 s after the port is chosen, and a
client connection made meanwhile (JDBC, PostgreSQL, gRPC) may take that port: the server then fails to bind (seen in
CI, where Spark Connect's start failed on a busy machine). Ports between ``LISTENER_PORTS_FROM`` and the start of the
ephemeral range are never given to outgoing connections, so a port picked there and free now stays free unless
another listener is started on it.
"""

from __future__ import annotations

import argparse
import random
import socket
from pathlib import Path

from ddl_log.ops.errors import UnusableHostError

EPHEMERAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")
"""Linux's range of local ports for outgoing connections (``32768 60999`` by default)."""

LISTENER_PORTS_FROM = 20000
"""The lowest port picked: above the ports servers usually take by default (10000 Thrift, 15002 Connect)."""

ATTEMPTS = 64
MAX_PORT = 65535


def ephemeral_start() -> int | None:
    """The first port of the OS's ephemeral range, where the OS says it (Linux)."""
    try:
        return int(EPHEMERAL_RANGE.read_text(encoding="ascii").split()[0])
    except (OSError, ValueError, IndexError):
        return None


def address_family(host: str) -> socket.AddressFamily:
    """The family (IPv4 or IPv6) of the address ``host`` names, as a server listening there binds it."""
    try:
        return socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)[0][0]
    except socket.gaierror as error:
        raise UnusableHostError(host, str(error.strerror)) from None


def port_argument(text: str) -> int:
    """A command line's ``--port``: a TCP port a server can listen on (1 to 65535), else argparse's usage error."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 < port <= MAX_PORT:
        raise argparse.ArgumentTypeError(f"port {port} is out of range (1 to {MAX_PORT})")
    return port


def bindable(port: int, host: str = "127.0.0.1") -> bool:
    """Whether ``host:port`` can be bound now (no other server, ours or not, has it)."""
    return _bindable(address_family(host), host, port)


def _bindable(family: socket.AddressFamily, host: str, port: int) -> bool:
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((host, port))
        except OSError:
            return False
        return True


def free_port(host: str = "127.0.0.1") -> int:
    """A port of ``host`` free now below the ephemeral range, picked at random (servers started at once rarely pick
    the same); where there is no such range to pick from (not Linux, or the range starts too low), one the OS picks.
    :class:`UnusableHostError` where ``host`` names no address to listen on."""
    family = address_family(host)
    start = ephemeral_start()
    if start is not None and start - LISTENER_PORTS_FROM >= ATTEMPTS:
        for port in random.sample(range(LISTENER_PORTS_FROM, start), ATTEMPTS):
            if _bindable(family, host, port):
                return port
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((host, 0))
        except OSError as error:
            raise UnusableHostError(host, str(error.strerror or error)) from None
        return int(probe.getsockname()[1])
