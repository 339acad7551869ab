/* agentctl ops: being written (issue 4); replaced by the real command. */
#include "cli.h"

int cli_ops(cli_context *ctx, int argc, char **argv)
{
	(void)ctx;
	(void)argc;
	(void)argv;
	return cli_error(CLI_FAILED, "ops: not built yet");
}
