/*
 * worker.c
 *	  The background worker that runs schedule_pending(): woken through its
 *	  latch at the commit of any change that moved pods back to the queue,
 *	  when the earliest backoff expires, and on a slow safety timer.
 *
 * Loaded through shared_preload_libraries, it connects to the database
 * named by scheduler.database.  A backend whose QueueingHints moved pods
 * sets the worker's latch at commit (never on rollback): a transaction
 * callback reads the worker's latch from shared memory.  Clients that want
 * to know hear NOTIFY scheduler_wakeup (queue.c); the worker does not
 * LISTEN, as a background worker has no frontend to deliver to.
 *
 * Here too what the three workers share: their registration, the latches
 * others set at commit (the scheduling and bind workers), the start of each
 * (WorkerConnect), recovery from a caught error, transactions and
 * leadership.
 */
#include "postgres.h"

#include "access/xact.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "tcop/tcopprot.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "access.h"
#include "kube_client.h"
#include "scheduler.h"
#include "scheduling_queue.h"

/* Each worker that others wake (the scheduling and bind workers) has a slot */
typedef struct WorkerShared
{
	Latch	   *latch[NWORKER_ROLES];	/* the worker's, while it runs */
	pid_t		pid[NWORKER_ROLES];
} WorkerShared;

static WorkerShared *shared = NULL;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;
static bool wake_at_commit[NWORKER_ROLES];
static bool callback_registered = false;

char	   *scheduler_database = NULL;
int			scheduler_worker_interval = 10000;

void		scheduler_worker_main(Datum arg);

static void
shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(MAXALIGN(sizeof(WorkerShared)));
}

static void
shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	shared = ShmemInitStruct("scheduler worker", sizeof(WorkerShared), &found);
	if (!found)
		memset(shared, 0, sizeof(WorkerShared));
	LWLockRelease(AddinShmemInitLock);
}

static void
commit_callback(XactEvent event, void *arg pg_attribute_unused())
{
	for (int r = 0; r < NWORKER_ROLES; r++)
	{
		if (event == XACT_EVENT_COMMIT && wake_at_commit[r] && shared && shared->latch[r])
			SetLatch(shared->latch[r]);
		if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
			event == XACT_EVENT_PARALLEL_COMMIT || event == XACT_EVENT_PARALLEL_ABORT)
			wake_at_commit[r] = false;
	}
}

/*
 * Set a worker's latch when this transaction commits (never on rollback):
 * the scheduling worker when pods moved back to the queue, the bind worker
 * when the outbox has new rows.
 */
void
WorkerWakeAtCommit(WorkerRole role)
{
	if (shared == NULL)
		return;					/* not preloaded: no worker */
	if (!callback_registered)
	{
		RegisterXactCallback(commit_callback, NULL);
		callback_registered = true;
	}
	wake_at_commit[role] = true;
}

static void
detach(int code pg_attribute_unused(), Datum arg)
{
	WorkerRole	role = (WorkerRole) DatumGetInt32(arg);

	if (shared && shared->pid[role] == MyProcPid)
	{
		shared->latch[role] = NULL;
		shared->pid[role] = 0;
	}
}

/*
 * A background worker's start: signals, its database, and (for a role others
 * wake) its latch made known until it exits.
 */
void
WorkerConnect(WorkerRole role)
{
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnection(scheduler_database, NULL, 0);

	/*
	 * The workers run as the bootstrap superuser: every name their SQL does
	 * not qualify resolves in pg_catalog, whatever the database's or a role's
	 * settings say (ALTER DATABASE ... SET search_path is the database
	 * owner's to set).
	 */
	SetConfigOption("search_path", "pg_catalog, pg_temp", PGC_SUSET, PGC_S_OVERRIDE);
	if (role == NWORKER_ROLES)
		return;
	shared->pid[role] = MyProcPid;
	shared->latch[role] = MyLatch;
	before_shmem_exit(detach, Int32GetDatum(role));
}

/*
 * After an error caught in a worker's loop: log it, roll back what was open,
 * and go on in the worker's own memory context (no restart).
 */
void
WorkerRecover(MemoryContext back)
{
	MemoryContextSwitchTo(back);
	EmitErrorReport();
	FlushErrorState();
	AbortOutOfAnyTransaction();
	pgstat_report_activity(STATE_IDLE, NULL);
}

static void
register_worker(const char *name, const char *function)
{
	BackgroundWorker worker;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;	/* never on a standby */
	worker.bgw_restart_time = 5;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "scheduler");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "%s", function);
	snprintf(worker.bgw_name, BGW_MAXLEN, "%s", name);
	snprintf(worker.bgw_type, BGW_MAXLEN, "%s", name);
	RegisterBackgroundWorker(&worker);
}

/* _PG_init's part: GUCs, shared memory and the worker */
void
WorkerInit(void)
{
	DefineCustomStringVariable("scheduler.database",
							   "Database the scheduler's background worker runs in (read when it starts).",
							   NULL,
							   &scheduler_database,
							   "postgres",
							   PGC_SIGHUP, GUC_SUPERUSER_ONLY, NULL, NULL, NULL);
	DefineCustomIntVariable("scheduler.worker_interval",
							"The worker's safety timer: it runs schedule_pending() at least this often.",
							NULL,
							&scheduler_worker_interval,
							10000, 10, INT_MAX,
							PGC_SIGHUP, GUC_UNIT_MS, NULL, NULL, NULL);
	KubeClientInit();
	WatchInitGucs();
	BindInitGucs();

	if (!process_shared_preload_libraries_in_progress)
		return;

	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = shmem_startup;

	register_worker("scheduler worker", "scheduler_worker_main");
	register_worker("scheduler watch", "scheduler_watch_main");	/* watch.c */
	register_worker("scheduler bind", "scheduler_bind_main");	/* bind.c */
}

/* ------------------------------------------------------------------------
 * For the watch and bind workers: transactions and leadership
 * ------------------------------------------------------------------------
 */
void
WorkerBegin(const char *activity)
{
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	pgstat_report_activity(STATE_RUNNING, activity);
}

/* Commit, and go back to the worker's own memory context */
void
WorkerCommit(MemoryContext back)
{
	PopActiveSnapshot();
	CommitTransactionCommand();
	pgstat_report_activity(STATE_IDLE, NULL);
	MemoryContextSwitchTo(back);
}

/*
 * Take the lead for role if the extension is installed: a session lock on
 * the extension's own catalog entry (access.c), held for the life of the
 * process, so only one process acts per database and no other role can
 * take it.  Never on a standby.
 */
bool
WorkerTakeLead(int role, const char *who)
{
	bool		got;
	MemoryContext back = CurrentMemoryContext;

	if (RecoveryInProgress())
		return false;
	WorkerBegin(psprintf("%s: taking the lead", who));
	got = LeaderTryLock((LeaderRole) role);
	WorkerCommit(back);
	return got;
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
	bool		isnull;
	int			attempted = 0;

	*timeout = scheduler_worker_interval;
	WorkerBegin("schedule_pending()");
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");

	/*
	 * If the extension is installed and, with an API server, the mirror has
	 * synced: both nodes and pods listed once (kube-scheduler waits for its
	 * informers' caches), lest pods seen before the nodes be found
	 * unschedulable, and told so.  The watch worker wakes this one when a
	 * list is applied.
	 */
	if (OidIsValid(SchedulerExtensionOid(true)) &&
		(!KubeApiConfigured() ||
		 (SPI_execute("SELECT count(*) = 2 FROM scheduler.watch_state WHERE resource IN ('nodes', 'pods')",
					  false, 0) == SPI_OK_SELECT &&
		  DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull)))))
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
