/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#ifndef HAVE_MNL
#error "nic_netlink.c needs libmnl (configure --enable-mnl)"
#endif

#include <errno.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>

#include "nic_mnl.h"
#include "nic_netlink.h"

#define NIC_NL_BUF_MIN 16384u
#define NIC_NL_BUF_MAX (4u << 20)
#define NIC_NL_PER_LINK 512u /* an RTM_GETLINK message with stats is ~1.4 KiB, GETSTATS ~250 B */

struct nic_nl {
	struct mnl_socket *sock;
	uint32_t portid;
	uint32_t seq;
	bool getstats; /* RTM_GETSTATS works (or has not been tried yet) */
	bool decided;  /* the first stats dump has chosen the message */
	char *buf;     /* receive buffer */
	size_t bufsz;
	char req[256]; /* the request, built once per kind */
};

struct nl_walk {
	nic_nl_stats_cb scb;
	nic_nl_link_cb lcb;
	void *ctx;
	uint32_t nlinks;
};

struct nic_nl *nic_nl_new(bool force_getlink, int *err)
{
	struct nic_nl *n = calloc(1, sizeof(*n));
	int rc = 0;

	if (!n) {
		rc = -ENOMEM;
		goto cleanup;
	}
	n->sock = nic_mnl_open(NETLINK_ROUTE, 0, &n->portid, &rc);
	if (!n->sock)
		goto cleanup;
	n->seq = (uint32_t)time(NULL);
	n->getstats = !force_getlink;
	n->decided = force_getlink;
	n->bufsz = NIC_NL_BUF_MIN;
	n->buf = malloc(n->bufsz);
	if (!n->buf) {
		rc = -ENOMEM;
		goto cleanup;
	}
	return n;
cleanup:
	nic_nl_free(n);
	if (err)
		*err = rc;
	return NULL;
}

void nic_nl_free(struct nic_nl *n)
{
	if (!n)
		return;
	if (n->sock)
		mnl_socket_close(n->sock);
	free(n->buf);
	free(n);
}

bool nic_nl_uses_getstats(const struct nic_nl *n)
{
	return n->getstats;
}

void nic_nl_size_for(struct nic_nl *n, uint32_t nlinks)
{
	size_t want = (size_t)nlinks * NIC_NL_PER_LINK + 4096;
	char *nb;

	if (want < NIC_NL_BUF_MIN)
		want = NIC_NL_BUF_MIN;
	if (want > NIC_NL_BUF_MAX)
		want = NIC_NL_BUF_MAX;
	if (want <= n->bufsz)
		return;
	nb = realloc(n->buf, want);
	if (!nb)
		return; /* keep the smaller buffer: the dump just takes more recvs */
	n->buf = nb;
	n->bufsz = want;
}

static void fill_from_stats64(uint64_t v[NIC_L_NFIELDS], const struct nlattr *a)
{
	struct rtnl_link_stats64 s;
	size_t len = mnl_attr_get_payload_len(a);

	/* The attribute may be unaligned and shorter or longer than our struct. */
	memset(&s, 0, sizeof(s));
	memcpy(&s, mnl_attr_get_payload(a), len < sizeof(s) ? len : sizeof(s));
	v[NIC_L_RX_BYTES] = s.rx_bytes;
	v[NIC_L_TX_BYTES] = s.tx_bytes;
	v[NIC_L_RX_PACKETS] = s.rx_packets;
	v[NIC_L_TX_PACKETS] = s.tx_packets;
	v[NIC_L_RX_ERRORS] = s.rx_errors;
	v[NIC_L_TX_ERRORS] = s.tx_errors;
	v[NIC_L_RX_DROPPED] = s.rx_dropped;
	v[NIC_L_TX_DROPPED] = s.tx_dropped;
}

