/* SPDX-License-Identifier: GPL-2.0-only */
/* gpurt: opening, loading and attaching the BPF object, and the start of the
 * discovery (the process tree, the files the loader would resolve, the
 * discovery thread). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "env.h"
#include "gpurt_int.h"
#include "gpurt.skel.h"
#include "gpurt_libpath.h"
#include "gpurt_umulti.h"
#include "gpurt_watch.h"
#include "util.h"

static __thread char libbpf_last[256];

static int gpurt_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* never on the terminal (the TUI owns it) unless asked for with
	 * ASYS_BPF_DEBUG; keep the last warning for the error sentence */
	if (env_get("ASYS_BPF_DEBUG")) {
		va_list aq;
		va_copy(aq, ap);
		vfprintf(stderr, fmt, aq);
		va_end(aq);
	}
	if (level != LIBBPF_DEBUG) {
		vsnprintf(libbpf_last, sizeof(libbpf_last), fmt, ap);
		libbpf_last[strcspn(libbpf_last, "\n")] = '\0';
	}
	return 0;
}

void gpurt_libbpf_quiet(void)
{
	libbpf_set_print(gpurt_libbpf_print);
}

static void preload_one(const char *path, void *arg)
{
	gpurt_scan_file(arg, path);
}

/* After the load: the process tree, the discovery hook on our own dynamic
 * loader (the one the host's programs use), the files the loader would
 * resolve, the followed processes' maps, then the thread that keeps
 * discovering. The hook comes first, so a library loaded meanwhile is not
 * missed. */
static int gpurt_start(struct gpurt_state *s)
{
	struct gpurt_bpf *k = s->skel;
	struct gpurt_scan *sc = &s->scan;
	int r = gpurt_scan_follow_roots(sc, s->err, sizeof(s->err));
	if (r)
		return r;
	gpurt_scan_pid(sc, (uint32_t)getpid(), false);
	if (sc->tree) {
		gpurt_libpath_each(&sc->probes, env_get("LD_LIBRARY_PATH"), env_path("PPU_HOME"),
				   NULL, preload_one, sc);
		gpurt_scan_libraries(sc, asys_now_ns());
	}
	r = gpurt_watch_start(&s->watch, sc, bpf_map__fd(k->maps.loader));
	if (r)
		snprintf(s->err, sizeof(s->err),
			 "runtime probes: cannot start the discovery thread: %s", strerror(-r));
	return r;
}

/* The object opened, its rodata set and loaded, with its uprobe programs
 * made for uprobe-multi links when multi: 0, or -errno with s->err set. */
static int skel_load(struct gpurt_state *s, bool multi)
{
	const struct asys_options *o = s->scan.opts;
	int r;
	s->skel = gpurt_bpf__open();
	if (!s->skel) {
		r = -errno;
		snprintf(s->err, sizeof(s->err), "runtime probes: cannot open the BPF object: %s",
			 libbpf_last[0] ? libbpf_last : strerror(-r));
		return r;
	}
	s->skel->rodata->filter_pids = options_scope(o) == SCOPE_PROCESS_TREE;
	struct gpurt_head h[GPURT_HEADS_MAX];
	int nh = gpurt_probes_heads(&s->scan.probes, h, GPURT_HEADS_MAX);
	s->skel->rodata->heads_all = nh < 0;
	s->skel->rodata->nheads = nh < 0 ? 0 : (__u32)nh;
	for (int i = 0; i < nh; i++)
		s->skel->rodata->heads[i] = h[i];
	struct bpf_program *const up[] = {
	    s->skel->progs.gpurt_save_args, s->skel->progs.gpurt_on_return,
	    s->skel->progs.gpurt_on_free,   s->skel->progs.gpurt_on_launch,
	    s->skel->progs.gpurt_on_loader, s->skel->progs.gpurt_on_copy,
	    s->skel->progs.gpurt_on_range};
	r = multi ? gpurt_umulti_prepare(up, ARRAY_SIZE(up)) : 0;
	if (!r)
		r = gpurt_bpf__load(s->skel);
	if (r == -EPERM)
		snprintf(s->err, sizeof(s->err),
			 "run asys with sudo, or once: sudo setcap cap_bpf,cap_perfmon+ep "
			 "$(command -v asys) (the kernel refused to load the runtime "
			 "probes' BPF programs: %s)",
			 strerror(-r));
	else if (r)
		snprintf(s->err, sizeof(s->err),
			 "runtime probes: loading the BPF programs failed: %s (the kernel "
			 "needs BTF, uprobes and tp_btf; ASYS_BPF_DEBUG=1 shows the log)",
			 libbpf_last[0] ? libbpf_last : strerror(-r));
	return r;
}

