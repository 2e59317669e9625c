/* tests/codegen/load_obj.c: loads BPF objects written by `sprof --emit-elf`
 * through libbpf and the kernel verifier, nothing else (no attach).
 *
 *   load_obj FILE.o...   exit 0 when every object loads with its BTF,
 *                        1 when one fails (libbpf prints the verifier log),
 *                        77 when BPF is unavailable here (not root)
 *
 * Built by tests/tier_codegen.py; the codegen tier uses it to check that
 * what codegen emits passes the verifier, independently of the runtime.
 */
#include <bpf/libbpf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int load(const char *path)
{
	struct bpf_object *obj = bpf_object__open_file(path, NULL);
	int err;

	if (!obj) {
		printf("FAIL %s: cannot open\n", path);
		return 1;
	}
	err = bpf_object__load(obj);
	if (err)
		printf("FAIL %s: load: %s\n", path, strerror(-err));
	else if (bpf_object__btf_fd(obj) < 0)
		printf("FAIL %s: loaded without BTF\n", path);
	else
		printf("ok %s\n", path);
	err = err || bpf_object__btf_fd(obj) < 0;
	bpf_object__close(obj);
	return err;
}

int main(int argc, char **argv)
{
	int failed = 0;

	if (geteuid() != 0) {
		printf("not root: cannot load BPF\n");
		return 77;
	}
	libbpf_set_print(quiet);
	for (int i = 1; i < argc; i++)
		failed |= load(argv[i]);
	return failed ? 1 : 0;
}
