/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ASYS_REGISTRY_H
#define ASYS_REGISTRY_H

#include "collector.h"

/* NULL-terminated, in display order. */
extern const struct collector *const collector_registry[];

#endif
