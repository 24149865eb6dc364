/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "memproc_int.h"
#include "strsafe.h"

/* How the processes of the tree ended (process-tree mode): the kernel's
 * process events connector reports every process's exit with its wait
 * status, which /proc cannot tell (the process is gone, reaped by its
 * parent, by the time a scan misses it). Listening takes CAP_NET_ADMIN and
 * the initial network namespace; without them the statuses are unknown and
 * a process that left only ends its rows. Every exit of the node comes in,
 * so only the newest MEM_EXITS_MAX are kept, for the scan that misses the
 * process next; a burst that overflows the socket loses some, which then
 * are unknown too. */

/* One netlink message: the connector's header, then the event. */
struct mem_cn_listen {
	struct nlmsghdr nl;
	struct cn_msg cn;
	enum proc_cn_mcast_op op;
} __attribute__((packed));

void memexit_open(struct memproc *st)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC};
	struct mem_cn_listen m = {
	    .nl = {.nlmsg_len = sizeof(m), .nlmsg_type = NLMSG_DONE},
	    .cn = {.id = {.idx = CN_IDX_PROC, .val = CN_VAL_PROC}, .len = sizeof(m.op)},
	    .op = PROC_CN_MCAST_LISTEN,
	};
	int fd = socket(PF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_CONNECTOR);

	st->exit_fd = -1;
	if (fd < 0)
		return;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    send(fd, &m, sizeof(m), 0) != (ssize_t)sizeof(m)) {
		close(fd);
		return;
	}
	st->exit_fd = fd;
}

void memexit_close(struct memproc *st)
{
	if (st->exit_fd >= 0)
		close(st->exit_fd);
	st->exit_fd = -1;
}

static void exit_keep(struct memproc *st, pid_t tgid, int status)
{
	struct mem_exit *e = &st->exits[st->exit_next];

	e->pid = tgid;
	e->status = status;
	st->exit_next = (st->exit_next + 1) % MEM_EXITS_MAX;
}

/* The events of one datagram; anything that is not a whole exit event from
 * the kernel's connector is passed over. */
static void exit_parse(struct memproc *st, const char *buf, size_t len)
{
	const struct nlmsghdr *nh = (const struct nlmsghdr *)(const void *)buf;

	for (; NLMSG_OK(nh, len); nh = NLMSG_NEXT(nh, len)) {
		const struct cn_msg *cn = NLMSG_DATA(nh);
		struct proc_event ev;

		if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(*cn) + sizeof(ev)) ||
		    cn->id.idx != CN_IDX_PROC || cn->id.val != CN_VAL_PROC || cn->len < sizeof(ev))
			continue;
		/* the event sits 4 bytes past an 8-byte boundary in the datagram:
		 * copied out, its 64-bit fields are read aligned */
		memcpy(&ev, cn->data, sizeof(ev));
		if (ev.what != PROC_EVENT_EXIT)
			continue;
		/* a thread's end is not the process's */
		if (ev.event_data.exit.process_pid != ev.event_data.exit.process_tgid)
			continue;
		exit_keep(st, ev.event_data.exit.process_tgid, (int)ev.event_data.exit.exit_code);
	}
}

void memexit_drain(struct memproc *st)
{
	char buf[4096] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct sockaddr_nl from;

	if (st->exit_fd < 0)
		return;
	for (int i = 0; i < 4096; i++) {
		socklen_t fl = sizeof(from);
		ssize_t r =
		    recvfrom(st->exit_fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);

		if (r < 0 && errno == ENOBUFS)
			continue; /* some were lost: the rest still count */
		if (r <= 0)
			break;
		if (fl == sizeof(from) && from.nl_pid == 0) /* the kernel's */
			exit_parse(st, buf, (size_t)r);
	}
}

bool memexit_status(struct memproc *st, pid_t pid, const char *name, char *text, size_t n)
{
	char shown[64];

	str_escape(shown, sizeof(shown), name, 40);
	for (size_t k = 1; k <= MEM_EXITS_MAX && pid > 0; k++) {
		const struct mem_exit *e =
		    &st->exits[(st->exit_next + MEM_EXITS_MAX - k) % MEM_EXITS_MAX];

		if (e->pid != pid)
			continue;
		if (WIFSIGNALED(e->status))
			snprintf(text, n, "%s (pid %d) exited, killed by signal %d (%s)", shown,
				 (int)pid, WTERMSIG(e->status), strsignal(WTERMSIG(e->status)));
		else
			snprintf(text, n, "%s (pid %d) exited with status %d", shown, (int)pid,
				 WEXITSTATUS(e->status));
		return true;
	}
	return false;
}
