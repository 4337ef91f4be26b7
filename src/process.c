/* process.c: child processes and temporary files, removed when tilec exits or is interrupted (SIGINT, SIGTERM, SIGHUP). */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "tilec.h"

/* A signal can come at any point, so the handler reads only these fixed slots: copies of the paths
 * (a slot counts once `kind` is set, after its path is written) and the pid of the one child that
 * runs at a time. */
#define MAX_TEMPS 16
static char temps[MAX_TEMPS][PATH_MAX];
static volatile sig_atomic_t kind[MAX_TEMPS]; /* 0 free, 1 file, 2 directory */
static volatile pid_t child;

/* Files (pass 1) before directories (pass 2): a directory goes once its files are gone. */
static void
remove_all(void)
{
	if (child > 0)
		kill(child, SIGKILL);
	for (int pass = 1; pass <= 2; pass++) {
		for (int i = MAX_TEMPS - 1; i >= 0; i--) {
			if (kind[i] != pass)
				continue;
			if (pass == 2)
				rmdir(temps[i]);
			else
				unlink(temps[i]);
			kind[i] = 0;
		}
	}
}

static void
on_signal(int sig)
{
	remove_all();
	/* die of the same signal, so the caller (a shell, make) sees what happened */
	signal(sig, SIG_DFL);
	raise(sig);
}

void
process_install(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sigaction(sigs[i], NULL, &sa);
		if (sa.sa_handler == SIG_IGN)
			continue; /* started with the signal ignored (nohup): keep it so */
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		sa.sa_flags = 0;
		sigaction(sigs[i], &sa, NULL);
	}
	atexit(remove_all);
}

static void
add(const char *path, int what)
{
	if (strlen(path) >= PATH_MAX)
		return; /* mkstemp could not have made it either */
	for (int i = 0; i < MAX_TEMPS; i++) {
		if (!kind[i]) {
			strcpy(temps[i], path);
			kind[i] = what;
			return;
		}
	}
	/* never more than a few at once; past MAX_TEMPS a path is only removed by its normal path */
}

void
process_temp_file(const char *path)
{
	add(path, 1);
}

/* mkstemp, with the file registered for removal before a signal can arrive: a SIGTERM between the
   two left the staged file behind. */
int
process_mkstemp(char *path)
{
	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &old);
	int fd = mkstemp(path);
	if (fd >= 0)
		process_temp_file(path);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return fd;
}

void
process_temp_dir(const char *path)
{
	add(path, 2);
}

void
process_forget(const char *path)
{
	for (int i = 0; i < MAX_TEMPS; i++)
		if (kind[i] && strcmp(temps[i], path) == 0)
			kind[i] = 0;
}

/* Runs argv; with capture, its stdout and stderr together are read into capture. */
static int
run_child(char *const argv[], bool stdout_to_stderr, unsigned seconds, Buf *capture)
{
	int fds[2] = {-1, -1};
	if (capture && pipe(fds) != 0)
		return -1;
	fflush(stdout);
	fflush(stderr);
	/* no signal between the fork and the note of the child's pid: the handler would miss the child */
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid == 0) {
#ifdef __linux__
		/* a SIGKILL of tilec runs no handler: the child (an emulated kernel may spin for minutes) dies with
		   it all the same; a parent already gone before the prctl leaves the child to init */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
#else
		(void)parent;
#endif
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (stdout_to_stderr)
			dup2(2, 1);
		if (capture) {
			dup2(fds[1], 1);
			dup2(fds[1], 2);
			close(fds[0]);
			close(fds[1]);
		}
		if (seconds)
			alarm(seconds); /* kept across exec: SIGALRM ends the program */
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid > 0)
		child = pid; /* a signal to tilec stops it too */
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (capture) {
		close(fds[1]);
		char chunk[4096];
		ssize_t n;
		while (pid > 0 && (n = read(fds[0], chunk, sizeof chunk)) != 0) {
			if (n > 0)
				buf_putn(capture, chunk, (size_t)n);
			else if (errno != EINTR)
				break;
		}
		close(fds[0]);
	}
	if (pid < 0)
		return -1;
	int status;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			child = 0;
			return -1;
		}
	}
	child = 0;
	if (WIFEXITED(status))
		return WEXITSTATUS(status) == 127 ? -1 : WEXITSTATUS(status);
	return 1000 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

int
process_run(char *const argv[], bool stdout_to_stderr)
{
	return run_child(argv, stdout_to_stderr, 0, NULL);
}

int
process_run_limited(char *const argv[], bool stdout_to_stderr, unsigned seconds)
{
	return run_child(argv, stdout_to_stderr, seconds, NULL);
}

int
process_output(char *const argv[], Buf *out)
{
	return run_child(argv, false, 0, out);
}

char *
process_temp_mkdir(const char *prefix)
{
	/* a $TMPDIR that does not exist (or is not a directory) is ignored, as by most tools */
	const char *env = getenv("TMPDIR");
	struct stat st;
	const char *tmpdir = env && *env && stat(env, &st) == 0 && S_ISDIR(st.st_mode) ? env : "/tmp";
	char *dir = pool_printf("%s/%s-XXXXXX", tmpdir, prefix);
	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &old);
	bool made = mkdtemp(dir) != NULL;
	if (made)
		process_temp_dir(dir);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return made ? dir : NULL;
}
