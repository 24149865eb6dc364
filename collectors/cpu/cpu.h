/* SPDX-License-Identifier: GPL-2.0-only */
/* The cpu collector: per-core utilisation, frequency and, with libpfm4,
 * perf counters. */
#ifndef ASYS_CPU_H
#define ASYS_CPU_H

#include "collector.h"

extern const struct collector cpu_collector;

#endif
