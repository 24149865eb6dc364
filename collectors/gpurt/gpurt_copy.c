/* SPDX-License-Identifier: GPL-2.0-only */
/* gpurt.copy: memory copies and memsets per process, by direction, from the
 * copy probes (gpurt_copy.bpf.h). One entity per process with a pair of
 * counters (calls, bytes) per direction: a pane reads a process's traffic
 * on one row, and an exposition gets one counter per direction. */
#include "config.h"

#include <math.h>

#include <bpf/bpf.h>

#include "gpurt_int.h"
#include "util.h"

/* a (calls, bytes) pair per direction, in the order of enum gpurt_dir */
_Static_assert(GPURT_COPY_HTOD_CALLS == 0 && GPURT_COPY_SET_BYTES == 2 * GPURT_DIR_SET + 1 &&
		   GPURT_COPY_PINNED_CALLS == 2 * GPURT_DIR_MAX,
	       "gpurt.copy fields follow enum gpurt_dir");

static void copy_emit(struct gpurt_state *s, struct emitter *out, uint32_t pid,
		      const struct gpurt_copy *c, uint64_t ts)
{
	double v[GPURT_COPY_NFIELDS];

	if (gpurt_pid_note(s, pid, GPURT_IN_COPY))
		gpurt_pid_label(s, out, s->s_copy, pid, ts);
	for (int d = 0; d < GPURT_DIR_MAX; d++) {
		v[2 * d] = (double)c->calls[d];
		v[2 * d + 1] = (double)c->bytes[d];
	}
	v[GPURT_COPY_PINNED_CALLS] = (double)c->pinned_calls;
	v[GPURT_COPY_PINNED_BYTES] = (double)c->pinned_bytes;
	v[GPURT_COPY_PAGEABLE_CALLS] = (double)c->pageable_calls;
	v[GPURT_COPY_PAGEABLE_BYTES] = (double)c->pageable_bytes;
	emit_sample(out, s->s_copy, pid, ts, v, GPURT_COPY_NFIELDS);
}

void gpurt_copy_read(struct gpurt_state *s, struct emitter *out)
{
	int fd = s->scan.fd_copies;
	__u32 key, next;
	bool first = true;

	while (!bpf_map_get_next_key(fd, first ? NULL : &key, &next)) {
		struct gpurt_copy c;

		first = false;
		key = next;
		if (!bpf_map_lookup_elem(fd, &key, &c))
			copy_emit(s, out, key, &c, asys_now_ns());
	}
}

void gpurt_copy_final(struct gpurt_state *s, struct emitter *out, uint32_t pid)
{
	struct gpurt_copy c;
	bool had = !bpf_map_lookup_elem(s->scan.fd_copies, &pid, &c);

	if (had)
		copy_emit(s, out, pid, &c, asys_now_ns());
	for (size_t i = 0; i < s->npids; i++)
		if (s->pids[i].pid == pid && (s->pids[i].labelled & GPURT_IN_COPY))
			emit_gone(out, s->s_copy, pid, asys_now_ns());
}
