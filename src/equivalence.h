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

/* A Filter verdict kept for a node, good while the node's generation holds */
typedef struct KeptVerdict
{
	uint64		generation;		/* 0: none */
	int			rejected_by;	/* -1: passes */
	Status		status;			/* its reasons shared among the class's entries */
} KeptVerdict;

/*
 * Which of a node's verdicts: a pod's whole one (its Filters read no other
 * pods), or that of its Filters before the profile's first plugin that
 * reads pods (CycleCtx.nprefix of them), for a pod whose verdicts depend on
 * pods elsewhere: the node-local part of them, which does not
 */
typedef enum VerdictKind
{
	VERDICT_WHOLE,
	VERDICT_PREFIX,
	VERDICT_KINDS
} VerdictKind;

/* What a class knows of one node, kept while the node's generation holds */
typedef struct EquivEntry
{
	KeptVerdict verdicts[VERDICT_KINDS];
	void	   *preempt;		/* DefaultPreemption's, or NULL */
	uint64		preempt_generation;
	/* the raw scores of the node-local scorers, and what they were read of */
	int64	   *scores;			/* by the class's slot of each (slot[]) */
	uint64		scores_kept;	/* bit i: profile plugin i's is kept (0: none) */
	uint64		scores_generation;
	uint64		scores_labels;
	uint64		scores_stamp;
} EquivEntry;

/* What a class's scores_rows[ord] were kept of (EquivEntry's scores_*, again) */
typedef struct EquivScoreHead
{
	uint64		kept;
	uint64		generation;
	uint64		labels;
	uint64		stamp;
} EquivScoreHead;

/* A class (here for EquivVerdictGet, which a search calls for every node) */
typedef struct EquivClass
{
	char	   *key;
	EquivEntry *entries;		/* by node ordinal */
	int			nentries;
	/*
	 * the whole verdicts' generations and rejecting plugins again, side by
	 * side, by node ordinal: a search reads them for each node it passes
	 */
	uint64	   *whole_generation;
	int		   *whole_rejected;
	uint64		last_used;
	MemoryContext cxt;
	List	   *statuses;		/* Status *: the distinct verdicts, shared */
	/* scores (EquivScoresUsable): kept for one profile, while the images are counted alike */
	const Profile *scores_profile;
	int		   *slot;			/* per profile plugin: its place in an entry's scores, or -1 */
	int			nslots;
	uint64		scores_images;
	uint64		scores_stamp;	/* an entry's scores are good only with this stamp */
	/*
	 * the kept scores again, by node ordinal, side by side: score_room heads,
	 * and rows of nslots in one block (a cycle reads them for each feasible
	 * node)
	 */
	int			score_room;
	EquivScoreHead *score_heads;
	int64	   *score_rows;
} EquivClass;

/* equivalence.c */
extern EquivClass *EquivClassFor(CycleCtx *ctx, const PodInfo *pod, EquivClass **scores);
extern bool PreFilterIsPodLocal(const CycleCtx *ctx);
extern void EquivVerdictPut(EquivClass *c, VerdictKind kind, const NodeInfo *node, int rejected,
							Status *st);
extern void EquivPreemptPut(EquivClass *c, const NodeInfo *node, void *result);
extern MemoryContext EquivMemory(EquivClass *c);
extern bool EquivScoresUsable(EquivClass *c, const ClusterSnapshot *snap, const Profile *prof);
extern void EquivScoresPut(EquivClass *c, const NodeInfo *node, int64 **raw, int k, uint64 mask);
extern int	EquivScoreSlot(EquivClass *c, int i);

/*
 * The kept verdict of this kind for node, if still good: *rejected (-1
 * passes) and *st.  A node past the entries has none kept
 * (EquivVerdictPut makes room).
 */
static inline bool
EquivVerdictGet(EquivClass *c, VerdictKind kind, const NodeInfo *node, int *rejected, Status *st)
{
	const KeptVerdict *v;

	if ((unsigned) node->ordinal >= (unsigned) c->nentries)
		return false;
	v = &c->entries[node->ordinal].verdicts[kind];
	if (v->generation != node->generation || node->generation == 0)
		return false;
	*rejected = v->rejected_by;
	*st = v->status;
	return true;
}

/*
 * The kept whole verdict (VERDICT_WHOLE) of the snapshot's node of ordinal
 * ord, whose generation is generation (the snapshot's generation_of), if
 * still good: EquivVerdictGet's, read without the node or the class's entry
 * (*rejected, -1 passes; the reasons of a rejection are in the entry).
 */
static inline bool
EquivWholeGet(const EquivClass *c, int ord, uint64 generation, int *rejected)
{
	if ((unsigned) ord >= (unsigned) c->nentries || generation == 0 ||
		c->whole_generation[ord] != generation)
		return false;
	*rejected = c->whole_rejected[ord];
	return true;
}

/*
 * DefaultPreemption's dry run kept for node, if still good (NULL: none;
 * none kept for a node past the entries: EquivPreemptPut makes room).
 * Inline: a preemptor's search asks for it node after node.
 */
static inline void *
EquivPreemptGet(EquivClass *c, const NodeInfo *node)
{
	const EquivEntry *e;

	if ((unsigned) node->ordinal >= (unsigned) c->nentries)
		return NULL;
	e = &c->entries[node->ordinal];
	if (e->preempt_generation != node->generation || node->generation == 0)
		return NULL;
	return e->preempt;
}

/*
 * The raw scores kept for node (profile plugin i's at EquivScoreSlot(c, i);
 * *kept: bit i, plugin i's is there), or NULL when none is still good: the
 * node has changed since, or its labels, or the class dropped them (none
 * kept for a node past the entries: EquivScoresPut makes room).  After
 * EquivScoresUsable(c) only; inline for the same reason as EquivVerdictGet.
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

/*
 * EquivScoresGet's answer for the snapshot's own node of ordinal ord (not
 * a copy of it), read by ordinal from the class's heads and rows and the
 * snapshot's generation_of and labels_version_of, without visiting the
 * node or its entry
 */
static inline const int64 *
EquivScoresGetAt(const EquivClass *c, const ClusterSnapshot *snap, int ord, uint64 *kept)
{
	const EquivScoreHead *h;
	uint64		generation;

	if ((unsigned) ord >= (unsigned) c->score_room)
		return NULL;
	h = &c->score_heads[ord];
	generation = snap->generation_of[ord];
	if (h->kept == 0 || h->stamp != c->scores_stamp || generation == 0 ||
		h->generation != generation || h->labels != snap->labels_version_of[ord])
		return NULL;
	*kept = h->kept;
	return &c->score_rows[(size_t) ord * c->nslots];
}

#endif							/* SCHEDULER_EQUIVALENCE_H */
