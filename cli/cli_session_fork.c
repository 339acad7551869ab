/* placeholder */
#include "cli.h"
int cli_session_fork(const cli_context *ctx, int argc, char **argv)
{
	(void)ctx; (void)argc; (void)argv;
	return cli_error(CLI_USAGE, "not yet");
}
int cli_session_export(const cli_context *ctx, int argc, char **argv)
{
	(void)ctx; (void)argc; (void)argv;
	return cli_error(CLI_USAGE, "not yet");
}
