/* SPDX-License-Identifier: GPL-2.0-only */
/* needs: none */
/* The system-wide scan of the runtime-probe discovery over a fixture /proc:
 * which processes it reads again, and when. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "gpurt_scan.h"
#include "sysroot.h"
#include "../check_run.h"
#include "../procfs/procfs_fixture.h"

#define SEC 1000000000ull
#define RESCAN (30 * SEC)

/* pid 10 maps a dynamic loader that has the hook, 20 is linked statically,
 * 30 is a kernel thread (empty maps) */
static char *fixture(void)
{
	char *root = fx_tmpdir();

	fx_write(root, "proc/10/maps",
		 "55d0a0000000-55d0a0001000 r-xp 00000000 08:01 4242 /usr/bin/app\n"
		 "7f0000000000-7f0000028000 r-xp 00001000 08:01 1234 "
		 "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2\n"
		 "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]\n");
	fx_write(root, "proc/20/maps",
		 "00400000-00401000 r-xp 00000000 08:01 5151 /usr/local/bin/static\n");
	fx_write(root, "proc/30/maps", "%s", "");
	return root;
}

/* A scan that knows the loader of pid 10, with the hook on it or not. */
static void scan_init(struct gpurt_scan *sc, bool hooked)
{
	memset(sc, 0, sizeof(*sc));
	sc->rescan_ns = RESCAN;
	sc->loaders = calloc(1, sizeof(*sc->loaders));
	ck_assert_ptr_nonnull(sc->loaders);
	sc->loaders[0] = (struct gpurt_lib){.dev = makedev(8, 1), .ino = 1234, .probes = hooked};
	sc->nloaders = sc->caploaders = 1;
}

/* The maps reads of one pass at now, and of them those read before. */
static void pass(struct gpurt_scan *sc, uint64_t now, uint64_t reads, uint64_t again)
{
	uint64_t r0 = sc->nreads, a0 = sc->nreads_again;

	gpurt_scan_libraries(sc, now);
	ck_assert_uint_eq(sc->nreads - r0, reads);
	ck_assert_uint_eq(sc->nreads_again - a0, again);
}

START_TEST(covered_not_reread)
{
	char *root = fixture();
	struct gpurt_scan sc;

	sysroot_set(root);
	scan_init(&sc, true);
	pass(&sc, 1 * SEC, 3, 0);	   /* the first scan reads every process */
	pass(&sc, 11 * SEC, 0, 0);	   /* none is due */
	pass(&sc, 1 * SEC + RESCAN, 1, 1); /* the static one only */
	pass(&sc, 1 * SEC + 2 * RESCAN, 1, 1);
	/* the other two once in GPURT_RESCAN_COVERED_FACTOR periods */
	pass(&sc, 1 * SEC + GPURT_RESCAN_COVERED_FACTOR * RESCAN, 3, 3);
	/* a newcomer waits a period, then is read once */
	fx_write(root, "proc/40/maps", "%s", "");
	pass(&sc, 2 * SEC + GPURT_RESCAN_COVERED_FACTOR * RESCAN, 0, 0);
	pass(&sc, 3 * SEC + (GPURT_RESCAN_COVERED_FACTOR + 1) * RESCAN, 2, 1);
	gpurt_scan_fini(&sc);
	sysroot_set(NULL);
	fx_rmtree(root);
}
END_TEST

START_TEST(unhooked_loader_reread)
{
	char *root = fixture();
	struct gpurt_scan sc;

	sysroot_set(root);
	scan_init(&sc, false); /* the hook could not go on that loader */
	pass(&sc, 1 * SEC, 3, 0);
	pass(&sc, 1 * SEC + RESCAN, 2, 2); /* pid 10 and the static one */
	gpurt_scan_fini(&sc);
	sysroot_set(NULL);
	fx_rmtree(root);
}
END_TEST

START_TEST(lost_report_reads_all)
{
	char *root = fixture();
	struct gpurt_scan sc;
	volatile __u64 lost = 0;

	sysroot_set(root);
	scan_init(&sc, true);
	sc.loader_lost = &lost;
	pass(&sc, 1 * SEC, 3, 0);
	/* the ring had no room for a report: the next scan reads all, and a
	 * newcomer at once */
	lost = 1;
	fx_write(root, "proc/40/maps", "%s", "");
	pass(&sc, 11 * SEC, 4, 3);
	pass(&sc, 21 * SEC, 0, 0); /* the count held: none again */
	/* the discovery's window was full */
	sc.missed = true;
	pass(&sc, 31 * SEC, 4, 4);
	ck_assert(!sc.missed);
	pass(&sc, 41 * SEC, 0, 0);
	gpurt_scan_fini(&sc);
	sysroot_set(NULL);
	fx_rmtree(root);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("gpurt_scan");
	TCase *tc = tcase_create("scan");

	tcase_add_test(tc, covered_not_reread);
	tcase_add_test(tc, unhooked_loader_reread);
	tcase_add_test(tc, lost_report_reads_all);
	suite_add_tcase(s, tc);
	return check_run(s, NULL);
}
