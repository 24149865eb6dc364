/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "procfs.h"
#include "strsafe.h"
#include "util.h"

/* Hand-rolled number reading: strtoull is locale-aware and several times
 * slower, and /proc/stat of a 192-CPU machine is parsed several times a
 * second. */

static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static const char *skip_line(const char *p)
{
	const char *nl = strchr(p, '\n');

	return nl ? nl + 1 : p + strlen(p);
}

/* Reads a decimal u64 after optional blanks. *ok = false when there are no
 * digits or the value overflows (the digits are still consumed). */
static const char *read_u64(const char *p, uint64_t *out, bool *ok)
{
	uint64_t v = 0;
	bool any = false, over = false;

	p = skip_blanks(p);
	while (*p >= '0' && *p <= '9') {
		unsigned d = (unsigned)(*p - '0');

		if (v > (UINT64_MAX - d) / 10)
			over = true;
		else
			v = v * 10 + d;
		any = true;
		p++;
	}
	*ok = any && !over;
	*out = *ok ? v : 0;
	return p;
}

/* A number token must end at a blank, a newline or the end. */
static bool token_end(const char *p)
{
	return *p == ' ' || *p == '\t' || *p == '\n' || *p == '\0';
}

int procfs_parse_stat(const char *buf, struct procfs_cpu_line *out, size_t n)
{
	size_t count = 0;
	const char *next;

	if (!buf)
		return -EINVAL;
	/* read_u64 and skip_blanks never cross a newline, so each line is parsed
	 * on its own and a bad one cannot spill into the next */
	for (const char *p = buf; *p; p = next) {
		struct procfs_cpu_line line;
		uint64_t cpu;
		bool ok, bad = false;

		next = skip_line(p);
		if (strncmp(p, "cpu", 3))
			continue;
		p += 3;
		if (*p == ' ' || *p == '\t') {
			line.cpu = PROCFS_CPU_TOTAL;
		} else {
			p = read_u64(p, &cpu, &ok);
			if (!ok || cpu >= PROCFS_CPU_MAX || !token_end(p))
				continue; /* "cpufreq", "cpu99999999", "cpu1x" */
			line.cpu = (int)cpu;
		}
		for (int i = 0; i < PROCFS_CPU_NFIELDS; i++) {
			const char *q;
			uint64_t v;

			line.v[i] = NAN;
			if (bad)
				continue;
			q = skip_blanks(p);
			p = read_u64(q, &v, &ok);
			if (!token_end(p) || (!ok && p == q)) {
				bad = true; /* the rest of this line is not to be trusted */
				continue;
			}
			/* digits that overflow a u64: unknown, but the line goes on */
			line.v[i] = ok ? (double)v : NAN;
		}
		if (count < n)
			out[count] = line;
		if (++count > PROCFS_CPU_MAX)
			break;
	}
	return count ? (int)count : -EINVAL;
}

int procfs_parse_cpulist(const char *buf, uint8_t *set, size_t n)
{
	const char *p = buf;
	int top = 0;

	if (!buf)
		return -EINVAL;
	p = skip_blanks(p);
	if (*p == '\n' || *p == '\0')
		return 0;
	for (;;) {
		uint64_t a, b;
		bool ok;

		p = read_u64(p, &a, &ok);
		if (!ok || a >= PROCFS_CPU_MAX)
			return -EINVAL;
		b = a;
		if (*p == '-') {
			p = read_u64(p + 1, &b, &ok);
			if (!ok || b >= PROCFS_CPU_MAX || b < a)
				return -EINVAL;
		}
		for (uint64_t c = a; c <= b && c < n; c++)
			set[c] = 1;
		if ((int)b + 1 > top)
			top = (int)b + 1;
		if (*p == ',') {
			p++;
			continue;
		}
		p = skip_blanks(p);
		if (*p == '\n' || *p == '\0')
			return top;
		return -EINVAL;
	}
}

