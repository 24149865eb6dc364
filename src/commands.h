/* The subcommands; src/main.c dispatches through its table. */
#ifndef ASYS_COMMANDS_H
#define ASYS_COMMANDS_H

int cmd_top(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);

#endif
