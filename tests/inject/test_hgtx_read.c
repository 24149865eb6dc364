/* SPDX-License-Identifier: GPL-2.0-only */
/* needs: none */
/* The HGTX section end to end without a program of NVTX's: the real
 * libasys-inject.so (dlopen) is handed tables as NVTX's headers lay them
 * out, its functions are called, and the reader must find exact counts,
 * self = total - children to the nanosecond, categories merged, the
 * domain of a registered string, and a fork's child in a slot of its own.
 * Then the reader against hostile sections (random bytes, extreme values):
 * it must neither crash nor read out of bounds (run it in the ASan build)
 * and must return clean labels. */
#include "config.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "asys_inject.h"
#include "hgtx_read.h"
#include "inject_host.h"
#include "nvtx_abi.h"

static int fails;
static struct job_env job; /* what a workload would be handed */
#define CHECK(c, ...)                                                                              \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			fails++;                                                                   \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);                                \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
		}                                                                                  \
	} while (0)

/* NVTX's side: a table of pointers to the program's function pointers. */
static nvtx_abi_fn core_fp[16], core2_fp[15];
static nvtx_abi_fn *core_tab[17], *core2_tab[16];

static int get_table(int module, nvtx_abi_table *out, unsigned int *size)
{
	if (module == NVTX_ABI_MODULE_CORE) {
		*out = core_tab;
		*size = 16;
	} else if (module == NVTX_ABI_MODULE_CORE2) {
		*out = core2_tab;
		*size = 15;
	} else {
		return 0;
	}
	return 1;
}

static const struct nvtx_abi_callbacks callbacks = {sizeof(callbacks), get_table};

static const void *get_export(uint32_t id)
{
	return id == NVTX_ABI_ETID_CALLBACKS ? &callbacks : NULL;
}

typedef int (*push_a_fn)(const char *);
typedef int (*pop_fn)(void);
typedef int (*push_ex_fn)(const struct nvtx_abi_attr *);
typedef void *(*dom_create_fn)(const char *);
typedef const void *(*reg_fn)(const void *, const char *);
typedef int (*dpush_fn)(const void *, const struct nvtx_abi_attr *);
typedef int (*dpop_fn)(const void *);
typedef uint64_t (*start_a_fn)(const char *);
typedef void (*end_fn)(uint64_t);

static const struct hgtx_row *find(const struct hgtx_row *r, size_t n, uint32_t pid,
				   const char *label)
{
	for (size_t i = 0; i < n; i++)
		if (r[i].pid == pid && !strcmp(r[i].label, label))
			return &r[i];
	return NULL;
}

static void ranges_in_process(void)
{
	push_a_fn push = (push_a_fn)(void (*)(void))core_fp[NVTX_ABI_CORE_RangePushA];
	pop_fn pop = (pop_fn)(void (*)(void))core_fp[NVTX_ABI_CORE_RangePop];
	push_ex_fn push_ex = (push_ex_fn)(void (*)(void))core_fp[NVTX_ABI_CORE_RangePushEx];
	start_a_fn start = (start_a_fn)(void (*)(void))core_fp[NVTX_ABI_CORE_RangeStartA];
	end_fn end = (end_fn)(void (*)(void))core_fp[NVTX_ABI_CORE_RangeEnd];
	dom_create_fn dcreate =
	    (dom_create_fn)(void (*)(void))core2_fp[NVTX_ABI_CORE2_DomainCreateA];
	reg_fn reg = (reg_fn)(void (*)(void))core2_fp[NVTX_ABI_CORE2_DomainRegisterStringA];
	dpush_fn dpush = (dpush_fn)(void (*)(void))core2_fp[NVTX_ABI_CORE2_DomainRangePushEx];
	dpop_fn dpop = (dpop_fn)(void (*)(void))core2_fp[NVTX_ABI_CORE2_DomainRangePop];
	struct nvtx_abi_attr a = {.version = 3, .size = 48, .message_type = NVTX_ABI_MESSAGE_ASCII};
	void *dom;

	CHECK(push && pop && push_ex && dcreate && reg && dpush && dpop && start && end,
	      "a function is missing from the tables");
	if (fails)
		return;
	for (int i = 0; i < 3; i++) {
		CHECK(push("A") == 0, "A is not at depth 0");
		CHECK(push("B") == 1, "B is not at depth 1");
		CHECK(pop() == 1, "pop B");
		CHECK(pop() == 0, "pop A");
	}
	CHECK(pop() < 0, "an unmatched pop is not refused");
	a.message.ascii = "C";
	a.category = 1;
	push_ex(&a);
	pop();
	a.category = 2;
	a.color_type = NVTX_ABI_COLOR_ARGB;
	a.color = 0xff102030;
	push_ex(&a);
	pop();
	dom = dcreate("dom");
	CHECK(dom != NULL && dom == dcreate("dom"), "a domain created twice differs");
	a.message_type = NVTX_ABI_MESSAGE_REGISTERED;
	a.message.registered = reg(dom, "reg");
	a.category = 0;
	dpush(dom, &a);
	dpop(dom);
	end(start("S"));
}

