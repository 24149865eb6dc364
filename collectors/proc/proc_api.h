/* SPDX-License-Identifier: GPL-2.0-only */
/* proc: what the collectors read of /proc and of each process, for the
 * cpu, mem and hgtx collectors: the parsers, the CPU time each process ran
 * (procrun) and what it runs in (procgroup). */
#ifndef ASYS_PROC_API_H
#define ASYS_PROC_API_H

#include "procfs.h"
#include "procgroup.h"
#include "procrun.h"

#endif
