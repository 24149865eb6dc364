/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ppu_catalogue.h"
#include "strsafe.h"
#include "util.h"

int ppu_metric_index(const char *name)
{
	for (size_t i = 0; i < ppu_metric_count; i++)
		if (!strcmp(ppu_metric_catalogue[i].name, name))
			return (int)i;
	return -1;
}

const struct ppu_set *ppu_set_find(const char *name)
{
	for (size_t i = 0; i < ppu_set_count; i++)
		if (!strcmp(ppu_sets[i].name, name))
			return &ppu_sets[i];
	return NULL;
}

/* Edit distance, with a bonus when one contains the other (a user who types
 * "kvd" means the KVD metrics). Names are short: O(n*m) with one row. */
static unsigned int ppu_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned int row[160], prev, tmp;

	if (la >= ARRAY_SIZE(row) || lb >= ARRAY_SIZE(row))
		return 1000;
	if (la && strstr(b, a))
		return (unsigned int)(lb - la) / 8;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (unsigned int)j;
	for (size_t i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = (unsigned int)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned int best = prev + (a[i - 1] != b[j - 1]);

			tmp = row[j];
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb];
}

size_t ppu_metric_suggest(const char *name, const char **out, size_t n)
{
	unsigned int dist[8];
	size_t k = 0;

	if (n > ARRAY_SIZE(dist))
		n = ARRAY_SIZE(dist);
	for (size_t i = 0; i < ppu_metric_count; i++) {
		unsigned int d = ppu_distance(name, ppu_metric_catalogue[i].name);
		size_t pos = k;

		while (pos > 0 && dist[pos - 1] > d)
			pos--;
		if (pos >= n)
			continue;
		if (k < n)
			k++;
		memmove(&dist[pos + 1], &dist[pos], (k - 1 - pos) * sizeof(dist[0]));
		memmove(&out[pos + 1], &out[pos], (k - 1 - pos) * sizeof(out[0]));
		dist[pos] = d;
		out[pos] = ppu_metric_catalogue[i].name;
	}
	return k;
}

static void ppu_selection_add(struct ppu_selection *sel, int idx, bool *have)
{
	if (have[idx] || sel->n >= PPU_METRIC_MAX)
		return;
	have[idx] = true;
	sel->n++;
}

int ppu_selection_build(const char *set, const char *list, struct ppu_selection *sel, char *err,
			size_t errlen)
{
	bool have[PPU_METRIC_MAX] = {false};
	const struct ppu_set *s = NULL;
	char *copy = NULL, *tok, *save = NULL;
	int ret = 0;

	memset(sel, 0, sizeof(*sel));
	if (!set)
		set = "summary";
	if (strcmp(set, "none")) {
		s = ppu_set_find(set);
		if (!s) {
			char shown[128];
			size_t used =
			    (size_t)snprintf(err, errlen, "unknown --ppu-metrics-set '%s': use ",
					     str_escape(shown, sizeof(shown), set, 60));

			for (size_t i = 0; i < ppu_set_count && used < errlen; i++)
				used += (size_t)snprintf(err + used, errlen - used, "%s, ",
							 ppu_sets[i].name);
			if (used < errlen)
				snprintf(err + used, errlen - used,
					 "or none (--ppu-metrics-set help lists them)");
			return -EINVAL;
		}
		for (size_t i = 0; s->metrics[i]; i++) {
			int idx = ppu_metric_index(s->metrics[i]);

			if (idx >= 0)
				ppu_selection_add(sel, idx, have);
		}
	}
	if (list && *list) {
		copy = strdup(list);
		if (!copy) {
			snprintf(err, errlen, "out of memory parsing --ppu-metrics-list");
			return -ENOMEM;
		}
		for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			int idx;

			while (*tok == ' ')
				tok++;
			if (!*tok)
				continue;
			idx = ppu_metric_index(tok);
			if (idx < 0) {
				const char *near[3];
				size_t k = ppu_metric_suggest(tok, near, ARRAY_SIZE(near));
				char shown[128];
				size_t used =
				    (size_t)snprintf(err, errlen, "unknown PPU metric '%s'",
						     str_escape(shown, sizeof(shown), tok, 60));

				for (size_t i = 0; i < k && used < errlen; i++)
					used += (size_t)snprintf(err + used, errlen - used, "%s%s",
								 i ? ", " : "; closest: ", near[i]);
				if (used < errlen)
					snprintf(err + used, errlen - used,
						 " (--ppu-metrics-list help lists all)");
				ret = -EINVAL;
				goto cleanup;
			}
			ppu_selection_add(sel, idx, have);
		}
	}
	/* Catalogue order, so the stream schema does not depend on the typing. */
	sel->n = 0;
	for (size_t i = 0; i < ppu_metric_count && sel->n < PPU_METRIC_MAX; i++)
		if (have[i])
			sel->idx[sel->n++] = (uint16_t)i;
