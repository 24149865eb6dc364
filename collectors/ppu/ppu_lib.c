/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_load.h"
#include "env.h"
#include "ppu_lib.h"
#include "util.h"

#define PPU_HOME_DEFAULT "/usr/local/PPU_SDK"
#define NVML_SONAME "libnvidia-ml.so.1"
#define PPU_NVML_GPM_MIN_INTERVAL_NS 100000000ull

static const char *const hgml_dirs[] = {"lib", "lib64", "targets/x86_64-linux/lib"};

/* Symbols by base name, the newest version worth trying (3: _v3, _v2 and
 * plain; 1: plain only) and where the pointer goes. */
struct ppu_sym {
	const char *base;
	int maxver;
	size_t off;
	bool required;
};

#define SYM(b, v, f, r)                                                                            \
	{                                                                                          \
		b, v, offsetof(struct ppu_lib, f), r                                               \
	}
static const struct ppu_sym ppu_syms[] = {
    SYM("Init", 2, init, true),
    SYM("Shutdown", 1, shutdown, false),
    SYM("ErrorString", 1, error_string, false),
    SYM("DeviceGetCount", 2, device_get_count, true),
    SYM("DeviceGetHandleByIndex", 2, device_get_handle_by_index, true),
    SYM("DeviceGetName", 1, device_get_name, false),
    SYM("DeviceGetPciInfo", 3, device_get_pci_info, false),
    SYM("DeviceGetUUID", 1, device_get_uuid, false),
    SYM("DeviceGetUtilizationRates", 1, device_get_utilization_rates, false),
    SYM("DeviceGetMemoryInfo", 1, device_get_memory_info, false),
    SYM("DeviceGetClockInfo", 1, device_get_clock_info, false),
    SYM("DeviceGetPowerUsage", 1, device_get_power_usage, false),
    SYM("DeviceGetEnforcedPowerLimit", 1, device_get_enforced_power_limit, false),
    SYM("DeviceGetTemperature", 1, device_get_temperature, false),
    SYM("DeviceGetCurrPcieLinkGeneration", 1, device_get_curr_pcie_link_generation, false),
    SYM("DeviceGetCurrPcieLinkWidth", 1, device_get_curr_pcie_link_width, false),
    SYM("DeviceGetComputeRunningProcesses", 3, device_get_compute_running_processes, false),
    SYM("DeviceGetProcessesUtilizationInfo", 1, device_get_processes_utilization_info, false),
    SYM("DeviceGetProcessUtilization", 1, device_get_process_utilization, false),
    SYM("GpmQueryDeviceSupport", 1, gpm_query_device_support, false),
    SYM("GpmSampleAlloc", 1, gpm_sample_alloc, false),
    SYM("GpmSampleFree", 1, gpm_sample_free, false),
    SYM("GpmSampleGet", 1, gpm_sample_get, false),
    SYM("GpmMetricsGet", 1, gpm_metrics_get, false),
};
#undef SYM

void ppu_lib_symbol(const struct ppu_lib *l, const char *base, char *buf, size_t n)
{
	snprintf(buf, n, "%s%s", l ? l->prefix : "hgml", base);
}

/* The newest version of a symbol the library has; returns its version (3, 2,
 * 1 for plain) or 0 when it has none. */
static int ppu_resolve(void *h, const char *prefix, const struct ppu_sym *s, void **fn)
{
	static const char *const suffix[] = {"", "", "_v2", "_v3"};
	char name[96];

	for (int v = s->maxver; v >= 1; v--) {
		snprintf(name, sizeof(name), "%s%s%s", prefix, s->base, suffix[v]);
		*fn = dlsym(h, name);
		if (*fn)
			return v;
	}
	return 0;
}

/* The library's symbols are versioned (ppu_resolve): the loader only opens. */
static void *ppu_try_open(const char *path, char *looked, size_t n)
{
	const char *names[] = {path, NULL};
	size_t used = strlen(looked);
	struct dl_why w;

	snprintf(looked + used, n - used, "%s%s", used ? ", " : "", path);
	return dl_load(names, RTLD_NOW | RTLD_LOCAL, NULL, &w);
}

