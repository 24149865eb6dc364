/* SPDX-License-Identifier: GPL-2.0-only */
/* The exposition's insides: the rules that name metrics and labels, and the
 * snapshot copied out of the store, shared by serve_names.c, serve_snap.c,
 * serve_text.c and serve_json.c. */
#ifndef ASYS_SERVE_INT_H
#define ASYS_SERVE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "catalogue.h"
#include "serve.h"

#define SERVE_LABEL_MAX 160
#define SERVE_STATUS_MAX REC_TEXT_MAX /* a status whole, as the store keeps it */
#define SERVE_NAME_MAX 192

/* How an entity and its label become Prometheus labels. */
enum serve_ent {
	SERVE_ENT_NONE,	    /* one series */
	SERVE_ENT_CPU,	    /* cpu="3"; the total is left out (sum() makes it) */
	SERVE_ENT_NETDEV,   /* label "eth0 (rdma: mlx5_0)": netdev, nic */
	SERVE_ENT_RDMA,	    /* label "mlx5_0/1 (eth0)": nic, port, netdev */
	SERVE_ENT_PPU,	    /* device index; label "0: NAME BUS": pci_bus_id */
	SERVE_ENT_PPU_PROC, /* entity device << 32 | pid; label "PID comm" */
	SERVE_ENT_PID,	    /* entity pid; label the command */
	SERVE_ENT_KERNEL,   /* label "PID<TAB>kernel" */
	SERVE_ENT_RANGE,    /* label "DOMAIN<US>NAME", the pid in field 0 */
	SERVE_ENT_GENERIC,  /* a stream the table does not know: by its entity kind */
};

/* How a stream is exposed; the rules are indexed by the catalogue's
 * enum stream_id. */
struct serve_rule {
	const char *prefix; /* "nic_link": asys_PREFIX_FIELD... */
	enum serve_ent ent;
	bool per_process;  /* only with --metrics-processes */
	bool ranked;	   /* the top N are chosen by the field rank */
	unsigned int rank; /* the catalogue's field constant */
	bool by_metric;	   /* one family per unit, the field in a metric label */
	bool window;	   /* max and mean over the scrape window too */
	bool peaks; /* rx_bytes' and tx_bytes' peak rates as gauges (NIC_LINK_RX_BYTES, ...) */
	const char *peak_prefix; /* "nic": asys_nic_receive_peak_... */
};

const struct serve_rule *serve_rule_for(const char *stream);
/* Where the catalogue's field f of r's stream is in d (a recorded schema);
 * -1 when d lacks it, or for the fallback rule. */
int serve_rule_field(const struct serve_rule *r, const struct stream_desc *d, unsigned int f);

/* A field's base unit: the name's suffix ("bytes"), or "" for a count,
 * and the factor from the schema's unit to it. */
struct serve_unit {
	const char *suffix;
	double scale;
};
struct serve_unit serve_unit_of(const char *unit);
/* asys_PREFIX_FIELD_UNIT (no _total): the family name of a field. */
void serve_family_name(const struct serve_rule *r, const char *prefix_override,
		       const struct field_desc *f, char *buf, size_t n);
/* The help line of a field: its display name, the stream's help. */
void serve_field_help(const struct stream_desc *d, const struct field_desc *f, char *buf, size_t n);

struct serve_row {
	uint64_t entity;
	char label[SERVE_LABEL_MAX];
	bool has_label;
	size_t val; /* index in vals of the row's sets of nfields values (serve_stream) */
	double rank;
};

struct serve_stream {
	uint32_t id;
	const struct stream_desc *d;
	const struct serve_rule *rule;
	struct serve_row *rows;
	size_t nrows;
	bool window; /* rows carry the window's avg and max of each field */
	/* where each set of nfields values starts in a row: the last values
	 * at 0, then the rates, the window's means and its maxima; 0 when the
	 * row lacks the set */
	uint32_t set_rate, set_avg, set_max, nsets;
	char status[SERVE_STATUS_MAX];
	bool has_status;
};

struct serve_snap {
	struct serve_stream *streams;
	size_t nstreams;
	double *vals;
	size_t nvals, capvals;
	uint64_t bucket_ns;
	double window_s;
};

/* The texts are the core's buffers (buf.h); these two write the format's
 * spellings into one. */
/* A label value, escaped (\\ \" \n), other control bytes as '?' and bytes
 * that are not UTF-8 as '?': the format is UTF-8. */
void serve_buf_label_value(struct buf *b, const char *s);
/* A number as the text format spells it: integers whole, NaN never. */
void serve_buf_value(struct buf *b, double v);
/* The labels of a row, without braces, each ",name=\"value\"" but the
 * first without the comma; empty for SERVE_ENT_NONE. false: the row is not
 * exported (the CPU total, which sum() makes). */
bool serve_row_labels(const struct serve_snap *s, const struct serve_stream *st,
		      const struct serve_row *r, struct buf *b);

#endif
