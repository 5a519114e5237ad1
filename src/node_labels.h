/*
 * node_labels.h
 *	  The snapshot's nodes' labels by key: the values a key takes, numbered,
 *	  and each node's number by position (node_labels.c).
 *
 * IDENTIFICATION
 *	  src/node_labels.h
 */
#ifndef SCHEDULER_NODE_LABELS_H
#define SCHEDULER_NODE_LABELS_H

#include "snapshot.h"

/* a node's number: no such label */
#define NODE_LABEL_NONE		(-1)
/* a node the column did not number (not the snapshot's, or other labels): read its labels */
#define NODE_LABEL_UNKNOWN	(-2)

typedef struct NodeLabelValue NodeLabelValue;

/* A node's number in a column, and the labels it was read from */
typedef struct NodeLabelEntry
{
	uint64		labels_version; /* NodeInfo.labels_version; 0: none */
	int32		number;			/* NODE_LABEL_NONE: no such label */
} NodeLabelEntry;

/*
 * One label key across the existing nodes: each distinct value numbered
 * from 0, and each node's number, by its position in the snapshot's nodes
 * (the order a search walks them in, so that it reads the column in
 * order).  Remade when the nodes or their labels change
 * (snap->nodes_version); it lives as long as the snapshot, so what a cycle
 * resolved against it stays right while the snapshot is not refreshed
 * (snap->refreshes).
 */
typedef struct NodeLabelColumn
{
	char	   *key;
	int			keylen;
	uint64		version;		/* snap->nodes_version it was made at */
	uint64		serial;			/* this numbering's: no other fill had it */
	uint64		used_at;		/* snap->refreshes it was last asked for at */
	int			nvalues;
	char	  **values;			/* by number, NUL-terminated copies */
	int		   *lens;
	NodeLabelEntry *nodes;		/* by NodeInfo position */
	int			nnodes;
	NodeLabelValue *slots;		/* value -> number, open addressing */
	int			nslots;
} NodeLabelColumn;

extern NodeLabelColumn *NodeLabelColumnFor(ClusterSnapshot *snap, const char *key, int keylen);
extern int32 NodeLabelValueNumber(const NodeLabelColumn *c, const char *value, int len);
extern int32 NodeLabelNumberOfLabels(const NodeLabelColumn *c, const NodeInfo *n);

/*
 * The node's number in c without touching its labels, when c numbered
 * this node with these labels (the snapshot's node, or a copy of it);
 * else NODE_LABEL_UNKNOWN.
 */
static inline int32
NodeLabelOf(const NodeLabelColumn *c, const NodeInfo *n)
{
	const NodeLabelEntry *e;

	if (n->position < 0 || n->position >= c->nnodes || n->labels_version == 0)
		return NODE_LABEL_UNKNOWN;
	e = &c->nodes[n->position];
	return e->labels_version == n->labels_version ? e->number : NODE_LABEL_UNKNOWN;
}

/*
 * The node's number in c, its labels read when c did not number it (a
 * value no numbered node has is NODE_LABEL_NONE: the node is alone in it).
 */
static inline int32
NodeLabelNumber(const NodeLabelColumn *c, const NodeInfo *n)
{
	int32		v = NodeLabelOf(c, n);

	return v != NODE_LABEL_UNKNOWN ? v : NodeLabelNumberOfLabels(c, n);
}

#endif							/* SCHEDULER_NODE_LABELS_H */