int procfs_parse_meminfo(const char *buf, struct procfs_meminfo *m)
{
	static const struct {
		const char *key;
		size_t len, off;
	} keys[] = {
	    {"MemTotal:", sizeof("MemTotal:") - 1, offsetof(struct procfs_meminfo, total)},
	    {"MemFree:", sizeof("MemFree:") - 1, offsetof(struct procfs_meminfo, free)},
	    {"MemAvailable:", sizeof("MemAvailable:") - 1,
	     offsetof(struct procfs_meminfo, available)},
	    {"Buffers:", sizeof("Buffers:") - 1, offsetof(struct procfs_meminfo, buffers)},
	    {"Cached:", sizeof("Cached:") - 1, offsetof(struct procfs_meminfo, cached)},
	    {"SwapTotal:", sizeof("SwapTotal:") - 1, offsetof(struct procfs_meminfo, swap_total)},
	    {"SwapFree:", sizeof("SwapFree:") - 1, offsetof(struct procfs_meminfo, swap_free)},
	    {"Shmem:", sizeof("Shmem:") - 1, offsetof(struct procfs_meminfo, shmem)},
	    {"SReclaimable:", sizeof("SReclaimable:") - 1,
	     offsetof(struct procfs_meminfo, sreclaimable)},
	};
	int found = 0;
	unsigned seen = 0, all = (1u << ARRAY_SIZE(keys)) - 1;

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		*(double *)((char *)m + keys[i].off) = NAN;
	if (!buf)
		return 0;
	/* Runs at up to 1 kHz over ~55 lines: match a line's key by its length
	 * first, and stop once every key has been seen (they are in the first
	 * half of the file). */
	for (const char *p = buf; *p && seen != all; p = skip_line(p)) {
		const char *colon = p;

		while (*colon && *colon != ':' && *colon != '\n')
			colon++;
		if (*colon != ':')
			continue;
		for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
			size_t kl = keys[i].len;
			double *dst = (double *)((char *)m + keys[i].off);
			uint64_t v;
			bool ok;
			const char *q;

			if (kl != (size_t)(colon - p) + 1 || memcmp(p, keys[i].key, kl))
				continue;
			seen |= 1u << i;
			q = read_u64(p + kl, &v, &ok);
			q = skip_blanks(q);
			/* every line we want is in kB; anything else is not understood */
			if (ok && !strncmp(q, "kB", 2) && v <= UINT64_MAX / 1024) {
				*dst = (double)v * 1024.0;
				found++;
			}
			break;
		}
	}
	return found;
}

/* Kernels before 3.14 have no MemAvailable; free(1) uses this there. */
static double mem_used_no_available(const struct procfs_meminfo *m)
{
	double used;

	if (isnan(m->total) || isnan(m->free) || isnan(m->cached))
		return NAN;
	used = m->total - m->free - m->cached;
	if (!isnan(m->buffers))
		used -= m->buffers;
	if (!isnan(m->sreclaimable))
		used -= m->sreclaimable;
	return used < 0 ? NAN : used;
}

double procfs_mem_used(const struct procfs_meminfo *m)
{
	double avail = m->available, used;

	if (isnan(avail))
		return mem_used_no_available(m);
	if (isnan(m->total))
		return NAN;
	/* procps-ng 4: inside a container the host's figures can show through
	 * and make MemAvailable exceed MemTotal; free(1) takes MemFree then */
	if (avail > m->total)
		avail = m->free;
	used = m->total - avail;
	if (used < 0 || isnan(used))
		used = m->total - m->free;
	return used < 0 ? NAN : used;
}

double procfs_mem_buff_cache(const struct procfs_meminfo *m)
{
	double c = m->cached;

	if (isnan(c))
		return NAN;
	if (!isnan(m->buffers))
		c += m->buffers;
	if (!isnan(m->sreclaimable))
		c += m->sreclaimable;
	return c;
}

static void copy_field(char *dst, size_t n, const char *p)
{
	size_t i = 0;

	p = skip_blanks(p);
	while (i + 1 < n && *p && *p != '\n') {
		dst[i++] = str_ascii_control((unsigned char)*p) ? ' ' : *p;
		p++;
	}
	dst[i] = '\0';
}

int procfs_parse_status(const char *buf, struct procfs_status *s)
{
	int found = 0;

	s->name[0] = '\0';
	s->rss = s->hwm = s->uid = s->ppid = s->threads = NAN;
	if (!buf)
		return 0;
	for (const char *p = buf; *p; p = skip_line(p)) {
		double *dst = NULL;
		bool kb = false;
		uint64_t v;
		bool ok;
		const char *q;

		/* dispatch on the first letters: status has ~55 lines */
		if (!strncmp(p, "Name:", 5)) {
			copy_field(s->name, sizeof(s->name), p + 5);
			found++;
			continue;
		} else if (!strncmp(p, "VmRSS:", 6)) {
			dst = &s->rss, kb = true, p += 6;
		} else if (!strncmp(p, "VmHWM:", 6)) {
			dst = &s->hwm, kb = true, p += 6;
		} else if (!strncmp(p, "Uid:", 4)) {
			dst = &s->uid, p += 4;
		} else if (!strncmp(p, "PPid:", 5)) {
			dst = &s->ppid, p += 5;
		} else if (!strncmp(p, "Threads:", 8)) {
			dst = &s->threads, p += 8;
		} else {
			continue;
		}
		q = read_u64(p, &v, &ok);
		if (!ok)
			continue;
		if (kb) {
			q = skip_blanks(q);
			if (strncmp(q, "kB", 2) || v > UINT64_MAX / 1024)
				continue;
			*dst = (double)v * 1024.0;
		} else {
			if (!token_end(q))
				continue;
			*dst = (double)v;
		}
		found++;
	}
	return found;
}

