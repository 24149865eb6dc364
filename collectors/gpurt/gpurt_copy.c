/* gpurt.copy: memory copies and memsets per process, by direction, from the
 * copy probes (gpurt_copy.bpf.h). One entity per process with a pair of
 * counters (calls, bytes) per direction: a pane reads a process's traffic
 * on one row, and an exposition gets one counter per direction. */
#include "config.h"

#include <math.h>

#include <bpf/bpf.h>

#include "gpurt_int.h"
#include "util.h"

#define COPY_FIELD(dir, what, u, lbl, disp)                                                        \
	{                                                                                          \
		.name = dir "_" what, .unit = u, .kind = FIELD_COUNTER, .group = dir,              \
		.label = lbl, .display = disp                                                      \
	}

/* in the order of enum gpurt_dir, calls then bytes, then pinned/pageable */
static const struct field_desc copy_fields[] = {
    COPY_FIELD("htod", "calls", "", "HtoD", "host to device copies"),
    COPY_FIELD("htod", "bytes", "B", "HtoD", "host to device bytes"),
    COPY_FIELD("dtoh", "calls", "", "DtoH", "device to host copies"),
    COPY_FIELD("dtoh", "bytes", "B", "DtoH", "device to host bytes"),
    COPY_FIELD("dtod", "calls", "", "DtoD", "device to device copies"),
    COPY_FIELD("dtod", "bytes", "B", "DtoD", "device to device bytes"),
    COPY_FIELD("htoh", "calls", "", "HtoH", "host to host copies"),
    COPY_FIELD("htoh", "bytes", "B", "HtoH", "host to host bytes"),
    COPY_FIELD("unknown", "calls", "", "?", "copies of unknown direction"),
    COPY_FIELD("unknown", "bytes", "B", "?", "bytes of unknown direction"),
    COPY_FIELD("set", "calls", "", "SET", "memsets"),
    COPY_FIELD("set", "bytes", "B", "SET", "bytes set"),
    COPY_FIELD("pinned", "calls", "", "PIN", "host-device copies from or to pinned memory"),
    COPY_FIELD("pinned", "bytes", "B", "PIN", "host-device bytes from or to pinned memory"),
    COPY_FIELD("pageable", "calls", "", "PAGE", "host-device copies from or to pageable memory"),
    COPY_FIELD("pageable", "bytes", "B", "PAGE", "host-device bytes from or to pageable memory"),
};

#define COPY_NFIELDS ARRAY_SIZE(copy_fields)

const struct stream_desc gpurt_copy_stream = {
    .name = "gpurt.copy",
    .version = 1,
    .entity = ENTITY_PID,
    .nfields = COPY_NFIELDS,
    .fields = copy_fields,
    .help = "memory copies and memsets per process from runtime uprobes, counted at the call: "
	    "calls and bytes per direction (htod, dtoh, dtod, htoh; unknown: a Default copy "
	    "whose pointers the probes cannot place; set: memsets), and the host-device ones "
	    "by host memory (pinned, pageable)",
};

static void copy_emit(struct gpurt_state *s, struct emitter *out, uint32_t pid,
		      const struct gpurt_copy *c, uint64_t ts)
{
	double v[COPY_NFIELDS];

	if (gpurt_pid_note(s, pid, GPURT_IN_COPY))
		gpurt_pid_label(s, out, s->s_copy, pid, ts);
	for (int d = 0; d < GPURT_DIR_MAX; d++) {
		v[2 * d] = (double)c->calls[d];
		v[2 * d + 1] = (double)c->bytes[d];
	}
	v[2 * GPURT_DIR_MAX] = (double)c->pinned_calls;
	v[2 * GPURT_DIR_MAX + 1] = (double)c->pinned_bytes;
	v[2 * GPURT_DIR_MAX + 2] = (double)c->pageable_calls;
	v[2 * GPURT_DIR_MAX + 3] = (double)c->pageable_bytes;
	emit_sample(out, s->s_copy, pid, ts, v, COPY_NFIELDS);
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
