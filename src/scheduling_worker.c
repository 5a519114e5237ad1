/*
 * scheduling_worker.c
 *	  The background worker that runs schedule_pending(): woken through its
 *	  latch at the commit of any change that moved pods back to the queue,
 *	  when the earliest backoff expires, and on a slow safety timer.
 *
 * Loaded through shared_preload_libraries, it connects to the database
 * named by scheduler.database.  A backend whose QueueingHints moved pods
 * sets the worker's latch at commit (never on rollback; worker.c).  Clients
 * that want to know hear NOTIFY scheduler_wakeup (queue.c); the worker does
 * not LISTEN, as a background worker has no frontend to deliver to.
 *
 * IDENTIFICATION
 *	  src/scheduling_worker.c
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/latch.h"
#include "utils/memutils.h"

#include "access.h"
#include "jsonutil.h"
#include "kinds.h"
#include "kube_client.h"
#include "schedule.h"
#include "scheduling_queue.h"
#include "worker.h"

PGDLLEXPORT void scheduler_worker_main(Datum arg);


/* Has every kind the watch worker watches been listed once? (in SPI) */
static bool
mirror_synced(void)
{
	List	   *resources = NIL;
	Datum		arg;
	Oid			argtype = TEXTARRAYOID;
	bool		isnull;

	for (int i = 0; i < NumMirrorKinds; i++)
	{
		bool		seen = false;
		ListCell   *lc;

		foreach(lc, resources)
			seen |= strcmp(lfirst(lc), MirrorKinds[i].resource) == 0;
		if (!seen)
			resources = lappend(resources, (char *) MirrorKinds[i].resource);
	}
	arg = TextArrayFromList(resources);
	return SPI_execute_with_args("SELECT count(DISTINCT resource) = cardinality($1) FROM scheduler.watch_state"
								 " WHERE resource = ANY ($1)", 1, &argtype, &arg, NULL, true, 1) == SPI_OK_SELECT &&
		DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
}

/*
 * One round: if the extension is installed, schedule what is ready and work
 * out when to wake next (the earliest backoff or unschedulable timeout).
 * Returns how many pods were attempted; *timeout when to run again.
 */
static int
run_once(long *timeout)
{
	MemoryContext back = CurrentMemoryContext;
	int			attempted = 0;

	*timeout = scheduler_worker_interval;
	WorkerBegin("schedule_pending()");
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");

	/*
	 * If the extension is installed and, with an API server, the mirror has
	 * synced: every kind it watches listed once (kube-scheduler waits for
	 * its informers' caches), lest pods seen before the nodes, or before
	 * their claims, be found unschedulable, and told so.  The watch worker
	 * wakes this one when a list is applied.
	 */
	if (OidIsValid(SchedulerExtensionOid(true)) &&
		(!KubeApiConfigured() || mirror_synced()))
	{
		long		next;

		attempted = SchedulePending(-1, NULL);
		next = SchedQueueNextWake();
		if (next >= 0)
			*timeout = Min(*timeout, next + 1);
	}
	SPI_finish();
	WorkerCommit(back);
	return attempted;
}

/*
 * The worker runs when woken, but a run that found nothing to do makes the
 * next one wait a little (1 ms, doubling to 100 ms while runs keep finding
 * nothing): a flood of wake-ups cannot keep it busy.
 */
#define WAKEUP_GAP_MAX 100

void
scheduler_worker_main(Datum arg pg_attribute_unused())
{
	MemoryContext loop_cxt;
	volatile long gap = 0;

	WorkerConnect(WORKER_SCHEDULE);
	loop_cxt = AllocSetContextCreate(TopMemoryContext, "scheduler worker loop", ALLOCSET_DEFAULT_SIZES);

	elog(LOG, "scheduler worker started in database \"%s\"", scheduler_database);
	for (;;)
	{
		volatile long timeout = 1000;
		volatile int attempted = 0;

		MemoryContextSwitchTo(loop_cxt);
		MemoryContextReset(loop_cxt);
		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
		ResetLatch(MyLatch);

		/*
		 * An error (a lock timeout, a failed write) is logged and rolled
		 * back, and the worker goes on after a second, without a restart.
		 * One pod's error never gets here: its cycle fails alone.
		 */
		PG_TRY();
		{
			long		t;

			attempted = run_once(&t);
			timeout = t;
		}
		PG_CATCH();
		{
			WorkerRecover(loop_cxt);
			timeout = 1000;
		}
		PG_END_TRY();

		gap = attempted > 0 ? 0 : Min(Max(gap * 2, 1), WAKEUP_GAP_MAX);
		if (gap > 0 && timeout > gap)
			(void) WaitLatch(NULL, WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, gap, PG_WAIT_EXTENSION);
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 Max(timeout - gap, 0), PG_WAIT_EXTENSION);
	}
}
