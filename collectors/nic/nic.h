/* SPDX-License-Identifier: GPL-2.0-only */
/* The nic collector: NIC rates over rtnetlink and RDMA counters. */
#ifndef ASYS_NIC_H
#define ASYS_NIC_H

#include "collector.h"

extern const struct collector nic_collector;

#endif
