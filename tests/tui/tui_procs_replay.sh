#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# needs: tmux
# The process table over a recording of fixed processes (proc_rec): the
# columns of proc.cpu and ppu.proc_util, the filter in the title, the tree,
# the groups per container, the details, and k refused because a replay's
# processes are not this machine's. At 80x24 the optional columns drop.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tui/tmux_lib.sh"

REC="$TDIR/procs.asys"
"$top_builddir/tests/tui/proc_rec" "$REC" 120 || fail "proc_rec could not write $REC"

TUI_SUB=replay TUI_READY='asys replay' tui_start 160 48 -- "$REC"
keys 4
wait_for 'python train.py' 10 || fail "no process rows from the recording"
wait_for 'PID USER +S +NI CPU%.* TIME\+ +RSS +HWM +MEM% +THR +PPU% CONTAINER +COMMAND' 5 ||
	fail "the header lacks the process columns"
# train.py: R, nice 5, 75 % CPU, 42.5 % PPU (30 + 12.5 on two devices)
wait_for '100 root +R +5 +75\.0 .* 25\.0 +8 +42\.5 pod 1a2b3c4d +python train\.py' 5 ||
	fail "train.py's row is not as recorded"
cap | grep -q 'kthreadd' && fail "a kernel thread is shown before K"
cap | grep -q ' k kill' && fail "the hint line offers k in a replay"

keys k
wait_for 'not in a replay' 5 || fail "k was not refused in the replay"
cap | grep -q 'Send signal' && fail "k opened the signal list in a replay"

keys / w o r k
wait_for 'filter: work' 5 || fail "the filter is not in the title"
wait_gone 'train\.py' 5 || fail "the filter did not narrow the table"
cap | grep -q 'python worker.py' || fail "the filter hid its match"
keys Escape
wait_for 'train\.py' 5 || fail "Esc did not clear the filter"

keys t
wait_for '├─ python train\.py' 5 || fail "no tree after t"
cap | grep -q '│  └─ python worker\.py' || fail "worker.py is not under train.py in the tree"
keys t G
wait_for 'pod 1a2b3c4d \(2 processes\)' 5 || fail "G did not group by container"
pod=$(cap | grep 'pod 1a2b3c4d (2 processes)')
echo "$pod" | grep -Eq '^│ +2 +100\.0 .* 1\.5G +37\.5 +10 +62\.5 pod' ||
	fail "the pod's sums are not 100 % CPU, 1.5G, 37.5 %, 10 threads, 62.5 % PPU: $pod"
keys G

keys Enter
wait_for 'Details of 100' 5 || fail "Enter did not open the details"
cap | grep -q 'cgroup    (not recorded)' || fail "the details claim a cgroup in a replay"
cap | grep -q 'PPUs      0,1' || fail "the details lack the PPUs"
keys Escape
wait_gone 'Details of' 5 || fail "Esc did not close the details"

keys h
wait_for 'filter processes' 5 || fail "the help lacks the process keys"
cap | grep -q 'send a signal' && fail "the help offers k in a replay"
keys Escape
quit_ok "replay"
tui_stop

# 80x24: the optional columns give way to COMMAND
TUI_SUB=replay TUI_READY='asys replay' tui_start 80 24 -- "$REC"
keys 4
wait_for 'PID USER +S +CPU%.* TIME\+ +RSS +MEM% +PPU% COMMAND' 10 ||
	fail "80x24: not the columns of the documented drop order"
check_layout 80 24
quit_ok "replay 80x24"
echo "PASS: the process table over a recording"
