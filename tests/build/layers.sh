#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: none
# The folders are layers with one-way arrows: the application (src) may
# include anything; tui, collectors, lib/rec and lib/serve only themselves and
# the core (collectors also inject/, the region's layout); lib/core only
# itself; inject/ (libasys-inject.so, loaded into workloads) only itself and
# the core's freestanding headers (header-only, libc alone: the generic
# pieces it shares with asys). A header is placed by where it lives in the
# tree. In tui/, the panes (tui/panes) include the frame and the widgets,
# never the reverse.
#
# collectors/ is a folder per source. From outside its folder a collector's
# headers are private but for one, its public header, which its fragment
# names on a "# public header: NAME.h" line (collectors/NAME/NAME.am). The
# build gives each folder its own -I, so a header's name must be unique.
. "$top_srcdir/tests/lib.sh"
cd "$top_srcdir" || exit 1

# the core's headers that inject/ may include: they include nothing of the tree
freestanding="khash.h dl_load.h"

cdirs=$(for d in collectors/*/; do [ -d "$d" ] && echo "${d%/}"; done)
# every header of the layers and the folder it lives in
homes=$(for d in lib/core lib/rec lib/serve src collectors $cdirs tui tui/panes inject; do
	for h in "$d"/*.h; do [ -f "$h" ] && echo "$d ${h##*/}"; done
done)
# each collector folder and its public header
publics=$(for d in $cdirs; do
	p=$(sed -n 's/^# public header: *\([^ ]*\)$/\1/p' "$d/${d##*/}.am" 2>/dev/null | head -n 1)
	echo "$d ${p:-none}"
done)

# layer_check FILE...: a line for each include that goes against the
# arrows, then "ok N" for the N includes that follow them. One awk for all
# the files: a process or two for each include cost most of a minute.
layer_check() {
	awk -v homes="$homes" -v publics="$publics" -v free="$freestanding" '
	BEGIN {
		n = split(homes, l, "\n")
		for (i = 1; i <= n; i++) {
			split(l[i], p, " ")
			if (p[2] in home)
				print p[2] " is in " home[p[2]] " and in " p[1] ": each folder has its -I, a header name must be unique"
			else
				home[p[2]] = p[1]
		}
		n = split(publics, l, "\n")
		for (i = 1; i <= n; i++) {
			split(l[i], p, " ")
			public[p[1]] = p[2]
			if (p[2] == "none" || home[p[2]] != p[1])
				print p[1] ": its fragment names no public header of its own (" p[2] ")"
		}
		allow["lib/core"] = "lib/core"
		allow["lib/rec"] = "lib/rec lib/core"
		allow["lib/serve"] = "lib/serve lib/core"
		allow["collectors"] = "collectors lib/core inject"
		allow["tui"] = "tui lib/core"
		allow["tui/panes"] = "tui/panes tui lib/core"
		allow["src"] = "src lib/rec lib/serve lib/core collectors tui tui/panes inject"
		allow["inject"] = "inject"
		n = split(free, l, " ")
		for (i = 1; i <= n; i++)
			freeh[l[i]] = 1
	}
	FNR == 1 {
		dir = FILENAME
		sub(/\/[^\/]*$/, "", dir)
		# a collector folder is of the collectors layer
		layer = dir ~ /^collectors\// ? "collectors" : dir
	}
	/^#include "/ {
		h = $0
		sub(/^#include "/, "", h)
		sub(/".*/, "", h)
		if (!(h in home))
			next # generated, or of the system
		hl = home[h] ~ /^collectors\// ? "collectors" : home[h]
		if (!index(" " allow[layer] " ", " " hl " ") &&
		    !(dir == "inject" && home[h] == "lib/core" && h in freeh)) {
			print FILENAME " includes " h " from " home[h] ": " dir " may include only " allow[layer]
			next
		}
		if (home[h] in public && home[h] != dir && h != public[home[h]]) {
			print FILENAME " includes " h ", private to " home[h] ": outside it only its public header " public[home[h]]
			next
		}
		ok++
	}
	END { print "ok " ok + 0 }' "$@"
}

files=$(for dir in lib/core lib/rec lib/serve collectors $cdirs tui tui/panes src inject; do
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
if grep -l '#include "engine.h"' tui/*.c tui/*.h tui/panes/*.c tui/panes/*.h; then
	fail "tui/ includes engine.h: the driver's callbacks say what the engine does"
else
	pass
fi
# the rule itself must be able to fail: the core including a collector's
# header, inject/ including the core's, the application and another
# collector including a collector's private header, the frame including a
# pane's header; inject/ may include its own, a collector another's public
# header and its own private ones
T=$(mktemp -d) || exit 1
mkdir -p "$T/lib/core" "$T/inject" "$T/src" "$T/collectors/cpu" "$T/tui"
printf '#include "registry.h"\n' >"$T/lib/core/x.c"
printf '#include "asys_inject.h"\n#include "store.h"\n#include "khash.h"\n' >"$T/inject/y.c"
printf '#include "memproc_int.h"\n' >"$T/src/z.c"
printf '#include "mem.h"\n#include "memproc.h"\n#include "perfctr.h"\n' >"$T/collectors/cpu/w.c"
printf '#include "proc.h"\n' >"$T/tui/v.c"
got=$(cd "$T" && layer_check lib/core/x.c inject/y.c src/z.c collectors/cpu/w.c tui/v.c)
rm -rf "$T"
want="lib/core/x.c includes registry.h from collectors: lib/core may include only lib/core
inject/y.c includes store.h from lib/core: inject may include only inject
src/z.c includes memproc_int.h, private to collectors/mem: outside it only its public header mem.h
collectors/cpu/w.c includes memproc.h, private to collectors/mem: outside it only its public header mem.h
tui/v.c includes proc.h from tui/panes: tui may include only tui lib/core
ok 4"
[ "$got" = "$want" ] && pass || fail "the check does not find what it must: $got"
finish
