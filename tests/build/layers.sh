#!/bin/sh
# The folders are layers with one-way arrows: the application (src) may
# include anything; tui, collectors, src/rec and src/expo only themselves and
# the core (collectors also inject/, the region's layout); src/core only
# itself; inject/ (libasys-inject.so, loaded into workloads) only itself. A header is placed by where it lives in the tree.
. "$top_srcdir/tests/lib.sh"
cd "$top_srcdir" || exit 1

# the folder a header lives in, or "" for a generated or system one
home_of() {
	for d in src/core src/rec src/expo src collectors tui inject; do
		[ -f "$d/$1" ] && { echo "$d"; return; }
	done
	echo ""
}

# allowed FOLDER: the folders its files may include
allowed() {
	case $1 in
	src/core) echo "src/core" ;;
	src/rec) echo "src/rec src/core" ;;
	src/expo) echo "src/expo src/core" ;;
	collectors) echo "collectors src/core inject" ;;
	tui) echo "tui src/core" ;;
	src) echo "src src/rec src/expo src/core collectors tui inject" ;;
	inject) echo "inject" ;;
	esac
}

for dir in src/core src/rec src/expo collectors tui src inject; do
	for f in "$dir"/*.c "$dir"/*.h; do
		[ -f "$f" ] || continue
		for h in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
			to=$(home_of "$h")
			[ -n "$to" ] || continue
			ok=no
			for a in $(allowed "$dir"); do
				[ "$to" = "$a" ] && ok=yes
			done
			if [ $ok = yes ]; then
				pass
			else
				fail "$f includes $h from $to: $dir may include only $(allowed "$dir")"
			fi
		done
	done
done
# The TUI cannot tell live from replay: what differs comes through its
# driver, and it never reads the engine.
if grep -l '#include "engine.h"' tui/*.c tui/*.h; then
	fail "tui/ includes engine.h: the driver's callbacks say what the engine does"
else
	pass
fi
# the rule itself must be able to fail: the core including a collector
echo '#include "registry.h"' | (h=$(sed -n 's/^#include "\([^"]*\)".*/\1/p'); [ "$(home_of "$h")" = collectors ]) &&
	pass || fail "home_of does not find collectors/registry.h"
# and inject/ is a layer of its own: a header there is found there
[ "$(home_of asys_inject.h)" = inject ] && [ "$(allowed inject)" = inject ] && pass ||
	fail "home_of does not place inject/asys_inject.h in inject, or inject may include more"
finish
