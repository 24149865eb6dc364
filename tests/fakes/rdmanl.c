/* SPDX-License-Identifier: GPL-2.0-only */
/* A test double for the kernel's RDMA netlink (NETLINK_RDMA, nldev), loaded
 * with LD_PRELOAD into the real asys binary. socket(AF_NETLINK, ...,
 * NETLINK_RDMA) returns a descriptor this shim answers itself; bind,
 * getsockname, setsockopt, sendto, recvmsg, recvfrom and close on it behave
 * as on the kernel's socket, and every other socket goes to the real libc.
 *
 * It answers what the nic collector asks, the way drivers/infiniband/core/
 * nldev.c does:
 *   RDMA_NLDEV_CMD_GET dump: one message per device under
 *     $ASYS_SYSROOT/sys/class/infiniband (DEV_INDEX, DEV_NAME, PORT_INDEX =
 *     number of ports), then NLMSG_DONE;
 *   RDMA_NLDEV_CMD_STAT_GET with DEV_INDEX + PORT_INDEX (no STAT_RES): one
 *     message with DEV_INDEX, DEV_NAME, PORT_INDEX and a STAT_HWCOUNTERS nest
 *     of {ENTRY_NAME, ENTRY_VALUE} read from the port's hw_counters files of
 *     the same fixture tree (so netlink and sysfs see the same numbers);
 *     -EINVAL for an unknown device or port (a port that vanished), and for
 *     a dump without STAT_RES, as the kernel does.
 * Injected failures:
 *   FAKE_RDMANL_SOCKET_ERRNO=E       socket() fails with E (EPROTONOSUPPORT)
 *   FAKE_RDMANL_STAT_ERRNO=E         every STAT_GET answers -E (EOPNOTSUPP)
 *   FAKE_RDMANL_STAT_FAIL_DEV=a,b    STAT_GET for these devices answers -EINVAL
 *   FAKE_RDMANL_LOG=FILE             at exit: "get N", "stat_ok N", "stat_err N"
 * E is a name (EOPNOTSUPP, EINVAL, EPROTONOSUPPORT, EPERM) or a number. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <rdma/rdma_netlink.h>

#define FAKE_MAX_FD 4096
#define FAKE_QUEUE 4
#define FAKE_MSG 65536
#define FAKE_MAX_DEVS 64

struct answer {
	size_t len;
	char data[FAKE_MSG];
};

struct fake_sock {
	uint32_t pid;
	size_t head, n; /* queued answers (datagrams) */
	struct answer q[FAKE_QUEUE];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct fake_sock *socks[FAKE_MAX_FD];
static char dev_names[FAKE_MAX_DEVS][64]; /* index = position: stable while running */
static unsigned ndevs;
static unsigned long n_get, n_stat_ok, n_stat_err;

static int (*real_socket)(int, int, int);
static int (*real_close)(int);
static int (*real_bind)(int, const struct sockaddr *, socklen_t);
static int (*real_getsockname)(int, struct sockaddr *, socklen_t *);
static int (*real_setsockopt)(int, int, int, const void *, socklen_t);
static ssize_t (*real_sendto)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);
static ssize_t (*real_recvmsg)(int, struct msghdr *, int);
static ssize_t (*real_recvfrom)(int, void *, size_t, int, struct sockaddr *, socklen_t *);

/* Resolved by the constructor, or by the first call if another library's
 * constructor comes first. */
__attribute__((constructor)) static void resolve(void)
{
	if (real_recvfrom)
		return;
	real_socket = dlsym(RTLD_NEXT, "socket");
	real_close = dlsym(RTLD_NEXT, "close");
	real_bind = dlsym(RTLD_NEXT, "bind");
	real_getsockname = dlsym(RTLD_NEXT, "getsockname");
	real_setsockopt = dlsym(RTLD_NEXT, "setsockopt");
	real_sendto = dlsym(RTLD_NEXT, "sendto");
	real_recvmsg = dlsym(RTLD_NEXT, "recvmsg");
	real_recvfrom = dlsym(RTLD_NEXT, "recvfrom");
}

#define REAL(name) (resolve(), real_##name)

