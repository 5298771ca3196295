#!/usr/bin/env python3
"""notify_socket.py SOCKET LOG: a stand-in for systemd's notification socket (NOTIFY_SOCKET).

Binds a datagram socket at SOCKET and appends every message it receives (READY=1, STOPPING=1,
STATUS=...) to LOG, one per line, until it is killed. The e2e scripts start it in the background
and wait for SOCKET to appear.
"""
import socket
import sys

listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
listener.bind(sys.argv[1])
with open(sys.argv[2], "a", encoding="utf-8") as log:
    while True:
        log.write(listener.recv(4096).decode() + "\n")
        log.flush()
