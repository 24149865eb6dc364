#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Basic auth under a flood, against asys serve at 127.0.0.1:PORT (pid PID)
whose web config has the user prom, password "s3cret", at bcrypt cost 13:
the password with "\\0junk" after it is refused (a C string would end at
the NUL); 8 clients sending wrong passwords without pause do not delay a
good scrape (its password checked once, then remembered) past a second;
and SIGTERM during the flood ends the server within 0.75 s. Prints one FAIL
line per problem; exits 1 if any. Usage: auth.py PORT PID"""
import base64
import os
import socket
import sys
import threading
import time

PORT, PID = int(sys.argv[1]), int(sys.argv[2])
fails = []
stop = threading.Event()


def get(user_pw, timeout=10.0):
    """The status of GET /metrics with these credentials (bytes), or None."""
    auth = base64.b64encode(user_pw).decode()
    req = ("GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
           "Authorization: Basic %s\r\n\r\n" % auth).encode()
    try:
        s = socket.create_connection(("127.0.0.1", PORT), timeout=timeout)
        s.sendall(req)
        got = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            got += chunk
        s.close()
    except OSError:
        return None
    line = got.split(b"\r\n", 1)[0].split()
    return int(line[1]) if len(line) > 1 and line[1].isdigit() else None


def timed(user_pw):
    t = time.monotonic()
    code = get(user_pw)
    return code, time.monotonic() - t


def flood():
    while not stop.is_set():
        get(b"prom:wrong", timeout=30)


code = get(b"prom:s3cret")
if code != 200:
    fails.append("the right password: %s" % code)
code = get(b"prom:s3cret\0junk")
if code != 401:
    fails.append("the password with a NUL and more after it: %s, want 401" % code)

flooders = [threading.Thread(target=flood, daemon=True) for _ in range(8)]
for t in flooders:
    t.start()
time.sleep(1.0)
took = []
for _ in range(8):
    code, d = timed(b"prom:s3cret")
    if code != 200:
        fails.append("a good scrape during the flood: %s" % code)
    took.append(d)
    time.sleep(0.2)
print("good scrapes during the flood: slowest %.3f s" % max(took))
if max(took) > 1.0:
    fails.append("a good scrape took %.2f s during the flood" % max(took))

# SIGTERM with checks waiting and in progress
t = time.monotonic()
os.kill(PID, 15)
gone = None
while time.monotonic() - t < 10:
    try:
        with open("/proc/%d/stat" % PID) as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        state = "gone"
    if state in ("Z", "X", "gone"):
        gone = time.monotonic() - t
        break
    time.sleep(0.02)
stop.set()
print("SIGTERM to exit: %s s" % (("%.2f" % gone) if gone is not None else "over 10"))
if gone is None or gone > 0.75:
    fails.append("SIGTERM during the flood took %s s"
                 % (("%.2f" % gone) if gone is not None else "over 10"))
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
