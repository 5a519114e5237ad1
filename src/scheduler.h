/*
 * scheduler.h
 *	  Types shared by the stages of the scheduler: resource vectors, the
 *	  snapshot a cycle reads, plugin statuses and the plugin interface.
 *
 * Data flows mirror (mirror.c) -> tables -> snapshot (snapshot.c) ->
 * cycle (framework.c, plugins/) -> results written back (schedule.c).
 */
#ifndef SCHEDULER_H
#define SCHEDULER_H

#include "postgres.h"

#include "access/htup.h"
#include "access/tupdesc.h"
#include "nodes/pg_list.h"
#include "utils/hsearch.h"
#include "utils/array.h"
#include "utils/jsonb.h"

/* GUCs (scheduler.c) */
extern char *scheduler_scheduler_name;

#include "resources.h"

/* ------------------------------------------------------------------------
 * ClusterSnapshot: nodes and what the pods on them use.
 * ------------------------------------------------------------------------
 */
typedef struct Taint
{
	char	   *key;
	char	   *value;
	char	   *effect;
} Taint;

typedef struct Toleration
{
	char	   *key;			/* NULL = empty key (matches all, with Exists) */
	char	   *operator;		/* "Equal" (default) or "Exists" */
	char	   *value;
	char	   *effect;			/* NULL = all effects */
} Toleration;

typedef struct NodeInfo
{
	char	   *name;
	bool		unschedulable;
	int			ntaints;
	Taint	   *taints;
	ResourceVec allocatable;
	ResourceVec requested;		/* sum of the requests of its pods */
	int64		nonzero_cpu;	/* same, with non-zero defaults, for scoring */
	int64		nonzero_memory;
	int			npods;
} NodeInfo;

typedef struct PodInfo
{
	char	   *uid;
	char	   *namespace;
	char	   *name;
	char	   *node_name;		/* spec.nodeName, NULL when unset */
	int32		priority;
	ResourceVec requests;		/* effective request (resources.c) */
	int64		nonzero_cpu;
	int64		nonzero_memory;
	int			ntolerations;
	Toleration *tolerations;
} PodInfo;

typedef struct ClusterSnapshot
{
	MemoryContext cxt;
	int			nnodes;
	NodeInfo   *nodes;			/* sorted by name */
	HTAB	   *by_name;		/* node name -> index */
} ClusterSnapshot;

/* snapshot.c */
extern ClusterSnapshot *SnapshotLoad(MemoryContext parent);
extern NodeInfo *SnapshotFindNode(ClusterSnapshot *snap, const char *name);
extern void SnapshotReserve(ClusterSnapshot *snap, NodeInfo *node, const PodInfo *pod);
extern void PodInfoFromTuple(PodInfo *pod, HeapTuple tup, TupleDesc desc);
extern Toleration *TolerationsFromJsonb(Jsonb *jb, int *n);
extern bool TolerationToleratesTaint(const Toleration *tol, const Taint *taint);
extern bool TolerationsTolerateTaint(const Toleration *tols, int ntols, const Taint *taint);

/* ------------------------------------------------------------------------
 * Plugins and the cycle (framework.c).
 * ------------------------------------------------------------------------
 */
typedef enum StatusCode
{
	CODE_SUCCESS = 0,
	CODE_ERROR,
	CODE_UNSCHEDULABLE,
	CODE_UNSCHEDULABLE_AND_UNRESOLVABLE,
	CODE_SKIP
} StatusCode;

extern const char *StatusCodeName(StatusCode code);

/* A plugin's verdict: a code and its reasons (kube-scheduler's Status). */
typedef struct Status
{
	StatusCode	code;
	List	   *reasons;		/* of char * */
} Status;

typedef struct Plugin
{
	const char *name;
	/* Filter: fill *st (code SUCCESS and no reasons when the node passes) */
	void		(*filter) (const PodInfo *pod, const NodeInfo *node, Status *st);
	/* Score: raw score in [0, 100] for plugins without NormalizeScore */
	int64		(*score) (const PodInfo *pod, const NodeInfo *node);
	int			weight;
} Plugin;

extern const Plugin NodeUnschedulablePlugin;
extern const Plugin NodeNamePlugin;
extern const Plugin NodeResourcesFitPlugin;

/* The result of one scheduling cycle for one pod. */
typedef struct CycleResult
{
	NodeInfo   *chosen;			/* NULL when unschedulable */
	int			nnodes;			/* nodes in the snapshot */
	NodeInfo   *nodes;			/* the snapshot's nodes */
	/* per node (snapshot order): which plugin rejected it, and its status */
	const Plugin **rejected_by;
	Status	   *statuses;
	int64		best_score;
} CycleResult;

extern void RunSchedulingCycle(ClusterSnapshot *snap, const PodInfo *pod, CycleResult *res);
extern char *StatusMessage(const Status *st);

/* explain.c */
extern char *FitErrorMessage(const CycleResult *res);
extern Jsonb *DiagnosisToJsonb(const CycleResult *res);
extern Jsonb *RejectingPlugins(const CycleResult *res);

#endif							/* SCHEDULER_H */
