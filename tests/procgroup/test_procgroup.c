/* SPDX-License-Identifier: GPL-2.0-only */
/* needs: none */
/* procgroup_parse over the fixture cgroup files of each layout, and over
 * odd, long and hostile text. The look-ups and the cache are in
 * test_procgroup_name.c. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "../check_run.h"
#include "pg_test.h"
#include "procgroup.h"

char *pg_slurp(const char *rel, size_t *len)
{
	char path[4096];
	char *buf = malloc(1 << 16);
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/tests/fixtures/procgroup/%s", ASYS_TOP_SRCDIR, rel);
	f = fopen(path, "r");
	ck_assert_msg(f && buf, "fixture %s missing", path);
	n = fread(buf, 1, (1 << 16) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

/* Parses fixture cgroup/NAME into g and checks its display name. */
static void parse_fixture(const char *name, struct procgroup *g, enum procgroup_kind kind,
			  const char *display)
{
	size_t len;
	char *text = pg_slurp(name, &len);

	ck_assert_int_eq(procgroup_parse(text, len, g), 0);
	ck_assert_msg(g->kind == kind, "%s: kind %d, want %d", name, g->kind, kind);
	ck_assert_str_eq(g->display, display);
	free(text);
}

static void parse_str(const char *text, struct procgroup *g)
{
	ck_assert_int_eq(procgroup_parse(text, strlen(text), g), 0);
}

START_TEST(docker_layouts)
{
	struct procgroup g;

	/* a hybrid host: the v2 line names containerd.service, the v1 lines
	 * the container, which is the more specific */
	parse_fixture("cgroup/docker_v1", &g, PROCGROUP_DOCKER, "docker 6f1c3a260be1");
	ck_assert_str_eq(g.id, ID_DOCKERV1);
	ck_assert_str_eq(g.path, "/docker/" ID_DOCKERV1);
	parse_fixture("cgroup/docker_v2", &g, PROCGROUP_DOCKER, "docker f45d3d5de96c");
	ck_assert_str_eq(g.id, ID_DOCKERV2);
	parse_fixture("cgroup/containerd", &g, PROCGROUP_CONTAINERD, "containerd 2397d068a8d1");
	ck_assert_str_eq(g.id, ID_CONTAINERD);
	parse_fixture("cgroup/nerdctl", &g, PROCGROUP_CONTAINERD, "containerd aa470170773a");
	parse_fixture("cgroup/podman", &g, PROCGROUP_PODMAN, "podman 2f259bab93aa");
	ck_assert_str_eq(g.id, ID_PODMAN);
	parse_str("0::/machine.slice/libpod-conmon-" ID_PODMAN ".scope\n", &g);
	ck_assert_str_eq(g.display, "podman 2f259bab93aa");
	parse_str("0::/kubepods/burstable/crio-conmon-" ID_PODMAN ".scope\n", &g);
	ck_assert_int_eq(g.kind, PROCGROUP_CRIO);
	parse_fixture("cgroup/lxc", &g, PROCGROUP_LXC, "lxc web1");
	parse_str("4:memory:/lxc/db-2/init.scope\n", &g);
	ck_assert_str_eq(g.display, "lxc db-2");
	/* docker in docker: the inner container */
	parse_str("0::/docker/" ID_DOCKERV1 "/docker/" ID_DOCKERV2 "\n", &g);
	ck_assert_str_eq(g.display, "docker f45d3d5de96c");
	/* rootless docker under the user's manager */
	parse_str("0::/user.slice/user-1000.slice/user@1000.service/user.slice/docker-" ID_DOCKERV2
		  ".scope\n",
		  &g);
	ck_assert_str_eq(g.display, "docker f45d3d5de96c");
}
END_TEST

