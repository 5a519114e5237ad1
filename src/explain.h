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
/* one pod explained: read, its profile's PreFilters run on the snapshot */
typedef struct Explained
{
	ClusterSnapshot *snap;
	Profile    *profile;
	PodInfo		pod;
	CycleCtx   *ctx;
	CycleResult res;
	bool		prefilter_ok;
	List	   *names;
	bool		restricted;
	int			late;			/* PreFilters from here on ran only for filter() */
} Explained;

extern void ExplainSetup(Datum ns_text, Datum name_text, Explained *e);
extern char *FitErrorMessage(const CycleResult *res);
extern char *FitErrorFromReasons(int nnodes, const char *const *reasons, const int *counts, int n,
								 const char *prefilter_msg, const char *postfilter_msg);
extern Jsonb *DiagnosisToJsonb(const CycleResult *res);

/* The last diagnosis schedule_pending() made, to give again when the next is the same */
typedef struct DiagnosisReuse
{
	MemoryContext cxt;			/* where key and doc live */
	StringInfoData key;			/* the groups' key (data NULL: none yet) */
	Jsonb	   *doc;			/* NULL: none kept */
	bool		matched;		/* the last call returned doc for its key */
	Jsonb	   *rejected;		/* the caller's: RejectingPlugins of doc's cycle, or NULL */
} DiagnosisReuse;

extern Jsonb *DiagnosisToJsonbReusing(const CycleResult *res, DiagnosisReuse *reuse);
extern void DiagnosisReuseForget(DiagnosisReuse *reuse);
extern Jsonb *RejectingPlugins(const CycleResult *res);

#endif							/* SCHEDULER_EXPLAIN_H */
