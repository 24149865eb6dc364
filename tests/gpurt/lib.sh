# SPDX-License-Identifier: GPL-2.0-only
# Common setup for the gpurt shell tests (sourced).
: "${top_builddir:=.}"
# The tests read and print text and numbers with grep, sed, awk and printf:
# in the same locale whatever the caller's (tests/lib.sh says why).
LC_ALL=C.UTF-8
export LC_ALL
FAKE_CUDA_DIR="$top_builddir/tests/fakes/.libs"
GPURT_WORKLOAD="$top_builddir/tests/gpurt/workload"
export FAKE_CUDA_DIR GPURT_WORKLOAD

# Skips (exit 77) with the reason unless BPF can be loaded here.
gpurt_need_bpf() {
	if [ "$(id -u)" != 0 ]; then
		echo "SKIP: loading BPF needs root (or CAP_BPF+CAP_PERFMON)"
		exit 77
	fi
	if [ ! -r /sys/kernel/btf/vmlinux ]; then
		echo "SKIP: the kernel has no BTF (/sys/kernel/btf/vmlinux)"
		exit 77
	fi
	for f in "$FAKE_CUDA_DIR/libcudart.so" "$FAKE_CUDA_DIR/libcuda.so" "$GPURT_WORKLOAD"; do
		[ -e "$f" ] || { echo "FAIL: $f was not built"; exit 1; }
	done
}

