/* SPDX-License-Identifier: GPL-2.0-only */
/* The mem collector: system memory and each process's. */
#ifndef ASYS_MEM_H
#define ASYS_MEM_H

#include "collector.h"

extern const struct collector mem_collector;

#endif
