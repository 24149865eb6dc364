/* SPDX-License-Identifier: GPL-2.0-only */
/* Per-process PPU utilisation for the ppu collector (ppu.c): the stream
 * ppu.proc_util, read with HGML/NVML's GetProcessesUtilizationInfo or, from
 * an older library, GetProcessUtilization (ppu_lib.c). */
#ifndef ASYS_PPU_PUTIL_H
#define ASYS_PPU_PUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "catalogue.h"
#include "collector.h"
#include "ppu_lib.h"

struct ppu_putil_proc {
	unsigned int pid;
	uint64_t seen_ns; /* the last tick it had a sample or was on the device */
};

struct ppu_putil_dev {
	unsigned long long last_seen; /* the newest sample read, library us */
	bool unsupported;
	struct ppu_putil_proc *procs; /* the processes with a series */
	size_t nprocs, cap;
};

struct ppu_putil {
	int stream;
	int api; /* as ppu_lib's util_api; 1 after the newer call is refused */
	unsigned int ndev;
	struct ppu_putil_dev *devs;
	void *buf;	  /* cap entries of PPU_PROC_UTIL_STRIDE bytes */
	unsigned int cap; /* never above PPU_PUTIL_MAX */
	bool said;	  /* the stream's status was given */
};

/* The most samples one read may hold (40 bytes each): the library's
 * buffered history of a few thousand processes. */
#define PPU_PUTIL_MAX 16384u

/* 0 or -ENOMEM. pu is zeroed first; stream is the registered ppu.proc_util. */
int ppu_putil_init(struct ppu_putil *pu, int stream, const struct ppu_lib *l, unsigned int ndev);
void ppu_putil_fini(struct ppu_putil *pu);
/* One tick of device dev. running: the processes the device lists this
 * tick, or NULL when it could not list them. Returns PPU_ERR_GPU_IS_LOST
 * when the device is lost, else PPU_OK. */
ppu_ret_t ppu_putil_sample(struct ppu_putil *pu, const struct ppu_lib *l, struct emitter *out,
			   unsigned int dev, ppu_device_t h, const unsigned int *running,
			   size_t nrunning, uint64_t ts);
/* The label of a device process's series: "pid comm". */
void ppu_proc_label(unsigned int pid, char *buf, size_t n);
/* The device is gone: so are its processes' series. */
void ppu_putil_gone(struct ppu_putil *pu, struct emitter *out, unsigned int dev, uint64_t ts);

#endif