static int errno_from(const char *s)
{
	static const struct {
		const char *n;
		int e;
	} names[] = {
	    {"EOPNOTSUPP", EOPNOTSUPP}, {"EINVAL", EINVAL}, {"EPROTONOSUPPORT", EPROTONOSUPPORT},
	    {"EPERM", EPERM},		{"ENODEV", ENODEV},
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i].n))
			return names[i].e;
	return atoi(s) > 0 ? atoi(s) : EINVAL;
}

static const char *sysroot(void)
{
	const char *r = getenv("ASYS_SYSROOT");

	return r && *r ? r : "";
}

static struct fake_sock *find(int fd)
{
	return fd >= 0 && fd < FAKE_MAX_FD ? socks[fd] : NULL;
}

/* ---- building answers ---- */

static void *put_attr(struct nlmsghdr *h, uint16_t type, const void *data, size_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)h + NLMSG_ALIGN(h->nlmsg_len));

	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	if (len)
		memcpy((char *)a + NLA_HDRLEN, data, len);
	h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + NLA_ALIGN(a->nla_len);
	return a;
}

static void put_u32(struct nlmsghdr *h, uint16_t type, uint32_t v)
{
	put_attr(h, type, &v, sizeof(v));
}

static void put_str(struct nlmsghdr *h, uint16_t type, const char *s)
{
	put_attr(h, type, s, strlen(s) + 1);
}

static struct nlattr *nest_start(struct nlmsghdr *h, uint16_t type)
{
	return put_attr(h, type | NLA_F_NESTED, NULL, 0);
}

static void nest_end(struct nlmsghdr *h, struct nlattr *a)
{
	a->nla_len = (uint16_t)((char *)h + h->nlmsg_len - (char *)a);
}

static struct nlmsghdr *msg_start(struct answer *an, uint16_t type, uint16_t flags,
				  const struct nlmsghdr *req, uint32_t pid)
{
	struct nlmsghdr *h = (struct nlmsghdr *)(an->data + an->len);

	memset(h, 0, sizeof(*h));
	h->nlmsg_len = NLMSG_HDRLEN;
	h->nlmsg_type = type;
	h->nlmsg_flags = flags;
	h->nlmsg_seq = req->nlmsg_seq;
	h->nlmsg_pid = pid;
	return h;
}

static void msg_end(struct answer *an, struct nlmsghdr *h)
{
	an->len += NLMSG_ALIGN(h->nlmsg_len);
}

static struct answer *queue_new(struct fake_sock *s)
{
	struct answer *an;

	if (s->n == FAKE_QUEUE)
		return NULL;
	an = &s->q[(s->head + s->n++) % FAKE_QUEUE];
	an->len = 0;
	return an;
}

/* NLMSG_ERROR carrying -err (0: an ACK) and the request's header. */
static void answer_error(struct fake_sock *s, const struct nlmsghdr *req, int err)
{
	struct answer *an = queue_new(s);
	struct nlmsghdr *h;
	struct nlmsgerr e = {.error = -err, .msg = *req};

	if (!an)
		return;
	h = msg_start(an, NLMSG_ERROR, NLM_F_CAPPED, req, s->pid);
	memcpy((char *)h + NLMSG_HDRLEN, &e, sizeof(e));
	h->nlmsg_len = NLMSG_LENGTH(sizeof(e));
	msg_end(an, h);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sorted entries of a fixture directory (no dot entries). */
static size_t list(const char *path, char names[][64], size_t max)
{
	DIR *d = opendir(path);
	struct dirent *de;
	char *v[256];
	size_t n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max && n < 256) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= 64)
			continue;
		v[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(v, n, sizeof(v[0]), name_cmp);
	for (size_t i = 0; i < n; i++) {
		snprintf(names[i], 64, "%s", v[i]);
		free(v[i]);
	}
	return n;
}

/* The kernel index of a device: the order this shim first saw it in; a
 * device that went away and came back gets a new one, as the kernel's
 * cyclic allocation gives it. */
