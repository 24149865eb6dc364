# Common setup for the gpurt shell tests (sourced).
: "${top_builddir:=.}"
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
