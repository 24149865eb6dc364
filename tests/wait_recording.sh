# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# wait_recording FILE LOG: until the recording FILE, written in the
# background, has grown past its first frames (its first samples are in),
# for 30 s at most; then the test ends with a failure that shows LOG.
# Sourced by the tests that start `asys record` in the background.
wait_recording() {
	wr_first='' wr_i=0
	while :; do
		wr_size=$(stat -c %s "$1" 2>/dev/null || echo 0)
		if [ "$wr_size" -gt 0 ]; then
			[ -n "$wr_first" ] || wr_first=$wr_size
			[ "$wr_size" -gt "$wr_first" ] && return 0
		fi
		wr_i=$((wr_i + 1))
		[ $wr_i -le 300 ] || { echo "FAIL: asys record wrote no samples in 30 s: $(cat "$2")"; exit 1; }
		sleep 0.1
	done
}
