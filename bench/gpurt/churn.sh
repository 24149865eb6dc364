#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/gpurt/churn.sh: what process churn costs the runtime-probe discovery
# of `asys top` at its defaults (system-wide). It starts asys top in tmux
# (120x40), lets it settle (the BPF load and the first read of every
# process's maps), then measures its discovery thread (`asys-gpurt`) and the
# whole process, from /proc/PID/task/*/schedstat and the context-switch
# counts, quiet and then under each churn rate: RATE short-lived dynamic
# processes a second (/bin/true), a tenth of them living 1 s (`sleep 1`, as
# a compiler does, across the discovery's periodic pass). Prints the thread's
# ms of CPU a second, wakes a second, its ratio to the quiet figure
# (target: <= 1.10 at 10 starts a second) and the µs of the thread's CPU a
# start adds over the quiet phase.
# Usage, as root: bench/gpurt/churn.sh [seconds per phase] (default 60)
#   RATES="10 100" (starts a second per phase), ASYS=path, SETTLE=10
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-60}
asys=${ASYS:-$top/build/plain/asys}
rates=${RATES:-10 100}
settle=${SETTLE:-10}
[ -x "$asys" ] || { echo "no asys binary at $asys" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "SKIP: the runtime probes need root"; exit 77; }
command -v tmux >/dev/null || { echo "SKIP: needs tmux"; exit 77; }
sock="asys-churn-$$"
work=$(mktemp -d)
churn=
trap '[ -z "$churn" ] || kill "$churn" 2>/dev/null; tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
tmux -L "$sock" new-session -d -s asys -x 120 -y 40 "exec $asys top"
pid=$(tmux -L "$sock" display-message -p -t "=asys:" '#{pane_pid}')
sleep "$settle"
tid=
for t in /proc/"$pid"/task/*; do
	[ "$(cat "$t/comm")" = asys-gpurt ] && tid=${t##*/}
done
[ -n "$tid" ] || { echo "asys top has no asys-gpurt thread (are the runtime probes on?)" >&2; exit 1; }

# ns on a CPU and context switches: of the thread, then of the whole process
snap() {
	local t=/proc/$pid/task/$tid
	echo "$(awk '{print $1}' "$t/schedstat") $(awk '/ctxt_switches/{s += $2} END{print s}' "$t/status")" \
		"$(cat /proc/"$pid"/task/*/schedstat | awk '{s += $1} END{printf "%d", s}')"
}

# RATE starts a second until killed, each tenth of a second a batch; the
# count of starts goes to $work/n.RATE
run_churn() {
	local rate=$1 n=0 per=$(($1 / 10)) i
	[ "$per" -ge 1 ] || per=1
	while :; do
		for ((i = 0; i < per; i++)); do
			if ((n % 10 == 9)); then sleep 1 & else /bin/true; fi
			n=$((n + 1))
		done
		echo "$n" >"$work/n.$rate"
		sleep 0.1
	done
}

printf '%-14s %10s %12s %10s %8s %12s %14s\n' phase "starts/s" "gpurt ms/s" "wakes/s" ratio \
	"asys ms/s" "us per start"
quiet=
for phase in quiet $rates; do
	if [ "$phase" != quiet ]; then
		run_churn "$phase" &
		churn=$!
		sleep 2
	fi
	n0=$(cat "$work/n.$phase" 2>/dev/null || echo 0)
	read -r c0 w0 a0 <<<"$(snap)"
	sleep "$secs"
	read -r c1 w1 a1 <<<"$(snap)"
	n1=$(cat "$work/n.$phase" 2>/dev/null || echo 0)
	if [ -n "$churn" ]; then kill "$churn"; wait "$churn" 2>/dev/null || true; churn=; fi
	ms=$(awk -v a="$c0" -v b="$c1" -v s="$secs" 'BEGIN{printf "%.3f", (b - a) / 1e6 / s}')
	[ -n "$quiet" ] || quiet=$ms
	label=quiet
	[ "$phase" = quiet ] || label="churn $phase/s"
	awk -v p="$label" -v n=$((n1 - n0)) -v ms="$ms" -v q="$quiet" -v w=$((w1 - w0)) \
		-v a=$((a1 - a0)) -v s="$secs" 'BEGIN{printf "%-14s %10.1f %12.3f %10.1f %8.2f %12.3f",
		p, n / s, ms, w / s, (q > 0 ? ms / q : 0), a / 1e6 / s
		# the thread CPU a start adds over the quiet phase
		if (n > 0) printf " %14.2f", (ms - q) * 1e3 * s / n; printf "\n"}'
	sleep 3
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(date -u '+%Y-%m-%d %H:%M UTC')"
