/*
 * topology.h
 *	  Per-topology-domain counts kept beside the snapshot (topology.c).
 */
#ifndef SCHEDULER_TOPOLOGY_H
#define SCHEDULER_TOPOLOGY_H

#include "node_labels.h"
#include "snapshot.h"

typedef struct DomainDelta DomainDelta;
typedef struct NodeDelta NodeDelta;

/*
 * A term set's per-node counts summed by domain: over the snapshot's nodes
 * (snap->nodes), by the number of each node's value in the column of the
 * first term's key.  Made by one walk over the nodes when the column is
 * new, then brought up to date at each use from the changes noted since
 * (by node; past 64, or a node the column did not number, made afresh).
 */
typedef struct DomainSums
{
	uint64		serial;			/* the column numbering sums is for */
	int64	   *sums;			/* by value number; NULL: not made */
	int			nsums;
	NodeDelta  *pending;
	int			npending;
} DomainSums;

/*
 * A pair table's counts for one topology key by the number of the key's
 * values in the nodes' label column (node_labels.c), so that a cycle reads
 * a node's count from an array instead of looking its label up and hashing
 * the pair.  Kept beside the table: made from it when the column is new,
 * changes noted by value as they come and added at the next use.
 */
typedef struct DomainArray
{
	MemoryContext cxt;
	uint64		serial;			/* the column numbering counts is for */
	int64	   *counts;			/* by value number */
	int			ncounts;
	DomainDelta *pending;		/* changes not yet in counts, newest first */
	int			npending;
	uint64		changes;		/* moves on with every change to the table */
} DomainArray;

/* A cycle's view of one pair table for one key (TopologyDomainsCount) */
typedef struct TopologyDomains
{
	HTAB	   *pairs;
	const char *key;
	const NodeLabelColumn *col;
	uint64		col_serial;		/* col->serial when made */
	const DomainArray *da;
	uint64		changes;		/* da->changes when made */
} TopologyDomains;

/* Pods on nodes matching every one of a set of terms */
typedef struct TopologyCounts
{
	char	   *key;			/* canonical text of the term set */
	MemoryContext cxt;
	int			nterms;
	AffinityTerm *terms;
	bool		skip_terminating;
	HTAB	   *pairs;			/* (topology key, value) -> matching pods */
	DomainArray *domains;		/* per term, for its topology key */
	DomainSums	sums;			/* node_counts by domain of the first term's key */
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
	DomainArray domains;		/* pairs by the key's value numbers */
} OwnedTerm;

extern void TopologyCycleBegin(ClusterSnapshot *snap);
extern TopologyCounts *TopologyCountsFor(ClusterSnapshot *snap, const AffinityTerm *terms, int nterms,
										 bool skip_terminating);
extern int32 TopologyNodeCount(const TopologyCounts *tc, const NodeInfo *node);
extern const int64 *TopologyCountsByDomain(ClusterSnapshot *snap, TopologyCounts *tc, const NodeLabelColumn *col);
extern List *TopologyOwnedTerms(ClusterSnapshot *snap);
extern int64 TopologyPairCount(HTAB *pairs, const char *key, const char *value, int valuelen);
extern void TopologyCountsDomains(ClusterSnapshot *snap, TopologyCounts *tc, int term, TopologyDomains *td);
extern void TopologyOwnedDomains(ClusterSnapshot *snap, OwnedTerm *o, TopologyDomains *td);
extern int64 TopologyDomainsCountSlow(const TopologyDomains *td, const NodeInfo *node, bool *has_key);

/*
 * The count of the pair (td's key, the node's value of it), as
 * TopologyNodePairCount reads it from the table; *has_key false (count 0)
 * when the node lacks the key.  From the array when the column numbered
 * this node and the table has not changed since td was made; else from
 * the table.
 */
static inline int64
TopologyDomainsCount(const TopologyDomains *td, const NodeInfo *node, bool *has_key)
{
	int32		v;

	if (td->da->changes == td->changes && td->col->serial == td->col_serial &&
		(v = NodeLabelOf(td->col, node)) != NODE_LABEL_UNKNOWN)
	{
		*has_key = v >= 0;
		return v >= 0 ? td->da->counts[v] : 0;
	}
	return TopologyDomainsCountSlow(td, node, has_key);
}

extern void TopologyAccountPod(ClusterSnapshot *snap, const PodRef *p, const NodeInfo *n, int sign);
extern void TopologyAccountNode(ClusterSnapshot *snap, const NodeInfo *n, int sign);
extern const SnapshotListener TopologyListener;

#endif
