/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <stddef.h>

#include "ppu_catalogue.h"
#include "util.h"

/* The catalogue. GPM metric ids are the ones HGML and NVML share (1 graphics
 * util, 2 SM util, 3 SM occupancy, 4 integer util, 5-9 tensor, 10 DRAM
 * bandwidth, 11-13 FP64/32/16, 20/21 PCIe TX/RX MiB/s, 60/61 ICN total RX/TX
 * MiB/s, 62-97 per link, 160-165 cache hits/misses) plus HGML's own 2048 KSD,
 * 2049 KVD, 2050 L2 and 2051 LLC hit rate. Costs: one unit per utilisation
 * counter, two for the ICN totals, cache and hit-rate counters. */

#define C PPU_GROUP_COMPUTE
#define M PPU_GROUP_MEMORY
#define IO PPU_GROUP_IO
#define MIB 1048576.0
#define PCT "pct_of_peak_sustained_elapsed"

#define ICN_LINK(k)                                                                                \
	{"icnl" #k "rx__bytes.sum.per_second",                                                     \
	 "ICN Link " #k " RX Bytes",                                                               \
	 "l" #k " rx",                                                                             \
	 "byte/second",                                                                            \
	 "# of bytes received per second on interconnect link " #k,                                \
	 IO,                                                                                       \
	 PPU_SRC_GPM,                                                                              \
	 62 + 2 * (k),                                                                             \
	 MIB,                                                                                      \
	 1},                                                                                       \
	{                                                                                          \
		"icnl" #k "tx__bytes.sum.per_second", "ICN Link " #k " TX Bytes", "l" #k " tx",    \
		    "byte/second", "# of bytes transmitted per second on interconnect link " #k,   \
		    IO, PPU_SRC_GPM, 63 + 2 * (k), MIB, 1                                          \
	}

