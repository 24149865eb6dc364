#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: none
# SIGKILL the recorder at 50 random moments (see tests/rec/test_kill.c).
exec "$top_builddir/tests/rec/test_kill" "$top_builddir/tests/rec/rec_synth"
