/*
 * topology.h
 *	  Per-topology-domain counts kept beside the snapshot (topology.c).
 */
#ifndef SCHEDULER_TOPOLOGY_H
#define SCHEDULER_TOPOLOGY_H

#include "snapshot.h"

/* Pods on nodes matching every one of a set of terms */
typedef struct TopologyCounts
{
	char	   *key;			/* canonical text of the term set */
	MemoryContext cxt;
	int			nterms;
	AffinityTerm *terms;
	bool		skip_terminating;
	HTAB	   *pairs;			/* (topology key, value) -> matching pods */
	int32	   *node_counts;	/* by NodeInfo ordinal */
	int			nnode_counts;
	int64		total;
	uint64		last_used;
} TopologyCounts;

/* The kinds of term a pod carries */
#define OWNED_REQ_AFFINITY	0
#define OWNED_REQ_ANTI		1
#define OWNED_PREF_AFFINITY	2
#define OWNED_PREF_ANTI		3

/* A distinct term carried by pods on nodes */
typedef struct OwnedTerm
{
	char	   *key;
	int			kind;			/* OWNED_* */
	AffinityTerm term;			/* weight included */
	int64		owners;			/* pods on nodes carrying it */
	HTAB	   *pairs;			/* (topology key, value of its node) -> owners */
} OwnedTerm;

extern TopologyCounts *TopologyCountsFor(ClusterSnapshot *snap, const AffinityTerm *terms, int nterms,
										 bool skip_terminating);
extern int32 TopologyNodeCount(const TopologyCounts *tc, const NodeInfo *node);
extern List *TopologyOwnedTerms(ClusterSnapshot *snap);
extern HTAB *TopologyPairTable(void);
extern void TopologyPairAdd(HTAB *pairs, const char *key, const char *value, int64 delta);
extern int64 TopologyPairCount(HTAB *pairs, const char *key, const char *value, int valuelen);
extern int64 TopologyNodePairCount(HTAB *pairs, const NodeInfo *node, const char *key);
extern void TopologyPairsForEach(HTAB *pairs, void (*fn) (const char *key, const char *value, int64 count, void *arg),
								 void *arg);
extern void TopologyAccountPod(ClusterSnapshot *snap, const PodRef *p, const NodeInfo *n, int sign);
extern void TopologyAccountNode(ClusterSnapshot *snap, const NodeInfo *n, int sign);
extern const SnapshotListener TopologyListener;

#endif
