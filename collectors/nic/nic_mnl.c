/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "nic_mnl.h"

struct mnl_socket *nic_mnl_open(int bus, int timeout_s, uint32_t *portid, int *err)
{
	struct mnl_socket *sock = mnl_socket_open2(bus, SOCK_CLOEXEC);
	int rc;

	if (!sock) {
		rc = -errno; /* EPROTONOSUPPORT for RDMA: a kernel without ib_core */
		goto fail;
	}
	if (mnl_socket_bind(sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		rc = -errno;
		goto fail;
	}
	if (timeout_s > 0) {
		struct timeval tv = {timeout_s, 0};

		(void)setsockopt(mnl_socket_get_fd(sock), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	*portid = mnl_socket_get_portid(sock);
	return sock;
fail:
	if (sock)
		mnl_socket_close(sock);
	if (err)
		*err = rc;
	return NULL;
}

int nic_mnl_talk(struct mnl_socket *sock, uint32_t portid, const struct nlmsghdr *nlh, void *buf,
		 size_t bufsz, bool dump, int stale_max, mnl_cb_t cb, void *data)
{
	int stale = 0;

	if (mnl_socket_sendto(sock, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		ssize_t len = mnl_socket_recvfrom(sock, buf, bufsz);
		int ret;

		if (len < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		}
		errno = 0;
		ret = mnl_cb_run(buf, (size_t)len, nlh->nlmsg_seq, portid, cb, data);
		/* the tail of an earlier, aborted request */
		if (ret == MNL_CB_ERROR && errno == EPROTO &&
		    (stale_max < 0 || ++stale <= stale_max))
			continue;
		/* an error reply ends a dump; what is left of it is drained by
		 * the sequence check of the next request */
		if (ret == MNL_CB_ERROR)
			return errno ? -errno : -EIO;
		if (ret == MNL_CB_STOP || !dump)
			return 0;
	}
}
