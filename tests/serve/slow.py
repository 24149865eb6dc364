#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Slow clients against asys serve at 127.0.0.1:PORT: 16 connections from
each of 127.0.0.2 to 127.0.0.7 (the per-address cap times six, more than
the 64 the server keeps), each sending a header line every 2 s and never
the end of its headers, and connecting again when cut. Meanwhile a scraper from
127.0.0.1 must get each answer within a second, and no slow connection may
live much past the 5 s a request has to arrive whole. Prints one FAIL line
per problem; exits 1 if any."""
import socket
import sys
import threading
import time

PORT = int(sys.argv[1])
RUN_S = float(sys.argv[2]) if len(sys.argv) > 2 else 14.0
ADDRS = ["127.0.0.%d" % i for i in range(2, 8)]
fails = []
lives = []  # how long each slow connection lasted before the server cut it
lock = threading.Lock()
stop = threading.Event()


def slow_client(src):
    """One slow client: connect, drip header lines, again when cut."""
    while not stop.is_set():
        try:
            s = socket.create_connection(("127.0.0.1", PORT), timeout=1,
                                         source_address=(src, 0))
        except OSError:
            time.sleep(0.1)
            continue
        start = time.monotonic()
        try:
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
            n = 0
            while not stop.is_set():
                # the server's end shows as a read of nothing
                s.settimeout(2.0)
                try:
                    if not s.recv(4096):
                        break
                except socket.timeout:
                    pass
                n += 1
                s.sendall(b"X-Slow-%d: %s\r\n" % (n, b"s" * 20))
        except OSError:
            pass
        if not stop.is_set():
            with lock:
                lives.append(time.monotonic() - start)
        s.close()
        # again soon, not in a tight loop that would only load the CPU
        time.sleep(0.2)


def scrape():
    """Seconds to a whole answer from 127.0.0.1, or None when it failed."""
    t = time.monotonic()
    try:
        s = socket.create_connection(("127.0.0.1", PORT), timeout=5,
                                     source_address=("127.0.0.1", 0))
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        got = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            got += chunk
        s.close()
    except OSError as e:
        fails.append("a scrape failed: %s" % e)
        return None
    if not got.startswith(b"HTTP/1.1 200") or b"asys_build_info" not in got:
        fails.append("a scrape got no metrics: %r" % got[:80])
        return None
    return time.monotonic() - t


threads = [threading.Thread(target=slow_client, args=(a,), daemon=True)
           for a in ADDRS for _ in range(16)]
for t in threads:
    t.start()
# the slow clients in, and past the half second that makes them slow
time.sleep(1.5)
took = []
end = time.monotonic() + RUN_S
while time.monotonic() < end:
    d = scrape()
    if d is not None:
        took.append(d)
    time.sleep(0.5)
stop.set()
for t in threads:
    t.join(5)
late = [d for d in took if d > 1.0]
print("scrapes: %d, slowest %.3f s; slow connections cut: %d, longest %.1f s"
      % (len(took), max(took) if took else -1, len(lives), max(lives) if lives else -1))
if len(took) < RUN_S / 2:
    fails.append("only %d scrapes answered in %.0f s" % (len(took), RUN_S))
if late:
    fails.append("%d of %d scrapes took over a second (slowest %.2f s)"
                 % (len(late), len(took), max(late)))
if not lives:
    fails.append("no slow connection was cut")
elif max(lives) > 7.0:
    fails.append("a slow connection lived %.1f s, past the 5 s a request has" % max(lives))
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
