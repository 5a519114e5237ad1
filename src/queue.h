/*
 * queue.h
 *	  QueueingHints (queue.c): the rows a statement changed become cluster
 *	  events, and the unschedulable pods they may help move.
 *
 * IDENTIFICATION
 *	  src/queue.h
 */
#ifndef SCHEDULER_QUEUE_H
#define SCHEDULER_QUEUE_H

#include "postgres.h"
#include "kinds.h"

/*
 * The rows of kind k's table a statement changed, before (olds) and after
 * (news): FROM items (a trigger's old_rows and new_rows; NULL: none) that
 * may read args ($1, $2: jsonb, or NULL for none).  Returns how many pods
 * moved.  Call inside SPI, where the FROM items can be read.
 */
extern int	QueueDispatch(const MirrorKind *k, const char *olds, const char *news, Datum *args);

/* The same, for the triggers (SchedQueueHints): the kind by its events name */
extern int	QueueHints(const char *kind, const char *olds, const char *news);

#endif							/* SCHEDULER_QUEUE_H */
