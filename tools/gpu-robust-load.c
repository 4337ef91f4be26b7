/* gpu-robust-load.c: loads each module file named on the command line through libtilert, each in a
 * child process with a 20-second alarm (tilert_init, tilert_module_load_file, tilert_kernel_get KERNEL),
 * and prints one line per file: how the child ended. A signal or the alarm is a crash or a hang of the
 * process that libtilert let through; tools/gpu-robust-check.sh counts them.
 *   gpu-robust-load KERNEL FILE...
 * Lines: "loaded FILE", "refused-file FILE: MESSAGE" (TILERT_ERR_FILE: libtilert's checks or the
 * module's tilec symbols), "refused FILE: MESSAGE" (another status: the driver said no),
 * "crashed FILE: signal N", "hung FILE". Exit status 0; 2 on bad usage or no driver. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tilert.h"

enum { NO_DRIVER = 100 };

static int
load(const char *kernel, const char *path)
{
	alarm(20);
	tilert_ctx *ctx;
	tilert_module *module;
	tilert_kernel *k;
	if (tilert_init(&ctx, 0)) {
		fprintf(stderr, "gpu-robust-load: %s\n", tilert_last_error());
		return NO_DRIVER;
	}
	int status = tilert_module_load_file(ctx, path, &module);
	if (!status)
		status = tilert_kernel_get(module, kernel, &k);
	if (status)
		printf("%s %s: %s\n", status == TILERT_ERR_FILE ? "refused-file" : "refused", path, tilert_last_error());
	else
		printf("loaded %s\n", path);
	fflush(stdout);
	return status;
}

int
main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: gpu-robust-load KERNEL FILE...\n");
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		fflush(stdout);
		pid_t pid = fork();
		if (pid < 0) {
			perror("gpu-robust-load: fork");
			return 2;
		}
		if (pid == 0)
			_exit(load(argv[1], argv[i]));
		int st = 0;
		while (waitpid(pid, &st, 0) < 0)
			;
		if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM)
			printf("hung %s\n", argv[i]);
		else if (WIFSIGNALED(st))
			printf("crashed %s: signal %d\n", argv[i], WTERMSIG(st));
		else if (WEXITSTATUS(st) == NO_DRIVER)
			return 2;
	}
	return 0;
}
