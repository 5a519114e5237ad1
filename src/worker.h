/*
 * worker.h
 *	  What the background workers share: registration, shared memory, the
 *	  wake-up at commit, connecting, leadership, transactions.
 *
 * IDENTIFICATION
 *	  src/worker.h
 */
#ifndef SCHEDULER_WORKER_H
#define SCHEDULER_WORKER_H

#include "postgres.h"
#include "utils/memutils.h"

/* The background workers (worker.c); the first two are woken by others */
typedef enum WorkerRole
{
	WORKER_SCHEDULE,			/* worker.c: runs schedule_pending() */
	WORKER_BIND,				/* bind.c: sends the outbox */
	NWORKER_ROLES				/* (and, passed to WorkerConnect: the watch) */
} WorkerRole;
extern void WorkerWakeAtCommit(WorkerRole role);
extern void WorkerConnect(WorkerRole role);
extern void WorkerRecover(MemoryContext back);
extern char *scheduler_database;
extern int	scheduler_worker_interval;	/* ms */
extern void WorkerBegin(const char *activity);
extern void WorkerCommit(MemoryContext back);
extern bool WorkerTakeLead(int role, const char *who);
extern void WorkerInit(void);
extern bool WorkerKeepSnapshot(void);
extern int	scheduler_snapshot_keepers;
extern bool scheduler_keep_snapshot;

#endif							/* SCHEDULER_WORKER_H */