static int cb_getstats(const struct nlmsghdr *nlh, void *data)
{
	struct nl_walk *w = data;
	const struct if_stats_msg *ifsm;
	const struct nlattr *a;

	if (nlh->nlmsg_type != RTM_NEWSTATS || nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifsm)))
		return MNL_CB_OK;
	ifsm = mnl_nlmsg_get_payload(nlh);
	mnl_attr_for_each(a, nlh, sizeof(*ifsm))
	{
		uint64_t v[NIC_L_NFIELDS];

		if (mnl_attr_get_type(a) != IFLA_STATS_LINK_64)
			continue;
		fill_from_stats64(v, a);
		w->nlinks++;
		w->scb(w->ctx, ifsm->ifindex, NULL, v);
		break;
	}
	return MNL_CB_OK;
}

static int cb_getlink(const struct nlmsghdr *nlh, void *data)
{
	struct nl_walk *w = data;
	const struct ifinfomsg *ifi;
	const struct nlattr *a, *stats = NULL;
	char name[IF_NAMESIZE] = "";

	if (nlh->nlmsg_type != RTM_NEWLINK || nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
		return MNL_CB_OK;
	ifi = mnl_nlmsg_get_payload(nlh);
	mnl_attr_for_each(a, nlh, sizeof(*ifi))
	{
		switch (mnl_attr_get_type(a)) {
		case IFLA_IFNAME: {
			size_t len = mnl_attr_get_payload_len(a);

			if (len > sizeof(name) - 1)
				len = sizeof(name) - 1;
			memcpy(name, mnl_attr_get_payload(a), len);
			name[len] = '\0';
			break;
		}
		case IFLA_STATS64:
			stats = a;
			break;
		default:
			break;
		}
	}
	if (ifi->ifi_index <= 0)
		return MNL_CB_OK;
	w->nlinks++;
	if (w->lcb)
		w->lcb(w->ctx, (uint32_t)ifi->ifi_index, name);
	if (w->scb && stats) {
		uint64_t v[NIC_L_NFIELDS];

		fill_from_stats64(v, stats);
		w->scb(w->ctx, (uint32_t)ifi->ifi_index, name, v);
	}
	return MNL_CB_OK;
}

/* Sends a dump request and runs cb over the answer until NLMSG_DONE. */
static int nl_dump(struct nic_nl *n, uint16_t type, mnl_cb_t cb, struct nl_walk *w)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(n->req);
	uint32_t seq = ++n->seq;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	if (type == RTM_GETSTATS) {
		struct if_stats_msg *ifsm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifsm));

		ifsm->family = AF_UNSPEC;
		ifsm->filter_mask = IFLA_STATS_FILTER_BIT(IFLA_STATS_LINK_64);
	} else {
		struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

		ifi->ifi_family = AF_UNSPEC;
	}
	/* every answer to an earlier, aborted dump is skipped */
	return nic_mnl_talk(n->sock, n->portid, nlh, n->buf, n->bufsz, true, -1, cb, w);
}

int nic_nl_dump_stats(struct nic_nl *n, nic_nl_stats_cb cb, void *ctx)
{
	struct nl_walk w = {.scb = cb, .ctx = ctx};
	int rc;

	if (n->getstats) {
		rc = nl_dump(n, RTM_GETSTATS, cb_getstats, &w);
		if (rc == 0 || n->decided)
			goto out;
		/* RTM_GETSTATS is 4.7+; older kernels answer EOPNOTSUPP/EINVAL. */
		n->getstats = false;
	}
	w.nlinks = 0;
	rc = nl_dump(n, RTM_GETLINK, cb_getlink, &w);
out:
	if (rc == 0) {
		n->decided = true;
		nic_nl_size_for(n, w.nlinks);
	}
	return rc;
}

int nic_nl_dump_links(struct nic_nl *n, nic_nl_link_cb cb, void *ctx)
{
	struct nl_walk w = {.lcb = cb, .ctx = ctx};
	int rc = nl_dump(n, RTM_GETLINK, cb_getlink, &w);

	if (rc == 0)
		nic_nl_size_for(n, w.nlinks);
	return rc;
}
