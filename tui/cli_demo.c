/* agentctl demo: being written; replaced by the real command. */
#include "cli.h"

int cli_demo(cli_context *ctx, int argc, char **argv)
{
	(void)ctx;
	(void)argc;
	(void)argv;
	return cli_error(CLI_FAILED, "demo: not built yet");
}
