/* SPDX-License-Identifier: GPL-2.0-only */
/* What the parts of the test HGML (libhgml.c, libhgml_util.c) share: the
 * return codes, the device handle, the process list and the exports. */
#ifndef ASYS_FAKE_LIBHGML_INT_H
#define ASYS_FAKE_LIBHGML_INT_H

#define FK_OK 0
#define FK_UNINITIALIZED 1
#define FK_INVALID_ARGUMENT 2
#define FK_NOT_SUPPORTED 3
#define FK_NO_PERMISSION 4
#define FK_NOT_FOUND 6
#define FK_INSUFFICIENT_SIZE 7
#define FK_DRIVER_NOT_LOADED 9
#define FK_GPU_IS_LOST 15
#define FK_IN_USE 19
#define FK_ARGUMENT_VERSION_MISMATCH 25

#define FK_MAX_DEV 64
#define FK_GIB (1024ull * 1024 * 1024)

struct fk_dev {
	unsigned int index;
	_Atomic unsigned long long seq;
};

/* CLOCK_REALTIME us at the first init, and now. */
extern _Atomic unsigned long long fk_util_t0;
unsigned long long fk_real_us(void);
/* 1 when env is "all" or a comma list naming d. */
int fk_in_list(const char *env, unsigned int d);
/* FK_OK, or why device dv cannot answer (uninitialised, lost). */
int fk_dev_ok(const struct fk_dev *dv);
/* Device d's processes: their count and process i's pid and memory. */
unsigned int fk_nproc_all(unsigned int d);
void fk_proc_at(unsigned int d, unsigned int i, unsigned int *pid, unsigned long long *used);

#define FK_EXPORT __attribute__((visibility("default")))
#define FK_BOTH(ret, name, params, args, impl)                                                     \
	FK_EXPORT ret hgml##name params;                                                           \
	FK_EXPORT ret nvml##name params;                                                           \
	FK_EXPORT ret hgml##name params                                                            \
	{                                                                                          \
		return impl args;                                                                  \
	}                                                                                          \
	FK_EXPORT ret nvml##name params                                                            \
	{                                                                                          \
		return impl args;                                                                  \
	}

#endif
