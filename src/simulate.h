/*
 * simulate.h
 *	  What-ifs: scheduling cycles on the snapshot changed in memory by
 *	  hypothetical objects (simulate.c); the pieces plan_capacity.c shares.
 *
 * IDENTIFICATION
 *	  src/simulate.h
 */
#ifndef SCHEDULER_SIMULATE_H
#define SCHEDULER_SIMULATE_H

#include "postgres.h"
#include "access/htup.h"
#include "access/tupdesc.h"
#include "datatype/timestamp.h"
#include "fmgr.h"

#include "cluster.h"

extern Datum scheduler_simulate(PG_FUNCTION_ARGS);

/* A pod to try: its row decoded, and when it was queued (QueueSort's second key) */
typedef struct SimPod
{
	PodInfo		pod;
	TimestampTz queued;
} SimPod;

extern HeapTuple *SimulateKeepRows(uint64 *n, TupleDesc *desc, MemoryContext cxt);
extern SimPod *SimulateQueuedPods(const char *scheduler_name, Datum except_uids, Datum except_names,
								  MemoryContext cxt, int *npods);
extern SimPod *SimulatePodsFromRows(HeapTuple *rows, TupleDesc desc, uint64 n, MemoryContext cxt);
extern void SimulateSortPods(SimPod *pods, int n);
extern int	SimulateNextStart(void);

#endif							/* SCHEDULER_SIMULATE_H */
