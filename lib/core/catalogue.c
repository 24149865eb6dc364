/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <string.h>

#include "catalogue.h"
#include "util.h"

/* The fields of each stream, at the positions of their index constants.
 * Changing a field's name, unit, kind or place changes the recording format:
 * bump the stream's version and say in its help what the old one held. */

static const struct field_desc cpu_core_fields[CPU_CORE_NFIELDS] = {
    [CPU_CORE_USER] = FIELD_DESC("user", "jiffies", FIELD_COUNTER),
    [CPU_CORE_NICE] = FIELD_DESC("nice", "jiffies", FIELD_COUNTER),
    [CPU_CORE_SYSTEM] = FIELD_DESC("system", "jiffies", FIELD_COUNTER),
    [CPU_CORE_IDLE] = FIELD_DESC("idle", "jiffies", FIELD_COUNTER),
    [CPU_CORE_IOWAIT] = FIELD_DESC("iowait", "jiffies", FIELD_COUNTER),
    [CPU_CORE_IRQ] = FIELD_DESC("irq", "jiffies", FIELD_COUNTER),
    [CPU_CORE_SOFTIRQ] = FIELD_DESC("softirq", "jiffies", FIELD_COUNTER),
    [CPU_CORE_STEAL] = FIELD_DESC("steal", "jiffies", FIELD_COUNTER),
    [CPU_CORE_GUEST] = FIELD_DESC("guest", "jiffies", FIELD_COUNTER),
    [CPU_CORE_GUEST_NICE] = FIELD_DESC("guest_nice", "jiffies", FIELD_COUNTER),
    [CPU_CORE_ONLINE] = FIELD_DESC("online", "", FIELD_GAUGE),
};

static const struct field_desc cpu_perf_fields[CPU_PERF_NFIELDS] = {
    [CPU_PERF_CYCLES] = FIELD_DESC("cycles", "events", FIELD_COUNTER),
    [CPU_PERF_INSTRUCTIONS] = FIELD_DESC("instructions", "events", FIELD_COUNTER),
};

static const struct field_desc mem_sys_fields[MEM_SYS_NFIELDS] = {
    [MEM_SYS_TOTAL] = FIELD_DESC("total", "B", FIELD_GAUGE),
    [MEM_SYS_FREE] = FIELD_DESC("free", "B", FIELD_GAUGE),
    [MEM_SYS_AVAILABLE] = FIELD_DESC("available", "B", FIELD_GAUGE),
    [MEM_SYS_BUFFERS] = FIELD_DESC("buffers", "B", FIELD_GAUGE),
    [MEM_SYS_CACHED] = FIELD_DESC("cached", "B", FIELD_GAUGE),
    [MEM_SYS_USED] = FIELD_DESC("used", "B", FIELD_GAUGE),
    [MEM_SYS_SWAP_TOTAL] = FIELD_DESC("swap_total", "B", FIELD_GAUGE),
    [MEM_SYS_SWAP_FREE] = FIELD_DESC("swap_free", "B", FIELD_GAUGE),
    [MEM_SYS_SHMEM] = FIELD_DESC("shmem", "B", FIELD_GAUGE),
    [MEM_SYS_SRECLAIMABLE] = FIELD_DESC("sreclaimable", "B", FIELD_GAUGE),
    [MEM_SYS_BUFF_CACHE] = FIELD_DESC("buff_cache", "B", FIELD_GAUGE),
};

static const struct field_desc mem_proc_fields[MEM_PROC_NFIELDS] = {
    [MEM_PROC_RSS] = FIELD_DESC("rss", "B", FIELD_GAUGE),
    [MEM_PROC_HWM] = FIELD_DESC("hwm", "B", FIELD_GAUGE),
    [MEM_PROC_UID] = FIELD_DESC("uid", "", FIELD_ATTR),
    [MEM_PROC_PPID] = FIELD_DESC("ppid", "", FIELD_ATTR),
    [MEM_PROC_THREADS] = FIELD_DESC("threads", "", FIELD_GAUGE),
};