/* Finds the file. On success *prefix is set and the handle returned. */
static void *ppu_find(const char *backend, const char **prefix, char *path, size_t pathn,
		      char *looked, size_t n)
{
	const char *env = env_path("ASYS_HGML_LIBRARY");
	bool want_hgml = !backend || !strcmp(backend, "hgml");
	bool want_nvml = !backend || !strcmp(backend, "nvml");
	void *h;

	looked[0] = '\0';
	if (env && *env) {
		h = ppu_try_open(env, looked, n);
		if (!h)
			return NULL;
		util_strlcpy(path, env, pathn);
		/* The backend decides the prefix; else whichever the file has. */
		if (want_hgml && dlsym(h, "hgmlInit_v2"))
			*prefix = "hgml";
		else if (want_nvml && dlsym(h, "nvmlInit_v2"))
			*prefix = "nvml";
		else if (want_hgml && dlsym(h, "hgmlInit"))
			*prefix = "hgml";
		else if (want_nvml && dlsym(h, "nvmlInit"))
			*prefix = "nvml";
		else {
			dlclose(h);
			return NULL;
		}
		return h;
	}
	if (want_hgml) {
		const char *home = env_path("PPU_HOME");

		if (!home || !*home)
			home = PPU_HOME_DEFAULT;
		for (size_t i = 0; i < ARRAY_SIZE(hgml_dirs); i++) {
			snprintf(path, pathn, "%s/%s/libhgml.so", home, hgml_dirs[i]);
			h = ppu_try_open(path, looked, n);
			if (h) {
				*prefix = "hgml";
				return h;
			}
		}
	}
	if (want_nvml) {
		util_strlcpy(path, NVML_SONAME, pathn);
		h = ppu_try_open(path, looked, n);
		if (h) {
			*prefix = "nvml";
			return h;
		}
	}
	return NULL;
}

void ppu_lib_close(struct ppu_lib *l)
{
	if (!l)
		return;
	if (l->inited && l->shutdown)
		l->shutdown();
	if (l->handle)
		dlclose(l->handle);
	free(l);
}

/* What to do first, in the words a pane shows in one line (up to the first
 * "; "), then what the variables name and where asys looked; a variable the
 * user set but asys would not believe is why the library was not where the
 * user put it. */
static void ppu_not_found(const char *looked, char *err, size_t errlen)
{
	char why[320] = "";

	if (env_note_for("ASYS_HGML_LIBRARY", why + 2, sizeof(why) - 2) ||
	    env_note_for("PPU_HOME", why + 2, sizeof(why) - 2))
		memcpy(why, "; ", 2);
	snprintf(err, errlen,
		 "no PPU library: set PPU_HOME or ASYS_HGML_LIBRARY; PPU_HOME names the PPU "
		 "SDK's directory, ASYS_HGML_LIBRARY the library file; asys looked in %s%s",
		 looked, why);
}

/* The backend the prefix names, and the shortest interval between GPM
 * samples: the backend's, or ASYS_GPM_MIN_INTERVAL_MS when it is sane. */
static void ppu_set_backend(struct ppu_lib *l)
{
	double ms;

	l->backend = strcmp(l->prefix, "nvml") ? PPU_BACKEND_HGML : PPU_BACKEND_NVML;
	l->gpm_min_interval_ns = l->backend == PPU_BACKEND_NVML ? PPU_NVML_GPM_MIN_INTERVAL_NS : 0;
	if (!util_parse_double(env_get("ASYS_GPM_MIN_INTERVAL_MS"), &ms) && ms >= 0 &&
	    ms <= 60000) {
		l->gpm_min_interval_ns = (uint64_t)(ms * 1e6);
		l->gpm_min_interval_from_env = true;
	}
}

/* Fills the function pointers: 0, or -ENOSYS with err set when a required
 * symbol is missing. */
static int ppu_bind(struct ppu_lib *l, char *err, size_t errlen)
{
	char sym[96];

	for (size_t i = 0; i < ARRAY_SIZE(ppu_syms); i++) {
		const struct ppu_sym *s = &ppu_syms[i];
		void *fn = NULL;
		int v = ppu_resolve(l->handle, l->prefix, s, &fn);

		if (!v && s->required) {
			ppu_lib_symbol(l, s->base, sym, sizeof(sym));
			snprintf(err, errlen, "%s has no %s: it is not a usable %s library",
				 l->path, sym, l->backend == PPU_BACKEND_HGML ? "HGML" : "NVML");
			return -ENOSYS;
		}
		memcpy((char *)l + s->off, &fn, sizeof(fn));
		if (s->off == offsetof(struct ppu_lib, device_get_compute_running_processes))
			l->proc_version = v;
	}
	l->util_api = l->device_get_processes_utilization_info ? 2
		      : l->device_get_process_utilization      ? 1
							       : 0;
	return 0;
}

