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

/* equivalence.c */
typedef struct EquivClass EquivClass;
extern EquivClass *EquivClassFor(CycleCtx *ctx, const PodInfo *pod, EquivClass **scores);
extern bool PreFilterIsPodLocal(const CycleCtx *ctx);
extern bool EquivFilterGet(EquivClass *c, const NodeInfo *node, int *rejected, Status *st);
extern void EquivFilterPut(EquivClass *c, const NodeInfo *node, int rejected, const Status *st);
extern void *EquivPreemptGet(EquivClass *c, const NodeInfo *node);
extern void EquivPreemptPut(EquivClass *c, const NodeInfo *node, void *result);
extern MemoryContext EquivMemory(EquivClass *c);
extern bool EquivScoresUsable(EquivClass *c, const ClusterSnapshot *snap, const Profile *prof);
extern const int64 *EquivScoresGet(EquivClass *c, const NodeInfo *node, uint64 *kept);
extern void EquivScoresPut(EquivClass *c, const NodeInfo *node, int64 **raw, int k, uint64 mask);
extern int	EquivScoreSlot(EquivClass *c, int i);

#endif							/* SCHEDULER_EQUIVALENCE_H */