static const struct field_desc proc_cpu_fields[PROC_CPU_NFIELDS] = {
    [PROC_CPU_UTIME] = FIELD_DESC("utime", "s", FIELD_COUNTER),
    [PROC_CPU_STIME] = FIELD_DESC("stime", "s", FIELD_COUNTER),
    [PROC_CPU_STATE] = FIELD_DESC("state", "", FIELD_ATTR),
    [PROC_CPU_NICE] = FIELD_DESC("nice", "", FIELD_ATTR),
    [PROC_CPU_KTHREAD] = FIELD_DESC("kthread", "", FIELD_ATTR),
    [PROC_CPU_START] = FIELD_DESC("start", "s", FIELD_ATTR),
};

static const struct field_desc proc_thread_fields[PROC_THREAD_NFIELDS] = {
    [PROC_THREAD_UTIME] = FIELD_DESC("utime", "s", FIELD_COUNTER),
    [PROC_THREAD_STIME] = FIELD_DESC("stime", "s", FIELD_COUNTER),
    [PROC_THREAD_STATE] = FIELD_DESC("state", "", FIELD_ATTR),
    [PROC_THREAD_TGID] = FIELD_DESC("tgid", "", FIELD_ATTR),
};

static const struct field_desc nic_link_fields[NIC_LINK_NFIELDS] = {
    [NIC_LINK_RX_BYTES] = FIELD_DESC("rx_bytes", "B", FIELD_COUNTER),
    [NIC_LINK_TX_BYTES] = FIELD_DESC("tx_bytes", "B", FIELD_COUNTER),
    [NIC_LINK_RX_PACKETS] = FIELD_DESC("rx_packets", "packets", FIELD_COUNTER),
    [NIC_LINK_TX_PACKETS] = FIELD_DESC("tx_packets", "packets", FIELD_COUNTER),
    [NIC_LINK_RX_ERRORS] = FIELD_DESC("rx_errors", "packets", FIELD_COUNTER),
    [NIC_LINK_TX_ERRORS] = FIELD_DESC("tx_errors", "packets", FIELD_COUNTER),
    [NIC_LINK_RX_DROPPED] = FIELD_DESC("rx_dropped", "packets", FIELD_COUNTER),
    [NIC_LINK_TX_DROPPED] = FIELD_DESC("tx_dropped", "packets", FIELD_COUNTER),
};

static const struct field_desc nic_rdma_fields[NIC_RDMA_NFIELDS] = {
    [NIC_RDMA_RX_BYTES] = FIELD_DESC("rx_bytes", "B", FIELD_COUNTER),
    [NIC_RDMA_TX_BYTES] = FIELD_DESC("tx_bytes", "B", FIELD_COUNTER),
    [NIC_RDMA_RX_PACKETS] = FIELD_DESC("rx_packets", "packets", FIELD_COUNTER),
    [NIC_RDMA_TX_PACKETS] = FIELD_DESC("tx_packets", "packets", FIELD_COUNTER),
    [NIC_RDMA_XMIT_WAIT] = FIELD_DESC("xmit_wait", "ticks", FIELD_COUNTER),
    [NIC_RDMA_CNP_RX] = FIELD_DESC("cnp_rx", "packets", FIELD_COUNTER),
    [NIC_RDMA_CNP_TX] = FIELD_DESC("cnp_tx", "packets", FIELD_COUNTER),
    [NIC_RDMA_ECN_MARKED] = FIELD_DESC("ecn_marked", "packets", FIELD_COUNTER),
    [NIC_RDMA_CNP_IGNORED] = FIELD_DESC("cnp_ignored", "packets", FIELD_COUNTER),
    [NIC_RDMA_OUT_OF_SEQUENCE] = FIELD_DESC("out_of_sequence", "packets", FIELD_COUNTER),
};

