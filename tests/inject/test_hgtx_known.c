/* SPDX-License-Identifier: GPL-2.0-only */
/* needs: none */
/* The hgtx collector's table of the ranges it has labelled, driven tick by
 * tick over a region this program writes as a job would, with the bound
 * lowered to 100 (ASYS_HGTX_KNOWN_CAP, for tests): the ranges of processes
 * that ended are forgotten, so short-lived processes with 60 names each,
 * far more than the bound in all, all get their ranges out; a name the job
 * rewrote is forgotten after a few reads; a process with 150 names at once
 * gets 100 out and the status says the bound bites, until it ends. */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "asys_inject.h"
#include "bus.h"
#include "collector.h"
#include "inject_host.h"
#include "inject_hgtx.h"
#include "ring.h"
#include "stream.h"

extern const struct collector hgtx_collector;

static int fails;
#define CHECK(c, ...)                                                                              \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			fails++;                                                                   \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);                                \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
		}                                                                                  \
	} while (0)

struct tally {
	int labels, samples, gones;
	char status[1024];
};

static struct inj_hgtx_section *sec;
static struct emitter em;
static void *state;

/* One tick of the collector, its records counted. */
static struct tally tick(void)
{
	struct tally t = {0};
	const struct rec *r;
	size_t len;

	hgtx_collector.sample(state, &em, 0);
	emit_flush_kept(&em);
	while ((r = ring_peek(em.ring, &len))) {
		t.labels += r->kind == REC_LABEL;
		t.samples += r->kind == REC_SAMPLE;
		t.gones += r->kind == REC_GONE;
		if (r->kind == REC_STATUS)
			snprintf(t.status, sizeof(t.status), "%s", (const char *)(r + 1));
		ring_pop(em.ring, len);
	}
	ring_drained(em.ring);
	return t;
}

/* Slot 0 as process pid with names 1..n called prefix_i, each ended once. */
static void fill(uint32_t pid, int n, const char *prefix)
{
	struct inj_hgtx_proc *p = &sec->procs[0];
	struct inj_hgtx_shard *sh = &sec->shards[0];

	p->pid = pid;
	p->state = INJ_HGTX_READY;
	for (int i = 1; i < INJ_HGTX_NAMES; i++) {
		p->names[i].state = i <= n ? INJ_HGTX_READY : INJ_HGTX_FREE;
		snprintf(p->names[i].text, sizeof(p->names[i].text), "%s_%d", prefix, i);
		sh->rows[i] = (struct inj_hgtx_row){.count = 1, .total_ns = 10, .self_ns = 10};
	}
	sh->proc = 1;
	sh->state = INJ_HGTX_READY;
}

static pid_t child(void)
{
	pid_t c = fork();

	if (c == 0) {
		pause();
		_exit(0);
	}
	return c;
}

static void end(pid_t c)
{
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
}

/* Short-lived processes, 60 names each, 600 in all against a bound of 100. */
static void many_processes(void)
{
	for (int k = 0; k < 10; k++) {
		char prefix[16];
		pid_t c = child();
		struct tally t;

		snprintf(prefix, sizeof(prefix), "p%d", k);
		fill((uint32_t)c, 60, prefix);
		t = tick();
		CHECK(t.labels == 60 && t.samples == 60,
		      "process %d: %d labels, %d samples of its 60 ranges", k, t.labels, t.samples);
		end(c);
		t = tick();
		CHECK(t.gones == 60, "process %d ended: %d of its 60 ranges went", k, t.gones);
	}
}

/* The job renames its ranges: the old names go within a few reads. */
static void renamed(void)
{
	pid_t c = child();
	struct tally t;
	int gones = 0;

	fill((uint32_t)c, 60, "old");
	tick();
	fill((uint32_t)c, 60, "new");
	for (int i = 0; i < 4; i++) {
		t = tick();
		gones += t.gones;
	}
	CHECK(gones == 60, "the 60 renamed ranges: %d went", gones);
	end(c);
	tick();
}

/* 150 names at once: the bound shows 100 and says so, until the end. */
static void over_the_bound(void)
{
	pid_t c = child();
	struct tally t;

	fill((uint32_t)c, 150, "live");
	t = tick();
	CHECK(t.labels == 100, "%d of 150 live ranges labelled under a bound of 100", t.labels);
	CHECK(strstr(t.status, "over 100 ranges live at once"), "the status says '%s'", t.status);
	end(c);
	tick();
	c = child();
	fill((uint32_t)c, 20, "after");
	t = tick();
	CHECK(t.labels == 20, "after the end: %d of the 20 new ranges labelled", t.labels);
	CHECK(!strstr(t.status, "over 100"), "the status still says '%s'", t.status);
	end(c);
}

int main(void)
{
	struct stream_table *st = stream_table_new();
	struct coll_ctx ctx = {.streams = st};
	int rc;

	setenv("ASYS_HGTX_KNOWN_CAP", "100", 1);
	if (inject_host_create() < 0) {
		printf("SKIP: no sealed memfd\n");
		return 77;
	}
	sec = inject_host_section_rw(ASYS_INJECT_SEC_HGTX, NULL);
	em.ring = ring_new(4 << 20);
	if (!st || !sec || !em.ring) {
		printf("FAIL: no region or ring\n");
		return 1;
	}
	rc = hgtx_collector.init(&ctx, &state);
	if (rc < 0) {
		printf("FAIL: hgtx init: %d\n", rc);
		return 1;
	}
	many_processes();
	renamed();
	over_the_bound();
	hgtx_collector.fini(state);
	ring_free(em.ring);
	stream_table_free(st);
	printf("%s\n", fails ? "FAIL" : "PASS");
	return fails ? 1 : 0;
}