START_TEST(pod_layouts)
{
	struct procgroup g;

	parse_fixture("cgroup/pod_burstable_systemd", &g, PROCGROUP_POD, "pod 1a2b3c4d");
	ck_assert_int_eq(g.qos, PROCGROUP_QOS_BURSTABLE);
	ck_assert_int_eq(g.runtime, PROCGROUP_CONTAINERD);
	ck_assert_str_eq(g.pod_uid, UID_BURST);
	ck_assert_str_eq(g.id, ID_PODBURST);
	parse_fixture("cgroup/pod_besteffort_systemd", &g, PROCGROUP_POD, "pod 9f8e7d6c");
	ck_assert_int_eq(g.qos, PROCGROUP_QOS_BESTEFFORT);
	ck_assert_int_eq(g.runtime, PROCGROUP_CRIO);
	ck_assert_str_eq(g.pod_uid, UID_BEFF);
	ck_assert_str_eq(g.id, ID_PODBESTEFF);
	parse_fixture("cgroup/pod_burstable_cgroupfs", &g, PROCGROUP_POD, "pod 0c1d2e3f");
	ck_assert_int_eq(g.qos, PROCGROUP_QOS_BURSTABLE);
	ck_assert_int_eq(g.runtime, PROCGROUP_NONE);
	ck_assert_str_eq(g.pod_uid, UID_CGBURST);
	ck_assert_str_eq(g.id, ID_PODCGFS);
	parse_fixture("cgroup/pod_besteffort_cgroupfs", &g, PROCGROUP_POD, "pod 77aa88bb");
	ck_assert_int_eq(g.qos, PROCGROUP_QOS_BESTEFFORT);
	ck_assert_str_eq(g.pod_uid, UID_CGBEFF);
	ck_assert_str_eq(g.id, ID_PODCGFS2);
	parse_fixture("cgroup/pod_guaranteed_systemd", &g, PROCGROUP_POD, "pod 5e5e5e5e");
	ck_assert_int_eq(g.qos, PROCGROUP_QOS_GUARANTEED);
	ck_assert_int_eq(g.runtime, PROCGROUP_DOCKER);
	ck_assert_str_eq(g.id, ID_PODGUAR);
	/* a static pod's uid is 32 hex digits; kind's nested kubelet.slice */
	parse_str("0::/kubepods/pod3f1e0b6c9d2a4e5f8a7b6c5d4e3f2a1b/" ID_PODCGFS "\n", &g);
	ck_assert_str_eq(g.display, "pod 3f1e0b6c");
	ck_assert_int_eq(g.qos, PROCGROUP_QOS_GUARANTEED);
	parse_str("0::/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-besteffort.slice/"
		  "kubelet-kubepods-besteffort-pod9f8e7d6c_5b4a_4392_8170_6f5e4d3c2b1a.slice/"
		  "cri-containerd-" ID_PODBURST ".scope\n",
		  &g);
	ck_assert_str_eq(g.display, "pod 9f8e7d6c");
	ck_assert_int_eq(g.qos, PROCGROUP_QOS_BESTEFFORT);
	ck_assert_str_eq(g.pod_uid, UID_BEFF);
	/* the pod's own cgroup, no container below it */
	parse_str("0::/kubepods/burstable/pod" UID_CGBURST "\n", &g);
	ck_assert_str_eq(g.display, "pod 0c1d2e3f");
	ck_assert_str_eq(g.id, "");
	/* not a uid: the slice is a unit like any other */
	parse_str(
	    "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podzz_top.slice\n", &g);
	ck_assert_int_eq(g.kind, PROCGROUP_UNIT);
	ck_assert_str_eq(g.display, "kubepods-burstable-podzz_top.slice");
	/* "pod..." outside kubepods is no pod */
	parse_str("0::/batch/pod" UID_CGBURST "\n", &g);
	ck_assert_int_eq(g.kind, PROCGROUP_OTHER);
	ck_assert_int_eq(g.qos, PROCGROUP_QOS_NONE);
}
END_TEST

START_TEST(slurm_layouts)
{
	struct procgroup g;

	parse_fixture("cgroup/slurm_v1", &g, PROCGROUP_SLURM, "job 12345");
	ck_assert_str_eq(g.id, "12345");
	ck_assert_str_eq(g.step, "0");
	ck_assert_int_eq(g.slurm_uid, 1000);
	parse_fixture("cgroup/slurm_v2", &g, PROCGROUP_SLURM, "job 4242");
	ck_assert_str_eq(g.step, "batch");
	ck_assert_int_eq(g.slurm_uid, -1);
	/* slurmstepd's own processes are in no job */
	parse_fixture("cgroup/slurm_stepd", &g, PROCGROUP_UNIT, "slurmstepd.scope");
	/* several slurmd on one node: slurm_NODE, NODE_slurmstepd.scope */
	parse_str("7:memory:/slurm_n01/uid_0/job_7/step_extern\n", &g);
	ck_assert_str_eq(g.display, "job 7");
	ck_assert_str_eq(g.step, "extern");
	parse_str("0::/system.slice/n02_slurmstepd.scope/job_99/step_interactive/user/task_0\n",
		  &g);
	ck_assert_str_eq(g.display, "job 99");
	/* a job number that is not one */
	parse_str("0::/system.slice/slurmstepd.scope/job_12x/step_0\n", &g);
	ck_assert_int_eq(g.kind, PROCGROUP_UNIT);
	parse_str("0::/system.slice/slurmstepd.scope/job_1234567890123456789012/step_0\n", &g);
	ck_assert_int_eq(g.kind, PROCGROUP_UNIT);
}
END_TEST

