/* SPDX-License-Identifier: GPL-2.0-only */
/* The catalogue: every stream asys produces and its fields, declared once.
 * Collectors register these descriptors; panes, the endpoint, the recorder's
 * summary and the demo name a stream by its STREAM_ constant and a field by
 * its index constant, so that renaming one is a compile error, not an empty
 * pane. A recording carries its own schema (a replay's may come from another
 * version): readers look a stream up by catalogue_name() in the session's
 * table and a field with catalogue_field_index(), which checks the position. */
#ifndef ASYS_CATALOGUE_H
#define ASYS_CATALOGUE_H

#include "stream.h"

enum stream_id {
	STREAM_CPU_CORE,
	STREAM_CPU_PERF,
	STREAM_MEM_SYS,
	STREAM_MEM_PROC,
	STREAM_PROC_CPU,
	STREAM_PROC_THREAD,
	STREAM_NIC_LINK,
	STREAM_NIC_RDMA,
	STREAM_PPU_DEV,
	STREAM_PPU_PROC,
	STREAM_PPU_PROC_UTIL,
	STREAM_PPU_METRICS, /* fields: one per metric of the selection, at init */
	STREAM_GPURT_MEM,
	STREAM_GPURT_KERNELS,
	STREAM_GPURT_COPY,
	STREAM_HGTX_RANGES,
	STREAM_GPURT_KTIME,
	STREAM_GPURT_KCOPY,
	STREAM_COUNT
};

/* cpu.core: jiffies per state as /proc/stat lists them, then online */
enum {
	CPU_CORE_USER,
	CPU_CORE_NICE,
	CPU_CORE_SYSTEM,
	CPU_CORE_IDLE,
	CPU_CORE_IOWAIT,
	CPU_CORE_IRQ,
	CPU_CORE_SOFTIRQ,
	CPU_CORE_STEAL,
	CPU_CORE_GUEST,
	CPU_CORE_GUEST_NICE,
	CPU_CORE_ONLINE,
	CPU_CORE_NFIELDS
};

enum { CPU_PERF_CYCLES, CPU_PERF_INSTRUCTIONS, CPU_PERF_NFIELDS };

enum {
	MEM_SYS_TOTAL,
	MEM_SYS_FREE,
	MEM_SYS_AVAILABLE,
	MEM_SYS_BUFFERS,
	MEM_SYS_CACHED,
	MEM_SYS_USED,
	MEM_SYS_SWAP_TOTAL,
	MEM_SYS_SWAP_FREE,
	MEM_SYS_SHMEM,
	MEM_SYS_SRECLAIMABLE,
	MEM_SYS_BUFF_CACHE,
	MEM_SYS_NFIELDS
};

enum {
	MEM_PROC_RSS,
	MEM_PROC_HWM,
	MEM_PROC_UID,
	MEM_PROC_PPID,
	MEM_PROC_THREADS,
	MEM_PROC_NFIELDS
};

enum {
	PROC_CPU_UTIME,
	PROC_CPU_STIME,
	PROC_CPU_STATE,
	PROC_CPU_NICE,
	PROC_CPU_KTHREAD,
	PROC_CPU_START,
	PROC_CPU_NFIELDS
};

enum {
	PROC_THREAD_UTIME,
	PROC_THREAD_STIME,
	PROC_THREAD_STATE,
	PROC_THREAD_TGID,
	PROC_THREAD_NFIELDS
};

/* nic.link and nic.rdma share their first four fields */
enum {
	NIC_LINK_RX_BYTES,
	NIC_LINK_TX_BYTES,
	NIC_LINK_RX_PACKETS,
	NIC_LINK_TX_PACKETS,
	NIC_LINK_RX_ERRORS,
	NIC_LINK_TX_ERRORS,
	NIC_LINK_RX_DROPPED,
	NIC_LINK_TX_DROPPED,
	NIC_LINK_NFIELDS
};

enum {
	NIC_RDMA_RX_BYTES,	  /* port_rcv_data x 4 */
	NIC_RDMA_TX_BYTES,	  /* port_xmit_data x 4 */
	NIC_RDMA_RX_PACKETS,	  /* port_rcv_packets */
	NIC_RDMA_TX_PACKETS,	  /* port_xmit_packets */
	NIC_RDMA_XMIT_WAIT,	  /* port_xmit_wait (ticks) */
	NIC_RDMA_CNP_RX,	  /* hw_counters/rp_cnp_handled */
	NIC_RDMA_CNP_TX,	  /* hw_counters/np_cnp_sent */
	NIC_RDMA_ECN_MARKED,	  /* hw_counters/np_ecn_marked_roce_packets */
	NIC_RDMA_CNP_IGNORED,	  /* hw_counters/rp_cnp_ignored */
	NIC_RDMA_OUT_OF_SEQUENCE, /* hw_counters/out_of_sequence */
	NIC_RDMA_NFIELDS
};

