/*
 * scheduling_queue.h
 *	  The scheduling queue (scheduling_queue.c): the one home of every change
 *	  to scheduler.queue rows, as kube-scheduler's
 *	  backend/queue/scheduling_queue.go is of its queue's.
 */
#ifndef SCHEDULER_SCHEDULING_QUEUE_H
#define SCHEDULER_SCHEDULING_QUEUE_H

#include "postgres.h"

#include "executor/spi.h"
#include "nodes/pg_list.h"
#include "storage/lockdefs.h"
#include "datatype/timestamp.h"

/*
 * Pop: the active pods of a scheduler, highest priority first, then longest
 * queued, as SPI_tuptable: in each row the SCHED_QUEUE_POP_KEYS sort keys,
 * then the columns asked for (the first of them is column
 * SCHED_QUEUE_POP_KEYS + 1).  At most max_pods (-1: all).  Call inside SPI.
 */
extern void SchedQueuePop(const char *scheduler_name, int64 max_pods, const char *columns);
#define SCHED_QUEUE_POP_KEYS 4

/*
 * QueueSort's order, the pop's and simulate()'s alike: priority descending,
 * then the time queued, then namespace and name byte by byte, the shorter
 * first on a tie (COLLATE "C"), whatever the database's collation.
 */
typedef struct SchedQueueSortKey
{
	int32		priority;
	TimestampTz queued;
	const char *namespace;
	int			namespace_len;
	const char *name;
	int			name_len;
} SchedQueueSortKey;

extern int	SchedQueueSortCompare(const SchedQueueSortKey *a, const SchedQueueSortKey *b);

/*
 * Requeue the pods of a cycle that found no node (text[] uids with their
 * nodes, NULL for those, text[] rejecting plugins, each a text[] literal,
 * bool[] error, internal and set_aside, text[] nominated node, all of one
 * length): to backoff or
 * unschedulable, the backoff doubling from scheduler.pod_initial_backoff
 * up to scheduler.pod_max_backoff; each nominated where it says ('' none,
 * NULL: as it was).  Call inside SPI.
 */
extern void SchedQueueRequeue(Datum uids, Datum nodes, Datum rejected, Datum errors,
							  Datum internals, Datum asides, Datum nominated);

/*
 * Before pods are nominated (text[] uids with text[] nodes, '' for none):
 * the lower priority pods nominated where one of them now is lose theirs;
 * their uids are returned.  Call inside SPI.
 */
extern List *SchedQueueOutrankNominations(Datum uids, Datum nodes);

/* The nominated pods: SELECT columns (of pods p, queue q) into SPI_tuptable */
extern void SchedQueueNominated(const char *columns);

/* Expired backoffs to active; unschedulable for too long flushed.  SPI. */
extern void SchedQueueFlush(void);

/*
 * Move unschedulable pods back (backoff when it has not expired, else
 * active), saying why; all of them when uids is NIL (why_all).  Wakes the
 * scheduler at commit when some moved.  Returns how many.  Call inside SPI.
 */
extern int	SchedQueueMove(List *uids, List *why);
extern int	SchedQueueMoveAll(const char *why);

/*
 * Milliseconds until the earliest backoff expires or unschedulable pod is
 * flushed (0 when due), -1 when nothing waits.  Call inside SPI.
 */
extern long SchedQueueNextWake(void);

/*
 * The QueueingHints (queue.c) the triggers hand a statement's rows to: the
 * kind's events name ("pod", "node") and its FROM items old_rows and
 * new_rows (NULL: none); they return how many pods moved.  _PG_init sets
 * them: the hints move pods through the queue, so the queue does not
 * include them.
 */
typedef int (*SchedQueueHints) (const char *kind, const char *olds, const char *news);
extern void SchedQueueSetHints(SchedQueueHints hints);
/* at commit: NOTIFY scheduler_wakeup and set the scheduling worker's latch */
extern void SchedulerWakeup(void);

/*
 * Does scheduler.changes hold a statement's uids and names in arrays (0.3),
 * or an object per row (before: an update's script from an older version
 * writes the changelog before it changes the table)?  The table is locked
 * first in mode (the mode of the statement that follows), so that an
 * update that changes it is seen whole.
 */
extern bool SchedChangesInArrays(LOCKMODE mode);

/* its settings (ms), and _PG_init's part that defines them */
extern int	scheduler_pod_initial_backoff;
extern int	scheduler_pod_max_backoff;
extern int	scheduler_unschedulable_timeout;
extern void SchedQueueInit(void);

#endif