START_TEST(unit_layouts)
{
	struct procgroup g;

	parse_fixture("cgroup/session", &g, PROCGROUP_UNIT, "session-3.scope");
	/* v1: the cpu line says only user.slice, name=systemd the session */
	parse_fixture("cgroup/session_v1", &g, PROCGROUP_UNIT, "session-3.scope");
	parse_fixture("cgroup/user_manager", &g, PROCGROUP_UNIT, "user@1000.service");
	parse_fixture("cgroup/user_app", &g, PROCGROUP_UNIT, "foo.service");
	/* equal rank and depth: v2, then pids, cpu, memory, name=systemd */
	parse_str("9:memory:/system.slice/m.service\n8:devices:/system.slice/d.service\n"
		  "7:pids:/system.slice/p.service\n0::/system.slice/v.service\n",
		  &g);
	ck_assert_str_eq(g.display, "v.service");
	parse_str("9:memory:/system.slice/m.service\n8:devices:/system.slice/d.service\n"
		  "7:pids:/system.slice/p.service\n1:name=systemd:/system.slice/s.service\n",
		  &g);
	ck_assert_str_eq(g.display, "p.service");
	parse_str("9:memory:/system.slice/m.service\n8:cpu,cpuacct:/system.slice/c.service\n", &g);
	ck_assert_str_eq(g.display, "c.service");
	parse_str("9:devices:/system.slice/d.service\n8:memory:/system.slice/m.service\n", &g);
	ck_assert_str_eq(g.display, "m.service");
	parse_str("0::/init.scope\n", &g);
	ck_assert_str_eq(g.display, "init.scope");
	/* a service's own sub-cgroups (delegation) */
	parse_str("0::/system.slice/foo.service/workers/3\n", &g);
	ck_assert_str_eq(g.display, "foo.service");
	parse_str("0::/mygroup/batch\n", &g);
	ck_assert_int_eq(g.kind, PROCGROUP_OTHER);
	ck_assert_str_eq(g.display, "batch");
	/* an id that is not one makes a unit, not a container */
	parse_str("0::/system.slice/docker-xyz.scope\n", &g);
	ck_assert_int_eq(g.kind, PROCGROUP_UNIT);
	ck_assert_str_eq(g.display, "docker-xyz.scope");
	parse_str("0::/docker/6F1C3A260BE1FC1D6102697C7BC37F9FA5D177D3141E61DF8D23DFDFB514E312\n",
		  &g);
	ck_assert_int_eq(g.kind, PROCGROUP_OTHER);
	parse_str("0::/docker/6f1c3a260be1fc1d6102697c7bc37f9fa5d177d3141e61df8d23dfdfb514e31\n",
		  &g);
	ck_assert_int_eq(g.kind, PROCGROUP_OTHER);
}
END_TEST

START_TEST(root_and_none)
{
	struct procgroup g;

	parse_fixture("cgroup/root", &g, PROCGROUP_NONE, "");
	parse_fixture("cgroup/kthread_v1", &g, PROCGROUP_NONE, "");
	ck_assert_str_eq(g.path, "/");
}
END_TEST

START_TEST(garbage_lines)
{
	struct procgroup g;
	size_t len;
	char *text = pg_slurp("cgroup/garbage", &len);

	ck_assert_int_eq(procgroup_parse(text, len, &g), -EINVAL);
	ck_assert_int_eq(g.kind, PROCGROUP_NONE);
	ck_assert_str_eq(g.display, "");
	free(text);
	ck_assert_int_eq(procgroup_parse("", 0, &g), -EINVAL);
	ck_assert_int_eq(procgroup_parse(NULL, 10, &g), -EINVAL);
	/* a good line among bad ones */
	parse_str("junk\n0:x\n::/a\n0::/system.slice/cron.service", &g);
	ck_assert_str_eq(g.display, "cron.service");
}
END_TEST