int ppu_lib_open(struct ppu_lib **out, const char *backend, char *err, size_t errlen)
{
	struct ppu_lib *l;
	char looked[1024], sym[96], ebuf[64];
	ppu_ret_t r;
	int ret = 0;

	*out = NULL;
	if (backend && strcmp(backend, "hgml") && strcmp(backend, "nvml")) {
		snprintf(err, errlen, "unknown PPU backend '%s': use hgml or nvml", backend);
		return -EINVAL;
	}
	l = calloc(1, sizeof(*l));
	if (!l) {
		snprintf(err, errlen, "out of memory loading the PPU management library");
		return -ENOMEM;
	}
	l->handle = ppu_find(backend, &l->prefix, l->path, sizeof(l->path), looked, sizeof(looked));
	if (!l->handle) {
		ppu_not_found(looked, err, errlen);
		ret = -ENOENT;
		goto cleanup;
	}
	ppu_set_backend(l);
	ret = ppu_bind(l, err, errlen);
	if (ret)
		goto cleanup;
	r = l->init();
	if (r != PPU_OK) {
		ppu_lib_symbol(l, "Init", sym, sizeof(sym));
		snprintf(err, errlen,
			 "%s failed in %s: %s; check that the PPU driver is loaded and the "
			 "devices are visible (ppu-smi or nvidia-smi)",
			 sym, l->path, ppu_lib_strerror(l, r, ebuf, sizeof(ebuf)));
		ret = -ENODEV;
		goto cleanup;
	}
	l->inited = true;
	*out = l;
	return 0;
cleanup:
	ppu_lib_close(l);
	return ret;
}

const char *ppu_lib_strerror(const struct ppu_lib *l, ppu_ret_t r, char *buf, size_t n)
{
	static const struct {
		ppu_ret_t r;
		const char *s;
	} known[] = {
	    {PPU_OK, "Success"},
	    {PPU_ERR_UNINITIALIZED, "Uninitialized"},
	    {PPU_ERR_INVALID_ARGUMENT, "Invalid Argument"},
	    {PPU_ERR_NOT_SUPPORTED, "Not Supported"},
	    {PPU_ERR_NO_PERMISSION, "Insufficient Permissions"},
	    {PPU_ERR_NOT_FOUND, "Not Found"},
	    {PPU_ERR_INSUFFICIENT_SIZE, "Insufficient Size"},
	    {PPU_ERR_DRIVER_NOT_LOADED, "Driver Not Loaded"},
	    {PPU_ERR_GPU_IS_LOST, "GPU is lost"},
	    {PPU_ERR_IN_USE, "In use by another client"},
	    {PPU_ERR_NO_DATA, "No data"},
	};
	const char *s = NULL;

	if (l && l->error_string)
		s = l->error_string(r);
	for (size_t i = 0; !s && i < ARRAY_SIZE(known); i++)
		if (known[i].r == r)
			s = known[i].s;
	if (s)
		snprintf(buf, n, "%s", s);
	else
		snprintf(buf, n, "error %d", r);
	return buf;
}

int ppu_lib_processes(const struct ppu_lib *l, ppu_device_t d, struct ppu_process_info *out,
		      unsigned int max, ppu_ret_t *ret)
{
	/* Ask for half of what out holds: a driver whose process record is
	 * longer than ours (R530 added a field, later removed) then still
	 * writes inside the buffer. */
	unsigned int n = max / 2;

	if (!l->device_get_compute_running_processes) {
		*ret = PPU_ERR_NOT_SUPPORTED;
		return -1;
	}
	if (l->proc_version >= 2) {
		*ret = l->device_get_compute_running_processes(d, &n, out);
	} else {
		/* v1 fills 16-byte entries: read them into a scratch array. */
		struct ppu_process_info_v1 *v1 = calloc(max ? max : 1, sizeof(*v1));

		if (!v1) {
			*ret = PPU_ERR_UNKNOWN;
			return -1;
		}
		*ret = l->device_get_compute_running_processes(d, &n, v1);
		for (unsigned int i = 0; *ret == PPU_OK && i < n && i < max / 2; i++) {
			out[i].pid = v1[i].pid;
			out[i].used_memory = v1[i].used_memory;
			out[i].gpu_instance_id = out[i].compute_instance_id = ~0u;
		}
		free(v1);
	}
	if (*ret != PPU_OK)
		return -1;
	return (int)(n < max / 2 ? n : max / 2);
}

_Static_assert(sizeof(struct ppu_proc_util) <= sizeof(struct ppu_proc_util_sample),
	       "normalised samples must fit in place of the library's");
