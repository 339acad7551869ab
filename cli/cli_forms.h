/* The forms `agentctl --help` and `agentctl help COMMAND` show, one a
 * line, made from the command specs (cli_args.h): a spec's name, its
 * arguments and its options as "[--opt ARG]", specs of one command with
 * the same arguments and options on one line ("session
 * pause|resume|complete|fail ID [--request-id R]"), or the spec's own
 * usage string. */
#ifndef CLI_FORMS_H
#define CLI_FORMS_H

#include <stdio.h>

/* Writes command's forms (command NULL: every command's, in the specs'
 * order), the first line after lead, the others after "       agentctl
 * [-w DIR] ". */
void cli_forms_put(FILE *out, const char *command, const char *lead);

#endif
