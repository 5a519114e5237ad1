/*
 * schedule.h
 *	  schedule_pending(): lock, queue timers, snapshot, cycles, batched
 *	  write-back.
 *
 * IDENTIFICATION
 *	  src/schedule.h
 */
#ifndef SCHEDULER_SCHEDULE_H
#define SCHEDULER_SCHEDULE_H

#include "postgres.h"
#include "nodes/execnodes.h"

/* settings it reads (defined in scheduler.c) */
extern char *scheduler_scheduler_name;
extern int	scheduler_history_retention;	/* s */
extern int	scheduler_event_interval;	/* ms */

/* schedule.c: one call of schedule_pending(), inside SPI */
extern int	SchedulePending(int64 max_pods, ReturnSetInfo *rsinfo);

#endif							/* SCHEDULER_SCHEDULE_H */
