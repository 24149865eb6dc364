/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <strings.h>

#include "proc_cols.h"

int proc_col_find(const char *title)
{
	for (int i = 0; title && *title && proc_col_title(i); i++)
		if (!strcasecmp(proc_col_title(i), title))
			return i;
	return -1;
}

int proc_cols_order(const struct set_list *l, int *order, bool *shown)
{
	const char *titles[PROC_COLS_MAX];
	int n = 0, k = 0;

	while (n < PROC_COLS_MAX && (titles[n] = proc_col_title(n)) != NULL)
		n++;
	if (!n)
		return 0;
	settings_order(l, titles, n, order, shown);
	/* the last column takes the rest of the width: last, and always there */
	for (int j = 0; j < n; j++)
		if (order[j] != n - 1)
			order[k++] = order[j];
	order[k] = n - 1;
	shown[n - 1] = true;
	return n;
}
