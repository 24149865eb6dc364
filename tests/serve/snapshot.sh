#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: none
# asys snapshot: the JSON parses and follows its schema (asys-snapshot(1))
# with the fake PPU library, with no PPU library at all, and as a user
# without privileges; the text form has one line per value, and is what
# a terminal gets without -f.
. "$top_srcdir/tests/lib.sh"
FAKE="$top_builddir/tests/fakes/.libs/libhgml.so"
[ -r "$FAKE" ] || skip "fake library not built: $FAKE"
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to read the JSON"
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"; user_dir_cleanup' EXIT

# check.py FILE PPU: the schema; PPU=yes: the fake's device 0 is in it,
# no: ppu.dev has a status and no entity
cat >"$out/check.py" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
want_ppu = sys.argv[2] == "yes"
def need(c, what):
    if not c:
        print("FAIL:", what); sys.exit(1)
need(doc["schema"] == "asys-snapshot" and doc["version"] == 1, "schema and version")
need(isinstance(doc["host"], str) and doc["time"].endswith("Z"), "host and time")
need(all(isinstance(c["up"], bool) and isinstance(c["name"], str) for c in doc["collectors"]),
     "collectors")
streams = {s["name"]: s for s in doc["streams"]}
for s in doc["streams"]:
    names = [f["name"] for f in s["fields"]]
    need(all(f["kind"] in ("gauge", "counter", "attr") for f in s["fields"]), s["name"] + " kinds")
    for e in s["entities"]:
        need(isinstance(e["id"], str), s["name"] + " id is a string")
        need(set(e["values"]) == set(names), s["name"] + " values name every field")
        need(all(v is None or isinstance(v, (int, float)) for v in e["values"].values()),
             s["name"] + " values are numbers or null")
need("cpu.core" in streams and any(e["id"] == "total" for e in streams["cpu.core"]["entities"]),
     "cpu.core with its total")
tot = [e for e in streams["cpu.core"]["entities"] if e["id"] == "total"][0]
need(tot["rates"].get("idle") is not None, "a counter's rate after one interval")
dev = streams.get("ppu.dev")
if want_ppu:
    need(dev and dev["entities"] and dev["entities"][0]["id"] == "0", "ppu.dev device 0")
    need(dev["entities"][0]["values"]["temp"] == 40, "the fake's temperature, 40")
else:
    need(dev and not dev["entities"] and dev["status"], "ppu.dev: a status, no entity")
PY

ASYS_HGML_LIBRARY="$FAKE" FAKE_HGML_DEVICES=2 "$ASYS" snapshot --interval 0.6 -s none -t none \
	>"$out/ppu.json" 2>"$out/ppu.err"
rc=$?
if [ $rc -eq 0 ] && python3 "$out/check.py" "$out/ppu.json" yes; then pass; else
	fail "snapshot with the fake PPU (rc $rc): $(cat "$out/ppu.err")"; fi

ASYS_HGML_LIBRARY= PPU_HOME=/nonexistent/ppu "$ASYS" snapshot --interval 0.6 -s none -t none \
	>"$out/none.json" 2>"$out/none.err"
rc=$?
if [ $rc -eq 0 ] && python3 "$out/check.py" "$out/none.json" no; then pass; else
	fail "snapshot without a PPU library (rc $rc): $(cat "$out/none.err")"; fi

ASYS_HGML_LIBRARY="$FAKE" "$ASYS" snapshot -f text --interval 0.6 -s none -t none \
	>"$out/t.txt" 2>&1
if grep -Eq '^ppu.dev 0 temp 40( |$)' "$out/t.txt" && grep -q '^cpu.core total idle [0-9]' "$out/t.txt"
then pass; else fail "text form: $(head -5 "$out/t.txt")"; fi
# the entity's name comes last: lo is interface 1 in every namespace
lo=$(cat /sys/class/net/lo/ifindex 2>/dev/null)
if [ -z "$lo" ] || grep -Eq "^nic.link $lo rx_bytes [0-9]+ lo$" "$out/t.txt"
then pass; else fail "text form: no name on lo's lines: $(grep '^nic.link' "$out/t.txt" | head -3)"; fi

# without -f: the text form on a terminal, JSON into a pipe; -f json on a
# terminal all the same. script(1) gives the command a terminal.
if command -v script >/dev/null 2>&1; then
	script -qec "$ASYS snapshot --interval 0.3 -s none -t none" /dev/null </dev/null \
		>"$out/tty.txt" 2>&1
	if grep -q '^cpu.core total idle [0-9]' "$out/tty.txt" && ! grep -q '"schema"' "$out/tty.txt"
	then pass; else fail "on a terminal, not the text form: $(head -c 300 "$out/tty.txt")"; fi
	script -qec "$ASYS snapshot -f json --interval 0.3 -s none -t none" /dev/null </dev/null \
		>"$out/ttyj.txt" 2>&1
	if grep -q '^{"schema":"asys-snapshot"' "$out/ttyj.txt"
	then pass; else fail "-f json on a terminal: $(head -c 300 "$out/ttyj.txt")"; fi
else
	echo "the form on a terminal not checked: script (util-linux) is missing"
fi
"$ASYS" snapshot --interval 0.3 -s none -t none | head -c 40 >"$out/pipe.txt"
if grep -q '^{"schema":"asys-snapshot"' "$out/pipe.txt"
then pass; else fail "into a pipe, not JSON: $(cat "$out/pipe.txt")"; fi

"$ASYS" snapshot --interval 0 >/dev/null 2>"$out/bad"; rc=$?
[ $rc -eq 2 ] && grep -q 'interval' "$out/bad" && pass || fail "--interval 0 (rc $rc)"

# as a user without privileges: probes and per-process data may be missing,
# the document is whole all the same
if [ "$(id -u)" -eq 0 ]; then
	if copy_for_user "$ASYS" "$out/check.py"; then
		setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent \
			"$user_dir/asys" snapshot --interval 0.6 >"$out/user.json" 2>"$out/user.err"
		rc=$?
		if [ $rc -eq 0 ] && python3 "$out/check.py" "$out/user.json" no; then pass; else
			fail "snapshot as uid 65534 (rc $rc): $(cat "$out/user.err")"; fi
	else
		echo "not run as another user: $user_dir_why"
	fi
fi
finish
