#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Bad requests against asys serve at 127.0.0.1:PORT: each gets an error or
is dropped, and the server answers a good scrape after each and during a
slowloris; a 17th connection from one address is not served while 16 are
held, and other addresses are. Prints one FAIL line per problem; exits 1 if any."""
import socket
import sys
import threading
import time

PORT = int(sys.argv[1])
fails = []


def talk(data, wait=5.0, drip=None, src="127.0.0.1"):
    """Sends data (in pieces of drip seconds apart when given) and returns
    what came back until the server closed or wait passed."""
    s = socket.create_connection(("127.0.0.1", PORT), timeout=wait, source_address=(src, 0))
    got = b""
    try:
        if drip:
            for b in data:
                s.sendall(bytes([b]))
                time.sleep(drip)
        else:
            s.sendall(data)
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            got += chunk
    except (socket.timeout, ConnectionResetError, BrokenPipeError, OSError):
        pass
    finally:
        s.close()
    return got


def status(reply):
    line = reply.split(b"\r\n", 1)[0].split()
    return int(line[1]) if len(line) > 1 and line[1].isdigit() else None


def scrape_ok(what):
    r = talk(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    if status(r) != 200 or b"asys_build_info" not in r:
        fails.append("no good scrape after " + what + ": " + repr(r[:80]))


def expect_error(what, data, **kw):
    r = talk(data, **kw)
    code = status(r)
    if code is not None and not 400 <= code < 500:
        fails.append(what + ": answered " + repr(r[:60]))
    scrape_ok(what)


expect_error("an unknown path", b"GET /nope HTTP/1.1\r\nHost: x\r\n\r\n")
r = talk(b"GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
if status(r) != 404:
    fails.append("unknown path: not a 404: " + repr(r[:60]))
big = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * (1 << 20) + b"\r\n\r\n"
expect_error("a 1 MiB header", big)
expect_error("HTTP/0.9", b"GET /\r\n\r\n")
# no request line the server can parse: it waits for one until its idle
# timeout (10 s); 3 s of silence is enough to see it answers nothing good
expect_error("garbage", b"\x00\xff\x16\x03\x01 nonsense\r\n\r\n", wait=3.0)
expect_error("a POST", b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc")

# slowloris: a request dripped a byte at a time while good scrapes go on
slow = threading.Thread(
    target=talk,
    args=(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"s" * 20,),
    kwargs={"wait": 2.0, "drip": 0.15})
slow.start()
for _ in range(3):
    time.sleep(0.5)
    scrape_ok("a scrape during a slowloris")
slow.join()
scrape_ok("a slowloris")

# 16 connections at once from one address: a 17th is closed unanswered,
# while another address is served
held = [socket.create_connection(("127.0.0.1", PORT), timeout=5, source_address=("127.0.0.5", 0))
        for _ in range(16)]
time.sleep(0.3)
extra = talk(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", wait=3.0,
             src="127.0.0.5")
if status(extra) == 200:
    fails.append("a 17th connection from one address was served")
scrape_ok("16 connections held by one address")
for h in held:
    h.close()

for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
