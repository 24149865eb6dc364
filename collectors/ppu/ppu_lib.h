/* SPDX-License-Identifier: GPL-2.0-only */
/* The PPU management library (HGML, or NVML on NVIDIA machines), loaded with
 * dlopen only. The two share one API with different prefixes ("hgml",
 * "nvml"); the types below are declared here, with the layouts of nvml.h, so
 * there is no link-time dependency. A symbol an older library lacks leaves
 * its pointer NULL and disables only what needs it. */
#ifndef ASYS_PPU_LIB_H
#define ASYS_PPU_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Return codes shared by both libraries (nvmlReturn_t). */
enum {
	PPU_OK = 0,
	PPU_ERR_UNINITIALIZED = 1,
	PPU_ERR_INVALID_ARGUMENT = 2,
	PPU_ERR_NOT_SUPPORTED = 3,
	PPU_ERR_NO_PERMISSION = 4,
	PPU_ERR_NOT_FOUND = 6,
	PPU_ERR_INSUFFICIENT_SIZE = 7,
	PPU_ERR_DRIVER_NOT_LOADED = 9,
	PPU_ERR_GPU_IS_LOST = 15,
	PPU_ERR_IN_USE = 19,
	PPU_ERR_NO_DATA = 21,
	PPU_ERR_UNKNOWN = 999,
};

typedef int ppu_ret_t;
typedef struct ppu_device_st *ppu_device_t;
typedef struct ppu_gpm_sample_st *ppu_gpm_sample_t;

struct ppu_utilization {
	unsigned int gpu;
	unsigned int memory;
};

struct ppu_memory {
	unsigned long long total;
	unsigned long long free;
	unsigned long long used;
};

/* nvmlPciInfo_t (v2/v3 layout). Version 1 had busId[16] first: domain, bus
 * and device sit at the same offsets, which is all we read. */
struct ppu_pci_info {
	char bus_id_legacy[16];
	unsigned int domain;
	unsigned int bus;
	unsigned int device;
	unsigned int pci_device_id;
	unsigned int pci_subsystem_id;
	char bus_id[32];
};

/* nvmlProcessInfo_t as taken by the _v2 and _v3 calls; _v1 takes the first
 * two fields only (a 16-byte stride). */
struct ppu_process_info {
	unsigned int pid;
	unsigned long long used_memory;
	unsigned int gpu_instance_id;
	unsigned int compute_instance_id;
};

struct ppu_process_info_v1 {
	unsigned int pid;
	unsigned long long used_memory;
};

/* nvmlProcessUtilizationSample_t: what GetProcessUtilization fills. */
struct ppu_proc_util_sample {
	unsigned int pid;
	unsigned long long timestamp; /* CPU time of the sample, us */
	unsigned int sm, mem, enc, dec;
};

/* nvmlProcessUtilizationInfo_v1_t, an element of the array below. */
struct ppu_proc_util_info {
	unsigned long long timestamp;
	unsigned int pid;
	unsigned int sm, mem, enc, dec, jpg, ofa;
};

/* nvmlProcessesUtilizationInfo_v1_t, the argument of
 * GetProcessesUtilizationInfo; version is NVML_STRUCT_VERSION(..., 1), the
 * struct's size with the version in the top byte. */
struct ppu_procs_util_info {
	unsigned int version;
	unsigned int count; /* in: entries array holds; out: entries written or wanted */
	unsigned long long last_seen;
	struct ppu_proc_util_info *array;
};
#define PPU_PROCS_UTIL_INFO_VERSION ((unsigned int)sizeof(struct ppu_procs_util_info) | (1u << 24))

/* One process's sample from either call, in the same place in the buffer. */
struct ppu_proc_util {
	unsigned long long timestamp;
	unsigned int pid;
	unsigned int sm, mem, enc, dec; /* %, or above 100 when not available */
};
/* Bytes a buffer needs per entry, for the larger record of the two calls. */
#define PPU_PROC_UTIL_STRIDE sizeof(struct ppu_proc_util_info)

#define PPU_GPM_SUPPORT_VERSION 1
struct ppu_gpm_support {
	unsigned int version;
	unsigned int is_supported;
};

struct ppu_gpm_metric {
	unsigned int metric_id;
	ppu_ret_t ret;
	double value;
	struct {
		char *short_name;
		char *long_name;
		char *unit;
	} info;
};

/* The library reads num_metrics entries; the array only has to hold them. */
#define PPU_GPM_METRICS_GET_VERSION 1
#define PPU_GPM_MAX_METRICS 128
struct ppu_gpm_metrics_get {
	unsigned int version;
	unsigned int num_metrics;
	ppu_gpm_sample_t sample1;
	ppu_gpm_sample_t sample2;
	struct ppu_gpm_metric metrics[PPU_GPM_MAX_METRICS];
};

enum ppu_backend {
	PPU_BACKEND_HGML = 0,
	PPU_BACKEND_NVML = 1,
};

#define PPU_CLOCK_SM 1
#define PPU_CLOCK_MEM 2
#define PPU_TEMPERATURE_GPU 0

