/* The exposition's insides: the rules that name metrics and labels, and the
 * snapshot copied out of the store, shared by expo_names.c, expo_snap.c,
 * expo_text.c and expo_json.c. */
#ifndef ASYS_EXPO_INT_H
#define ASYS_EXPO_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "expo.h"

#define EXPO_LABEL_MAX 160
#define EXPO_STATUS_MAX REC_TEXT_MAX /* a status whole, as the store keeps it */
#define EXPO_NAME_MAX 192

/* How an entity and its label become Prometheus labels. */
enum expo_ent {
	EXPO_ENT_NONE,	   /* one series */
	EXPO_ENT_CPU,	   /* cpu="3"; the total is left out (sum() makes it) */
	EXPO_ENT_NETDEV,   /* label "eth0 (rdma: mlx5_0)": netdev, nic */
	EXPO_ENT_RDMA,	   /* label "mlx5_0/1 (eth0)": nic, port, netdev */
	EXPO_ENT_PPU,	   /* device index; label "0: NAME BUS": pci_bus_id */
	EXPO_ENT_PPU_PROC, /* entity device << 32 | pid; label "PID comm" */
	EXPO_ENT_PID,	   /* entity pid; label the command */
	EXPO_ENT_KERNEL,   /* label "PID<TAB>kernel" */
	EXPO_ENT_RANGE,	   /* label "DOMAIN<US>NAME", the pid in field 0 */
	EXPO_ENT_GENERIC,  /* a stream the table does not know: by its entity kind */
};

struct expo_rule {
	const char *stream; /* "nic.link"; NULL: the fallback */
	const char *prefix; /* "nic_link": asys_PREFIX_FIELD... */
	enum expo_ent ent;
	bool per_process;	       /* only with --metrics-processes */
	const char *rank;	       /* the field the top N are chosen by */
	bool by_metric;		       /* one family per unit, the field in a metric label */
	bool window;		       /* max and mean over the scrape window too */
	const char *peak_rx, *peak_tx; /* counters whose peak rate is a gauge */
	const char *peak_prefix;       /* "nic": asys_nic_receive_peak_... */
};

const struct expo_rule *expo_rule_for(const char *stream);

/* A field's base unit: the name's suffix ("bytes"), or "" for a count,
 * and the factor from the schema's unit to it. */
struct expo_unit {
	const char *suffix;
	double scale;
};
struct expo_unit expo_unit_of(const char *unit);
/* asys_PREFIX_FIELD_UNIT (no _total): the family name of a field. */
void expo_family_name(const struct expo_rule *r, const char *prefix_override,
		      const struct field_desc *f, char *buf, size_t n);
/* The help line of a field: its display name, the stream's help. */
void expo_field_help(const struct stream_desc *d, const struct field_desc *f, char *buf, size_t n);

struct expo_row {
	uint64_t entity;
	char label[EXPO_LABEL_MAX];
	bool has_label;
	size_t val; /* index in vals of the row's sets of nfields values (expo_stream) */
	double rank;
};

struct expo_stream {
	uint32_t id;
	const struct stream_desc *d;
	const struct expo_rule *rule;
	struct expo_row *rows;
	size_t nrows;
	bool window; /* rows carry the window's avg and max of each field */
	/* where each set of nfields values starts in a row: the last values
	 * at 0, then the rates, the window's means and its maxima; 0 when the
	 * row lacks the set */
	uint32_t set_rate, set_avg, set_max, nsets;
	char status[EXPO_STATUS_MAX];
	bool has_status;
};

struct expo_snap {
	struct expo_stream *streams;
	size_t nstreams;
	double *vals;
	size_t nvals, capvals;
	uint64_t bucket_ns;
	double window_s;
};

/* A growing text; once memory runs out it stays failed. */
struct expo_buf {
	char *p;
	size_t len, cap;
	bool failed;
};
void expo_buf_put(struct expo_buf *b, const char *s, size_t n);
void expo_buf_printf(struct expo_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A label value, escaped (\\ \" \n), other control bytes as '?' and bytes
 * that are not UTF-8 as '?': the format is UTF-8. */
void expo_buf_label_value(struct expo_buf *b, const char *s);
/* A number as the text format spells it: integers whole, NaN never. */
void expo_buf_value(struct expo_buf *b, double v);
/* The labels of a row, without braces, each ",name=\"value\"" but the
 * first without the comma; empty for EXPO_ENT_NONE. false: the row is not
 * exported (the CPU total, which sum() makes). */
bool expo_row_labels(const struct expo_snap *s, const struct expo_stream *st,
		     const struct expo_row *r, struct expo_buf *b);

#endif
