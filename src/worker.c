/*
 * worker.c
 *	  What the three background workers share: their registration, the
 *	  latches others set at commit (the scheduling and bind workers), the
 *	  start of each (WorkerConnect), recovery from a caught error,
 *	  transactions and leadership.  The workers themselves are
 *	  scheduling_worker.c, watch.c and bind.c.
 *
 * A backend whose change should wake a worker sets its latch at commit
 * (never on rollback): a transaction callback reads the worker's latch from
 * shared memory.
 *
 * IDENTIFICATION
 *	  src/worker.c
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
#include "storage/spin.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "access.h"
#include "worker.h"

#define MAX_SNAPSHOT_KEEPERS 64

/*
 * Each worker that others wake (the scheduling and bind workers) has a slot;
 * and each session that keeps its cluster snapshot between transactions
 * holds one of scheduler.snapshot_keepers' places.
 */
typedef struct WorkerShared
{
	Latch	   *latch[NWORKER_ROLES];	/* the worker's, while it runs */
	pid_t		pid[NWORKER_ROLES];
	slock_t		keepers_lock;
	pid_t		keepers[MAX_SNAPSHOT_KEEPERS];	/* 0: free */
} WorkerShared;

static WorkerShared *shared = NULL;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;
static bool wake_at_commit[NWORKER_ROLES];
static bool callback_registered = false;

char	   *scheduler_database = NULL;
int			scheduler_worker_interval = 10000;
int			scheduler_snapshot_keepers = 2;
bool		scheduler_keep_snapshot = true;

static bool am_scheduling_worker = false;
static int	keeper_place = -1;	/* this session's place among the keepers */
static bool keeper_exit_registered = false;


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
	{
		memset(shared, 0, sizeof(WorkerShared));
		SpinLockInit(&shared->keepers_lock);
	}
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
	am_scheduling_worker = role == WORKER_SCHEDULE;
	shared->pid[role] = MyProcPid;
	shared->latch[role] = MyLatch;
	before_shmem_exit(detach, Int32GetDatum(role));
}

/* Give this session's place among the keepers back */
static void
leave_keepers(int code pg_attribute_unused(), Datum arg pg_attribute_unused())
{
	if (keeper_place < 0 || shared == NULL)
		return;
	SpinLockAcquire(&shared->keepers_lock);
	if (shared->keepers[keeper_place] == MyProcPid)
		shared->keepers[keeper_place] = 0;
	SpinLockRelease(&shared->keepers_lock);
	keeper_place = -1;
}

/*
 * WorkerKeepSnapshot
 *		May this session keep its cluster snapshot after the transaction
 *		ending now?  The scheduling worker always does; another session when
 *		scheduler.keep_snapshot is on and it holds, or can take, one of the
 *		scheduler.snapshot_keepers places (first come, held until it exits or
 *		turns keep_snapshot off).  The others free theirs at the end of
 *		each transaction, so that what the snapshots cost does not grow with
 *		the connections.  Without shared memory (not preloaded) there is no
 *		cap to share: kept.
 */
bool
WorkerKeepSnapshot(void)
{
	int			cap = Min(scheduler_snapshot_keepers, MAX_SNAPSHOT_KEEPERS);

	if (am_scheduling_worker)
		return true;
	if (keeper_place >= 0 && (!scheduler_keep_snapshot || keeper_place >= cap))
		leave_keepers(0, (Datum) 0);	/* turned off, or the cap lowered */
	if (!scheduler_keep_snapshot)
		return false;
	if (shared == NULL)
		return true;
	if (keeper_place >= 0)
		return true;
	SpinLockAcquire(&shared->keepers_lock);
	for (int i = 0; i < cap; i++)
		if (shared->keepers[i] == 0)
		{
			shared->keepers[i] = MyProcPid;
			keeper_place = i;
			break;
		}
	SpinLockRelease(&shared->keepers_lock);
	if (keeper_place >= 0 && !keeper_exit_registered)
	{
		before_shmem_exit(leave_keepers, (Datum) 0);
		keeper_exit_registered = true;
	}
	return keeper_place >= 0;
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
	pgstat_report_stat(false);
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

/* _PG_init's part: the workers' settings, shared memory and the workers */
void
WorkerInit(void)
{
	DefineCustomStringVariable("scheduler.database",
							   "Database the scheduler's background worker runs in (read when it starts).",
							   NULL,
							   &scheduler_database,
							   "postgres",
							   PGC_SIGHUP, GUC_SUPERUSER_ONLY, NULL, NULL, NULL);
	DefineCustomIntVariable("scheduler.snapshot_keepers",
							"How many sessions, beside the scheduling worker, keep their cluster snapshot between transactions (first come); the others free it at the end of each transaction.",
							NULL,
							&scheduler_snapshot_keepers,
							2, 0, MAX_SNAPSHOT_KEEPERS,
							PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("scheduler.keep_snapshot",
							 "Keep this session's cluster snapshot between transactions, if one of scheduler.snapshot_keepers' places is free.",
							 NULL,
							 &scheduler_keep_snapshot,
							 true,
							 PGC_USERSET, 0, NULL, NULL, NULL);

	if (!process_shared_preload_libraries_in_progress)
		return;

	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = shmem_startup;

	register_worker("scheduler worker", "scheduler_worker_main");	/* scheduling_worker.c */
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

/*
 * Commit, and go back to the worker's own memory context.  The
 * transaction's table counts go to the cumulative statistics, as a
 * session's do when it goes idle (PostgresMain): a background worker must
 * report them itself, or they stay in the process until it exits, and
 * autovacuum never sees the tables only the workers write change (the
 * mirror's, the queue, the outbox): it never analyzes nor vacuums them.
 * At most once a second (pgstat_report_stat(false)); what a commit within
 * that second leaves goes with the worker's next commit after it.
 */
void
WorkerCommit(MemoryContext back)
{
	PopActiveSnapshot();
	CommitTransactionCommand();
	pgstat_report_activity(STATE_IDLE, NULL);
	pgstat_report_stat(false);
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