static const struct field_desc ppu_dev_fields[PPU_DEV_NFIELDS] = {
    [PPU_DEV_UTIL_GPU] = FIELD_DESC("util_gpu", "%", FIELD_GAUGE),
    [PPU_DEV_UTIL_MEM] = FIELD_DESC("util_mem", "%", FIELD_GAUGE),
    [PPU_DEV_MEM_USED] = FIELD_DESC("mem_used", "B", FIELD_GAUGE),
    [PPU_DEV_MEM_TOTAL] = FIELD_DESC("mem_total", "B", FIELD_GAUGE),
    [PPU_DEV_CLOCK_SM] = FIELD_DESC("clock_sm", "MHz", FIELD_GAUGE),
    [PPU_DEV_CLOCK_MEM] = FIELD_DESC("clock_mem", "MHz", FIELD_GAUGE),
    [PPU_DEV_POWER] = FIELD_DESC("power", "W", FIELD_GAUGE),
    [PPU_DEV_POWER_LIMIT] = FIELD_DESC("power_limit", "W", FIELD_GAUGE),
    [PPU_DEV_TEMP] = FIELD_DESC("temp", "C", FIELD_GAUGE),
    [PPU_DEV_PCIE_GEN] = FIELD_DESC("pcie_gen", "", FIELD_ATTR),
    [PPU_DEV_PCIE_WIDTH] = FIELD_DESC("pcie_width", "", FIELD_ATTR),
};

static const struct field_desc ppu_proc_fields[PPU_PROC_NFIELDS] = {
    [PPU_PROC_MEM_USED] = FIELD_DESC("mem_used", "B", FIELD_GAUGE),
};

static const struct field_desc ppu_proc_util_fields[PPU_PROC_UTIL_NFIELDS] = {
    [PPU_PROC_UTIL_SM] = FIELD_DESC("sm", "%", FIELD_GAUGE),
    [PPU_PROC_UTIL_MEM] = FIELD_DESC("mem", "%", FIELD_GAUGE),
    [PPU_PROC_UTIL_ENC] = FIELD_DESC("enc", "%", FIELD_GAUGE),
    [PPU_PROC_UTIL_DEC] = FIELD_DESC("dec", "%", FIELD_GAUGE),
};

static const struct field_desc gpurt_mem_fields[GPURT_MEM_NFIELDS] = {
    [GPURT_MEM_DEVICE_BYTES] = FIELD_DESC("device_bytes", "B", FIELD_GAUGE),
    [GPURT_MEM_PINNED_BYTES] = FIELD_DESC("pinned_bytes", "B", FIELD_GAUGE),
    [GPURT_MEM_ALLOCS] = FIELD_DESC("allocs", "", FIELD_COUNTER),
    [GPURT_MEM_FREES] = FIELD_DESC("frees", "", FIELD_COUNTER),
    [GPURT_MEM_FAILS] = FIELD_DESC("fails", "", FIELD_COUNTER),
    [GPURT_MEM_LAST_FAIL_SIZE] = FIELD_DESC("last_fail_size", "B", FIELD_ATTR),
    [GPURT_MEM_LAST_FAIL_NS] = FIELD_DESC("last_fail_ns", "ns", FIELD_ATTR),
};

static const struct field_desc gpurt_kernels_fields[GPURT_KERNELS_NFIELDS] = {
    [GPURT_KERNELS_LAUNCHES] = FIELD_DESC("launches", "", FIELD_COUNTER),
    [GPURT_KERNELS_PID] = FIELD_DESC("pid", "", FIELD_ATTR),
};

#define COPY_FIELD(dir, what, u, lbl, disp)                                                        \
	{                                                                                          \
		.name = dir "_" what, .unit = u, .kind = FIELD_COUNTER, .group = dir,              \
		.label = lbl, .display = disp                                                      \
	}

