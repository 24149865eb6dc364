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

#include <libmnl/libmnl.h>
#include <rdma/rdma_netlink.h>

#include "nic_rdma.h"
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
};

struct nic_rdma {
	struct nic_rdma_port **ports;
	size_t nports, cap;
	struct dev_index *devs; /* every device ever seen: a stable index */
	size_t ndevs, capdevs;
	uint32_t next_index;
	bool netlink;           /* indexes came from RDMA netlink */
	char source[160];
};

const char *nic_rdma_counter_path(enum nic_rdma_field f)
{
	return counter_path[f];
}

/* ---- RDMA netlink: device indexes where the kernel has it ---- */

static int nldev_attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(a);

	if (type == RDMA_NLDEV_ATTR_DEV_INDEX || type == RDMA_NLDEV_ATTR_DEV_NAME)
		tb[type] = a;
	return MNL_CB_OK;
}

static int dev_index_set(struct nic_rdma *r, const char *name, uint32_t index);

static int nldev_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = { 0 };
	struct nic_rdma *r = data;

	if (mnl_attr_parse(nlh, 0, nldev_attr_cb, tb) < 0)
		return MNL_CB_OK;
	if (tb[RDMA_NLDEV_ATTR_DEV_INDEX] && tb[RDMA_NLDEV_ATTR_DEV_NAME] &&
	    mnl_attr_validate(tb[RDMA_NLDEV_ATTR_DEV_NAME], MNL_TYPE_NUL_STRING) == 0)
		dev_index_set(r, mnl_attr_get_str(tb[RDMA_NLDEV_ATTR_DEV_NAME]),
			      mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]));
	return MNL_CB_OK;
}

/* Lists the devices over NETLINK_RDMA (RDMA_NLDEV_CMD_GET dump). Counters
 * still come from sysfs: the port counters are not in nldev at all. */
static int nldev_list(struct nic_rdma *r)
{
	char buf[16384];
	struct mnl_socket *nl = mnl_socket_open2(NETLINK_RDMA, SOCK_CLOEXEC);
	struct nlmsghdr *nlh;
	uint32_t seq = (uint32_t)time(NULL), portid;
	int rc = 0;

	if (!nl)
		return -errno; /* EPROTONOSUPPORT: kernel without InfiniBand */
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		rc = -errno;
		goto cleanup;
	}
	portid = mnl_socket_get_portid(nl);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET);
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		rc = -errno;
		goto cleanup;
	}
	for (;;) {
		ssize_t len = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		int ret;

		if (len < 0) {
			rc = -errno;
			break;
		}
		ret = mnl_cb_run(buf, (size_t)len, seq, portid, nldev_msg_cb, r);
		if (ret <= MNL_CB_STOP) {
			rc = ret < 0 ? -errno : 0;
			break;
		}
	}
cleanup:
	mnl_socket_close(nl);
	return rc;
}

struct nic_rdma *nic_rdma_new(void)
{
	struct nic_rdma *r = calloc(1, sizeof(*r));
	int rc;

	if (!r)
		return NULL;
	/* Netlink sees the real kernel, not a fixture tree: only use it at "/". */
	if (strcmp(sysroot_get(), "/")) {
		snprintf(r->source, sizeof(r->source), "sysfs under %s", sysroot_get());
		return r;
	}
	rc = nldev_list(r);
	if (rc == 0) {
		r->netlink = true;
		snprintf(r->source, sizeof(r->source),
			 "RDMA netlink for device indexes, sysfs counters");
	} else {
		snprintf(r->source, sizeof(r->source), "sysfs (RDMA netlink: %s)", strerror(-rc));
	}
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

static int dev_index_set(struct nic_rdma *r, const char *name, uint32_t index)
{
	for (size_t i = 0; i < r->ndevs; i++) {
		if (!strcmp(r->devs[i].name, name)) {
			r->devs[i].index = index;
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
	r->devs[r->ndevs++].index = index;
	if (index >= r->next_index)
		r->next_index = index + 1;
	return 0;
}

static uint32_t dev_index_get(struct nic_rdma *r, const char *name)
{
	for (size_t i = 0; i < r->ndevs; i++)
		if (!strcmp(r->devs[i].name, name))
			return r->devs[i].index;
	if (r->netlink)
		nldev_list(r); /* a device that appeared since: ask again */
	for (size_t i = 0; i < r->ndevs; i++)
		if (!strcmp(r->devs[i].name, name))
			return r->devs[i].index;
	dev_index_set(r, name, r->next_index);
	return r->next_index - 1;
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
	p->dev_index = dev_index_get(r, dev);
	for (int f = 0; f < NIC_R_NFIELDS; f++) {
		snprintf(path, sizeof(path), IB_CLASS "/%s/ports/%u/%s", dev, port, counter_path[f]);
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
out:
	free_list(devs, ndevs);
	for (size_t i = 0; i < r->nports; i++)
		if (!r->ports[i]->present)
			port_close(r->ports[i]);
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

int nic_rdma_read(struct nic_rdma_port *p, double out[NIC_R_NFIELDS])
{
	int failed = 0, opened = 0;

	for (int f = 0; f < NIC_R_NFIELDS; f++) {
		char buf[32];
		ssize_t len;
		char *end;
		uint64_t v;

		out[f] = NAN;
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