static int dev_index(const char *name)
{
	for (unsigned i = 0; i < ndevs; i++)
		if (dev_names[i][0] && !strcmp(dev_names[i], name))
			return (int)i;
	if (ndevs == FAKE_MAX_DEVS)
		return -1;
	snprintf(dev_names[ndevs], sizeof(dev_names[0]), "%s", name);
	return (int)ndevs++;
}

static void answer_get_dump(struct fake_sock *s, const struct nlmsghdr *req)
{
	static char devs[FAKE_MAX_DEVS][64], ports[256][64];
	char path[1024];
	size_t n;
	struct answer *an = queue_new(s);

	n_get++;
	if (!an)
		return;
	snprintf(path, sizeof(path), "%s/sys/class/infiniband", sysroot());
	n = list(path, devs, FAKE_MAX_DEVS);
	for (size_t i = 0; i < n; i++) {
		struct nlmsghdr *h;
		int idx = dev_index(devs[i]);
		size_t np;

		if (idx < 0)
			continue;
		snprintf(path, sizeof(path), "%s/sys/class/infiniband/%s/ports", sysroot(),
			 devs[i]);
		np = list(path, ports, 256);
		h = msg_start(an, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET), NLM_F_MULTI,
			      req, s->pid);
		put_u32(h, RDMA_NLDEV_ATTR_DEV_INDEX, (uint32_t)idx);
		put_str(h, RDMA_NLDEV_ATTR_DEV_NAME, devs[i]);
		put_u32(h, RDMA_NLDEV_ATTR_PORT_INDEX, (uint32_t)np);
		put_str(h, RDMA_NLDEV_ATTR_FW_VERSION, "16.35.1012");
		msg_end(an, h);
	}
	/* NLMSG_DONE in a datagram of its own, as a dump that spans recvs */
	an = queue_new(s);
	if (an) {
		struct nlmsghdr *h = msg_start(an, NLMSG_DONE, NLM_F_MULTI, req, s->pid);
		int zero = 0;

		memcpy((char *)h + NLMSG_HDRLEN, &zero, sizeof(zero));
		h->nlmsg_len = NLMSG_LENGTH(sizeof(zero));
		msg_end(an, h);
	}
}