static void check_rows(const struct inj_hgtx_section *sec, size_t len, pid_t child)
{
	static struct hgtx_row rows[INJ_HGTX_PROCS * INJ_HGTX_NAMES];
	struct hgtx_lost lost;
	size_t n = hgtx_read(sec, len, 0, rows, sizeof(rows) / sizeof(*rows), &lost);
	uint32_t me = (uint32_t)getpid();
	const struct hgtx_row *a = find(rows, n, me, "\037A"), *b = find(rows, n, me, "\037B");
	const struct hgtx_row *c = find(rows, n, me, "\037C"), *d = find(rows, n, me, "dom\x1freg");
	const struct hgtx_row *s = find(rows, n, me, "\037S");
	const struct hgtx_row *f = find(rows, n, (uint32_t)child, "\037F");

	CHECK(a && b && c && d && s, "rows missing (%zu read)", n);
	if (!a || !b || !c || !d || !s)
		return;
	CHECK(a->count == 3 && b->count == 3, "counts %g %g", a->count, b->count);
	CHECK(b->self_ns == b->total_ns, "a leaf's self %g != total %g", b->self_ns, b->total_ns);
	CHECK(a->self_ns == a->total_ns - b->total_ns, "self of A %g, total %g, child %g",
	      a->self_ns, a->total_ns, b->total_ns);
	CHECK(a->depth == 0 && b->depth == 1, "depths %g %g", a->depth, b->depth);
	CHECK(b->min_ns <= b->max_ns && b->max_ns <= b->total_ns, "B min %g max %g", b->min_ns,
	      b->max_ns);
	CHECK(c->count == 2, "two categories of C not merged: %g", c->count);
	CHECK(c->color == 0x102030, "colour of C %g", c->color);
	CHECK(d->count == 1, "the registered string's range: %g", d->count);
	CHECK(s->count == 1, "the start/end range: %g", s->count);
	CHECK(isnan(a->color), "A has a colour");
	CHECK(f && f->count == 1, "the fork's child has no row of its own");
	CHECK(!lost.names && !lost.procs && !lost.shards, "lost something");
}

#define FILL_NAMES 600 /* more than a process's name table holds */

/* In a fork's child (a process slot of its own): a range of each of
 * FILL_NAMES names, so the table fills and the rest goes to "(other)". */
static void fill_names(void)
{
	push_a_fn push = (push_a_fn)(void (*)(void))core_fp[NVTX_ABI_CORE_RangePushA];
	pop_fn pop = (pop_fn)(void (*)(void))core_fp[NVTX_ABI_CORE_RangePop];
	char name[32];

	for (int i = 0; i < FILL_NAMES; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		push(name);
		pop();
	}
	_exit(0);
}

