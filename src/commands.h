/* The subcommands; src/main.c dispatches through its table. */
#ifndef ASYS_COMMANDS_H
#define ASYS_COMMANDS_H

int cmd_top(int argc, char **argv);

#endif