static bool listed(const char *list_env, const char *name)
{
	const char *l = getenv(list_env);
	size_t n = strlen(name);

	for (const char *p = l; p && *p;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (len == n && !strncmp(p, name, n))
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

static int answer_stat(struct fake_sock *s, const struct nlmsghdr *req)
{
	static char files[256][64];
	const struct nlattr *a;
	const char *fail = getenv("FAKE_RDMANL_STAT_ERRNO");
	char path[1024];
	uint32_t index = UINT32_MAX, port = UINT32_MAX;
	bool have_index = false, have_port = false, stat_res = false;
	struct answer *an;
	struct nlmsghdr *h;
	struct nlattr *table;
	size_t n;
	int len = (int)req->nlmsg_len - NLMSG_HDRLEN;

	if (fail && *fail)
		return -errno_from(fail);
	for (a = (const struct nlattr *)((const char *)req + NLMSG_HDRLEN);
	     len >= (int)sizeof(*a) && a->nla_len >= sizeof(*a) && a->nla_len <= len;
	     len -= NLA_ALIGN(a->nla_len),
	    a = (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len))) {
		uint16_t t = a->nla_type & NLA_TYPE_MASK;

		if (t == RDMA_NLDEV_ATTR_DEV_INDEX && a->nla_len == NLA_HDRLEN + 4) {
			memcpy(&index, (const char *)a + NLA_HDRLEN, 4);
			have_index = true;
		} else if (t == RDMA_NLDEV_ATTR_PORT_INDEX && a->nla_len == NLA_HDRLEN + 4) {
			memcpy(&port, (const char *)a + NLA_HDRLEN, 4);
			have_port = true;
		} else if (t == RDMA_NLDEV_ATTR_STAT_RES) {
			stat_res = true;
		}
	}
	/* nldev_stat_get_dumpit needs STAT_RES; stat_get_doit_default_counter
	 * needs both indexes */
	if ((req->nlmsg_flags & NLM_F_DUMP) || stat_res)
		return -EINVAL; /* QP/MR counters: not modelled */
	if (!have_index || !have_port || index >= ndevs || !dev_names[index][0])
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/sys/class/infiniband/%s", sysroot(), dev_names[index]);
	if (access(path, F_OK)) {
		dev_names[index][0] = '\0'; /* unregistered: the index is not reused */
		return -EINVAL;
	}
	if (listed("FAKE_RDMANL_STAT_FAIL_DEV", dev_names[index]))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/sys/class/infiniband/%s/ports/%u", sysroot(),
		 dev_names[index], port);
	if (access(path, F_OK))
		return -EINVAL; /* !rdma_is_port_valid: the port is gone */
	strcat(path, "/hw_counters");
	n = list(path, files, 256);
	an = queue_new(s);
	if (!an)
		return -ENOBUFS;
	h = msg_start(an, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_GET), 0, req, s->pid);
	put_u32(h, RDMA_NLDEV_ATTR_DEV_INDEX, index);
	put_str(h, RDMA_NLDEV_ATTR_DEV_NAME, dev_names[index]);
	put_u32(h, RDMA_NLDEV_ATTR_PORT_INDEX, port);
	table = nest_start(h, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
	for (size_t i = 0; i < n; i++) {
		char fpath[1400], buf[64];
		int fd;
		ssize_t r;
		uint64_t v;
		struct nlattr *entry;

		snprintf(fpath, sizeof(fpath), "%s/%s", path, files[i]);
		fd = open(fpath, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		r = pread(fd, buf, sizeof(buf) - 1, 0);
		REAL(close)(fd);
		if (r <= 0)
			continue;
		buf[r] = '\0';
		v = strtoull(buf, NULL, 10);
		entry = nest_start(h, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
		put_str(h, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, files[i]);
		/* nla_put_u64_64bit: no pad on x86-64, so the u64 may sit at a
		 * 4-byte boundary: the reader must not assume alignment */
		put_attr(h, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, &v, sizeof(v));
		nest_end(h, entry);
	}
	nest_end(h, table);
	msg_end(an, h);
	return 0;
}

/* ---- the interposed calls ---- */

int socket(int domain, int type, int protocol)
{
	const char *fail;
	struct fake_sock *s;
	int fd;

	if (domain != AF_NETLINK || protocol != NETLINK_RDMA)
		return REAL(socket)(domain, type, protocol);
	fail = getenv("FAKE_RDMANL_SOCKET_ERRNO");
	if (fail && *fail) {
		errno = errno_from(fail);
		return -1;
	}
	fd = eventfd(0, (type & SOCK_CLOEXEC) ? EFD_CLOEXEC : 0);
	if (fd < 0)
		return -1;
	if (fd >= FAKE_MAX_FD || !(s = calloc(1, sizeof(*s)))) {
		REAL(close)(fd);
		errno = ENOBUFS;
		return -1;
	}
	pthread_mutex_lock(&lock);
	socks[fd] = s;
	pthread_mutex_unlock(&lock);
	return fd;
}

int close(int fd)
{
	struct fake_sock *s = NULL;

	pthread_mutex_lock(&lock);
	if (fd >= 0 && fd < FAKE_MAX_FD) {
		s = socks[fd];
		socks[fd] = NULL;
	}
	pthread_mutex_unlock(&lock);
	free(s);
	return REAL(close)(fd);
}

int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	struct fake_sock *s = find(fd);
	const struct sockaddr_nl *nl = (const struct sockaddr_nl *)addr;

	if (!s)
		return REAL(bind)(fd, addr, len);
	if (len < sizeof(*nl) || nl->nl_family != AF_NETLINK) {
		errno = EINVAL;
		return -1;
	}
	/* autobind: a port id of its own, as the kernel hands out */
	s->pid = nl->nl_pid ? nl->nl_pid : (uint32_t)getpid() + (uint32_t)fd * 65536u;
	return 0;
}

int getsockname(int fd, struct sockaddr *addr, socklen_t *len)
{
	struct fake_sock *s = find(fd);
	struct sockaddr_nl nl = {.nl_family = AF_NETLINK};

	if (!s)
		return REAL(getsockname)(fd, addr, len);
	nl.nl_pid = s->pid;
	memcpy(addr, &nl, *len < sizeof(nl) ? *len : sizeof(nl));
	*len = sizeof(nl);
	return 0;
}

int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	if (!find(fd))
		return REAL(setsockopt)(fd, level, name, val, len);
	return 0; /* SO_RCVTIMEO, NETLINK_EXT_ACK, ...: nothing to do here */
}

