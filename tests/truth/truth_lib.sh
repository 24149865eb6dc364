# SPDX-License-Identifier: GPL-2.0-only
# Shared by the ground-truth tests: a recording in the background and its
# samples as plain rows. Source it after tests/lib.sh.
# shellcheck shell=sh

truth_helper=$top_builddir/tests/truth/truth_helper
truth_work=
truth_rec=

[ -x "$truth_helper" ] || skip "$truth_helper is not built (make check builds it)"
truth_work=$(mktemp -d "${TMPDIR:-/tmp}/asys-truth.XXXXXX") || skip "cannot make a directory"

truth_cleanup() {
	[ -z "$truth_rec" ] || kill "$truth_rec" 2>/dev/null
	[ -z "$truth_rec" ] || wait "$truth_rec" 2>/dev/null
	rm -rf "$truth_work"
}

# truth_record ARGS...: `asys record -o $truth_work/r.asys ARGS` in the
# background, without the runtime probes (they need BPF and are not what
# these tests check).
truth_record() {
	"$ASYS" record -o "$truth_work/r.asys" -t none --hggc-memory-usage false "$@" \
		>"$truth_work/record.log" 2>&1 &
	truth_rec=$!
}

# truth_stop: SIGTERM to the recorder, which writes its trailer and exits 0.
truth_stop() {
	kill -TERM "$truth_rec" 2>/dev/null
	wait "$truth_rec"
	ts_rc=$?
	truth_rec=
	[ "$ts_rc" -eq 0 ] || fail "asys record exited $ts_rc: $(tail -n 3 "$truth_work/record.log")"
}

# truth_rows STREAM: "t_ns entity label field value" for each value of STREAM
# in the recording (it may still be being written). Columns are found by the
# header's names; a label may hold commas, so the columns after it are
# counted from the end of the line. Blanks in a label become "_", and an
# empty or unreadable label is "-", so that every row has five words.
truth_rows() {
	"$ASYS" export "$truth_work/r.asys" --streams "$1" 2>/dev/null | awk -F, '
	function col(name,   i, s) {
		i = c[name]
		if (i < l)
			return $i
		if (i > l)
			return $(NF - (h - i))
		if (NF != h || $l == "")
			return "-"
		s = $l
		gsub(/[ \t]/, "_", s)
		return s
	}
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; h = NF; l = c["label"]; next }
	{ print col("t_ns"), col("entity"), col("label"), col("field"), col("value") }'
}

# truth_wait_sample STREAM AWK_CONDITION [N]: waits (60 s at most) until the
# recording holds N (default 1) values of STREAM whose rows ("$1 t_ns, $2
# entity, $3 label, $4 field, $5 value") meet the condition. Returns 1 on the
# deadline or when the recorder has exited.
truth_wait_sample() {
	tw_i=0
	while [ $tw_i -lt 600 ]; do
		if truth_rows "$1" | awk -v want="${3:-1}" "$2 { n++ } END { exit n < want }"; then
			return 0
		fi
		kill -0 "$truth_rec" 2>/dev/null || return 1
		sleep 0.1
		tw_i=$((tw_i + 1))
	done
	return 1
}

truth_now() {
	"$truth_helper" now
}

# truth_wait_file FILE: 60 s at most, for the helper to finish a phase
truth_wait_file() {
	wf_i=0
	while [ ! -s "$1" ] && [ $wf_i -lt 600 ]; do
		sleep 0.1
		wf_i=$((wf_i + 1))
	done
	[ -s "$1" ]
}

# truth_status_b PID FIELD: VmRSS or VmHWM of PID in bytes, from /proc/PID/status
truth_status_b() {
	awk -v f="$2:" '$1 == f && $3 == "kB" { print $2 * 1024 }' "/proc/$1/status"
}
