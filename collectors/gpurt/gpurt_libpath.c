/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpurt_libpath.h"
#include "util.h"

#define LIBPATH_PPU_HOME_DEFAULT "/usr/local/PPU_SDK"

/* the SDK's library directories, as the PPU collector looks there too */
static const char *const sdk_dirs[] = {"lib", "lib64", "targets/x86_64-linux/lib"};

static void each_in_dir(const struct gpurt_probes *p, const char *dir, gpurt_libpath_fn fn,
			void *arg)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[4096];

	if (!d)
		return;
	for (size_t n = 0; n < GPURT_LIBPATH_DIR_ENTRIES && (de = readdir(d)); n++) {
		if (de->d_name[0] == '.' || !gpurt_probes_lib_wanted(p, de->d_name))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) < (int)sizeof(path))
			fn(path, arg);
	}
	closedir(d);
}

/* glibc's dl-cache.h: the new format's header and entries */
#define CACHE_OLD_MAGIC "ld.so-1.7.0"
#define CACHE_NEW_MAGIC "glibc-ld.so.cache1.1"
#define CACHE_NEW_HDR 48   /* magic, version, nlibs, len_strings, flags, ... */
#define CACHE_NEW_ENTRY 24 /* flags, key, value, osversion, hwcap */
#define CACHE_OLD_ENTRY 12 /* flags, key, value */

static uint32_t get_u32(const unsigned char *b)
{
	uint32_t v;

	memcpy(&v, b, sizeof(v));
	return v;
}

/* Where the new format starts: at 0, or after the old format's table. */
static size_t cache_new_start(const unsigned char *buf, size_t len)
{
	size_t off = 0;

	if (len >= 16 && !memcmp(buf, CACHE_OLD_MAGIC, strlen(CACHE_OLD_MAGIC))) {
		uint64_t n = get_u32(buf + 12);

		off = 16 + n * CACHE_OLD_ENTRY;
		off = (off + 7) & ~(size_t)7; /* aligned as the new header */
	}
	if (off > len || len - off < CACHE_NEW_HDR ||
	    memcmp(buf + off, CACHE_NEW_MAGIC, strlen(CACHE_NEW_MAGIC)))
		return SIZE_MAX;
	return off;
}

size_t gpurt_libpath_cache(const struct gpurt_probes *p, const unsigned char *buf, size_t len,
			   gpurt_libpath_fn fn, void *arg)
{
	size_t off = cache_new_start(buf, len), called = 0;

	if (off == SIZE_MAX)
		return 0;
	/* string offsets count from the new header */
	const unsigned char *base = buf + off;
	size_t room = len - off;
	uint64_t n = get_u32(base + 20);

	if (n > (room - CACHE_NEW_HDR) / CACHE_NEW_ENTRY)
		n = (room - CACHE_NEW_HDR) / CACHE_NEW_ENTRY;
	for (uint64_t i = 0; i < n; i++) {
		const unsigned char *e = base + CACHE_NEW_HDR + i * CACHE_NEW_ENTRY;
		uint32_t value = get_u32(e + 8);
		const char *path = (const char *)base + value, *end, *name;

		if (value >= room || !(end = memchr(path, '\0', room - value)) || *path != '/')
			continue;
		name = strrchr(path, '/') + 1;
		if (end - path >= 4096 || !gpurt_probes_lib_wanted(p, name))
			continue;
		fn(path, arg);
		called++;
	}
	return called;
}

static void each_in_cache(const struct gpurt_probes *p, const char *file, gpurt_libpath_fn fn,
			  void *arg)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	unsigned char *buf = NULL;
	struct stat st;
	size_t got = 0;

	if (fd < 0)
		return;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (uint64_t)st.st_size > GPURT_LIBPATH_CACHE_MAX)
		goto cleanup;
	buf = malloc((size_t)st.st_size);
	if (!buf)
		goto cleanup;
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	gpurt_libpath_cache(p, buf, got, fn, arg);
cleanup:
	free(buf);
	close(fd);
}

void gpurt_libpath_each(const struct gpurt_probes *p, const char *ld_library_path,
			const char *ppu_home, const char *cache, gpurt_libpath_fn fn, void *arg)
{
	char dir[4096];

	if (ld_library_path) {
		/* the loader splits on ':' and ';' */
		const char *s = ld_library_path;

		for (int n = 0; *s && n < GPURT_LIBPATH_DIRS_MAX; n++) {
			size_t len = strcspn(s, ":;");

			if (len && len < sizeof(dir)) {
				memcpy(dir, s, len);
				dir[len] = '\0';
				each_in_dir(p, dir, fn, arg);
			}
			s += len;
			if (*s)
				s++;
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(sdk_dirs); i++) {
		snprintf(dir, sizeof(dir), "%s/%s", ppu_home ? ppu_home : LIBPATH_PPU_HOME_DEFAULT,
			 sdk_dirs[i]);
		each_in_dir(p, dir, fn, arg);
	}
	each_in_cache(p, cache ? cache : "/etc/ld.so.cache", fn, arg);
}
