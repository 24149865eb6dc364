/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#ifndef HAVE_MNL
#error "nic_rdmanl.c needs libmnl (configure --enable-mnl)"
#endif

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <libmnl/libmnl.h>
#include <rdma/rdma_netlink.h>

#include "nic_mnl.h"
#include "nic_rdmanl.h"

/* A STAT_GET answer is one NLMSG_DEFAULT_SIZE skb (under a page); a device
 * dump may fill 32 KiB skbs when the receive buffer allows it. */
#define RDMANL_BUF 32768
#define RDMANL_STALE_MAX 8 /* answers of an earlier, abandoned request to skip */

#define NLDEV_TYPE(cmd) RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, (cmd))

struct nic_rdmanl {
	struct mnl_socket *sock;
	uint32_t portid;
	uint32_t seq;
	char req[256];
	char buf[RDMANL_BUF];
};

struct list_walk {
	nic_rdmanl_dev_cb cb;
	void *ctx;
};

struct stat_walk {
	uint32_t dev_index, port;
	const char *dev;
	uint64_t *raw;
	uint32_t *have;
	bool answered, stale;
};

struct nic_rdmanl *nic_rdmanl_new(int *err)
{
	struct nic_rdmanl *n = calloc(1, sizeof(*n));
	int rc = 0;

	if (!n) {
		rc = -ENOMEM;
		goto cleanup;
	}
	/* The kernel always answers a request; the timeout only keeps a
	 * sampler from hanging on a socket that never does. */
	n->sock = nic_mnl_open(NETLINK_RDMA, 1, &n->portid, &rc);
	if (!n->sock)
		goto cleanup;
	n->seq = (uint32_t)time(NULL);
	return n;
cleanup:
	nic_rdmanl_free(n);
	if (err)
		*err = rc;
	return NULL;
}

void nic_rdmanl_free(struct nic_rdmanl *n)
{
	if (!n)
		return;
	if (n->sock)
		mnl_socket_close(n->sock);
	free(n);
}

int nic_rdmanl_field(const char *name)
{
	static const char prefix[] = "hw_counters/";

	for (int f = 0; f < NIC_R_NFIELDS; f++) {
		const char *p = nic_rdma_counter_path((enum nic_rdma_field)f);

		if (!strncmp(p, prefix, sizeof(prefix) - 1) &&
		    !strcmp(p + sizeof(prefix) - 1, name))
			return f;
	}
	return -1;
}

/* Sends the request in n->req and runs cb over the answer: until NLMSG_DONE
 * for a dump, one message otherwise. 0 or -errno. */
static int rdmanl_talk(struct nic_rdmanl *n, bool dump, mnl_cb_t cb, void *data)
{
	return nic_mnl_talk(n->sock, n->portid, (struct nlmsghdr *)n->req, n->buf, sizeof(n->buf),
			    dump, RDMANL_STALE_MAX, cb, data);
}

static void rdmanl_put_request(struct nic_rdmanl *n, uint16_t cmd, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(n->req);

	nlh->nlmsg_type = NLDEV_TYPE(cmd);
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++n->seq;
}

static int list_cb(const struct nlmsghdr *nlh, void *data)
{
	struct list_walk *w = data;
	const struct nlattr *a, *index = NULL, *name = NULL;

	if (nlh->nlmsg_type != NLDEV_TYPE(RDMA_NLDEV_CMD_GET))
		return MNL_CB_OK;
	mnl_attr_for_each(a, nlh, 0)
	{
		switch (mnl_attr_get_type(a)) {
		case RDMA_NLDEV_ATTR_DEV_INDEX:
			if (mnl_attr_validate(a, MNL_TYPE_U32) == 0)
				index = a;
			break;
		case RDMA_NLDEV_ATTR_DEV_NAME:
			if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
				name = a;
			break;
		default:
			break;
		}
	}
	if (index && name)
		w->cb(w->ctx, mnl_attr_get_u32(index), mnl_attr_get_str(name));
	return MNL_CB_OK;
}