struct ppu_lib {
	void *handle;
	enum ppu_backend backend;
	const char *prefix; /* "hgml" or "nvml" */
	char path[512];	    /* the file that was loaded */
	bool inited;
	int proc_version; /* 3, 2, 1 or 0 (none) for GetComputeRunningProcesses */
	/* Per-process utilisation: 2 GetProcessesUtilizationInfo, 1
	 * GetProcessUtilization, 0 neither. */
	int util_api;
	/* The least time between the two GPM samples of a metric: NVIDIA
	 * documents 100 ms for NVML ("due to the internal sample refresh rate";
	 * closer samples give zeros); HGML has none. ASYS_GPM_MIN_INTERVAL_MS
	 * overrides it. */
	uint64_t gpm_min_interval_ns;
	bool gpm_min_interval_from_env;

	ppu_ret_t (*init)(void);
	ppu_ret_t (*shutdown)(void);
	const char *(*error_string)(ppu_ret_t r);
	ppu_ret_t (*device_get_count)(unsigned int *n);
	ppu_ret_t (*device_get_handle_by_index)(unsigned int i, ppu_device_t *d);
	ppu_ret_t (*device_get_name)(ppu_device_t d, char *name, unsigned int len);
	ppu_ret_t (*device_get_pci_info)(ppu_device_t d, struct ppu_pci_info *pci);
	ppu_ret_t (*device_get_uuid)(ppu_device_t d, char *uuid, unsigned int len);
	ppu_ret_t (*device_get_utilization_rates)(ppu_device_t d, struct ppu_utilization *u);
	ppu_ret_t (*device_get_memory_info)(ppu_device_t d, struct ppu_memory *m);
	ppu_ret_t (*device_get_clock_info)(ppu_device_t d, int type, unsigned int *mhz);
	ppu_ret_t (*device_get_power_usage)(ppu_device_t d, unsigned int *mw);
	ppu_ret_t (*device_get_enforced_power_limit)(ppu_device_t d, unsigned int *mw);
	ppu_ret_t (*device_get_temperature)(ppu_device_t d, int sensor, unsigned int *c);
	ppu_ret_t (*device_get_curr_pcie_link_generation)(ppu_device_t d, unsigned int *g);
	ppu_ret_t (*device_get_curr_pcie_link_width)(ppu_device_t d, unsigned int *w);
	ppu_ret_t (*device_get_compute_running_processes)(ppu_device_t d, unsigned int *n,
							  void *infos);
	ppu_ret_t (*device_get_processes_utilization_info)(ppu_device_t d,
							   struct ppu_procs_util_info *i);
	ppu_ret_t (*device_get_process_utilization)(ppu_device_t d, struct ppu_proc_util_sample *s,
						    unsigned int *n, unsigned long long last_seen);
	ppu_ret_t (*gpm_query_device_support)(ppu_device_t d, struct ppu_gpm_support *s);
	ppu_ret_t (*gpm_sample_alloc)(ppu_gpm_sample_t *s);
	ppu_ret_t (*gpm_sample_free)(ppu_gpm_sample_t s);
	ppu_ret_t (*gpm_sample_get)(ppu_device_t d, ppu_gpm_sample_t s);
	ppu_ret_t (*gpm_metrics_get)(struct ppu_gpm_metrics_get *g);
};

/* Loads and initialises the library. backend is "hgml", "nvml" or NULL
 * (HGML, then NVML). ASYS_HGML_LIBRARY names one file to load instead of
 * searching; its prefix is the backend's, or whichever the file exports.
 * Returns 0 or -errno with a sentence in err (what was tried, what to do). */
int ppu_lib_open(struct ppu_lib **out, const char *backend, char *err, size_t errlen);
void ppu_lib_close(struct ppu_lib *l); /* NULL is fine */
/* "Success", "GPU is lost", or the number when the library cannot say. */
const char *ppu_lib_strerror(const struct ppu_lib *l, ppu_ret_t r, char *buf, size_t n);
/* The full symbol name for a base name ("GpmSampleGet" -> "hgmlGpmSampleGet"). */
void ppu_lib_symbol(const struct ppu_lib *l, const char *base, char *buf, size_t n);
/* Processes on d into out[max], at most max / 2 of them (room for a longer
 * record than ours), normalised to struct ppu_process_info;
 * returns the count, or -1 with *ret set. */
int ppu_lib_processes(const struct ppu_lib *l, ppu_device_t d, struct ppu_process_info *out,
		      unsigned int max, ppu_ret_t *ret);

/* Per-process utilisation samples newer than last_seen (us, the library's
 * clock; 0 for all it keeps) through api (2 or 1, as util_api). buf holds *n entries of
 * PPU_PROC_UTIL_STRIDE bytes; on PPU_OK it holds *n struct ppu_proc_util
 * from its start. On PPU_ERR_INSUFFICIENT_SIZE *n is the count the library
 * wants (unchecked: the caller bounds it). PPU_ERR_NOT_FOUND: nothing new. */
ppu_ret_t ppu_lib_proc_util(const struct ppu_lib *l, int api, ppu_device_t d,
			    unsigned long long last_seen, void *buf, unsigned int *n);
/* The name of the call api uses ("hgmlDeviceGetProcessUtilization"). */
void ppu_lib_util_symbol(const struct ppu_lib *l, int api, char *buf, size_t n);

/* Device identity, read once. */
struct ppu_dev_ident {
	char name[96];
	char bus_id[32];		   /* "00000000:10:00.0" */
	char uuid[96];			   /* "GPU-8f1e...", "" when unknown */
	unsigned int pcie_gen, pcie_width; /* 0 when unknown */
};
int ppu_lib_ident(const struct ppu_lib *l, ppu_device_t d, struct ppu_dev_ident *id);

#endif