_Static_assert(sizeof(struct ppu_proc_util_sample) <= PPU_PROC_UTIL_STRIDE,
	       "the stride holds either record");

void ppu_lib_util_symbol(const struct ppu_lib *l, int api, char *buf, size_t n)
{
	ppu_lib_symbol(
	    l, api == 2 ? "DeviceGetProcessesUtilizationInfo" : "DeviceGetProcessUtilization", buf,
	    n);
}

/* Rewrites the library's records as struct ppu_proc_util from the start of
 * buf. Entry i goes to no byte past the end of the library's entry i (the
 * normalised record is no longer than either), and each record is copied
 * out whole before its slot is written. */
static void ppu_util_normalise(void *buf, unsigned int n, bool info)
{
	for (unsigned int i = 0; i < n; i++) {
		struct ppu_proc_util u;

		if (info) {
			struct ppu_proc_util_info r;

			memcpy(&r, (char *)buf + (size_t)i * sizeof(r), sizeof(r));
			u = (struct ppu_proc_util){r.timestamp, r.pid, r.sm, r.mem, r.enc, r.dec};
		} else {
			struct ppu_proc_util_sample r;

			memcpy(&r, (char *)buf + (size_t)i * sizeof(r), sizeof(r));
			u = (struct ppu_proc_util){r.timestamp, r.pid, r.sm, r.mem, r.enc, r.dec};
		}
		memcpy((char *)buf + (size_t)i * sizeof(u), &u, sizeof(u));
	}
}

ppu_ret_t ppu_lib_proc_util(const struct ppu_lib *l, int api, ppu_device_t d,
			    unsigned long long last_seen, void *buf, unsigned int *n)
{
	unsigned int cap = *n;
	ppu_ret_t r;

	if (api == 2 && l->device_get_processes_utilization_info) {
		struct ppu_procs_util_info info = {PPU_PROCS_UTIL_INFO_VERSION, cap, last_seen,
						   buf};

		r = l->device_get_processes_utilization_info(d, &info);
		*n = info.count;
	} else if (api == 1 && l->device_get_process_utilization) {
		r = l->device_get_process_utilization(d, buf, n, last_seen);
	} else {
		return PPU_ERR_NOT_SUPPORTED;
	}
	if (r != PPU_OK)
		return r;
	if (*n > cap) /* a library that claims more than it was given room for */
		*n = cap;
	ppu_util_normalise(buf, *n, api == 2);
	return PPU_OK;
}

/* The device's UUID when the library gives one made of letters, digits and
 * dashes only: it becomes a word of the device's label and a Prometheus
 * label value, so anything else from the library is not taken. */
static void ppu_lib_uuid(const struct ppu_lib *l, ppu_device_t d, char *out, size_t n)
{
	char buf[96] = "";

	out[0] = '\0';
	if (!l->device_get_uuid || l->device_get_uuid(d, buf, sizeof(buf)) != PPU_OK)
		return;
	buf[sizeof(buf) - 1] = '\0';
	for (const char *c = buf; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '-')
			return;
	snprintf(out, n, "%s", buf);
}

int ppu_lib_ident(const struct ppu_lib *l, ppu_device_t d, struct ppu_dev_ident *id)
{
	/* Room past the struct in case a library's PCI info is longer than ours. */
	union {
		struct ppu_pci_info pci;
		char pad[256];
	} u;

	memset(id, 0, sizeof(*id));
	snprintf(id->name, sizeof(id->name), "PPU");
	if (l->device_get_name && l->device_get_name(d, id->name, sizeof(id->name)) != PPU_OK)
		snprintf(id->name, sizeof(id->name), "PPU");
	id->name[sizeof(id->name) - 1] = '\0';
	memset(&u, 0, sizeof(u));
	if (l->device_get_pci_info && l->device_get_pci_info(d, &u.pci) == PPU_OK)
		snprintf(id->bus_id, sizeof(id->bus_id), "%08X:%02X:%02X.0", u.pci.domain,
			 u.pci.bus & 0xff, u.pci.device & 0x1f);
	else
		snprintf(id->bus_id, sizeof(id->bus_id), "n/a");
	ppu_lib_uuid(l, d, id->uuid, sizeof(id->uuid));
	if (l->device_get_curr_pcie_link_generation)
		if (l->device_get_curr_pcie_link_generation(d, &id->pcie_gen) != PPU_OK)
			id->pcie_gen = 0;
	if (l->device_get_curr_pcie_link_width)
		if (l->device_get_curr_pcie_link_width(d, &id->pcie_width) != PPU_OK)
			id->pcie_width = 0;
	return 0;
}
