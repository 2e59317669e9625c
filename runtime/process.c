/* runtime/process.c: one /proc/PID/maps snapshot, two consumers (see process.h). */
#include "runtime/process.h"

#include "runtime/stacks/procmaps.h"
#include "runtime/langs/lang.h"
#include "runtime/stacks/symbolize.h"
#include "runtime/stacks/unwind.h"

int sp_process__add(const struct sp_consumers *c, pid_t pid, bool refresh)
{
	struct sp_symbolizer *s = c->sym;
	struct sp_unwind *u = c->unw;
	bool want_sym = s && (refresh || !sp_symbolizer__has_pid(s, pid));
	bool want_unw = sp_unwind__wants(u, pid);
	bool want_py = sp_langs__any(c->langs) && pid > 0;
	struct sp_procmaps pm;
	int err, err2 = 0;

	if (!want_sym && !want_unw && !want_py)
		return 0;
	err = sp_procmaps__read(&pm, pid, NULL);
	if (want_sym)
		err2 = sp_symbolizer__add_maps(s, pid, &pm, err);
	if (want_unw && !err)
		err2 = err2 ? err2 : sp_unwind__add_maps(u, pid, &pm);
	if (want_py && !err) {
		int e3 = sp_langs__add_maps(c->langs, pid, &pm);

		err2 = err2 ? err2 : e3;
	}
	sp_procmaps__free(&pm);
	return err ? err : err2 < 0 ? err2 : 0;
}
