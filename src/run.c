/* run.c: tilec run: compiles a kernel for the CPU emulator, runs it and checks its outputs. */
#include "tilec.h"

int
tilec_run(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("tilec: error: 'tilec run' is being written\n", stderr);
	return 2;
}