cleanup:
	free(copy);
	return ret;
}

/* The counter behind a metric: its GPM id, or 0 for device fields (free). */
static unsigned int ppu_counter(const struct ppu_metric *m)
{
	return m->src == PPU_SRC_DEV ? 0 : m->id;
}

/* Cost of counter c if not yet in the run's list of counters. */
static unsigned int ppu_counter_cost(const struct ppu_selection *sel, unsigned int c)
{
	unsigned int cost = 0;

	for (size_t i = 0; i < sel->n; i++) {
		const struct ppu_metric *m = &ppu_metric_catalogue[sel->idx[i]];

		if (ppu_counter(m) == c && m->cost > cost)
			cost = m->cost;
	}
	return cost;
}

unsigned int ppu_selection_cost(const struct ppu_selection *sel)
{
	unsigned int total = 0;

	for (size_t i = 0; i < sel->n; i++) {
		unsigned int c = ppu_counter(&ppu_metric_catalogue[sel->idx[i]]);
		bool seen = false;

		if (!c)
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = ppu_counter(&ppu_metric_catalogue[sel->idx[j]]) == c;
		if (!seen)
			total += ppu_counter_cost(sel, c);
	}
	return total;
}

int ppu_selection_split(const struct ppu_selection *sel, unsigned int budget, int *run_of)
{
	unsigned int used[PPU_METRIC_MAX] = {0};
	int nruns = 0;
	bool too_big = false;

	for (size_t i = 0; i < sel->n; i++) {
		unsigned int c = ppu_counter(&ppu_metric_catalogue[sel->idx[i]]);
		unsigned int cost;
		int run = -1;
		bool placed = false;

		/* Device fields are free: they go with the first run. A counter
		 * already placed takes its metric along at no cost. */
		if (!c) {
			run = 0;
			placed = true;
		}
		for (size_t j = 0; j < i && !placed; j++) {
			if (ppu_counter(&ppu_metric_catalogue[sel->idx[j]]) == c) {
				run = run_of[j];
				placed = true;
			}
		}
		if (!placed) {
			cost = ppu_counter_cost(sel, c);
			if (cost > budget) {
				too_big = true;
			} else {
				for (int r = 0; r < nruns && run < 0; r++)
					if (used[r] + cost <= budget)
						run = r;
				if (run < 0)
					run = nruns++;
				used[run] += cost;
			}
		}
		run_of[i] = run;
		if (run >= nruns)
			nruns = run + 1;
	}
	return too_big ? -E2BIG : nruns;
}

size_t ppu_selection_fit(struct ppu_selection *sel, unsigned int budget,
			 struct ppu_selection *dropped)
{
	int run_of[PPU_METRIC_MAX];
	size_t keep = 0, ndrop = 0;

	ppu_selection_split(sel, budget, run_of);
	if (dropped)
		dropped->n = 0;
	for (size_t i = 0; i < sel->n; i++) {
		if (run_of[i] == 0) {
			sel->idx[keep++] = sel->idx[i];
		} else {
			if (dropped)
				dropped->idx[dropped->n++] = sel->idx[i];
			ndrop++;
		}
	}
	sel->n = keep;
	return ndrop;
}

struct field_desc ppu_metric_field(const struct ppu_metric *m)
{
	return (struct field_desc){
	    .name = m->name,
	    .unit = m->unit,
	    .kind = FIELD_GAUGE,
	    .group = ppu_group_names[m->group],
	    .label = m->label,
	    .display = m->display,
	    .show = field_show_for_unit(m->unit),
	};
}
