/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "catalogue.h"
#include "serve_int.h"
#include "util.h"

static void serve_label(struct buf *b, const char *name, const char *value)
{
	buf_printf(b, "%s%s=\"", b->len ? "," : "", name);
	serve_buf_label_value(b, value);
	buf_put(b, "\"", 1);
}

static void serve_label_u64(struct buf *b, const char *name, uint64_t v)
{
	char num[24];

	snprintf(num, sizeof(num), "%llu", (unsigned long long)v);
	serve_label(b, name, num);
}

/* Copies label[from, to) into out. */
static void serve_cut(const char *from, const char *to, char *out, size_t n)
{
	size_t len = (size_t)(to - from);

	if (len >= n)
		len = n - 1;
	memcpy(out, from, len);
	out[len] = '\0';
}

/* "eth0 (rdma: mlx5_0)": the netdev and the RDMA device it carries. */
static void serve_netdev(struct buf *b, const struct serve_row *r)
{
	char dev[SERVE_LABEL_MAX], nic[SERVE_LABEL_MAX] = "";
	const char *sp = strstr(r->label, " (rdma: ");

	if (!r->has_label) {
		snprintf(dev, sizeof(dev), "ifindex%llu", (unsigned long long)r->entity);
	} else if (sp) {
		const char *end = strchr(sp, ')');

		serve_cut(r->label, sp, dev, sizeof(dev));
		serve_cut(sp + 8, end ? end : sp + strlen(sp), nic, sizeof(nic));
	} else {
		util_strlcpy(dev, r->label, sizeof(dev));
	}
	serve_label(b, "netdev", dev);
	if (*nic)
		serve_label(b, "nic", nic);
}

/* "mlx5_0/1 (eth0)": device, port and the netdev over it. The entity is
 * the device index << 8 | port where the label says nothing. */
static void serve_rdma(struct buf *b, const struct serve_row *r)
{
	char nic[SERVE_LABEL_MAX], port[16], dev[SERVE_LABEL_MAX] = "";
	const char *slash = strchr(r->label, '/'), *sp = strstr(r->label, " (");

	snprintf(port, sizeof(port), "%u", (unsigned)(r->entity & 0xff));
	if (slash) {
		serve_cut(r->label, slash, nic, sizeof(nic));
		serve_cut(slash + 1, sp ? sp : slash + strlen(slash), port, sizeof(port));
	} else {
		snprintf(nic, sizeof(nic), "rdma%llu", (unsigned long long)(r->entity >> 8));
	}
	if (sp) {
		const char *end = strchr(sp, ')');

		serve_cut(sp + 2, end ? end : sp + strlen(sp), dev, sizeof(dev));
	}
	serve_label(b, "nic", nic);
	serve_label(b, "port", port);
	if (*dev)
		serve_label(b, "netdev", dev);
}

/* The last word of s before end, and its length. */
static const char *serve_word_before(const char *s, const char *end, size_t *len)
{
	const char *w = end;

	while (w > s && w[-1] != ' ')
		w--;
	*len = (size_t)(end - w);
	return w;
}

/* The PCI bus id and UUID of a device from its ppu.dev label, which the
 * metrics streams lack: "0: NAME 00000000:3B:00.0 GPU-8f1e...", the UUID
 * last when known (the one word after the bus id without a colon). */
static void serve_dev_ids(const struct serve_snap *s, uint64_t dev, char *bus, char *uuid, size_t n)
{
	bus[0] = uuid[0] = '\0';
	for (size_t i = 0; i < s->nstreams; i++) {
		const struct serve_stream *st = &s->streams[i];

		if (strcmp(st->d->name, catalogue_name(STREAM_PPU_DEV)))
			continue;
		for (size_t k = 0; k < st->nrows; k++) {
			const char *l = st->rows[k].label, *end = l + strlen(l), *w;
			size_t len;

			if (st->rows[k].entity != dev || !st->rows[k].has_label)
				continue;
			w = serve_word_before(l, end, &len);
			if (len && !memchr(w, ':', len) && w > l) {
				snprintf(uuid, n, "%.*s", (int)len, w);
				w = serve_word_before(l, w - 1, &len);
			}
			if (len && memchr(w, ':', len) && w > l)
				snprintf(bus, n, "%.*s", (int)len, w);
			else
				uuid[0] = '\0';
			return;
		}
	}
}

static void serve_ppu(const struct serve_snap *s, struct buf *b, uint64_t dev)
{
	char bus[SERVE_LABEL_MAX], uuid[SERVE_LABEL_MAX];

	serve_label_u64(b, "device", dev);
	serve_dev_ids(s, dev, bus, uuid, sizeof(bus));
	if (uuid[0])
		serve_label(b, "uuid", uuid);
	if (bus[0])
		serve_label(b, "pci_bus_id", bus);
}

/* "PID comm" or "PID<TAB>kernel": the part after the pid. */
static const char *serve_after_pid(const char *label, char sep)
{
	const char *p = strchr(label, sep);

	return p ? p + 1 : label;
}

static void serve_generic(const struct serve_stream *st, const struct serve_row *r, struct buf *b)
{
	static const char *const names[] = {
	    [ENTITY_NONE] = NULL,	[ENTITY_CPU] = "cpu", [ENTITY_PID] = "pid",
	    [ENTITY_DEVICE] = "device", [ENTITY_NIC] = "nic", [ENTITY_KEY] = "key",
	};
	const char *name = st->d->entity < ARRAY_SIZE(names) ? names[st->d->entity] : "key";

	if (!name)
		return;
	serve_label_u64(b, name, r->entity);
	if (r->has_label)
		serve_label(b, "name", r->label);
}

