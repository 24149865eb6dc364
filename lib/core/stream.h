/* SPDX-License-Identifier: GPL-2.0-only */
/* Streams: named, versioned schemas of samples. */
#ifndef ASYS_STREAM_H
#define ASYS_STREAM_H

#include <stdint.h>
#include <stddef.h>

/* The longest name of a stream or a field, with its NUL. Recordings keep
 * names whole or not at all: the table refuses a longer one, and so do the
 * writer and the reader of SCHEMA frames. Room for the longest PPU metric
 * names (73 bytes) with margin. */
#define STREAM_NAME_MAX 128
#define STREAM_MAX_FIELDS 128
#define STREAM_MAX 256

/* How a field's value is to be read. A COUNTER is monotonic; the store turns
 * it into a per-second rate (never negative: a step back is a reset). An
 * ATTR is an identity or attribute of the entity (pid, ppid, uid, PCIe
 * generation): shown as read, never averaged or summed. */
enum field_kind {
	FIELD_GAUGE = 0,
	FIELD_COUNTER = 1,
	FIELD_ATTR = 2,
	FIELD_KIND_MAX = FIELD_ATTR,
};

/* How a pane shows a field's value. AUTO: as its unit says (field_show_of). */
enum field_show {
	FIELD_SHOW_AUTO = 0,
	FIELD_SHOW_COUNT,     /* a plain number: "1.2k" */
	FIELD_SHOW_PERCENT,   /* 0..100: "93%", sparks scaled to 100 */
	FIELD_SHOW_BYTES,     /* "68.0G" */
	FIELD_SHOW_BYTE_RATE, /* bytes per second, in the view's units (bytes or bits) */
	FIELD_SHOW_HZ,	      /* per second: "1.41GHz" */
	FIELD_SHOW_MAX = FIELD_SHOW_HZ,
};

/* A field: what it is, and how a pane draws it. The display part (group,
 * label, display, show) is recorded with the schema, so that a replay is
 * drawn from the file alone; NULL or AUTO where a stream has none. */
struct field_desc {
	const char *name; /* "user", "rx_bytes" */
	const char *unit; /* "jiffies", "B", "%", "B/s", "W" */
	enum field_kind kind;
	const char *group;   /* "compute": a pane draws a group's fields together */
	const char *label;   /* short, for a pane: "CU act" */
	const char *display; /* for people: "CU Active" */
	enum field_show show;
};

/* A field without display metadata: name, unit and kind only. */
#define FIELD_DESC(n, u, k)                                                                        \
	{                                                                                          \
		.name = (n), .unit = (u), .kind = (k)                                              \
	}

/* What an entity id means for a stream, so panes and exports can name it. */
enum entity_kind {
	ENTITY_NONE = 0, /* one series per stream (entity 0) */
	ENTITY_CPU,	 /* CPU number; ENTITY_CPU_TOTAL is the sum */
	ENTITY_PID,	 /* process id */
	ENTITY_DEVICE,	 /* PPU index */
	ENTITY_NIC,	 /* interface index or RDMA port; named by a label */
	ENTITY_KEY,	 /* an opaque key named by a label (kernel, pid) */
};

#define ENTITY_CPU_TOTAL UINT64_MAX
#define STATUS_STREAM (UINT64_MAX - 1) /* a REC_STATUS about the whole stream */

struct stream_desc {
	const char *name; /* cpu.core, mem.proc: the catalogue's (catalogue.h) */
	uint16_t version; /* bump when fields change meaning */
	enum entity_kind entity;
	uint32_t nfields;
	const struct field_desc *fields;
	const char *help; /* one line for exports and --info */
	/* The nominal sampling rate of the stream (the rate the engine ran its
	 * collector at), 0 when unknown (a recording made before it was
	 * recorded). Peaks of counters are taken over windows of at least one
	 * period of it (store_peak.h). Not part of a stream's identity. */
	double rate_hz;
};

/* The table of streams of one session. Live, collectors register their
 * streams at init; in replay the player registers the file's schemas. Ids
 * are indices, stable for the session. The table owns copies of all strings.
 * Streams may be added while other threads read the table (replay adds a
 * stream first met mid-file): an entry is published whole, with its id, and
 * never moves; a pointer from stream_table_get stays valid until _free. */
struct stream_table;

struct stream_table *stream_table_new(void);
void stream_table_free(struct stream_table *t);
/* Returns the new id (>= 0), the existing id if an identical stream of the
 * same name is registered, or -EEXIST / -E2BIG / -EINVAL, or -ENAMETOOLONG
 * for a stream or field name of STREAM_NAME_MAX bytes or more. */
int stream_table_add(struct stream_table *t, const struct stream_desc *d);
int stream_table_find(const struct stream_table *t, const char *name);
const struct stream_desc *stream_table_get(const struct stream_table *t, uint32_t id);
/* Sets a stream's nominal rate. The engine calls it while it sets up, before
 * any sampling thread or reader of the table runs; -ENOENT for a bad id. */
int stream_table_set_rate(struct stream_table *t, uint32_t id, double hz);
uint32_t stream_table_count(const struct stream_table *t);
int stream_field_index(const struct stream_desc *d, const char *name);

/* The display metadata with its fallbacks, for schemas that carry none (a
 * recording made before they were recorded): the label is the name, the
 * group "", and the way of showing follows the unit. */
const char *field_label(const struct field_desc *f);
const char *field_group(const struct field_desc *f);
enum field_show field_show_of(const struct field_desc *f);
/* The way of showing a unit implies: "%" percent, "byte" bytes, ... */
enum field_show field_show_for_unit(const char *unit);
/* "percent", "bytes", ...: the SCHEMA frame's spelling; NULL for AUTO. */
const char *field_show_name(enum field_show s);
/* AUTO for a name this build does not know. */
enum field_show field_show_parse(const char *s, size_t n);

#endif