static const struct field_desc gpurt_copy_fields[GPURT_COPY_NFIELDS] = {
    [GPURT_COPY_HTOD_CALLS] = COPY_FIELD("htod", "calls", "", "HtoD", "host to device copies"),
    [GPURT_COPY_HTOD_BYTES] = COPY_FIELD("htod", "bytes", "B", "HtoD", "host to device bytes"),
    [GPURT_COPY_DTOH_CALLS] = COPY_FIELD("dtoh", "calls", "", "DtoH", "device to host copies"),
    [GPURT_COPY_DTOH_BYTES] = COPY_FIELD("dtoh", "bytes", "B", "DtoH", "device to host bytes"),
    [GPURT_COPY_DTOD_CALLS] = COPY_FIELD("dtod", "calls", "", "DtoD", "device to device copies"),
    [GPURT_COPY_DTOD_BYTES] = COPY_FIELD("dtod", "bytes", "B", "DtoD", "device to device bytes"),
    [GPURT_COPY_HTOH_CALLS] = COPY_FIELD("htoh", "calls", "", "HtoH", "host to host copies"),
    [GPURT_COPY_HTOH_BYTES] = COPY_FIELD("htoh", "bytes", "B", "HtoH", "host to host bytes"),
    [GPURT_COPY_UNKNOWN_CALLS] =
	COPY_FIELD("unknown", "calls", "", "?", "copies of unknown direction"),
    [GPURT_COPY_UNKNOWN_BYTES] =
	COPY_FIELD("unknown", "bytes", "B", "?", "bytes of unknown direction"),
    [GPURT_COPY_SET_CALLS] = COPY_FIELD("set", "calls", "", "SET", "memsets"),
    [GPURT_COPY_SET_BYTES] = COPY_FIELD("set", "bytes", "B", "SET", "bytes set"),
    [GPURT_COPY_PINNED_CALLS] =
	COPY_FIELD("pinned", "calls", "", "PIN", "host-device copies from or to pinned memory"),
    [GPURT_COPY_PINNED_BYTES] =
	COPY_FIELD("pinned", "bytes", "B", "PIN", "host-device bytes from or to pinned memory"),
    [GPURT_COPY_PAGEABLE_CALLS] = COPY_FIELD("pageable", "calls", "", "PAGE",
					     "host-device copies from or to pageable memory"),
    [GPURT_COPY_PAGEABLE_BYTES] = COPY_FIELD("pageable", "bytes", "B", "PAGE",
					     "host-device bytes from or to pageable memory"),
};

#define HGTX_GROUP "ranges"

static const struct field_desc hgtx_ranges_fields[HGTX_NFIELDS] = {
    [HGTX_PID] =
	{.name = "pid", .unit = "", .kind = FIELD_ATTR, .group = HGTX_GROUP, .label = "PID"},
    [HGTX_DEPTH] = {.name = "depth",
		    .unit = "",
		    .kind = FIELD_ATTR,
		    .group = HGTX_GROUP,
		    .label = "DEPTH",
		    .display = "Nesting depth (0 = outermost)"},
    [HGTX_COLOR] =
	{.name = "color", .unit = "", .kind = FIELD_ATTR, .group = HGTX_GROUP, .label = "COLOR"},
    [HGTX_COUNT] = {.name = "count",
		    .unit = "ranges",
		    .kind = FIELD_COUNTER,
		    .group = HGTX_GROUP,
		    .label = "COUNT",
		    .display = "Ranges ended",
		    .show = FIELD_SHOW_COUNT},
    [HGTX_TOTAL_NS] = {.name = "total_ns",
		       .unit = "ns",
		       .kind = FIELD_COUNTER,
		       .group = HGTX_GROUP,
		       .label = "TOTAL",
		       .display = "Time in the ranges"},
    [HGTX_SELF_NS] = {.name = "self_ns",
		      .unit = "ns",
		      .kind = FIELD_COUNTER,
		      .group = HGTX_GROUP,
		      .label = "SELF",
		      .display = "Time in the ranges, less their children"},
    [HGTX_MIN_NS] = {.name = "min_ns",
		     .unit = "ns",
		     .kind = FIELD_GAUGE,
		     .group = HGTX_GROUP,
		     .label = "MIN",
		     .display = "Shortest range ended since the last sample"},
    [HGTX_MAX_NS] = {.name = "max_ns",
		     .unit = "ns",
		     .kind = FIELD_GAUGE,
		     .group = HGTX_GROUP,
		     .label = "MAX",
		     .display = "Longest range ended since the last sample"},
};

static const struct field_desc gpurt_ktime_fields[GPURT_KTIME_NFIELDS] = {
    [GPURT_KTIME_PID] = FIELD_DESC("pid", "", FIELD_ATTR),
    [GPURT_KTIME_DEVICE] = FIELD_DESC("device", "", FIELD_ATTR),
    [GPURT_KTIME_COUNT] = {.name = "count", .unit = "", .kind = FIELD_COUNTER, .label = "launches"},
    [GPURT_KTIME_TOTAL_NS] = {.name = "total_ns",
			      .unit = "ns",
			      .kind = FIELD_COUNTER,
			      .label = "GPU time"},
    [GPURT_KTIME_MIN_NS] = {.name = "min_ns", .unit = "ns", .kind = FIELD_GAUGE, .label = "min"},
    [GPURT_KTIME_MAX_NS] = {.name = "max_ns", .unit = "ns", .kind = FIELD_GAUGE, .label = "max"},
};