static void check_full(const struct inj_hgtx_section *sec, size_t len, uint32_t pid)
{
	static struct hgtx_row rows[INJ_HGTX_PROCS * INJ_HGTX_NAMES];
	struct hgtx_lost lost;
	size_t n = hgtx_read(sec, len, 0, rows, sizeof(rows) / sizeof(*rows), &lost);
	const struct hgtx_row *other = find(rows, n, pid, "\037(other)");
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		if (rows[i].pid == pid)
			sum += rows[i].count;
	CHECK(sum == FILL_NAMES, "%g ranges of %d counted", sum, FILL_NAMES);
	CHECK(other && other->count >= FILL_NAMES - (INJ_HGTX_NAMES - 1),
	      "the ranges without room are not under (other)");
	CHECK(other && (double)lost.names == other->count, "names_full %llu, (other) %g",
	      (unsigned long long)lost.names, other ? other->count : NAN);
}

static int library_test(void)
{
	const char *top = getenv("top_builddir");
	char path[4096];
	void *h;
	int (*init)(nvtx_abi_get_export_table);
	struct inj_hgtx_section *sec;
	size_t len;
	pid_t child;

	/* the library built with this build's sanitizers, as this program is */
	snprintf(path, sizeof(path), "%s/tests/inject/.libs/libasys-inject-checked.so",
		 top ? top : ".");
	if (inject_host_create() < 0) {
		printf("SKIP: no memfd\n");
		return 77;
	}
	sec = inject_host_section_rw(ASYS_INJECT_SEC_HGTX, &len);
	CHECK(sec && len >= sizeof(*sec), "no NVTX section");
	if (!sec)
		return 1;
	sec->version = INJ_HGTX_VERSION;
	/* the descriptor and the variables, as for a workload */
	job_env_init(&job);
	inject_host_prepare(&job);
	job_env_apply(&job);
	for (int i = 0; i < 16; i++)
		core_tab[i] = &core_fp[i];
	for (int i = 0; i < 15; i++)
		core2_tab[i] = &core2_fp[i];
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	CHECK(h, "dlopen %s: %s", path, dlerror());
	if (!h)
		return 1;
	init = (int (*)(nvtx_abi_get_export_table))dlsym(h, "InitializeInjectionNvtx2");
	CHECK(init && init(get_export) == 1, "InitializeInjectionNvtx2 did not take");
	if (fails)
		return 1;
	ranges_in_process();
	child = fork();
	if (child == 0) {
		push_a_fn push = (push_a_fn)(void (*)(void))core_fp[NVTX_ABI_CORE_RangePushA];
		pop_fn pop = (pop_fn)(void (*)(void))core_fp[NVTX_ABI_CORE_RangePop];

		push("F");
		pop();
		_exit(0);
	}
	waitpid(child, NULL, 0);
	check_rows(sec, len, child);
	child = fork();
	if (child == 0)
		fill_names();
	waitpid(child, NULL, 0);
	check_full(sec, len, (uint32_t)child);
	return 0;
}

static uint64_t rnd_state = 88172645463325252ull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* The code point of the UTF-8 sequence at s (no overlong form, no
 * surrogate), *len its bytes; -1 for a byte that does not start one. */
