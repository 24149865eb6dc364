/* SPDX-License-Identifier: GPL-2.0-only */
/* The kernel time collector: kernel GPU time and copies of a workload
 * started after `--`, from the section libasys-inject.so fills through
 * CUPTI's Activity API, and what the command sets in the workload's
 * environment for it. */
#ifndef ASYS_KTIME_H
#define ASYS_KTIME_H

#include "collector.h"
#include "ktime_inject.h"

extern const struct collector ktime_collector;

#endif
