/* tests/unit/test_process.c: one reading of /proc/PID/maps feeds both consumers.
 *
 * Starts `sleep`, compiles a ustack program with this build's sprof
 * (--emit-elf, no root needed for that), loads it so the unwinder's maps
 * exist, then hands the process to the process layer and counts the reads
 * of /proc/PID/maps: one per event, however many consumers, and the
 * symbolizer and the unwinder both hold the process afterwards. Needs root
 * for the BPF maps (exit 77 otherwise).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "runtime/process.h"
#include "runtime/stacks/procmaps.h"
#include "runtime/stacks/symbolize.h"
#include "runtime/stacks/unwind.h"
#include "tests/unit/check.h"

/* `sleep 30`, returned once it runs sleep (not the fork of this test, which
 * maps libc too) and the dynamic loader has mapped its libc, so the
 * mappings are the ones it keeps while sleeping. */
static pid_t start_sleep(void)
{
	char path[64], exe[64], target[PATH_MAX], line[512];
	pid_t pid = fork();

	if (pid == 0) {
		execl("/bin/sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
	for (int i = 0; i < 400; i++) {
		FILE *f = fopen(path, "re");
		ssize_t n = readlink(exe, target, sizeof(target) - 1);
		int ready = 0;

		/* the forked copy maps libc too: first the exec, then its libc */
		if (n > 0) {
			target[n] = '\0';
			while (f && strstr(target, "sleep") && !ready && fgets(line, sizeof(line), f))
				ready = strstr(line, "/libc.so") != NULL;
		}
		if (f)
			fclose(f);
		if (ready)
			return pid;
		usleep(5000);
	}
	return pid;
}

/* This build's sprof writes a ustack program's object to `out`. */
static int emit_object(const char *argv0, const char *out)
{
	char self[PATH_MAX], cmd[3 * PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	(void)argv0;
	if (n <= 0)
		return -1;
	self[n] = '\0';
	/* build/tests/unit/test_process -> build/sprof */
	snprintf(cmd, sizeof(cmd),
		 "'%s/../../sprof' -d ir --emit-elf '%s' 'profile:hz:99 { @[ustack] = count(); }' >/dev/null",
		 dirname(self), out);
	return system(cmd) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	char obj_path[] = "/tmp/sprof-test-process-XXXXXX";
	struct bpf_object *obj = NULL;
	struct sp_symbolizer *sym;
	struct sp_unwind *unw;
	struct sp_unwind_stats st;
	unsigned long before;
	pid_t pid;
	int fd, err;

	(void)argc;
	if (geteuid() != 0) {
		printf("needs root for the unwinder's BPF maps\n");
		return 77;
	}
	fd = mkstemp(obj_path);
	if (fd < 0 || emit_object(argv[0], obj_path) != 0) {
		fprintf(stderr, "cannot compile the test program with sprof\n");
		return 1;
	}
	close(fd);
	obj = bpf_object__open_file(obj_path, NULL);
	CHECK(obj != NULL, "open the emitted object");
	unw = obj ? sp_unwind__open(obj, 1u << 16) : NULL;
	CHECK(unw != NULL, "unwinder opened on the object");
	CHECK(obj && bpf_object__load(obj) == 0, "object loads");
	sym = sp_symbolizer__open();
	pid = start_sleep();

	before = sp_procmaps__reads();
	err = sp_process__add(&(struct sp_consumers){ .sym = sym, .unw = unw }, pid, true);
	CHECK(err == 0, "add the process: %s", strerror(-err));
	CHECK(sp_procmaps__reads() - before == 1, "one read of /proc/%d/maps for two consumers, got %lu",
	      (int)pid, sp_procmaps__reads() - before);
	CHECK(sp_symbolizer__has_pid(sym, pid), "the symbolizer holds the process");
	sp_unwind__stats(unw, &st);
	CHECK(st.procs == 1 && st.files > 0, "the unwinder holds the process (%d procs, %d files)",
	      st.procs, st.files);

	/* A second event (dlopen, exec): again one read. */
	before = sp_procmaps__reads();
	sp_process__add(&(struct sp_consumers){ .sym = sym, .unw = unw }, pid, true);
	CHECK(sp_procmaps__reads() - before == 1, "a refresh reads once, got %lu",
	      sp_procmaps__reads() - before);

	/* Known to the symbolizer, not refreshed, no unwinder: nothing to read. */
	before = sp_procmaps__reads();
	sp_process__add(&(struct sp_consumers){ .sym = sym }, pid, false);
	CHECK(sp_procmaps__reads() == before, "a known process is not read again");

	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	CHECK(sp_process__add(&(struct sp_consumers){ .sym = sym, .unw = unw }, pid, true) == -ESRCH, "a gone process is -ESRCH");

	sp_symbolizer__destroy(sym);
	sp_unwind__destroy(unw);
	bpf_object__close(obj);
	unlink(obj_path);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