int procfs_parse_pid_stat(const char *buf, struct procfs_pid_stat *s)
{
	const char *open, *close, *p;
	uint64_t v[22];
	bool ok, neg[22];
	size_t len;

	memset(s, 0, sizeof(*s));
	if (!buf)
		return -EINVAL;
	open = strchr(buf, '(');
	close = strrchr(buf, ')');
	if (!open || !close || close < open)
		return -EINVAL;
	p = read_u64(buf, &v[0], &ok);
	if (!ok || v[0] > INT32_MAX || p > open)
		return -EINVAL;
	s->pid = (pid_t)v[0];
	len = (size_t)(close - open - 1);
	if (len >= sizeof(s->comm))
		len = sizeof(s->comm) - 1;
	memcpy(s->comm, open + 1, len);
	s->comm[len] = '\0';
	p = skip_blanks(close + 1);
	if (!*p || *p == '\n')
		return -EINVAL;
	s->state = *p++;
	/* fields 4.. (ppid) up to 24 (rss): all non-negative in practice, but a
	 * few are signed; a '-' makes the line garbage for our purposes except
	 * where noted */
	for (int i = 0; i < 21; i++) {
		p = skip_blanks(p);
		/* tpgid, cutime, cstime, priority, nice, itrealvalue are signed;
		 * only nice's sign is kept */
		neg[i] = *p == '-' && (i == 4 || (i >= 12 && i <= 15) || i == 17);
		if (neg[i])
			p++;
		p = read_u64(p, &v[i], &ok);
		if (!ok || !token_end(p))
			return -EINVAL;
	}
	/* v[0] = ppid (field 4), flags 9 -> v[5], minflt 10 -> v[6], majflt 12 -> v[8],
	 * utime 14 -> v[10], stime 15 -> v[11], nice 19 -> v[15], num_threads 20 -> v[16],
	 * starttime 22 -> v[18], rss 24 -> v[20] */
	if (v[0] > INT32_MAX || v[15] > 40)
		return -EINVAL;
	s->ppid = (pid_t)v[0];
	s->flags = v[5];
	s->minflt = v[6];
	s->majflt = v[8];
	s->nice = neg[15] ? -(int64_t)v[15] : (int64_t)v[15];
	s->utime = v[10];
	s->stime = v[11];
	s->num_threads = v[16] > INT64_MAX ? -1 : (int64_t)v[16];
	s->starttime = v[18];
	s->rss_pages = v[20] > INT64_MAX ? -1 : (int64_t)v[20];
	return 0;
}

int procfs_parse_statm_resident(const char *buf, uint64_t *pages)
{
	uint64_t size;
	bool ok;
	const char *p;

	if (!buf)
		return -EINVAL;
	p = read_u64(buf, &size, &ok);
	if (!ok || !token_end(p))
		return -EINVAL;
	p = read_u64(p, pages, &ok);
	if (!ok || !token_end(p))
		return -EINVAL;
	return 0;
}

void procfs_format_cmdline(const char *buf, size_t len, const char *comm, char *out, size_t n)
{
	size_t o = 0;

	if (!n)
		return;
	for (size_t i = 0; buf && i < len && o + 1 < n; i++) {
		unsigned char c = (unsigned char)buf[i];

		out[o++] = str_ascii_control(c) ? ' ' : (char)c;
	}
	while (o > 0 && out[o - 1] == ' ')
		o--;
	out[o] = '\0';
	if (o == 0)
		snprintf(out, n, "[%s]", comm && *comm ? comm : "?");
}

int procfs_parse_pidlist(const char *buf, pid_t *out, size_t n)
{
	const char *p = buf;
	size_t count = 0;

	if (!buf)
		return -EINVAL;
	for (;;) {
		uint64_t v;
		bool ok;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		p = read_u64(p, &v, &ok);
		if (!ok || v == 0 || v > INT32_MAX || !token_end(p))
			return -EINVAL;
		if (count < n)
			out[count] = (pid_t)v;
		count++;
		if (count >= INT32_MAX)
			break;
	}
	return (int)count;
}

pid_t procfs_pid_from_name(const char *name)
{
	uint64_t v;
	bool ok;
	const char *p;

	if (!name || *name < '1' || *name > '9')
		return -1;
	p = read_u64(name, &v, &ok);
	if (!ok || *p || v > INT32_MAX)
		return -1;
	return (pid_t)v;
}
