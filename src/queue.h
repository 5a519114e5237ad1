/*
 * queue.h
 *	  QueueingHints: changes to cluster events, moving unschedulable pods,
 *	  and the wake-up.
 *
 * IDENTIFICATION
 *	  src/queue.h
 */
#ifndef SCHEDULER_QUEUE_H
#define SCHEDULER_QUEUE_H

#include "postgres.h"

/* queue.c, worker.c */
extern void SchedulerWakeup(void);

#endif							/* SCHEDULER_QUEUE_H */