enum {
	PPU_DEV_UTIL_GPU,
	PPU_DEV_UTIL_MEM,
	PPU_DEV_MEM_USED,
	PPU_DEV_MEM_TOTAL,
	PPU_DEV_CLOCK_SM,
	PPU_DEV_CLOCK_MEM,
	PPU_DEV_POWER,
	PPU_DEV_POWER_LIMIT,
	PPU_DEV_TEMP,
	PPU_DEV_PCIE_GEN,
	PPU_DEV_PCIE_WIDTH,
	PPU_DEV_NFIELDS
};

enum { PPU_PROC_MEM_USED, PPU_PROC_NFIELDS };

enum {
	PPU_PROC_UTIL_SM,
	PPU_PROC_UTIL_MEM,
	PPU_PROC_UTIL_ENC,
	PPU_PROC_UTIL_DEC,
	PPU_PROC_UTIL_NFIELDS
};

enum {
	GPURT_MEM_DEVICE_BYTES,
	GPURT_MEM_PINNED_BYTES,
	GPURT_MEM_ALLOCS,
	GPURT_MEM_FREES,
	GPURT_MEM_FAILS,
	GPURT_MEM_LAST_FAIL_SIZE,
	GPURT_MEM_LAST_FAIL_NS,
	GPURT_MEM_NFIELDS
};

enum { GPURT_KERNELS_LAUNCHES, GPURT_KERNELS_PID, GPURT_KERNELS_NFIELDS };

/* gpurt.copy: a pair (calls, bytes) per direction, in the order of enum
 * gpurt_dir, then by host memory (pinned, pageable) */
enum {
	GPURT_COPY_HTOD_CALLS,
	GPURT_COPY_HTOD_BYTES,
	GPURT_COPY_DTOH_CALLS,
	GPURT_COPY_DTOH_BYTES,
	GPURT_COPY_DTOD_CALLS,
	GPURT_COPY_DTOD_BYTES,
	GPURT_COPY_HTOH_CALLS,
	GPURT_COPY_HTOH_BYTES,
	GPURT_COPY_UNKNOWN_CALLS,
	GPURT_COPY_UNKNOWN_BYTES,
	GPURT_COPY_SET_CALLS,
	GPURT_COPY_SET_BYTES,
	GPURT_COPY_PINNED_CALLS,
	GPURT_COPY_PINNED_BYTES,
	GPURT_COPY_PAGEABLE_CALLS,
	GPURT_COPY_PAGEABLE_BYTES,
	GPURT_COPY_NFIELDS
};

/* hgtx.ranges: pid, depth (nesting when last seen, 0 = outermost) and color
 * (0xRRGGBB, NaN when none) attributes; count, total_ns and self_ns (less the
 * time in children) counters; min_ns and max_ns, gauges of the ranges that
 * ended since the last sample (NaN when none). */
enum {
	HGTX_PID,
	HGTX_DEPTH,
	HGTX_COLOR,
	HGTX_COUNT,
	HGTX_TOTAL_NS,
	HGTX_SELF_NS,
	HGTX_MIN_NS,
	HGTX_MAX_NS,
	HGTX_NFIELDS,
};

enum {
	GPURT_KTIME_PID,
	GPURT_KTIME_DEVICE,
	GPURT_KTIME_COUNT,
	GPURT_KTIME_TOTAL_NS,
	GPURT_KTIME_MIN_NS,
	GPURT_KTIME_MAX_NS,
	GPURT_KTIME_NFIELDS
};

enum {
	GPURT_KCOPY_PID,
	GPURT_KCOPY_COUNT,
	GPURT_KCOPY_BYTES,
	GPURT_KCOPY_TOTAL_NS,
	GPURT_KCOPY_NFIELDS
};

/* The descriptors, by enum stream_id. */
extern const struct stream_desc catalogue_streams[STREAM_COUNT];

/* A stream's descriptor; usable in a static initializer. */
#define CATALOGUE_STREAM(id) (&catalogue_streams[(id)])

static inline const char *catalogue_name(enum stream_id id)
{
	return catalogue_streams[id].name;
}

/* The name of field f of stream id ("rss"); NULL past its fields. */
const char *catalogue_field(enum stream_id id, unsigned int f);

/* Where field f of stream id is in d, a schema of that stream as registered
 * or recorded: f itself when d has it there (always, for this version's
 * collectors), else found by name (a recording of another version); -1
 * when d has no such field. */
int catalogue_field_index(const struct stream_desc *d, enum stream_id id, unsigned int f);

/* The id of a stream of the catalogue by name; -1 for another. */
int catalogue_find(const char *name);

#endif
