#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Load on asys serve at 127.0.0.1:PORT: N scrapers (default 50), each from
its own loopback address (127.0.0.10 up) over a kept-alive connection as
Prometheus scrapes, as fast as they can for SECONDS (default 10), while a
monitor reads asys_collector_rate_hz twice a second. Before, the monitor
reads the rates for 3 s alone. Meanwhile a connection that sent half a
request and then nothing must be closed when the 5 s a request has to
arrive whole are over.
Fails when a scrape fails, when a scraper
got fewer than 2 scrapes, or when a collector's achieved rate under load
falls below RATIO (default 0.9) of its rate before. Prints the figures.
Usage: load.py PORT [SECONDS [N [RATIO]]]"""
import http.client
import re
import socket
import statistics
import sys
import threading
import time

PORT = int(sys.argv[1])
SECS = float(sys.argv[2]) if len(sys.argv) > 2 else 10.0
N = int(sys.argv[3]) if len(sys.argv) > 3 else 50
RATIO = float(sys.argv[4]) if len(sys.argv) > 4 else 0.9
RATE = re.compile(rb'^asys_collector_rate_hz\{collector="([^"]+)"\} (\S+)$', re.M)


def scrape(conn):
    """One GET /metrics on conn; the body, or an exception."""
    conn.request("GET", "/metrics")
    r = conn.getresponse()
    body = r.read()
    if r.status != 200:
        raise RuntimeError("status %d" % r.status)
    if b"\nasys_build_info{" not in body:
        raise RuntimeError("no asys_build_info in %d bytes" % len(body))
    return body


def connect(src):
    return http.client.HTTPConnection("127.0.0.1", PORT, timeout=5, source_address=(src, 0))


def rates(body):
    return {m.group(1).decode(): float(m.group(2)) for m in RATE.finditer(body)}


def monitor(until, out):
    """Rates every 0.5 s until the time until: {collector: [hz, ...]}."""
    conn = connect("127.0.0.2")
    while time.monotonic() < until:
        try:
            for c, v in rates(scrape(conn)).items():
                out.setdefault(c, []).append(v)
        except Exception:  # the scrapers count errors; reconnect
            conn.close()
            conn = connect("127.0.0.2")
        time.sleep(0.5)
    conn.close()


def slowloris(out):
    """Half a request, then silence: the server closes the connection
    once its 5 s to arrive whole are over. out: [seconds until closed]."""
    s = socket.create_connection(("127.0.0.1", PORT), timeout=20, source_address=("127.0.0.3", 0))
    t = time.monotonic()
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ")
    try:
        got = s.recv(4096)
    except (socket.timeout, ConnectionResetError):
        got = b""
    out.append((time.monotonic() - t, got))
    s.close()


counts = [0] * N
errors = []


def scraper(i, until):
    conn = connect("127.0.0.%d" % (10 + i))
    while time.monotonic() < until:
        try:
            scrape(conn)
            counts[i] += 1
        except Exception as e:
            errors.append("scraper %d: %s" % (i, e))
            conn.close()
            conn = connect("127.0.0.%d" % (10 + i))
    conn.close()


before, during, slow = {}, {}, []
sl = threading.Thread(target=slowloris, args=(slow,))
sl.start()
monitor(time.monotonic() + 3, before)
until = time.monotonic() + SECS
threads = [threading.Thread(target=scraper, args=(i, until)) for i in range(N)]
threads.append(threading.Thread(target=monitor, args=(until, during)))
t0 = time.monotonic()
for t in threads:
    t.start()
for t in threads:
    t.join()
took = time.monotonic() - t0
sl.join()

fails = errors[:5]
total = sum(counts)
print("%d scrapers, %.1f s: %d scrapes (%.0f/s), %d errors, fewest per scraper %d" %
      (N, took, total, total / took, len(errors), min(counts)))
if min(counts) < 2:
    fails.append("a scraper got %d scrapes in %.0f s" % (min(counts), took))
for c in sorted(before):
    b = statistics.median(before[c])
    d = during.get(c, [])
    low = min(d) if d else float("nan")
    print("  %-12s rate before %9.3f Hz, lowest under load %9.3f Hz" % (c, b, low))
    if b > 0 and not (low >= RATIO * b):
        fails.append("%s: %.3f Hz under load, %.3f Hz before" % (c, low, b))
closed, got = slow[0] if slow else (float("nan"), b"")
print("  a silent half request was closed after %.1f s%s" %
      (closed, (", answered " + repr(got[:40])) if got else ""))
if not 4.5 <= closed <= 9 or (got and b" 4" not in got[:13]):
    fails.append("a silent half request: closed after %.1f s (want 5 s), got %r" %
                 (closed, got[:40]))
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
