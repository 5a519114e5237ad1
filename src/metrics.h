/*
 * metrics.h
 *	  kube-scheduler's counters and histograms of scheduling attempts
 *	  (scheduler_schedule_attempts_total, ..._scheduling_attempt_duration_seconds,
 *	  ..._pod_scheduling_sli_duration_seconds), gathered over one
 *	  schedule_pending() call, or one statement that finishes bindings
 *	  (the outbox's trigger, binding_metrics), and added to their tables
 *	  once at its end.
 *
 * IDENTIFICATION
 *	  src/metrics.h
 */
#ifndef SCHEDULER_METRICS_H
#define SCHEDULER_METRICS_H

#include "postgres.h"

/* kube-scheduler's result label (metrics/profile_metrics.go) */
typedef enum AttemptResult
{
	ATTEMPT_SCHEDULED,
	ATTEMPT_UNSCHEDULABLE,
	ATTEMPT_ERROR				/* a plugin's error, or a cycle that threw */
} AttemptResult;

typedef struct CallMetrics CallMetrics;

/* A call's tally, empty, in the current memory context */
extern CallMetrics *MetricsBegin(void);

/* One attempt of a pod of profile (its schedulerName), its cycle's time */
extern void MetricsAttempt(CallMetrics *m, const char *profile, AttemptResult result, int64 cycle_us);

/*
 * A pod scheduled at its attempts-th attempt, since_us after it first
 * entered the queue
 */
extern void MetricsScheduled(CallMetrics *m, int64 attempts, int64 since_us);

/* Add the tally to the tables: one statement, none when empty.  SPI connected. */
extern void MetricsWrite(CallMetrics *m);

#endif							/* SCHEDULER_METRICS_H */