# Every uprobe process $1 holds, a line each with its file's path and a
# space: perf-event uprobes as bpftool ($bt) lists them, and each probe of a
# uprobe-multi link (kernel 6.6 and later) from the link's fdinfo, where a
# return probe's link says uretprobe_multi.
gpurt_uprobes() {
	"$bt" perf list 2>/dev/null | grep "^pid $1 " |
		awk '{ for (i = 1; i < NF; i++) if ($i == "filename") print $(i + 1) " " }'
	cat /proc/"$1"/fdinfo/* 2>/dev/null | awk '
		function out(i) { if (t ~ /^u(ret)?probe_multi$/) for (i = 0; i < c; i++) print p " " }
		/^pos:/ { out(); t = ""; c = 0; p = "" }
		/^link_type:/ { t = $2 }
		/^uprobe_cnt:/ { c = $2 }
		/^path:/ { p = $2 }
		END { out() }'
}

# Whether the running kernel takes uprobe-multi links (6.6 and later).
gpurt_kernel_multi() {
	grep -q ' bpf_uprobe_multi_link_attach$' /proc/kallsyms
}

# Whether a uprobe-multi link's fdinfo names its file and its count of
# probes (kernels from about 6.17), which is how gpurt_uprobes counts them.
gpurt_kernel_multi_fdinfo() {
	grep -q ' bpf_uprobe_multi_show_fdinfo$' /proc/kallsyms
}

# On a kernel with the links whose fdinfo does not describe them, the tests
# could not tell when asys has attached: there asys runs with a perf-event
# uprobe a probe, which bpftool lists, and links.sh skips.
if gpurt_kernel_multi && ! gpurt_kernel_multi_fdinfo; then
	ASYS_UPROBE_MULTI=0
	export ASYS_UPROBE_MULTI
fi

# asys process $1 holds its probes on this build's fake runtime as
# uprobe-multi links where the kernel has them and ASYS_UPROBE_MULTI is not
# 0, else as perf-event uprobes, and not both; prints why not and returns 1.
# GPURT_WANT_LINKS=perf wants perf-event uprobes in any case (refused.sh).
# Without bpftool, checks nothing.
gpurt_check_link_kind() {
	bt=$(command -v bpftool || echo /usr/sbin/bpftool)
	[ -x "$bt" ] || return 0
	libs=$(cd "$FAKE_CUDA_DIR" && pwd -P) || return 1
	nmulti=$(cat /proc/"$1"/fdinfo/* 2>/dev/null | awk -v l="$libs/" '/^pos:/ { t = "" }
		/^link_type:/ { t = $2 } /^path:/ && t ~ /^u(ret)?probe_multi$/ && index($2, l) == 1 { n++ }
		END { print n + 0 }')
	nperf=$("$bt" perf list 2>/dev/null | grep "^pid $1 " | grep -c -F "filename $libs/")
	if [ "${GPURT_WANT_LINKS:-}" != perf ] && [ "${ASYS_UPROBE_MULTI:-}" != 0 ] &&
		gpurt_kernel_multi; then
		[ "$nmulti" -gt 0 ] && [ "$nperf" = 0 ] && return 0
		echo "want uprobe-multi links: $nmulti of them, and $nperf perf-event uprobes"
	else
		[ "$nperf" -gt 0 ] && [ "$nmulti" = 0 ] && return 0
		echo "want perf-event uprobes: $nperf of them, and $nmulti uprobe-multi links"
	fi
	return 1
}

# Waits (up to 30 s) until process $1 has uprobes on this build's fake
# libcudart and libcuda and their number has held for 1 s. Only this
# build's files count: another suite running beside this one has workloads
# on its own copies, which asys, system-wide, probes too. And asys attaches
# a library's probes one program after another: a workload let go between
# two of them (a loaded machine makes that gap long) loses the launches of
# the later ones. Without bpftool, waits 3 s.
gpurt_wait_attached() {
	bt=$(command -v bpftool || echo /usr/sbin/bpftool)
	if [ ! -x "$bt" ]; then
		sleep 3
		return 0
	fi
	libs=$(cd "$FAKE_CUDA_DIR" && pwd -P) || return 1
	i=0 last=-1 same=0
	while [ $i -lt 300 ]; do
		out=$(gpurt_uprobes "$1" | grep -F -e "$libs/libcudart.so " -e "$libs/libcuda.so " |
			sort)
		case "$out" in
		*"$libs/libcudart.so "*"$libs/libcuda.so "* | *"$libs/libcuda.so "*"$libs/libcudart.so "*)
			n=$(printf '%s\n' "$out" | wc -l)
			if [ "$n" = "$last" ]; then
				same=$((same + 1))
				[ $same -ge 10 ] && return 0
			else
				same=0 last=$n
			fi
			;;
		esac
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# Waits (up to 30 s) until asys process $1 holds the 8 uprobes on
# libnvToolsExt.so.1 (the six range functions, two with a return probe),
# counted by gpurt_uprobes; 1 when asys ended first (its stderr is in $2) or the
# wait ran out. Without bpftool, waits 3 s.
gpurt_wait_nvtx() {
	bt=$(command -v bpftool || echo /usr/sbin/bpftool)
	if [ ! -x "$bt" ]; then
		sleep 3
		return 0
	fi
	i=0
	until [ "$(gpurt_uprobes "$1" | grep -c libnvToolsExt)" -ge 8 ]; do
		i=$((i + 1))
		[ $i -gt 300 ] && { echo "asys did not attach to libnvToolsExt.so.1"; return 1; }
		kill -0 "$1" 2>/dev/null || { cat "$2"; echo "asys ended"; return 1; }
		sleep 0.1
	done
}

# The NVTX tests' readings, of the export $T/x.csv and the workload's own
# figures $T/own: the last value of FIELD for the range NAME (label
# "<US>NAME": the default domain), and the workload's figure. The export
# writes the unit separator escaped, as the four characters \x1F (awk -v
# reads the doubled backslash as one).
nvtx_us='\\x1F'
nvtx_last() { awk -F, -v l="$nvtx_us$1" -v f="$2" '$5==l && $6==f { v=$8 } END { print v }' "$T/x.csv"; }
nvtx_own() { awk -v n="$1" -v f="$2" '$1=="range" && $2==n { for (i = 3; i < NF; i += 2) if ($i == f) print $(i + 1) }' "$T/own"; }
# |a - b| <= b / 10 + 1 ms for each of the n ranges: the workload reads its
# clock just before a call and just after, and a thread preempted in between
# on a busy machine adds a time slice to its figure alone
nvtx_near() { awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= b / 10 + n * 1e6) }'; }

# What a failure under load needs to be understood: asys record's words
# ($T/rec.err) and each series the recording holds (stream, entity, label,
# first and last time, rows).
nvtx_dump() {
	[ -s "$T/rec.err" ] && sed 's/^/rec.err: /' "$T/rec.err"
	[ -s "$T/x.csv" ] && awk -F, 'NR > 1 { k = $3 " " $4 " " $5; if (!(k in a)) a[k] = $1; z[k] = $1; c[k]++ }
		END { for (k in a) print "series:", k, a[k], z[k], c[k] }' "$T/x.csv" | tr '\037' '|'
	return 0
}
