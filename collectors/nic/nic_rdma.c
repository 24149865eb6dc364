/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#ifndef HAVE_MNL
#error "nic_rdma.c needs libmnl (configure --enable-mnl)"
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "env.h"
#include "nic_rdma.h"
#include "nic_rdmanl.h"
#include "sysroot.h"
#include "util.h"

#define IB_CLASS "/sys/class/infiniband"
#define NIC_RDMA_MAX_PORTS 1024
#define NIC_RDMA_MAX_DEVS 1024

/* Paths below /sys/class/infiniband/<dev>/ports/<port>/. */
static const char *const counter_path[NIC_R_NFIELDS] = {
    [NIC_R_RX_BYTES] = "counters/port_rcv_data",
    [NIC_R_TX_BYTES] = "counters/port_xmit_data",
    [NIC_R_RX_PACKETS] = "counters/port_rcv_packets",
    [NIC_R_TX_PACKETS] = "counters/port_xmit_packets",
    [NIC_R_XMIT_WAIT] = "counters/port_xmit_wait",
    [NIC_R_CNP_RX] = "hw_counters/rp_cnp_handled",
    [NIC_R_CNP_TX] = "hw_counters/np_cnp_sent",
    [NIC_R_ECN_MARKED] = "hw_counters/np_ecn_marked_roce_packets",
    [NIC_R_CNP_IGNORED] = "hw_counters/rp_cnp_ignored",
    [NIC_R_OUT_OF_SEQ] = "hw_counters/out_of_sequence",
};

struct dev_index {
	char name[NIC_RDMA_NAME_MAX];
	uint32_t index;
	bool kernel; /* the kernel's index (RDMA netlink), usable in STAT_GET */
};

struct nic_rdma {
	struct nic_rdma_port **ports;
	size_t nports, cap;
	struct dev_index *devs; /* every device ever seen: a stable index */
	size_t ndevs, capdevs;
	uint32_t next_index;
	struct nic_rdmanl *nl; /* RDMA netlink, kept open; NULL: sysfs only */
	int nl_err;	       /* why nl is NULL (0: not tried) */
	char source[256];
};

const char *nic_rdma_counter_path(enum nic_rdma_field f)
{
	return counter_path[f];
}

/* ---- RDMA netlink: device indexes and hw_counters where the kernel has it ---- */

static int dev_index_set(struct nic_rdma *r, const char *name, uint32_t index, bool kernel);

static void on_nl_dev(void *ctx, uint32_t index, const char *name)
{
	dev_index_set(ctx, name, index, true);
}

/* Says where the counters come from: the socket's state and, per port, which
 * ports read their hw_counters over netlink. */
static void source_update(struct nic_rdma *r)
{
	size_t nl = 0, fb = 0, len;
	const struct nic_rdma_port *first = NULL;

	if (!r->nl) {
		if (r->nl_err)
			snprintf(r->source, sizeof(r->source), "sysfs%s%s (RDMA netlink: %s)",
				 strcmp(sysroot_get(), "/") ? " under " : "",
				 strcmp(sysroot_get(), "/") ? sysroot_get() : "",
				 strerror(-r->nl_err));
		else
			snprintf(r->source, sizeof(r->source),
				 "sysfs under %s (RDMA netlink not "
				 "used under a sysroot; ASYS_RDMA_NETLINK=1 forces it)",
				 sysroot_get());
		return;
	}
	for (size_t i = 0; i < r->nports; i++) {
		const struct nic_rdma_port *p = r->ports[i];

		if (!p->present)
			continue;
		if (p->nl_hw) {
			nl++;
		} else {
			fb++;
			if (!first)
				first = p;
		}
	}
	len =
	    (size_t)snprintf(r->source, sizeof(r->source),
			     "RDMA netlink (STAT_GET) for the hw_counters of %zu port%s, sysfs for "
			     "the port counters",
			     nl, nl == 1 ? "" : "s");
	if (fb && len < sizeof(r->source))
		snprintf(r->source + len, sizeof(r->source) - len,
			 "; sysfs hw_counters for %zu port%s (%s/%u: %s)", fb, fb == 1 ? "" : "s",
			 first->dev, first->port,
			 first->nl_err ? strerror(-first->nl_err) : "not listed by netlink");
}

