#!/bin/sh
# The folders are layers with one-way arrows: the application (src) may
# include anything; tui, collectors, lib/rec and lib/serve only themselves and
# the core (collectors also inject/, the region's layout); lib/core only
# itself; inject/ (libasys-inject.so, loaded into workloads) only itself and
# the core's freestanding headers (header-only, libc alone: the generic
# pieces it shares with asys). A header is placed by where it lives in the
# tree.
. "$top_srcdir/tests/lib.sh"
cd "$top_srcdir" || exit 1

# the core's headers that inject/ may include: they include nothing of the tree
freestanding="khash.h dl_load.h"

# every header of the layers and the folder it lives in (the first folder
# in this order, where one name is in two)
homes=$(for d in lib/core lib/rec lib/serve src collectors tui inject; do
	for h in "$d"/*.h; do [ -f "$h" ] && echo "$d ${h##*/}"; done
done)

# layer_check FILE...: a line for each include that goes against the
# arrows, then "ok N" for the N includes that follow them. One awk for all
# the files: a process or two for each include cost most of a minute.
layer_check() {
	awk -v homes="$homes" -v free="$freestanding" '
	BEGIN {
		n = split(homes, l, "\n")
		for (i = 1; i <= n; i++) {
			split(l[i], p, " ")
			if (!(p[2] in home))
				home[p[2]] = p[1]
		}
		allow["lib/core"] = "lib/core"
		allow["lib/rec"] = "lib/rec lib/core"
		allow["lib/serve"] = "lib/serve lib/core"
		allow["collectors"] = "collectors lib/core inject"
		allow["tui"] = "tui lib/core"
		allow["src"] = "src lib/rec lib/serve lib/core collectors tui inject"
		allow["inject"] = "inject"
		n = split(free, l, " ")
		for (i = 1; i <= n; i++)
			freeh[l[i]] = 1
	}
	FNR == 1 {
		dir = FILENAME
		sub(/\/[^\/]*$/, "", dir)
	}
	/^#include "/ {
		h = $0
		sub(/^#include "/, "", h)
		sub(/".*/, "", h)
		if (!(h in home))
			next # generated, or of the system
		if (index(" " allow[dir] " ", " " home[h] " ") ||
		    (dir == "inject" && home[h] == "lib/core" && h in freeh)) {
			ok++
			next
		}
		print FILENAME " includes " h " from " home[h] ": " dir " may include only " allow[dir]
	}
	END { print "ok " ok + 0 }' "$@"
}

files=$(for dir in lib/core lib/rec lib/serve collectors tui src inject; do
	for f in "$dir"/*.c "$dir"/*.h; do [ -f "$f" ] && echo "$f"; done
done)
# shellcheck disable=SC2086
layer_check $files >"${TMPDIR:-/tmp}/layers.$$"
while IFS= read -r line; do
	case $line in
	"ok "*) [ "${line#ok }" -gt 100 ] && pass || fail "only ${line#ok } includes were checked" ;;
	*) fail "$line" ;;
	esac
done <"${TMPDIR:-/tmp}/layers.$$"
rm -f "${TMPDIR:-/tmp}/layers.$$"

# a freestanding header includes nothing of the tree, so inject/ gets the
# core's piece alone
for h in $freestanding; do
	if grep -q '^#include "' "lib/core/$h"; then
		fail "lib/core/$h is freestanding (inject/ includes it): it may include libc headers only"
	else
		pass
	fi
done

# The TUI cannot tell live from replay: what differs comes through its
# driver, and it never reads the engine.
if grep -l '#include "engine.h"' tui/*.c tui/*.h; then
	fail "tui/ includes engine.h: the driver's callbacks say what the engine does"
else
	pass
fi
# the rule itself must be able to fail: the core including a collector's
# header, inject/ including the core's; inject/ may include its own
T=$(mktemp -d) || exit 1
mkdir -p "$T/lib/core" "$T/inject"
printf '#include "registry.h"\n' >"$T/lib/core/x.c"
printf '#include "asys_inject.h"\n#include "store.h"\n#include "khash.h"\n' >"$T/inject/y.c"
got=$(cd "$T" && layer_check lib/core/x.c inject/y.c)
rm -rf "$T"
want="lib/core/x.c includes registry.h from collectors: lib/core may include only lib/core
inject/y.c includes store.h from lib/core: inject may include only inject
ok 2"
[ "$got" = "$want" ] && pass || fail "the check does not find what it must: $got"
finish