ssize_t sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *to,
	       socklen_t tolen)
{
	struct fake_sock *s = find(fd);
	const struct nlmsghdr *req = buf;
	int rc = 0;

	if (!s)
		return REAL(sendto)(fd, buf, len, flags, to, tolen);
	if (len < NLMSG_HDRLEN || req->nlmsg_len > len || req->nlmsg_len < NLMSG_HDRLEN) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&lock);
	if (RDMA_NL_GET_CLIENT(req->nlmsg_type) != RDMA_NL_NLDEV) {
		rc = -EINVAL;
	} else {
		switch (RDMA_NL_GET_OP(req->nlmsg_type)) {
		case RDMA_NLDEV_CMD_GET:
			if (req->nlmsg_flags & NLM_F_DUMP)
				answer_get_dump(s, req);
			else
				rc = -EINVAL; /* the one-device doit is not modelled */
			break;
		case RDMA_NLDEV_CMD_STAT_GET:
			rc = answer_stat(s, req);
			if (rc)
				n_stat_err++;
			else
				n_stat_ok++;
			break;
		default:
			rc = -EINVAL; /* rdma_nl_rcv_msg: no handler */
			break;
		}
	}
	if (rc)
		answer_error(s, req, rc);
	else if (req->nlmsg_flags & NLM_F_ACK)
		answer_error(s, req, 0);
	pthread_mutex_unlock(&lock);
	return (ssize_t)len;
}

ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	struct fake_sock *s = find(fd);
	struct answer *an;
	size_t off = 0;

	if (!s)
		return REAL(recvmsg)(fd, msg, flags);
	pthread_mutex_lock(&lock);
	if (!s->n) {
		pthread_mutex_unlock(&lock);
		errno = EAGAIN; /* the real socket would block (or time out) */
		return -1;
	}
	an = &s->q[s->head];
	msg->msg_flags = 0;
	for (size_t i = 0; i < msg->msg_iovlen && off < an->len; i++) {
		size_t n = an->len - off < msg->msg_iov[i].iov_len ? an->len - off
								   : msg->msg_iov[i].iov_len;

		memcpy(msg->msg_iov[i].iov_base, an->data + off, n);
		off += n;
	}
	if (off < an->len)
		msg->msg_flags |= MSG_TRUNC;
	if (msg->msg_name && msg->msg_namelen >= sizeof(struct sockaddr_nl)) {
		struct sockaddr_nl nl = {.nl_family = AF_NETLINK};

		memcpy(msg->msg_name, &nl, sizeof(nl));
		msg->msg_namelen = sizeof(nl);
	}
	msg->msg_controllen = 0;
	if (!(flags & MSG_PEEK)) {
		s->head = (s->head + 1) % FAKE_QUEUE;
		s->n--;
	}
	pthread_mutex_unlock(&lock);
	return (ssize_t)off;
}

ssize_t recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *from,
		 socklen_t *fromlen)
{
	struct iovec iov = {buf, len};
	struct msghdr m = {.msg_name = from,
			   .msg_namelen = fromlen ? *fromlen : 0,
			   .msg_iov = &iov,
			   .msg_iovlen = 1};
	ssize_t r;

	if (!find(fd))
		return REAL(recvfrom)(fd, buf, len, flags, from, fromlen);
	r = recvmsg(fd, &m, flags);
	if (r >= 0 && fromlen)
		*fromlen = m.msg_namelen;
	return r;
}

__attribute__((destructor)) static void fake_rdmanl_log(void)
{
	const char *path = getenv("FAKE_RDMANL_LOG");
	FILE *f;

	if (!path || !*path || !(f = fopen(path, "w")))
		return;
	fprintf(f, "get %lu\nstat_ok %lu\nstat_err %lu\n", n_get, n_stat_ok, n_stat_err);
	fclose(f);
}