static bool netlink_wanted(void)
{
	const char *env = env_get("ASYS_RDMA_NETLINK");

	if (env && !strcmp(env, "0"))
		return false;
	if (env && !strcmp(env, "1"))
		return true;
	/* Netlink sees the real kernel, not a fixture tree: by default only
	 * used at "/". */
	return !strcmp(sysroot_get(), "/");
}

struct nic_rdma *nic_rdma_new(void)
{
	struct nic_rdma *r = calloc(1, sizeof(*r));
	int rc = 0;

	if (!r)
		return NULL;
	if (netlink_wanted()) {
		r->nl = nic_rdmanl_new(&rc);
		if (r->nl)
			rc = nic_rdmanl_list(r->nl, on_nl_dev, r);
		if (rc) {
			/* EPROTONOSUPPORT: no RDMA netlink in this kernel; sysfs only */
			nic_rdmanl_free(r->nl);
			r->nl = NULL;
			r->nl_err = rc;
		}
	}
	source_update(r);
	return r;
}

static void port_close(struct nic_rdma_port *p)
{
	for (int f = 0; f < NIC_R_NFIELDS; f++) {
		if (p->fd[f] >= 0)
			close(p->fd[f]);
		p->fd[f] = -1;
	}
}

void nic_rdma_free(struct nic_rdma *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nports; i++) {
		port_close(r->ports[i]);
		free(r->ports[i]);
	}
	free(r->ports);
	free(r->devs);
	nic_rdmanl_free(r->nl);
	free(r);
}

const char *nic_rdma_source(const struct nic_rdma *r)
{
	return r->source;
}

size_t nic_rdma_count(const struct nic_rdma *r)
{
	return r->nports;
}

struct nic_rdma_port *nic_rdma_port_at(struct nic_rdma *r, size_t i)
{
	return i < r->nports ? r->ports[i] : NULL;
}

uint64_t nic_rdma_entity(const struct nic_rdma_port *p)
{
	return ((uint64_t)p->dev_index << 8) | (p->port & 0xff);
}

static int dev_index_set(struct nic_rdma *r, const char *name, uint32_t index, bool kernel)
{
	for (size_t i = 0; i < r->ndevs; i++) {
		if (!strcmp(r->devs[i].name, name)) {
			r->devs[i].index = index;
			r->devs[i].kernel = kernel;
			return 0;
		}
	}
	if (r->ndevs >= NIC_RDMA_MAX_DEVS)
		return -E2BIG;
	if (r->ndevs == r->capdevs) {
		size_t cap = r->capdevs ? r->capdevs * 2 : 8;
		struct dev_index *nd = realloc(r->devs, cap * sizeof(*nd));

		if (!nd)
			return -ENOMEM;
		r->devs = nd;
		r->capdevs = cap;
	}
	util_strlcpy(r->devs[r->ndevs].name, name, NIC_RDMA_NAME_MAX);
	r->devs[r->ndevs].kernel = kernel;
	r->devs[r->ndevs++].index = index;
	if (index >= r->next_index)
		r->next_index = index + 1;
	return 0;
}

