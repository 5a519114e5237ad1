/*
 * framework.h
 *	  One scheduling cycle for one pod: PreFilter, Filter, sampling,
 *	  PreScore, Score, normalize, select, PostFilter.
 *
 * IDENTIFICATION
 *	  src/framework.h
 */
#ifndef SCHEDULER_FRAMEWORK_H
#define SCHEDULER_FRAMEWORK_H

#include "plugin.h"

/* scheduler.percentage_of_nodes_to_score */
extern int	scheduler_percentage_of_nodes_to_score;

extern CycleCtx *NewCycleCtx(ClusterSnapshot *snap, const Profile *profile);
extern bool RunPreFilters(CycleCtx *ctx, const PodInfo *pod, CycleResult *res, List **names, bool *restricted);
extern int	RunFilters(CycleCtx *ctx, const PodInfo *pod, const NodeInfo *node, Status *st);
extern int	FilterNode(CycleCtx *ctx, const PodInfo *pod, const NodeInfo *node, Status *st);
extern void RunPostFilters(CycleCtx *ctx, const PodInfo *pod, CycleResult *res);
extern bool RunScores(CycleCtx *ctx, const PodInfo *pod, NodeInfo **nodes, const int *ords, int n,
					  int64 **raw, int64 **norm, int64 *totals, char **err);
extern bool NameListed(List *names, const char *name);
extern NodeInfo **CandidateNodes(ClusterSnapshot *snap, List *names, bool restricted, int *n, int *nabsent);
extern void RunSchedulingCycle(ClusterSnapshot *snap, const Profile *profile, const PodInfo *pod,
							   int *next_start, CycleResult *res);
extern bool RunReservePlugins(const PodInfo *pod, CycleResult *res);
extern int	NumFeasibleNodesToFind(int percentage, int num_all_nodes);
extern char *AbsentPluginsText(const CycleResult *res);

#endif							/* SCHEDULER_FRAMEWORK_H */