const struct ppu_metric ppu_metric_catalogue[] = {
    /* compute */
    {"ce__cycles_elapsed.avg.per_second", "CE Clock", "clock", "cycle/second",
     "# of cycles elapsed per second on CE (the CE clock)", C, PPU_SRC_DEV, PPU_STATE_CLOCK_SM, 1e6,
     0},
    {"ce__cycles_active.avg", "CE Cycles Active", "CE cyc", "cycle",
     "# of cycles active on CE across CEs", C, PPU_SRC_GPM_CYCLES, 1, 1.0, 1},
    {"ce__cycles_active.avg." PCT, "CE Active", "CE act", "%",
     "(%) of elapsed cycles with the CE active", C, PPU_SRC_GPM, 1, 1.0, 1},
    {"gd__dispatch_count.avg." PCT, "Dispatch", "dispatch", "%",
     "(%) of the peak rate of work dispatched to the CUs", C, PPU_SRC_GPM, 2, 1.0, 1},
    {"ce__warps_active_accumulated.avg." PCT, "Warps Active", "warps", "%",
     "(%) of the peak resident warps that were active (occupancy)", C, PPU_SRC_GPM, 3, 1.0, 1},
    {"cu__cycles_active.avg." PCT, "CU Active", "CU act", "%",
     "(%) of elapsed cycles with at least one warp resident on a CU", C, PPU_SRC_GPM, 2, 1.0, 1},
    {"cu__ws_issue_active.avg." PCT, "Issue Active", "issue", "%",
     "(%) of elapsed cycles the warp schedulers issued an instruction", C, PPU_SRC_GPM, 4, 1.0, 1},
    {"cu__we_pipe_tensor_cycles_active.avg." PCT, "Tensor Pipe Active", "tensor", "%",
     "(%) of elapsed cycles the tensor pipe was active (any precision)", C, PPU_SRC_GPM, 5, 1.0, 1},
    {"cu__we_pipe_tensor_dfma_cycles_active.avg." PCT, "Tensor DFMA Active", "t.dfma", "%",
     "(%) of elapsed cycles the FP64 tensor pipe was active", C, PPU_SRC_GPM, 6, 1.0, 1},
    {"cu__we_pipe_tensor_hmma_cycles_active.avg." PCT, "Tensor HMMA Active", "t.hmma", "%",
     "(%) of elapsed cycles the half-precision tensor pipe was active", C, PPU_SRC_GPM, 7, 1.0, 1},
    {"cu__we_pipe_tensor_imma_cycles_active.avg." PCT, "Tensor IMMA Active", "t.imma", "%",
     "(%) of elapsed cycles the integer tensor pipe was active", C, PPU_SRC_GPM, 9, 1.0, 1},
    {"cu__we_pipe_int_cycles_active.avg." PCT, "INT Pipe Active", "int", "%",
     "(%) of elapsed cycles the integer pipe was active", C, PPU_SRC_GPM, 4, 1.0, 1},
    {"cu__we_pipe_fp64_cycles_active.avg." PCT, "FP64 Pipe Active", "fp64", "%",
     "(%) of elapsed cycles the FP64 pipe was active", C, PPU_SRC_GPM, 11, 1.0, 1},
    {"cu__we_pipe_fp32_cycles_active.avg." PCT, "FP32 Pipe Active", "fp32", "%",
     "(%) of elapsed cycles the FP32 pipe was active", C, PPU_SRC_GPM, 12, 1.0, 1},
    {"cu__we_pipe_fp16_cycles_active.avg." PCT, "FP16 Pipe Active", "fp16", "%",
     "(%) of elapsed cycles the FP16 pipe was active", C, PPU_SRC_GPM, 13, 1.0, 1},
    {"pu__we_average_warps_issue_stalled_compute_sfu_raw_per_issue_active.ratio",
     "Warps Stalled per Issue", "stall", "ratio",
     "average # of warps resident per issue cycle, from the occupancy counter", C, PPU_SRC_GPM, 3,
     0.01, 1},
    /* memory */
    {"dram__exclude_hbm_bytes_read.sum." PCT, "DRAM Read", "DRAM rd", "%",
     "(%) of peak DRAM bandwidth used, read side", M, PPU_SRC_GPM, 10, 1.0, 1},
    {"dram__exclude_hbm_bytes_write.sum." PCT, "DRAM Write", "DRAM wr", "%",
     "(%) of peak DRAM bandwidth used, write side", M, PPU_SRC_GPM, 10, 1.0, 1},
    {"dram__throughput.avg." PCT, "DRAM Throughput", "DRAM", "%", "(%) of peak DRAM bandwidth used",
     M, PPU_SRC_GPM, 10, 1.0, 1},
    {"dram__bytes_used.sum", "Device Memory Used", "mem", "byte",
     "# of bytes of device memory in use", M, PPU_SRC_DEV, PPU_STATE_MEM_USED, 1.0, 0},
    {"dram__cycles_elapsed.avg.per_second", "Memory Clock", "mclk", "cycle/second",
     "# of cycles elapsed per second on the memory (the memory clock)", M, PPU_SRC_DEV,
     PPU_STATE_CLOCK_MEM, 1e6, 0},
    {"ksd__transaction_hit_rate.pct", "KSD Hit Rate", "KSD hit", "%",
     "(%) hit rate of KSD cacheable requests", M, PPU_SRC_GPM, 2048, 1.0, 2},
    {"kvd__transaction_hit_rate.pct", "KVD Hit Rate", "KVD hit", "%",
     "(%) hit rate of KVD cacheable requests", M, PPU_SRC_GPM, 2049, 1.0, 2},
    {"l2__transaction_hit_rate.pct", "L2 Hit Rate", "L2 hit", "%",
     "(%) hit rate of L2 cacheable requests", M, PPU_SRC_GPM, 2050, 1.0, 2},
    {"llc__transaction_hit_rate.pct", "LLC Hit Rate", "LLC hit", "%",
     "(%) hit rate of last-level cache requests", M, PPU_SRC_GPM, 2051, 1.0, 2},
    {"hcache__hits.sum.per_second", "Host Cache Hits", "hc hit", "1/second",
     "# of host cache hits per second", M, PPU_SRC_GPM, 160, 1.0, 2},
    {"hcache__misses.sum.per_second", "Host Cache Misses", "hc miss", "1/second",
     "# of host cache misses per second", M, PPU_SRC_GPM, 161, 1.0, 2},
    {"pcache__hits.sum.per_second", "Peer Cache Hits", "pc hit", "1/second",
     "# of peer cache hits per second", M, PPU_SRC_GPM, 162, 1.0, 2},
    {"pcache__misses.sum.per_second", "Peer Cache Misses", "pc miss", "1/second",
     "# of peer cache misses per second", M, PPU_SRC_GPM, 163, 1.0, 2},
    {"dcache__hits.sum.per_second", "DRAM Cache Hits", "dc hit", "1/second",
     "# of DRAM cache hits per second", M, PPU_SRC_GPM, 164, 1.0, 2},
    {"dcache__misses.sum.per_second", "DRAM Cache Misses", "dc miss", "1/second",
     "# of DRAM cache misses per second", M, PPU_SRC_GPM, 165, 1.0, 2},
    /* io */
    {"pcie__read_bytes.avg." PCT, "PCIe Read", "PCIe rd", "%",
     "(%) of the PCIe link's peak bandwidth used by reads (data into the device)", IO,
     PPU_SRC_GPM_PCIE_PCT, 21, 1.0, 1},
    {"pcie__write_bytes.avg." PCT, "PCIe Write", "PCIe wr", "%",
     "(%) of the PCIe link's peak bandwidth used by writes (data out of the device)", IO,
     PPU_SRC_GPM_PCIE_PCT, 20, 1.0, 1},
    {"pcie__read_bytes.sum.per_second", "PCIe Read Bytes", "PCIe rd", "byte/second",
     "# of bytes per second read over PCIe (into the device)", IO, PPU_SRC_GPM, 21, MIB, 1},
    {"pcie__write_bytes.sum.per_second", "PCIe Write Bytes", "PCIe wr", "byte/second",
     "# of bytes per second written over PCIe (out of the device)", IO, PPU_SRC_GPM, 20, MIB, 1},
    {"icnltx__bytes.sum." PCT, "ICN TX", "ICN tx", "%",
     "(%) of the interconnect's peak bandwidth used for transmit, all links", IO,
     PPU_SRC_GPM_ICN_PCT, 61, 1.0, 2},
    {"icnlrx__bytes.sum." PCT, "ICN RX", "ICN rx", "%",
     "(%) of the interconnect's peak bandwidth used for receive, all links", IO,
     PPU_SRC_GPM_ICN_PCT, 60, 1.0, 2},
    {"icnltx__bytes.sum.per_second", "ICN TX Bytes", "ICN tx", "byte/second",
     "# of bytes transmitted per second over all interconnect links", IO, PPU_SRC_GPM, 61, MIB, 2},
    {"icnlrx__bytes.sum.per_second", "ICN RX Bytes", "ICN rx", "byte/second",
     "# of bytes received per second over all interconnect links", IO, PPU_SRC_GPM, 60, MIB, 2},
    ICN_LINK(0),
    ICN_LINK(1),
    ICN_LINK(2),
    ICN_LINK(3),
    ICN_LINK(4),
    ICN_LINK(5),
    ICN_LINK(6),
    ICN_LINK(7),
    ICN_LINK(8),
    ICN_LINK(9),
    ICN_LINK(10),
    ICN_LINK(11),
    ICN_LINK(12),
    ICN_LINK(13),
    ICN_LINK(14),
    ICN_LINK(15),
    ICN_LINK(16),
    ICN_LINK(17),
};
const size_t ppu_metric_count = ARRAY_SIZE(ppu_metric_catalogue);

