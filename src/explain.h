/*
 * explain.h
 *	  Why a pod is pending: kube-scheduler's FailedScheduling message and
 *	  the diagnosis per node.
 *
 * IDENTIFICATION
 *	  src/explain.h
 */
#ifndef SCHEDULER_EXPLAIN_H
#define SCHEDULER_EXPLAIN_H

#include "plugin.h"

/* explain.c */
extern char *FitErrorMessage(const CycleResult *res);
extern Jsonb *DiagnosisToJsonb(const CycleResult *res);
extern Jsonb *RejectingPlugins(const CycleResult *res);

#endif							/* SCHEDULER_EXPLAIN_H */