static long utf8_at(const unsigned char *s, size_t *len)
{
	static const long min[] = {0, 0, 0x80, 0x800, 0x10000};
	long cp;

	*len = s[0] < 0x80		     ? 1
	       : s[0] >= 0xf0 && s[0] < 0xf5 ? 4
	       : s[0] >= 0xe0		     ? 3
	       : s[0] >= 0xc2		     ? 2
					     : 0;
	if (!*len || (s[0] >= 0x80 && s[0] < 0xc2))
		return -1;
	cp = *len == 1 ? s[0] : s[0] & (0x7f >> *len);
	for (size_t i = 1; i < *len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	return cp < min[*len] || (cp >= 0xd800 && cp < 0xe000) || cp > 0x10ffff ? -1 : cp;
}

/* Every label is a clean C string: no control but the one separator (C0,
 * DEL, C1, bidi), and valid UTF-8 (a terminal takes U+009B as CSI). */
static void check_clean(const struct hgtx_row *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const unsigned char *l = (const unsigned char *)r[i].label;
		size_t len = strnlen(r[i].label, HGTX_LABEL_MAX), k;
		int seps = 0;

		CHECK(len < HGTX_LABEL_MAX, "row %zu: label not terminated", i);
		for (size_t at = 0; at < len; at += k) {
			long c = utf8_at(l + at, &k);

			seps += c == 0x1f;
			CHECK(c >= 0, "row %zu: byte %u is not UTF-8", i, l[at]);
			if (c < 0) {
				k = 1;
				continue;
			}
			CHECK(c == 0x1f || (c >= 32 && (c < 0x7f || c >= 0xa0)),
			      "row %zu: control U+%04lX", i, c);
			CHECK(c != 0x61c && c != 0x200e && c != 0x200f &&
				  !(c >= 0x202a && c <= 0x202e) && !(c >= 0x2066 && c <= 0x2069),
			      "row %zu: bidi control U+%04lX", i, c);
		}
		CHECK(seps == 1, "row %zu: %d separators", i, seps);
	}
}

static void hostile_test(void)
{
	size_t len = sizeof(struct inj_hgtx_section);
	unsigned char *buf = malloc(len);
	static struct hgtx_row rows[INJ_HGTX_PROCS * INJ_HGTX_NAMES];
	struct hgtx_lost lost;

	if (!buf) {
		CHECK(0, "no memory for a section");
		return;
	}
	CHECK(hgtx_read((void *)buf, len - 1, 0, rows, 10, &lost) == 0, "a short section read");
	for (int round = 0; round < 6; round++) {
		struct inj_hgtx_section *sec = (void *)buf;
		size_t n;

		if (round == 0)
			memset(buf, 0xff, len);
		else
			for (size_t i = 0; i + 8 <= len; i += 8) {
				uint64_t v = rnd();

				memcpy(buf + i, &v, 8);
			}
		if (round >= 2) {
			/* plausible skeletons with hostile insides: claimed slots,
			 * ready names with no NUL, shards pointing everywhere */
			for (int p = 0; p < INJ_HGTX_PROCS; p++) {
				sec->procs[p].pid = round == 2 ? 0xffffffffu : (uint32_t)(p + 1);
				for (int k = 0; k < INJ_HGTX_NAMES; k++) {
					sec->procs[p].names[k].state = INJ_HGTX_READY;
					sec->procs[p].names[k].domain = (uint32_t)rnd();
				}
				for (int k = 0; k < INJ_HGTX_DOMAINS; k++)
					sec->procs[p].dom[k].state = INJ_HGTX_READY;
			}
			for (int s = 0; s < INJ_HGTX_SHARDS; s++)
				sec->shards[s].proc = round == 3
							  ? (uint32_t)rnd()
							  : 1 + (uint32_t)(s % INJ_HGTX_PROCS);
		}
		n = hgtx_read(sec, len, (uint32_t)rnd(), rows, sizeof(rows) / sizeof(*rows), &lost);
		CHECK(n <= sizeof(rows) / sizeof(*rows), "round %d: %zu rows", round, n);
		check_clean(rows, n);
		/* a small room is respected */
		n = hgtx_read(sec, len, 0, rows, 3, &lost);
		CHECK(n <= 3, "round %d: %zu rows in a room of 3", round, n);
	}
	free(buf);
}

int main(void)
{
	int rc = library_test();

	if (rc == 77)
		return 77;
	hostile_test();
	printf("%d failed\n", fails);
	return fails ? 1 : 0;
}