int nic_rdmanl_list(struct nic_rdmanl *n, nic_rdmanl_dev_cb cb, void *ctx)
{
	struct list_walk w = {cb, ctx};

	rdmanl_put_request(n, RDMA_NLDEV_CMD_GET, NLM_F_DUMP);
	return rdmanl_talk(n, true, list_cb, &w);
}

/* One RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY: a name and a u64. */
static void stat_entry(struct stat_walk *w, const struct nlattr *entry)
{
	const struct nlattr *a;
	const char *name = NULL;
	uint64_t v = 0;
	bool have_v = false;
	int f;

	mnl_attr_for_each_nested(a, entry)
	{
		switch (mnl_attr_get_type(a)) {
		case RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME:
			if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
				name = mnl_attr_get_str(a);
			break;
		case RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE:
			if (mnl_attr_validate(a, MNL_TYPE_U64) == 0) {
				v = mnl_attr_get_u64(a);
				have_v = true;
			}
			break;
		default:
			break; /* RDMA_NLDEV_ATTR_PAD, and whatever comes later */
		}
	}
	if (!name || !have_v || (f = nic_rdmanl_field(name)) < 0)
		return;
	w->raw[f] = v;
	*w->have |= 1u << f;
}

static int stat_cb(const struct nlmsghdr *nlh, void *data)
{
	struct stat_walk *w = data;
	const struct nlattr *a, *e;

	if (nlh->nlmsg_type != NLDEV_TYPE(RDMA_NLDEV_CMD_STAT_GET))
		return MNL_CB_OK;
	w->answered = true;
	mnl_attr_for_each(a, nlh, 0)
	{
		switch (mnl_attr_get_type(a)) {
		case RDMA_NLDEV_ATTR_DEV_INDEX:
			if (mnl_attr_validate(a, MNL_TYPE_U32) ||
			    mnl_attr_get_u32(a) != w->dev_index)
				w->stale = true;
			break;
		case RDMA_NLDEV_ATTR_PORT_INDEX:
			if (mnl_attr_validate(a, MNL_TYPE_U32) || mnl_attr_get_u32(a) != w->port)
				w->stale = true;
			break;
		case RDMA_NLDEV_ATTR_DEV_NAME:
			if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) ||
			    strcmp(mnl_attr_get_str(a), w->dev))
				w->stale = true;
			break;
		case RDMA_NLDEV_ATTR_STAT_HWCOUNTERS:
			mnl_attr_for_each_nested(e, a)
			{
				if (mnl_attr_get_type(e) == RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY)
					stat_entry(w, e);
			}
			break;
		default:
			break;
		}
	}
	return MNL_CB_OK;
}

int nic_rdmanl_stat(struct nic_rdmanl *n, uint32_t dev_index, uint32_t port, const char *dev,
		    uint64_t raw[NIC_R_NFIELDS], uint32_t *have)
{
	struct stat_walk w = {
	    .dev_index = dev_index, .port = port, .dev = dev, .raw = raw, .have = have};
	struct nlmsghdr *nlh;
	int rc;

	/* No RDMA_NLDEV_ATTR_STAT_RES: the port's default counters (the ones
	 * /sys/class/infiniband/DEV/ports/N/hw_counters shows). There is no dump
	 * form: STAT_GET dumps need STAT_RES and list QP or MR counters. */
	rdmanl_put_request(n, RDMA_NLDEV_CMD_STAT_GET, 0);
	nlh = (struct nlmsghdr *)n->req;
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, port);
	*have = 0;
	rc = rdmanl_talk(n, false, stat_cb, &w);
	if (rc)
		return rc;
	if (!w.answered)
		return -EPROTO;
	if (w.stale) {
		*have = 0;
		return -ESTALE;
	}
	return 0;
}
