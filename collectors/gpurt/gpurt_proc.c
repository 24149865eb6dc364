/* SPDX-License-Identifier: GPL-2.0-only */
/* The discovery's helpers on processes that are not about their maps:
 * their command line, whether they live, and the sweep of what the BPF maps
 * keep for one that ended (declared in gpurt_scan.h). */
#include "config.h"

#ifndef HAVE_BPF
#error "gpurt_proc.c needs libbpf"
#endif

#include <stdio.h>
#include <string.h>

#include <bpf/bpf.h>
#include <linux/types.h>

#include "gpurt.h"
#include "gpurt_scan.h"
#include "sysroot.h"

void gpurt_scan_cmdline(uint32_t pid, char *buf, size_t n)
{
	char rel[64];
	snprintf(rel, sizeof(rel), "/proc/%u/cmdline", pid);
	ssize_t len = sysroot_read_file(rel, buf, n);
	if (len <= 0) {
		snprintf(buf, n, "pid %u", pid);
		return;
	}
	while (len > 0 && buf[len - 1] == '\0')
		len--;
	for (ssize_t i = 0; i < len; i++)
		if (buf[i] == '\0' || buf[i] == '\n' || buf[i] == '\t')
			buf[i] = ' ';
	buf[len] = '\0';
}

bool gpurt_scan_pid_alive(uint32_t pid)
{
	char rel[64], buf[512];
	snprintf(rel, sizeof(rel), "/proc/%u/stat", pid);
	if (sysroot_read_file(rel, buf, sizeof(buf)) <= 0)
		return false;
	char *p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

/* Deletes the keys of one pid from a map whose keys start with a __u32 pid. */
static void sweep_map(int fd, size_t keylen, uint32_t pid)
{
	enum { BATCH = 256 };
	_Alignas(8) unsigned char key[32], next[32], del[BATCH][32];
	if (keylen > sizeof(key))
		return;
	for (;;) {
		size_t nd = 0;
		bool first = true;
		while (nd < BATCH && !bpf_map_get_next_key(fd, first ? NULL : key, next)) {
			first = false;
			memcpy(key, next, keylen);
			uint32_t kp;
			memcpy(&kp, key, sizeof(kp));
			if (kp == pid)
				memcpy(del[nd++], key, keylen);
		}
		for (size_t i = 0; i < nd; i++)
			bpf_map_delete_elem(fd, del[i]);
		if (nd < BATCH)
			return;
	}
}

void gpurt_scan_sweep_pid(struct gpurt_scan *sc, uint32_t pid)
{
	bpf_map_delete_elem(sc->fd_mem, &pid);
	bpf_map_delete_elem(sc->fd_targets, &pid);
	sweep_map(sc->fd_ptrs, sizeof(struct gpurt_ptr_key), pid);
	sweep_map(sc->fd_launches, sizeof(struct gpurt_launch_key), pid);
	sweep_map(sc->fd_stub_where, sizeof(struct gpurt_launch_key), pid);
	sweep_map(sc->fd_names, sizeof(struct gpurt_handle_key), pid);
	bpf_map_delete_elem(sc->fd_copies, &pid);
	sweep_map(sc->fd_ranges, sizeof(struct gpurt_range_key), pid);
	sweep_map(sc->fd_range_names, sizeof(struct gpurt_range_key), pid);
	sweep_map(sc->fd_range_ids, sizeof(struct gpurt_range_key), pid);
}