static const struct field_desc gpurt_kcopy_fields[GPURT_KCOPY_NFIELDS] = {
    [GPURT_KCOPY_PID] = FIELD_DESC("pid", "", FIELD_ATTR),
    [GPURT_KCOPY_COUNT] = FIELD_DESC("count", "", FIELD_COUNTER),
    [GPURT_KCOPY_BYTES] = FIELD_DESC("bytes", "B", FIELD_COUNTER),
    [GPURT_KCOPY_TOTAL_NS] = FIELD_DESC("total_ns", "ns", FIELD_COUNTER),
};

#define CATALOGUE_FIELDS(f) .nfields = ARRAY_SIZE(f), .fields = (f)

const struct stream_desc catalogue_streams[STREAM_COUNT] = {
    [STREAM_CPU_CORE] =
	{
	    .name = "cpu.core",
	    .version = 1,
	    .entity = ENTITY_CPU,
	    CATALOGUE_FIELDS(cpu_core_fields),
	    .help = "per-core time from /proc/stat in jiffies (online = 0: the CPU is offline)",
	},
    [STREAM_CPU_PERF] =
	{
	    .name = "cpu.perf",
	    .version = 1,
	    .entity = ENTITY_CPU,
	    CATALOGUE_FIELDS(cpu_perf_fields),
	    .help = "per-core hardware cycles and instructions (IPC = their ratio of rates)",
	},
    [STREAM_MEM_SYS] =
	{
	    .name = "mem.sys",
	    /* 2: used and buff_cache as free(1) of procps-ng 4 counts them;
	     * version 1 files hold used = total - free - buffers - cached -
	     * sreclaimable */
	    .version = 2,
	    .entity = ENTITY_NONE,
	    CATALOGUE_FIELDS(mem_sys_fields),
	    .help = "host memory from /proc/meminfo, as free(1) counts it: used = "
		    "total-available, buff_cache = buffers+cached+sreclaimable",
	},
    [STREAM_MEM_PROC] =
	{
	    .name = "mem.proc",
	    .version = 1,
	    .entity = ENTITY_PID,
	    CATALOGUE_FIELDS(mem_proc_fields),
	    .help = "per-process resident memory (VmRSS) and its high-water mark (VmHWM)",
	},
    [STREAM_PROC_CPU] =
	{
	    .name = "proc.cpu",
	    .version = 1,
	    .entity = ENTITY_PID,
	    CATALOGUE_FIELDS(proc_cpu_fields),
	    .help = "per-process CPU seconds (user, system) from /proc/PID/stat, the state "
		    "letter's code, nice, 1 for a kernel thread, start in seconds since boot",
	},
    [STREAM_PROC_THREAD] =
	{
	    .name = "proc.thread",
	    .version = 1,
	    .entity = ENTITY_PID,
	    CATALOGUE_FIELDS(proc_thread_fields),
	    .help = "per-thread CPU seconds (user, system), the state letter's code and the "
		    "owning process (--process-threads); entity = thread id, label = thread "
		    "name",
	},
    [STREAM_NIC_LINK] =
	{
	    .name = "nic.link",
	    .version = 1,
	    .entity = ENTITY_NIC,
	    CATALOGUE_FIELDS(nic_link_fields),
	    .help = "netdev counters from rtnetlink (entity = ifindex)",
	},
    [STREAM_NIC_RDMA] =
	{
	    .name = "nic.rdma",
	    .version = 1,
	    .entity = ENTITY_NIC,
	    CATALOGUE_FIELDS(nic_rdma_fields),
	    .help = "RDMA port counters from sysfs, hw_counters over RDMA netlink or sysfs "
		    "(entity = device index << 8 | port)",
	},
    [STREAM_PPU_DEV] =
	{
	    .name = "ppu.dev",
	    .version = 1,
	    .entity = ENTITY_DEVICE,
	    CATALOGUE_FIELDS(ppu_dev_fields),
	    .help = "PPU device state: utilisation, memory, clocks, power, temperature, PCIe "
		    "link",
	},
    [STREAM_PPU_PROC] =
	{
	    .name = "ppu.proc",
	    .version = 1,
	    .entity = ENTITY_KEY,
	    CATALOGUE_FIELDS(ppu_proc_fields),
	    .help = "device memory per process; entity = (device << 32) | pid",
	},
    [STREAM_PPU_PROC_UTIL] =
	{
	    .name = "ppu.proc_util",
	    .version = 1,
	    .entity = ENTITY_KEY,
	    CATALOGUE_FIELDS(ppu_proc_util_fields),
	    .help = "PPU utilisation per process (SM, memory, encoder, decoder share over the "
		    "library's last sample period); entity = (device << 32) | pid",
	},
    [STREAM_PPU_METRICS] =
	{
	    .name = "ppu.metrics",
	    .version = 1,
	    .entity = ENTITY_DEVICE,
	    .nfields = 0, /* one field per metric of the set and list: registered by init */
	    .fields = NULL,
	    .help = "PPU metrics (GPM) of the selected set and list, per device",
	},
    [STREAM_GPURT_MEM] =
	{
	    .name = "gpurt.mem",
	    .version = 1,
	    .entity = ENTITY_PID,
	    CATALOGUE_FIELDS(gpurt_mem_fields),
	    .help = "device and pinned host memory per process from runtime uprobes; "
		    "last_fail_ns is CLOCK_MONOTONIC",
	},
    [STREAM_GPURT_KERNELS] =
	{
	    .name = "gpurt.kernels",
	    .version = 1,
	    .entity = ENTITY_KEY,
	    CATALOGUE_FIELDS(gpurt_kernels_fields),
	    .help = "kernel launches per (process, kernel); label \"PID<TAB>kernel name\"",
	},
    [STREAM_GPURT_COPY] =
	{
	    .name = "gpurt.copy",
	    .version = 1,
	    .entity = ENTITY_PID,
	    CATALOGUE_FIELDS(gpurt_copy_fields),
	    .help = "memory copies and memsets per process from runtime uprobes, counted at "
		    "the call: calls and bytes per direction (htod, dtoh, dtod, htoh; unknown: "
		    "a Default copy whose pointers the probes cannot place; set: memsets), and "
		    "the host-device ones by host memory (pinned, pageable)",
	},
    [STREAM_HGTX_RANGES] =
	{
	    .name = "hgtx.ranges",
	    .version = 1,
	    .entity = ENTITY_KEY,
	    CATALOGUE_FIELDS(hgtx_ranges_fields),
	    .help = "HGTX/NVTX ranges per (process, domain, name) of a workload started after "
		    "--, or of libnvToolsExt.so.1 through uprobes, labelled DOMAIN<US>NAME",
	},
    [STREAM_GPURT_KTIME] =
	{
	    .name = "gpurt.ktime",
	    .version = 1,
	    .entity = ENTITY_KEY,
	    CATALOGUE_FIELDS(gpurt_ktime_fields),
	    .help = "kernel executions and GPU time per (process, device, kernel) from the "
		    "profiling interface, for a workload started by asys; label "
		    "\"PID<TAB>kernel\"; min_ns/max_ns since the process started",
	},
    [STREAM_GPURT_KCOPY] =
	{
	    .name = "gpurt.kcopy",
	    .version = 1,
	    .entity = ENTITY_KEY,
	    CATALOGUE_FIELDS(gpurt_kcopy_fields),
	    .help = "memory copies per (process, direction) as the device executed them, from "
		    "the profiling interface; label \"PID<TAB>HtoD|DtoH|DtoD|HtoH|PtoP|other\"",
	},
};

const char *catalogue_field(enum stream_id id, unsigned int f)
{
	const struct stream_desc *d = &catalogue_streams[id];

	return f < d->nfields ? d->fields[f].name : NULL;
}

int catalogue_field_index(const struct stream_desc *d, enum stream_id id, unsigned int f)
{
	const char *name = catalogue_field(id, f);
	int i;

	if (!d || !name)
		return -1;
	if (f < d->nfields && d->fields[f].name && !strcmp(d->fields[f].name, name))
		return (int)f;
	i = stream_field_index(d, name);
	return i < 0 ? -1 : i;
}

int catalogue_find(const char *name)
{
	for (int i = 0; name && i < STREAM_COUNT; i++)
		if (!strcmp(catalogue_streams[i].name, name))
			return i;
	return -1;
}
