#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: system
# The Grafana dashboards (contrib/grafana/*.json) against a real asys serve:
# each is JSON with Grafana's basic structure (schemaVersion, the datasource
# and instance variables, panels with type, gridPos and targets with expr),
# and every metric name in every PromQL expression (and variable query)
# has samples in a real scrape of asys serve with the fake PPU library and
# the RDMA sysfs fixture, started with --metrics-processes. Where Debian's
# prometheus is installed, a real Prometheus scrapes the same server and
# each expression (variables filled in) must parse and return series.
set -u
. "$top_srcdir/tests/lib.sh"
FAKE="$top_builddir/tests/fakes/.libs/libhgml.so"
FIX="$top_builddir/tests/nic/rdma_fixture"
DASH="$top_srcdir/contrib/grafana"
command -v python3 >/dev/null 2>&1 || skip "python3 is missing"
command -v curl >/dev/null 2>&1 || skip "curl is missing"
[ -r "$FAKE" ] || skip "fake library not built: $FAKE"
[ -x "$FIX" ] || skip "RDMA fixture helper not built: $FIX"
built_with SERVE ||
	skip "asys was built without libmicrohttpd (configure --enable-serve)"
D=$(mktemp -d "${TMPDIR:-/tmp}/asys-grafana.XXXXXX") || exit 1
SRV= FIXPID= PROM=
trap '[ -n "$SRV" ] && kill "$SRV" 2>/dev/null; [ -n "$FIXPID" ] && kill "$FIXPID" 2>/dev/null
	[ -n "$PROM" ] && kill "$PROM" 2>/dev/null; [ -n "$PROM" ] && wait "$PROM" 2>/dev/null
	rm -rf "$D"' EXIT

# the structure, and the expressions to check, one "file<TAB>expr" a line
python3 - "$DASH/asys-node.json" "$DASH/asys-fleet.json" >"$D/exprs" 2>"$D/struct" <<'EOF'
import json, re, sys

bad = []
def need(ok, what):
    if not ok:
        bad.append(what)

for path in sys.argv[1:]:
    name = path.rsplit("/", 1)[-1]
    try:
        d = json.load(open(path))
    except ValueError as e:
        print("%s: not JSON: %s" % (name, e), file=sys.stderr)
        sys.exit(1)
    need(isinstance(d.get("schemaVersion"), int) and d["schemaVersion"] >= 30,
         "%s: schemaVersion" % name)
    for k in ("title", "uid"):
        need(isinstance(d.get(k), str) and d[k], "%s: %s" % (name, k))
    var = {v.get("name"): v for v in d.get("templating", {}).get("list", [])}
    need(var.get("datasource", {}).get("type") == "datasource" and
         var["datasource"].get("query") == "prometheus", "%s: no datasource variable" % name)
    need("instance" in var, "%s: no instance variable" % name)
    for v in var.values():
        if v.get("type") == "query":
            q = v.get("query")
            q = q.get("query") if isinstance(q, dict) else q
            need(isinstance(q, str) and q, "%s: variable %s without a query" % (name, v.get("name")))
            print("%s\t%s" % (name, q))
    panels = d.get("panels")
    need(isinstance(panels, list) and panels, "%s: no panels" % name)
    cells, ids = set(), set()
    for p in panels or []:
        t = p.get("title", "?")
        need(isinstance(p.get("type"), str) and p["type"], "%s: %s: no type" % (name, t))
        need(p.get("id") not in ids, "%s: %s: id used twice" % (name, t))
        ids.add(p.get("id"))
        g = p.get("gridPos", {})
        ok = all(isinstance(g.get(k), int) for k in "hwxy")
        need(ok and g["w"] > 0 and g["h"] > 0 and g["x"] + g["w"] <= 24,
             "%s: %s: gridPos %s" % (name, t, g))
        if ok:
            for x in range(g["x"], g["x"] + g["w"]):
                for y in range(g["y"], g["y"] + g["h"]):
                    need((x, y) not in cells, "%s: %s overlaps another panel" % (name, t))
                    cells.add((x, y))
        tg = p.get("targets")
        need(isinstance(tg, list) and tg, "%s: %s: no targets" % (name, t))
        refs = [x.get("refId") for x in tg or []]
        need(len(set(refs)) == len(refs) and all(refs), "%s: %s: refIds %s" % (name, t, refs))
        for x in tg or []:
            e = x.get("expr")
            need(isinstance(e, str) and e.strip(), "%s: %s: a target without expr" % (name, t))
            need(x.get("datasource", p.get("datasource", {})).get("uid") == "${datasource}",
                 "%s: %s: not on the datasource variable" % (name, t))
            if isinstance(e, str):
                print("%s\t%s" % (name, e))
