/*
 * snapshot.h
 *	  The in-memory view of the nodes and their pods that a cycle reads
 *	  (kube-scheduler's cache snapshot), kept current from scheduler.changes.
 *
 * IDENTIFICATION
 *	  src/snapshot.h
 */
#ifndef SCHEDULER_SNAPSHOT_H
#define SCHEDULER_SNAPSHOT_H

#include "postgres.h"
#include "access/htup.h"
#include "access/tupdesc.h"
#include "utils/hsearch.h"
#include "cluster.h"
#include "codec.h"

typedef struct TopologyState TopologyState;
typedef struct NodeLabelIndex NodeLabelIndex;

typedef struct ClusterSnapshot
{
	int			nnodes;			/* nodes that exist, in NodeTree order */
	NodeInfo  **nodes;
	int		   *ordinals;		/* each one's ordinal, by position in nodes */
	HTAB	   *by_name;		/* node name -> NodeInfo (incl. placeholders) */
	HTAB	   *pods;			/* uid -> PodRef */
	HTAB	   *image_nodes;	/* normalized image name -> nodes having it */
	int			nordinals;		/* NodeInfo ordinals given out */
	NodeInfo  **by_ordinal;		/* each NodeInfo of by_name, by its ordinal */
	uint64	   *generation_of;	/* and its generation and labels_version (read
								 * side by side by a cycle, which need not
								 * visit the NodeInfos) */
	uint64	   *labels_version_of;
	uint64		nodes_version;	/* bumped when nodes come, go or change labels */
	uint64		images_version; /* bumped when a node's images are counted or uncounted */
	uint64		generations;	/* the last NodeInfo generation given out */
	uint64		refreshes;		/* SnapshotGet calls: what was read once per call is stale after */
	MemoryContext cxt;			/* where it lives */
	struct TopologyState *topology; /* per-domain counts (topology.c) */
	struct NodeLabelIndex *node_labels; /* label columns (node_labels.c) */
} ClusterSnapshot;

/* snapshot.c */
extern ClusterSnapshot *SnapshotGet(void);
extern void SnapshotAssume(ClusterSnapshot *snap, const PodInfo *pod, NodeInfo *node);
extern NodeInfo *SnapshotNode(ClusterSnapshot *snap, const char *name);
extern void SnapshotSetGeneration(ClusterSnapshot *snap, NodeInfo *n, uint64 generation);

/* Is n the snapshot's own NodeInfo (not a copy of it, which has its ordinal)? */
static inline bool
SnapshotOwnNode(const ClusterSnapshot *snap, const NodeInfo *n)
{
	return (unsigned) n->ordinal < (unsigned) snap->nordinals && snap->by_ordinal[n->ordinal] == n;
}

/* What a plugin reads once per refresh of the snapshot (snapshot.c) */
typedef struct PerCallCache
{
	uint64		at;				/* the refresh it holds; 0: none */
	MemoryContext cxt;
} PerCallCache;
extern MemoryContext SnapshotPerCall(ClusterSnapshot *snap, PerCallCache *c, const char *name);
extern void SnapshotPerCallFilled(ClusterSnapshot *snap, PerCallCache *c);
extern void SnapshotNominate(ClusterSnapshot *snap, const PodInfo *pod, const char *node);
extern NodeInfo *NodeWithNominatedPods(const NodeInfo *node, const PodInfo *pod);
/* Does a pod nominated to a node count there for pod (NodeWithNominatedPods)? */
extern bool NominatedPodCounts(const PodRef *nominated, const PodInfo *pod);
/* The node's pods as the volume plugins see them: the counted nominated pods with volumes too on such a copy */
extern List *NodePodsWithNominated(const NodeInfo *node, const PodInfo *pod);
extern void SnapshotTakeOut(ClusterSnapshot *snap, PodRef *p);
extern void SnapshotPutBack(ClusterSnapshot *snap, PodRef *p);
extern int	SnapshotImageNodes(ClusterSnapshot *snap, const char *image);
extern void SnapshotPrune(void);

/* What-ifs: the backend's current snapshot changed in memory, then discarded */
extern void SnapshotOverlayNodes(ClusterSnapshot *snap, HeapTuple *rows, TupleDesc desc, uint64 n);
extern void SnapshotOverlayRemoveNode(ClusterSnapshot *snap, const char *uid, const char *name);
extern void SnapshotOverlayPods(ClusterSnapshot *snap, HeapTuple *rows, TupleDesc desc, uint64 n);
extern void SnapshotOverlayRemovePod(ClusterSnapshot *snap, const char *uid, const char *ns, const char *name);
extern Jsonb *SnapshotRelabel(ClusterSnapshot *snap, NodeInfo *n, Jsonb *labels, bool restore);
extern void SnapshotDiscard(void);
extern char *NormalizedImageName(const char *name);

/*
 * What keeps state beside the snapshot (topology.c's per-domain counts) is
 * told of each pod counted on a node or taken off it (sign 1 or -1), and of
 * each node whose labels start or stop counting.
 */
typedef struct SnapshotListener
{
	void		(*account_pod) (ClusterSnapshot *snap, const PodRef *p, const NodeInfo *n, int sign);
	void		(*account_node) (ClusterSnapshot *snap, const NodeInfo *n, int sign);
} SnapshotListener;
extern void SnapshotListen(const SnapshotListener *l);

#endif							/* SCHEDULER_SNAPSHOT_H */
