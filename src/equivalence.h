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
	/* the verdict of the Filters before any that reads pods (EquivPrefixGet) */
	uint64		prefix_generation;
	int			prefix_rejected;
	Status		prefix_status;
	void	   *preempt;		/* DefaultPreemption's, or NULL */
	uint64		preempt_generation;
	/* the raw scores of the node-local scorers, and what they were read of */
	int64	   *scores;			/* by the class's slot of each (slot[]) */
	uint64		scores_kept;	/* bit i: profile plugin i's is kept (0: none) */
	uint64		scores_generation;
	uint64		scores_labels;
	uint64		scores_stamp;
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
	/* scores (EquivScoresUsable): kept for one profile, while the images are counted alike */
	const Profile *scores_profile;
	int		   *slot;			/* per profile plugin: its place in an entry's scores, or -1 */
	int			nslots;
	uint64		scores_images;
	uint64		scores_stamp;	/* an entry's scores are good only with this stamp */
} EquivClass;

/* equivalence.c */
extern EquivClass *EquivClassFor(CycleCtx *ctx, const PodInfo *pod, EquivClass **scores);
extern bool PreFilterIsPodLocal(const CycleCtx *ctx);
extern void EquivFilterPut(EquivClass *c, const NodeInfo *node, int rejected, const Status *st);
extern void EquivPrefixPut(EquivClass *c, const NodeInfo *node, int rejected, const Status *st);
extern void *EquivPreemptGet(EquivClass *c, const NodeInfo *node);
extern void EquivPreemptPut(EquivClass *c, const NodeInfo *node, void *result);
extern MemoryContext EquivMemory(EquivClass *c);
extern bool EquivScoresUsable(EquivClass *c, const ClusterSnapshot *snap, const Profile *prof);
extern void EquivScoresPut(EquivClass *c, const NodeInfo *node, int64 **raw, int k, uint64 mask);
extern int	EquivScoreSlot(EquivClass *c, int i);

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

/*
 * The kept verdict of the pod's Filters before the first plugin that reads
 * pods (CycleCtx.nprefix of them), if still good: for a pod whose verdicts
 * depend on pods elsewhere, the node-local part of them, which does not.
 */
static inline bool
EquivPrefixGet(EquivClass *c, const NodeInfo *node, int *rejected, Status *st)
{
	const EquivEntry *e;

	if ((unsigned) node->ordinal >= (unsigned) c->nentries)
		return false;
	e = &c->entries[node->ordinal];
	if (e->prefix_generation != node->generation || node->generation == 0)
		return false;
	*rejected = e->prefix_rejected;
	*st = e->prefix_status;
	return true;
}

/*
 * The raw scores kept for node (profile plugin i's at EquivScoreSlot(c, i);
 * *kept: bit i, plugin i's is there), or NULL when none is still good: the
 * node has changed since, or its labels, or the class dropped them (none
 * kept for a node past the entries: EquivScoresPut makes room).  After
 * EquivScoresUsable(c) only; inline for the same reason as EquivFilterGet.
 */
static inline const int64 *
EquivScoresGet(EquivClass *c, const NodeInfo *node, uint64 *kept)
{
	const EquivEntry *e;

	if ((unsigned) node->ordinal >= (unsigned) c->nentries)
		return NULL;
	e = &c->entries[node->ordinal];
	if (e->scores_kept == 0 || e->scores_stamp != c->scores_stamp || node->generation == 0 ||
		e->scores_generation != node->generation || e->scores_labels != node->labels_version)
		return NULL;
	*kept = e->scores_kept;
	return e->scores;
}

#endif							/* SCHEDULER_EQUIVALENCE_H */
