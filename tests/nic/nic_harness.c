/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <string.h>
#include <time.h>

#include <errno.h>
#include <stdio.h>

#include "cli.h"
#include "nic_harness.h"

void nic_sleep_ms(double ms)
{
	struct timespec ts = {(time_t)(ms / 1000),
			      (long)((ms - (double)(long)(ms / 1000) * 1000) * 1e6)};

	while (nanosleep(&ts, &ts))
		;
}

int nic_harness_start(struct nic_harness *h, double hz, const char *include, uint64_t bucket_ns)
{
	static const struct collector *const colls[] = {&nic_collector, NULL};
	char hzs[32];
	int rc;

	memset(h, 0, sizeof(*h));
	options_defaults(&h->o);
	snprintf(hzs, sizeof(hzs), "%.17g", hz);
	if (cli_set(&h->o, "nic-metrics", "true") || cli_set(&h->o, "nic-metrics-frequency", hzs) ||
	    (include && cli_set(&h->o, "nic-device-include", include)))
		return -EINVAL;
	h->t = stream_table_new();
	h->b = bus_new();
	h->st = store_new(h->t, bucket_ns);
	if (!h->t || !h->b || !h->st)
		return -1;
	h->e = engine_new(&h->o, h->t, h->b, colls);
	if (!h->e)
		return -1;
	rc = engine_init(h->e);
	if (rc)
		return rc;
	if (bus_attach(h->b, &store_consumer_ops, h->st) < 0)
		return -1;
	h->link_sid = stream_table_find(h->t, "nic.link");
	h->rdma_sid = stream_table_find(h->t, "nic.rdma");
	rc = bus_start(h->b, 2000000);
	if (rc)
		return rc;
	return engine_start(h->e);
}

void nic_harness_stop(struct nic_harness *h)
{
	engine_stop(h->e);
	bus_stop(h->b);
	while (bus_pump(h->b))
		;
}

void nic_harness_free(struct nic_harness *h)
{
	bus_free(h->b);
	engine_free(h->e);
	store_free(h->st);
	stream_table_free(h->t);
}

int64_t nic_harness_find(struct nic_harness *h, int sid, const char *label)
{
	uint64_t ents[256];
	size_t n;
	int64_t found = -1;

	if (sid < 0)
		return -1;
	store_lock(h->st);
	n = store_entities(h->st, (uint32_t)sid, ents, 256);
	for (size_t i = 0; i < n && i < 256; i++) {
		const char *l = series_label(store_series(h->st, (uint32_t)sid, ents[i]));

		if (l && !strncmp(l, label, strlen(label))) {
			found = (int64_t)ents[i];
			break;
		}
	}
	store_unlock(h->st);
	return found;
}