START_TEST(long_lines)
{
	struct procgroup g;
	size_t n = 200000;
	char *text = malloc(n + 64), *p;

	/* a path over PROCGROUP_PATH_MAX is skipped, the next line read */
	p = text + sprintf(text, "12:pids:/");
	memset(p, 'a', 3000);
	strcpy(p + 3000, "\n0::/system.slice/foo.service\n");
	parse_str(text, &g);
	ck_assert_str_eq(g.display, "foo.service");
	/* one line of 200 KB and nothing else */
	p = text + sprintf(text, "0::/");
	memset(p, 'b', n);
	p[n] = '\0';
	ck_assert_int_eq(procgroup_parse(text, strlen(text), &g), -EINVAL);
	/* 500 components of one byte: within the path cap, past the
	 * component cap; the last one names it */
	p = text + sprintf(text, "0::");
	for (int i = 0; i < 500; i++)
		p += sprintf(p, "/%c", 'a' + i % 26);
	strcpy(p, "/last.service\n");
	parse_str(text, &g);
	ck_assert_int_eq(g.kind, PROCGROUP_OTHER);
	ck_assert_str_eq(g.display, "last.service");
	/* a unit name at the id's cap: display holds the escaped whole */
	p = text + sprintf(text, "0::/system.slice/");
	memset(p, 'u', 200);
	strcpy(p + 200, ".service\n");
	parse_str(text, &g);
	ck_assert_int_eq(g.kind, PROCGROUP_UNIT);
	ck_assert_uint_lt(strlen(g.display), PROCGROUP_DISPLAY_MAX);
	ck_assert(strstr(g.display, "...") != NULL);
	free(text);
}
END_TEST

START_TEST(hostile_text)
{
	struct procgroup g;
	const char *t = "0::/system.slice/foo.service";
	static const char two[] = "0::/a.service\0\n0::/b.service";

	/* names are escaped for a terminal */
	parse_str("0::/system.slice/evil\x1b[2J\x07.service\n", &g);
	ck_assert_str_eq(g.display, "evil\\e[2J\\x07.service");
	ck_assert(strchr(g.path, 0x1b) == NULL);
	parse_str("0::/lxc.payload.a\tb\n", &g);
	ck_assert_str_eq(g.display, "lxc a\\tb");
	/* a cgroup named with a newline: the kernel prints the v2 line last,
	 * so what follows it is a name made to look like more lines */
	parse_str("0::/user.slice/user-1000.slice/user@1000.service/app.slice/x\n"
		  "0::/docker/" ID_DOCKERV1 "\n7:pids:/docker/" ID_DOCKERV1 "\n",
		  &g);
	ck_assert_int_eq(g.kind, PROCGROUP_UNIT);
	ck_assert_str_eq(g.display, "app.slice");
	/* len bounds the text, and a NUL ends it */
	ck_assert_int_eq(procgroup_parse(t, strlen("0::/system.slice/foo.serv"), &g), 0);
	ck_assert_str_eq(g.display, "system.slice");
	ck_assert_str_eq(g.path, "/system.slice/foo.serv");
	ck_assert_int_eq(procgroup_parse(two, sizeof(two) - 1, &g), 0);
	ck_assert_str_eq(g.display, "a.service");
	/* "//" and a trailing '/' are no components */
	parse_str("0::/system.slice//ssh.service/\n", &g);
	ck_assert_str_eq(g.display, "ssh.service");
}
END_TEST

static Suite *procgroup_parse_suite(void)
{
	Suite *s = suite_create("procgroup_parse");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, docker_layouts);
	tcase_add_test(tc, pod_layouts);
	tcase_add_test(tc, slurm_layouts);
	tcase_add_test(tc, unit_layouts);
	tcase_add_test(tc, root_and_none);
	tcase_add_test(tc, garbage_lines);
	tcase_add_test(tc, long_lines);
	tcase_add_test(tc, hostile_text);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(procgroup_parse_suite(), procgroup_name_suite(), procgroup_cache_suite(),
			 NULL);
}
