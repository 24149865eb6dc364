#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Prints the METRICS list of man/asys-serve.1 from `asys serve --list-metrics`
# (the families a scrape has, from the exposition's own table), as roff.
# Usage: scripts/man-metrics.sh [ASYS]; paste its output between the
# "metrics: begin" and "metrics: end" comments of the page
# (tests/serve/manlist.sh checks that they agree).
set -eu
"${1:-asys}" serve --list-metrics | awk '{
	name = $1; type = $2; unit = $3
	help = $0; sub(/^[^ ]+ [^ ]+ [^ ]+ /, "", help)
	gsub(/\\/, "\\e", help); gsub(/-/, "\\-", help)
	print ".TP"
	print ".B " name
	printf "%s%s: %s\n", type, unit == "-" ? "" : ", " unit, help
}'
