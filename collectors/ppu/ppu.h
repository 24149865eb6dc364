/* SPDX-License-Identifier: GPL-2.0-only */
/* The ppu collectors: device state (ppu) and GPM metrics (ppu_metrics)
 * through HGML/NVML, and the catalogue of the metrics, which the endpoint's
 * command line reads too. */
#ifndef ASYS_PPU_H
#define ASYS_PPU_H

#include "collector.h"
#include "ppu_catalogue.h"

extern const struct collector ppu_collector;
extern const struct collector ppu_metrics_collector;

#endif
