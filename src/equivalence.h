/*
 * equivalence.h
 *	  Filter verdicts and preemption dry runs kept for the next pod of the
 *	  same shape while a node is unchanged.
 *
 * IDENTIFICATION
 *	  src/equivalence.h
 */
#ifndef SCHEDULER_EQUIVALENCE_H
#define SCHEDULER_EQUIVALENCE_H

#include "plugin.h"

/* What a class knows of one node, kept while the node's generation holds */
typedef struct EquivEntry
{
	uint64		generation;		/* 0: empty */
	int			rejected_by;
	Status		status;			/* its reasons shared among the class's entries */
	void	   *preempt;		/* DefaultPreemption's, or NULL */
	uint64		preempt_generation;
} EquivEntry;

/* A class (here for EquivFilterGet, which a search calls for every node) */
typedef struct EquivClass
{
	char	   *key;
	EquivEntry *entries;		/* by node ordinal */
	int			nentries;
	uint64		last_used;
	MemoryContext cxt;
	List	   *statuses;		/* Status *: the distinct verdicts, shared */
} EquivClass;

/* equivalence.c */
extern EquivClass *EquivClassFor(CycleCtx *ctx, const PodInfo *pod);
extern bool PreFilterIsPodLocal(const CycleCtx *ctx);
extern void EquivFilterPut(EquivClass *c, const NodeInfo *node, int rejected, const Status *st);
extern void *EquivPreemptGet(EquivClass *c, const NodeInfo *node);
extern void EquivPreemptPut(EquivClass *c, const NodeInfo *node, void *result);
extern MemoryContext EquivMemory(EquivClass *c);

/*
 * The kept Filter verdict for node, if still good: *rejected (-1 passes)
 * and *st.  A node past the entries has none kept (EquivFilterPut makes
 * room).
 */
static inline bool
EquivFilterGet(EquivClass *c, const NodeInfo *node, int *rejected, Status *st)
{
	const EquivEntry *e;

	if ((unsigned) node->ordinal >= (unsigned) c->nentries)
		return false;
	e = &c->entries[node->ordinal];
	if (e->generation != node->generation || node->generation == 0)
		return false;
	*rejected = e->rejected_by;
	*st = e->status;
	return true;
}

#endif							/* SCHEDULER_EQUIVALENCE_H */
