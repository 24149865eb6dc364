/* SPDX-License-Identifier: GPL-2.0-only */
/* The NIC collector's options: which NICs, how often. */
#ifndef ASYS_NIC_OPTS_H
#define ASYS_NIC_OPTS_H

#include <stdbool.h>

#include "options.h"

#define NIC_MAX_RE 32 /* --nic-device-include expressions */

struct nic_opts {
	bool metrics; /* --nic-metrics */
	bool metrics_given;
	const char *include; /* --nic-device-include: comma-joined EREs */
	double frequency;    /* --nic-metrics-frequency */
};

extern const struct opt_table nic_options;

#endif