/* The device's index; *kernel: it is the kernel's (STAT_GET can use it). */
static uint32_t dev_index_get(struct nic_rdma *r, const char *name, bool *kernel)
{
	for (size_t i = 0; i < r->ndevs; i++)
		if (!strcmp(r->devs[i].name, name) && (r->devs[i].kernel || !r->nl))
			goto found;
	if (r->nl)
		nic_rdmanl_list(r->nl, on_nl_dev, r); /* a device that appeared since */
	for (size_t i = 0; i < r->ndevs; i++)
		if (!strcmp(r->devs[i].name, name))
			goto found;
	*kernel = false;
	dev_index_set(r, name, r->next_index, false);
	return r->next_index - 1;
found:
	for (size_t i = 0; i < r->ndevs; i++) {
		if (!strcmp(r->devs[i].name, name)) {
			*kernel = r->devs[i].kernel;
			return r->devs[i].index;
		}
	}
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted entry names of a directory under the sysroot (no dot entries). */
static int list_dir(const char *path, char ***out, size_t *n)
{
	int fd = sysroot_open(path, O_RDONLY | O_DIRECTORY);
	DIR *d;
	struct dirent *de;
	char **v = NULL;
	size_t cnt = 0, cap = 0;

	*out = NULL;
	*n = 0;
	if (fd < 0)
		return fd;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (cnt == cap) {
			size_t nc = cap ? cap * 2 : 8;
			char **nv = realloc(v, nc * sizeof(*nv));

			if (!nv)
				break;
			v = nv;
			cap = nc;
		}
		v[cnt] = util_strdup(de->d_name);
		if (v[cnt])
			cnt++;
	}
	closedir(d);
	if (cnt)
		qsort(v, cnt, sizeof(*v), name_cmp);
	*out = v;
	*n = cnt;
	return 0;
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void port_map_netdev(struct nic_rdma_port *p)
{
	char path[512], buf[64];
	char **names;
	size_t n;
	ssize_t len;

	/* The port's own netdev first (RoCE gid attributes), then the PCI
	 * function's net/ directory. */
	snprintf(path, sizeof(path), IB_CLASS "/%s/ports/%u/gid_attrs/ndevs/0", p->dev, p->port);
	len = sysroot_read_file(path, buf, sizeof(buf));
	if (len > 0) {
		buf[strcspn(buf, "\n")] = '\0';
		if (buf[0]) {
			util_strlcpy(p->netdev, buf, sizeof(p->netdev));
			return;
		}
	}
	snprintf(path, sizeof(path), IB_CLASS "/%s/device/net", p->dev);
	if (list_dir(path, &names, &n) == 0 && n > 0) {
		/* One netdev per PCI function on mlx5; with several, port N
		 * takes the Nth. */
		size_t k = (p->port >= 1 && p->port <= n) ? p->port - 1 : 0;

		util_strlcpy(p->netdev, names[k], sizeof(p->netdev));
	}
	free_list(names, n);
}

static struct nic_rdma_port *port_find(struct nic_rdma *r, const char *dev, uint32_t port)
{
	for (size_t i = 0; i < r->nports; i++)
		if (r->ports[i]->port == port && !strcmp(r->ports[i]->dev, dev))
			return r->ports[i];
	return NULL;
}

static int port_add(struct nic_rdma *r, const char *dev, uint32_t port)
{
	struct nic_rdma_port *p;
	char path[512];

	if (r->nports >= NIC_RDMA_MAX_PORTS)
		return -E2BIG;
	if (r->nports == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 8;
		struct nic_rdma_port **np = realloc(r->ports, cap * sizeof(*np));

		if (!np)
			return -ENOMEM;
		r->ports = np;
		r->cap = cap;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	util_strlcpy(p->dev, dev, sizeof(p->dev));
	p->port = port;
	p->dev_index = dev_index_get(r, dev, &p->nl_hw);
	p->nl_hw = p->nl_hw && r->nl;
	for (int f = 0; f < NIC_R_NFIELDS; f++) {
		snprintf(path, sizeof(path), IB_CLASS "/%s/ports/%u/%s", dev, port,
			 counter_path[f]);
		p->fd[f] = sysroot_open(path, O_RDONLY);
		if (p->fd[f] < 0)
			p->fd[f] = -1;
	}
	port_map_netdev(p);
	p->present = true;
	r->ports[r->nports++] = p;
	return 0;
}

int nic_rdma_scan(struct nic_rdma *r)
{
	char **devs = NULL, **ports = NULL;
	size_t ndevs = 0, nports = 0;
	int present = 0, rc;

	for (size_t i = 0; i < r->nports; i++)
		r->ports[i]->present = false;
	rc = list_dir(IB_CLASS, &devs, &ndevs);
	if (rc < 0 && rc != -ENOENT)
		goto out;
	for (size_t d = 0; d < ndevs; d++) {
		char path[512];

		if (strlen(devs[d]) >= NIC_RDMA_NAME_MAX)
			continue;
		snprintf(path, sizeof(path), IB_CLASS "/%s/ports", devs[d]);
		if (list_dir(path, &ports, &nports) < 0)
			continue;
		for (size_t k = 0; k < nports; k++) {
			char *end;
			unsigned long pn = strtoul(ports[k], &end, 10);
			struct nic_rdma_port *p;

			if (*end || pn == 0 || pn > 255)
				continue;
			p = port_find(r, devs[d], (uint32_t)pn);
			if (p) {
				p->present = true;
				present++;
			} else if (port_add(r, devs[d], (uint32_t)pn) == 0) {
				present++;
			}
		}
		free_list(ports, nports);
	}
	rc = present;
	/* A device that went away may come back (driver reload) under a new
	 * kernel index: ask netlink again when it does. */
	for (size_t i = 0; i < r->ndevs; i++) {
		char *key = r->devs[i].name;

		if (r->devs[i].kernel &&
		    !(ndevs && bsearch(&key, devs, ndevs, sizeof(*devs), name_cmp)))
			r->devs[i].kernel = false;
	}
out:
	free_list(devs, ndevs);
	for (size_t i = 0; i < r->nports; i++)
		if (!r->ports[i]->present)
			port_close(r->ports[i]);
	source_update(r);
	return rc;
}

void nic_rdma_reap(struct nic_rdma *r)
{
	size_t k = 0;

	for (size_t i = 0; i < r->nports; i++) {
		if (r->ports[i]->present) {
			r->ports[k++] = r->ports[i];
		} else {
			port_close(r->ports[i]);
			free(r->ports[i]);
		}
	}
	r->nports = k;
}

uint64_t nic_rdma_unwrap(uint64_t prev, uint64_t now, uint64_t *wraps, uint64_t *resets)
{
	const uint64_t w32 = 1ull << 32;

	if (now >= prev)
		return now - prev;
	/* A 32-bit counter near its top that comes back small wrapped. */
	if (prev < w32 && prev >= w32 - (w32 >> 2) && now < (w32 >> 2)) {
		(*wraps)++;
		return now + (w32 - prev);
	}
	/* Same for 64-bit counters (unsigned arithmetic gives the distance). */
	if (prev >= UINT64_MAX - (UINT64_MAX >> 2) && now < (UINT64_MAX >> 2)) {
		(*wraps)++;
		return now - prev;
	}
	/* Anything else went back: the driver reset it and it counts from 0. */
	(*resets)++;
	return now;
}

/* The port's hw_counters over netlink; a failure moves that port to its
 * sysfs files for good (quietly: nic_rdma_source says so). */
static uint32_t read_netlink(struct nic_rdma *r, struct nic_rdma_port *p,
			     uint64_t raw[NIC_R_NFIELDS])
{
	uint32_t have = 0;
	int rc;

	if (!p->nl_hw || !r->nl)
		return 0;
	rc = nic_rdmanl_stat(r->nl, p->dev_index, p->port, p->dev, raw, &have);
	if (rc == 0)
		return have;
	p->nl_hw = false;
	p->nl_err = rc;
	source_update(r);
	return 0;
}

int nic_rdma_read(struct nic_rdma *r, struct nic_rdma_port *p, double out[NIC_R_NFIELDS])
{
	uint64_t raw[NIC_R_NFIELDS];
	uint32_t have = read_netlink(r, p, raw);
	int failed = 0, opened = 0;

	for (int f = 0; f < NIC_R_NFIELDS; f++) {
		char buf[32];
		ssize_t len;
		char *end;
		uint64_t v;

		out[f] = NAN;
		if (have & (1u << f)) {
			v = raw[f]; /* from the STAT_GET answer */
			opened++;
			goto got;
		}
		if (p->fd[f] < 0)
			continue;
		opened++;
		len = pread(p->fd[f], buf, sizeof(buf) - 1, 0);
		if (len <= 0) {
			failed++;
			continue;
		}
		buf[len] = '\0';
		errno = 0;
		v = strtoull(buf, &end, 10);
		if (end == buf || errno) {
			failed++;
			continue;
		}
	got:
		if (!p->primed[f]) {
			/* Start from the reading itself while a double holds it exactly. */
			p->acc[f] = v < (1ull << 52) ? v : 0;
			p->primed[f] = true;
		} else {
			p->acc[f] += nic_rdma_unwrap(p->prev[f], v, &p->wraps, &p->resets);
		}
		p->prev[f] = v;
		out[f] = (double)p->acc[f];
		if (f == NIC_R_RX_BYTES || f == NIC_R_TX_BYTES)
			out[f] *= 4.0; /* port_{rcv,xmit}_data count 4-octet words */
	}
	return opened && failed == opened ? -ENODEV : failed;
}