for b in sorted(set(bad)):
    print(b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
[ $? -eq 0 ] || { cat "$D/struct"; fail "dashboard structure"; finish; exit; }
echo "$(wc -l <"$D/exprs") expressions in the dashboards"
pass

# a scrape of asys serve: fake PPUs, RDMA ports from the fixture (the rest
# of the sysroot is this machine's /proc), per-process series on
"$FIX" "$D/root" create || { fail "the RDMA fixture tree"; finish; exit; }
ln -s /proc "$D/root/proc"
"$FIX" "$D/root" run 60 200 &
FIXPID=$!
ASYS_SYSROOT="$D/root" ASYS_HGML_LIBRARY="$FAKE" FAKE_HGML_DEVICES=2 "$ASYS" serve \
	--listen 127.0.0.1:0 -d 0.5 -s system-wide --metrics-processes 20 --nic-metrics true \
	--nic-metrics-frequency 100 --ppu-metrics-device all 2>"$D/err" &
SRV=$!
PORT=$(serving_port "$D/err" "asys serve" http "$SRV") || { fail "asys serve did not start: $(cat "$D/err")"; finish; exit; }
URL=http://127.0.0.1:$PORT/metrics
i=0
# (a collector's rate, once a second of its ticks is in)
until curl -s --max-time 5 "$URL" >"$D/scrape" && grep -q '^asys_rdma_cnp_rx_total' "$D/scrape" &&
	grep -q '^asys_ppu_process_util_sm_ratio' "$D/scrape" &&
	grep -q '^asys_ppu_metric_mean_ratio' "$D/scrape" &&
	grep -q '^asys_collector_rate_hz' "$D/scrape"; do
	i=$((i + 1))
	[ $i -le 100 ] || { fail "no RDMA, per-process or GPM series in 10 s"; finish; exit; }
	sleep 0.1
done
# names with samples (not only HELP/TYPE lines)
grep -v '^#' "$D/scrape" | sed 's/[{ ].*//' | sort -u >"$D/have"
# every identifier in an expression that is a metric: asys_..., and any
# name right before a selector's { that is not asys_ (a typo of a prefix)
python3 - "$D/exprs" "$D/have" <<'EOF' || fail "dashboards query metrics that asys serve does not export"
import re, sys
have = set(open(sys.argv[2]).read().split())
missing, strays = {}, set()
for line in open(sys.argv[1]):
    name, expr = line.rstrip("\n").split("\t", 1)
    # strings ("...") hold label values and regexes, not metric names
    bare = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    found = re.findall(r"\basys_[A-Za-z0-9_:]+", bare)
    if not found:
        strays.add("%s: no asys_ metric in: %s" % (name, expr))
    for m in found:
        if m not in have:
            missing.setdefault(m, set()).add(name)
    for m in re.findall(r"\b([A-Za-z_:][A-Za-z0-9_:]*)\s*\{", bare):
        if not m.startswith("asys_"):
            strays.add("%s: metric %s is not asys's" % (name, m))
for m in sorted(missing):
    print("missing from the scrape: %s (%s)" % (m, ", ".join(sorted(missing[m]))))
for s in sorted(strays):
    print(s)
n = len({m for l in open(sys.argv[1]) for m in re.findall(r"\basys_[A-Za-z0-9_:]+", l)})
print("%d metric names, %d missing" % (n, len(missing)))
sys.exit(1 if missing or strays else 0)
EOF
pass

# a real Prometheus: every expression parses and finds series
if ! command -v prometheus >/dev/null 2>&1; then
	echo "prometheus is missing (Debian package prometheus): expressions not evaluated"
	finish
	exit
fi
PP=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$D/prom.yml" <<EOF
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: asys
    static_configs:
      - targets: ['127.0.0.1:$PORT']
EOF
prometheus --config.file="$D/prom.yml" --storage.tsdb.path="$D/tsdb" \
	--web.listen-address="127.0.0.1:$PP" >"$D/prom.log" 2>&1 &
PROM=$!
API=http://127.0.0.1:$PP/api/v1
# four scrapes, so that rates over 4 s have two points or more
i=0
until [ "$(curl -s "$API/query?query=count_over_time(up%5B10s%5D)" |
	python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)' 2>/dev/null)" -ge 5 ] 2>/dev/null; do
	i=$((i + 1))
	[ $i -le 300 ] || { fail "Prometheus did not scrape asys serve: $(tail -3 "$D/prom.log")"; finish; exit; }
	sleep 0.1
done
python3 - "$D/exprs" "$API" <<'EOF' || fail "dashboard expressions that Prometheus refuses or finds nothing for"
import json, sys, urllib.parse, urllib.request
bad = 0
for line in open(sys.argv[1]):
    name, expr = line.rstrip("\n").split("\t", 1)
    if expr.startswith("label_values("):
        # a variable: label_values(METRIC, LABEL) -> the series of METRIC
        expr = expr[len("label_values("):].rsplit(",", 1)[0]
    q = (expr.replace("$__rate_interval", "4s").replace("$__interval", "4s")
         .replace("$instance", ".*"))
    url = sys.argv[2] + "/query?" + urllib.parse.urlencode({"query": q})
    try:
        r = json.load(urllib.request.urlopen(url, timeout=10))
    except Exception as e:
        r = {"status": "error", "error": getattr(e, "read", lambda: str(e).encode())().decode()}
    if r.get("status") != "success":
        print("%s: refused: %s: %s" % (name, q, r.get("error")))
        bad += 1
    elif not r["data"]["result"]:
        print("%s: no series: %s" % (name, q))
        bad += 1
sys.exit(1 if bad else 0)
EOF
pass
finish
