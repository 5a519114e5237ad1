/*
 * test/fuzz/asan_landing.c
 *	  The sanitized build's clearing of the stack an ERROR left (see
 *	  asan_landing.h).
 */
#include "postgres.h"

#include <sanitizer/asan_interface.h>

#include "access/xact.h"

/*
 * deeper than the frames of ours an ERROR can leave behind (PostgreSQL's
 * own frames poison nothing)
 */
#define ABANDONED_BELOW (1024 * 1024)
/* the abort path's own frames, between its callbacks and the landing point */
#define ABORT_PATH_ABOVE (64 * 1024)

static void
forget(size_t above)
{
	char		here;
	uintptr_t	sp = (uintptr_t) &here;

	__asan_unpoison_memory_region((void *) (sp - ABANDONED_BELOW), ABANDONED_BELOW + above);
}

/* in our PG_CATCH / PG_FINALLY: everything below the caller's frame is free */
__attribute__((noinline, no_sanitize("address")))
void
SchedulerAsanLanded(void)
{
	forget(0);
}

__attribute__((no_sanitize("address")))
static void
xact_abort(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT)
		forget(ABORT_PATH_ABOVE);
}

__attribute__((no_sanitize("address")))
static void
subxact_abort(SubXactEvent event, SubTransactionId my, SubTransactionId parent, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
		forget(ABORT_PATH_ABOVE);
}

__attribute__((constructor))
static void
register_callbacks(void)
{
	RegisterXactCallback(xact_abort, NULL);
	RegisterSubXactCallback(subxact_abort, NULL);
}