/* The row of entity in the stream called name, or NULL (not in the
 * scrape, or not among its top rows). */
static const struct serve_row *serve_find_row(const struct serve_snap *s, const char *name,
					      uint64_t entity)
{
	for (size_t i = 0; i < s->nstreams; i++) {
		const struct serve_stream *st = &s->streams[i];

		if (strcmp(st->d->name, name))
			continue;
		for (size_t k = 0; k < st->nrows; k++)
			if (st->rows[k].entity == entity)
				return &st->rows[k];
	}
	return NULL;
}

/* What a process runs in, from proc.cpu's label (the CONTAINER column):
 * a Slurm job ("job 1234") as job="1234", anything else (a pod, a
 * container, a systemd unit) as container. A scrape holds only each
 * stream's top rows, so a process among another stream's top but not
 * proc.cpu's has neither. grp: proc.cpu's row of the process, or NULL to
 * look it up. */
static void serve_group(const struct serve_snap *s, uint64_t pid, const struct serve_row *grp,
			struct buf *b)
{
	const char *l;

	if (!grp)
		grp = serve_find_row(s, catalogue_name(STREAM_PROC_CPU), pid);
	if (!grp || !grp->has_label || !grp->label[0])
		return;
	l = grp->label;
	if (!strncmp(l, "job ", 4) && l[4] && strspn(l + 4, "0123456789") == strlen(l + 4))
		serve_label(b, "job", l + 4);
	else
		serve_label(b, "container", l);
}

/* A process: its pid, its command (the label of mem.proc; proc.cpu's own
 * label names its container instead) and its container or job. */
static void serve_pid(const struct serve_snap *s, const struct serve_stream *st,
		      const struct serve_row *r, struct buf *b)
{
	bool is_cpu = !strcmp(st->d->name, catalogue_name(STREAM_PROC_CPU));
	const struct serve_row *cmd =
	    is_cpu ? serve_find_row(s, catalogue_name(STREAM_MEM_PROC), r->entity) : r;

	/* a thread's entity is its own id, its label its name */
	if (!strcmp(st->d->name, catalogue_name(STREAM_PROC_THREAD))) {
		serve_label_u64(b, "tid", r->entity);
		serve_label(b, "comm", r->has_label ? r->label : "");
		return;
	}
	serve_label_u64(b, "pid", r->entity);
	serve_label(b, "comm", cmd && cmd->has_label ? cmd->label : "");
	serve_group(s, r->entity, is_cpu ? r : NULL, b);
}

/* An HGTX range: its process, domain and name, split at the unit separator. */
static void serve_range(const struct serve_snap *s, const struct serve_stream *st,
			const struct serve_row *r, struct buf *b)
{
	const char *us = strchr(r->label, '\x1f');
	int fp = catalogue_field_index(st->d, STREAM_HGTX_RANGES, HGTX_PID);
	double pid = fp >= 0 ? s->vals[r->val + (size_t)fp] : NAN;
	char dom[SERVE_LABEL_MAX];

	serve_label_u64(b, "pid", isnan(pid) || pid < 0 ? 0 : (uint64_t)pid);
	serve_cut(r->label, us ? us : r->label + strlen(r->label), dom, sizeof(dom));
	serve_label(b, "domain", r->has_label && us ? dom : "");
	serve_label(b, "range", r->has_label ? (us ? us + 1 : r->label) : "");
	serve_label_u64(b, "key", r->entity);
}

bool serve_row_labels(const struct serve_snap *s, const struct serve_stream *st,
		      const struct serve_row *r, struct buf *b)
{
	switch (st->rule->ent) {
	case SERVE_ENT_NONE:
		break;
	case SERVE_ENT_CPU:
		if (r->entity == ENTITY_CPU_TOTAL)
			return false;
		serve_label_u64(b, "cpu", r->entity);
		break;
	case SERVE_ENT_NETDEV:
		serve_netdev(b, r);
		break;
	case SERVE_ENT_RDMA:
		serve_rdma(b, r);
		break;
	case SERVE_ENT_PPU:
		serve_ppu(s, b, r->entity);
		break;
	case SERVE_ENT_PPU_PROC:
		serve_ppu(s, b, r->entity >> 32);
		serve_label_u64(b, "pid", r->entity & 0xffffffffu);
		serve_label(b, "comm", serve_after_pid(r->label, ' '));
		serve_group(s, r->entity & 0xffffffffu, NULL, b);
		break;
	case SERVE_ENT_PID:
		serve_pid(s, st, r, b);
		break;
	case SERVE_ENT_KERNEL: {
		char pid[24];

		serve_cut(r->label, serve_after_pid(r->label, '\t'), pid, sizeof(pid));
		if (*pid && pid[strlen(pid) - 1] == '\t')
			pid[strlen(pid) - 1] = '\0';
		serve_label(b, "pid", *pid ? pid : "0");
		serve_label(b, "kernel", serve_after_pid(r->label, '\t'));
		serve_label_u64(b, "key", r->entity);
		break;
	}
	case SERVE_ENT_RANGE:
		serve_range(s, st, r, b);
		break;
	case SERVE_ENT_GENERIC:
		serve_generic(st, r, b);
		break;
	}
	return true;
}
