"""Py4J replies without Nagle's delay: TCP_NODELAY on the JVM's end of each Py4J connection this process uses.

PySpark's gateway leaves Nagle's algorithm on for the JVM's socket, so a reply longer than one 8 KB write (a
partition listing of about ten partitions or more, a wide table's record, a long schema) sends its last segment
only once the first is acknowledged, and Python's end delays that acknowledgement: every such reply took 44 ms
where 0.3 ms suffice (measured on Spark 4.3's Py4J 0.10.9.9, any size from 16 KB to 200 KB; 8 KB replies are
not delayed). Each Python thread has its own connection (PySpark's pinned-thread mode), so each is set once, through
Py4J's public objects (the gateway server's callback client knows the connection serving the calling thread): four
round trips the first time, a set lookup afterwards. Nothing else about the connection changes; where the gateway
is not Py4J's client-server one, or the call fails, the connection stays as it was.
"""

from __future__ import annotations

import weakref
from typing import Any

_SET: weakref.WeakSet[Any] = weakref.WeakSet()
"""The Python ends of the connections already set (or tried): dropped with their connection."""


def reply_promptly(view: Any) -> None:
    """Turn off Nagle's algorithm at the JVM's end of the calling thread's Py4J connection to ``view`` (a session's
    ``JVMView``), once per connection."""
    try:
        client = view._gateway_client
    except AttributeError:  # not Py4J's view (a stand-in)
        return
    thread_connection = getattr(client, "get_thread_connection", None)
    if thread_connection is None:
        return
    connection = thread_connection()
    if connection is not None and connection in _SET:
        return
    # imported here: a session with a JVM has Py4J loaded already, and the commands that start none (inspection,
    # recovery without Spark) must not import it at all
    from py4j.java_gateway import JavaObject
    from py4j.protocol import GATEWAY_SERVER_OBJECT_ID, Py4JError

    try:
        server = JavaObject(GATEWAY_SERVER_OBJECT_ID, client)
        java_end = server.getCallbackClient().getPerThreadConnection()
        if java_end is not None:
            java_end.getSocket().setTcpNoDelay(True)
    except Py4JError:
        pass  # left as PySpark made it
    connection = thread_connection()
    if connection is not None:
        _SET.add(connection)