/* The object's bytes in the binary (about 120 KiB) are parsed at open and
 * not read after the load: their pages need not stay resident. */
static void rodata_done(void)
{
	size_t sz = 0;
	const void *elf = gpurt_bpf__elf_bytes(&sz);

	util_rodata_done(elf, sz);
}

/* Open, set rodata, load, attach the tracepoints. System-wide, done on the
 * first tick, not in init: the verifier takes a good part of a second, and
 * the other collectors' first samples should not wait for it. */
int gpurt_load(struct gpurt_state *s)
{
	bool multi = gpurt_umulti_supported();
	int r = skel_load(s, multi);
	if (r && multi && r != -EPERM) {
		/* a kernel that has the links but refuses these programs for
		 * them: one perf-event uprobe a probe, as on older kernels */
		gpurt_bpf__destroy(s->skel);
		s->skel = NULL;
		s->err[0] = '\0';
		multi = false;
		r = skel_load(s, false);
	}
	if (r)
		return r;
	s->scan.multi = multi;
	rodata_done();
	struct bpf_program *tps[] = {s->skel->progs.gpurt_on_exit, s->skel->progs.gpurt_on_fork,
				     s->skel->progs.gpurt_on_exec};
	struct bpf_link **tpl[] = {&s->skel->links.gpurt_on_exit, &s->skel->links.gpurt_on_fork,
				   &s->skel->links.gpurt_on_exec};
	static const char *const tpn[] = {"exit", "fork", "exec"};
	for (size_t i = 0; i < ARRAY_SIZE(tps); i++) {
		*tpl[i] = bpf_program__attach(tps[i]);
		if (!*tpl[i]) {
			r = -errno;
			snprintf(
			    s->err, sizeof(s->err),
			    "runtime probes: cannot attach to the scheduler's %s tracepoint: %s",
			    tpn[i], strerror(-r));
			return r;
		}
	}
	struct gpurt_scan *sc = &s->scan;
	sc->prog_save = s->skel->progs.gpurt_save_args;
	sc->prog_return = s->skel->progs.gpurt_on_return;
	sc->prog_free = s->skel->progs.gpurt_on_free;
	sc->prog_launch = s->skel->progs.gpurt_on_launch;
	sc->prog_loader = s->skel->progs.gpurt_on_loader;
	sc->loader_lost = &s->skel->bss->loader_lost;
	sc->prog_copy = s->skel->progs.gpurt_on_copy;
	sc->prog_range = s->skel->progs.gpurt_on_range;
	sc->fd_targets = bpf_map__fd(s->skel->maps.targets);
	sc->fd_mem = bpf_map__fd(s->skel->maps.mem);
	sc->fd_ptrs = bpf_map__fd(s->skel->maps.ptrs);
	sc->fd_launches = bpf_map__fd(s->skel->maps.launches);
	sc->fd_names = bpf_map__fd(s->skel->maps.names);
	sc->fd_stub_libs = bpf_map__fd(s->skel->maps.stub_libs);
	sc->fd_stub_where = bpf_map__fd(s->skel->maps.stub_where);
	sc->fd_loaders_known = bpf_map__fd(s->skel->maps.loaders_known);
	sc->fd_copies = bpf_map__fd(s->skel->maps.copies);
	sc->fd_ranges = bpf_map__fd(s->skel->maps.ranges);
	sc->fd_range_names = bpf_map__fd(s->skel->maps.range_names);
	sc->fd_range_ids = bpf_map__fd(s->skel->maps.range_ids);
	return gpurt_start(s);
}
