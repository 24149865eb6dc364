/* The windows a frame keeps from one frame to the next (struct tui_wins). */
#include "config.h"

#include "tui_int.h"

WINDOW *tui_win_keep(WINDOW **kept, int rows, int cols, int y, int x)
{
	WINDOW *w = *kept;

	if (w && getmaxy(w) == rows && getmaxx(w) == cols && getbegy(w) == y && getbegx(w) == x) {
		wattrset(w, A_NORMAL);
		werase(w);
		return w;
	}
	if (w)
		delwin(w);
	*kept = newwin(rows, cols, y, x);
	return *kept;
}

void tui_wins_free(struct tui *t)
{
	struct tui_wins *k = &t->win;
	WINDOW **all[] = {&k->head, &k->bottom, &k->msg, &k->body};

	for (int i = 0; i < TUI_MAX_PANES; i++) {
		if (k->inner[i])
			delwin(k->inner[i]);
		if (k->box[i])
			delwin(k->box[i]);
		k->inner[i] = k->box[i] = NULL;
	}
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		if (*all[i])
			delwin(*all[i]);
		*all[i] = NULL;
	}
}