static const char *const set_summary[] = {
    "ce__cycles_elapsed.avg.per_second",
    "ce__cycles_active.avg." PCT,
    "gd__dispatch_count.avg." PCT,
    "ce__warps_active_accumulated.avg." PCT,
    "cu__cycles_active.avg." PCT,
    "cu__ws_issue_active.avg." PCT,
    "cu__we_pipe_tensor_cycles_active.avg." PCT,
    "dram__exclude_hbm_bytes_read.sum." PCT,
    "dram__exclude_hbm_bytes_write.sum." PCT,
    NULL,
};

static const char *const set_throughput[] = {
    "kvd__transaction_hit_rate.pct",
    "ksd__transaction_hit_rate.pct",
    "l2__transaction_hit_rate.pct",
    "dram__exclude_hbm_bytes_read.sum." PCT,
    "dram__exclude_hbm_bytes_write.sum." PCT,
    "pcie__read_bytes.avg." PCT,
    "pcie__write_bytes.avg." PCT,
    "icnltx__bytes.sum." PCT,
    "icnlrx__bytes.sum." PCT,
    NULL,
};

static const char *const set_pipes[] = {
    "cu__we_pipe_tensor_cycles_active.avg." PCT,
    "cu__we_pipe_tensor_dfma_cycles_active.avg." PCT,
    "cu__we_pipe_tensor_hmma_cycles_active.avg." PCT,
    "cu__we_pipe_tensor_imma_cycles_active.avg." PCT,
    "cu__we_pipe_fp64_cycles_active.avg." PCT,
    "cu__we_pipe_fp32_cycles_active.avg." PCT,
    "cu__we_pipe_fp16_cycles_active.avg." PCT,
    "cu__we_pipe_int_cycles_active.avg." PCT,
    NULL,
};

const struct ppu_set ppu_sets[] = {
    {"summary", "Collect clock / memory / CU activity / Bus throughput information.", set_summary},
    {"throughput", "Collect DRAM / PCIe / ICN link throughput information.", set_throughput},
    {"pipes", "Collect tensor / FP64 / FP32 / FP16 / INT pipe activity.", set_pipes},
};
const size_t ppu_set_count = ARRAY_SIZE(ppu_sets);

const char *const ppu_group_names[PPU_GROUP_COUNT] = {"compute", "memory", "io"};

/* Longest prefix first; the last entry matches every device. The ICN peak
 * is all links in one direction. */
static const struct ppu_dev_profile ppu_profiles[] = {
    {"PPU", 16, 700e9},
    {"NVIDIA H200", 16, 450e9},
    {"NVIDIA H100", 16, 450e9},
    {"", 16, 300e9},
};

const struct ppu_dev_profile *ppu_profile_for(const char *device_name)
{
	size_t i;

	for (i = 0; i + 1 < ARRAY_SIZE(ppu_profiles); i++) {
		const char *p = ppu_profiles[i].prefix;
		size_t n = 0;

		while (p[n] && device_name && device_name[n] == p[n])
			n++;
		if (!p[n])
			return &ppu_profiles[i];
	}
	return &ppu_profiles[i];
}
