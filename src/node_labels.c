/*
 * node_labels.c
 *	  The snapshot's nodes' labels by key, numbered: what topology spread,
 *	  inter-pod affinity, node affinity and the volume plugins compare
 *	  node after node, read once per key instead of once per pod and node.
 *
 * A cycle that filters thousands of nodes for one pod would otherwise look
 * each node's label up in its jsonb (a binary search in memory no other
 * node shares) for every pod.  A column holds, for one key, each distinct
 * value the existing nodes carry (numbered from 0, equal bytes equal
 * number) and each node's number in an array in the order a search walks
 * the nodes (NodeInfo.position), so that a plugin resolves the values it
 * wants to numbers once per cycle and then compares integers read in
 * order from one small array.  NodeLabelOf trusts a number only
 * for the labels it was read from (a NodeInfo that is not the snapshot's,
 * or that another copy relabelled, is read afresh by the caller).
 *
 * A number is trusted for the NodeInfo it was read from, as long as its
 * labels are the same: the snapshot gives a node a new labels_version each
 * time its labels change (a status update keeps it), and any NodeInfo that
 * is not the snapshot's or a copy of one has none, so it is read from its
 * labels.  Columns are made the first time a key is asked for and remade
 * when the nodes or their labels have changed since (snap->nodes_version);
 * they live in the snapshot's memory and go with it on a rebuild.  The
 * keys come from pods' specs: past MAX_COLUMNS, a new key's column takes
 * the place of those not asked for since the last refresh (what a cycle
 * resolved against a column is only trusted for the refresh it was made
 * in).
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "utils/memutils.h"

#include "labels.h"
#include "node_labels.h"

#define MAX_COLUMNS 32

struct NodeLabelValue
{
	uint32		hash;
	int32		number;			/* -1: a free slot */
};

/* fills so far, in this backend: each numbering's serial */
static uint64 column_fills = 0;

/* The columns made for a snapshot */
struct NodeLabelIndex
{
	MemoryContext cxt;
	List	   *columns;		/* NodeLabelColumn * */
};

static NodeLabelIndex *
index_of(ClusterSnapshot *snap)
{
	if (snap->node_labels == NULL)
	{
		MemoryContext cxt = AllocSetContextCreate(snap->cxt, "scheduler node label columns",
												  ALLOCSET_DEFAULT_SIZES);
		NodeLabelIndex *ix = MemoryContextAllocZero(cxt, sizeof(NodeLabelIndex));

		ix->cxt = cxt;
		snap->node_labels = ix;
	}
	return snap->node_labels;
}

/* The slot of value (of len bytes, hash h): its own, or the free one it would take */
static NodeLabelValue *
value_slot(const NodeLabelColumn *c, uint32 h, const char *value, int len)
{
	uint32		i = h & (c->nslots - 1);

	for (;;)
	{
		NodeLabelValue *s = &c->slots[i];

		if (s->number < 0 ||
			(s->hash == h && c->lens[s->number] == len && memcmp(c->values[s->number], value, len) == 0))
			return s;
		i = (i + 1) & (c->nslots - 1);
	}
}

/* The number of value, given one when it is new (the column has room: see fill) */
static int32
number_value(NodeLabelColumn *c, const char *value, int len)
{
	uint32		h = hash_bytes((const unsigned char *) value, len);
	NodeLabelValue *s = value_slot(c, h, value, len);

	if (s->number < 0)
	{
		s->hash = h;
		s->number = c->nvalues;
		c->values[c->nvalues] = pnstrdup(value, len);
		c->lens[c->nvalues] = len;
		c->nvalues++;
	}
	return s->number;
}

/* (Re)number the column's key over the existing nodes, in the current context */
static void
fill(NodeLabelColumn *c, ClusterSnapshot *snap)
{
	/* at most one value per node: a table at most half full */
	int			nslots = 16;

	while (nslots < 2 * Max(snap->nnodes, 1))
		nslots *= 2;
	c->version = snap->nodes_version;
	c->serial = ++column_fills;
	c->nvalues = 0;
	c->values = palloc(sizeof(char *) * Max(snap->nnodes, 1));
	c->lens = palloc(sizeof(int) * Max(snap->nnodes, 1));
	c->nnodes = snap->nnodes;
	c->nodes = palloc(sizeof(NodeLabelEntry) * Max(c->nnodes, 1));
	c->nslots = nslots;
	c->slots = palloc(sizeof(NodeLabelValue) * nslots);
	for (int i = 0; i < nslots; i++)
		c->slots[i].number = -1;
	for (int i = 0; i < c->nnodes; i++)
	{
		const NodeInfo *n = snap->nodes[i];
		int			len;
		const char *v = LabelGet(n->labels, c->key, c->keylen, &len);

		c->nodes[i].number = v != NULL ? number_value(c, v, len) : NODE_LABEL_NONE;
		/* NodeLabelOf finds a node by its position: one found elsewhere is read afresh */
		c->nodes[i].labels_version = n->position == i ? n->labels_version : 0;
	}
}

static void
forget(NodeLabelColumn *c)
{
	for (int i = 0; i < c->nvalues; i++)
		pfree(c->values[i]);
	pfree(c->values);
	pfree(c->lens);
	pfree(c->nodes);
	pfree(c->slots);
}

/*
 * NodeLabelColumnFor
 *		The column of key (keylen bytes) for the snapshot's nodes as they are
 *		now.
 */
NodeLabelColumn *
NodeLabelColumnFor(ClusterSnapshot *snap, const char *key, int keylen)
{
	NodeLabelIndex *ix = index_of(snap);
	NodeLabelColumn *c = NULL;
	MemoryContext old;
	ListCell   *lc;

	foreach(lc, ix->columns)
	{
		NodeLabelColumn *x = lfirst(lc);

		if (x->keylen == keylen && memcmp(x->key, key, keylen) == 0)
		{
			x->used_at = snap->refreshes;
			if (x->version == snap->nodes_version)
				return x;
			c = x;
			break;
		}
	}
	old = MemoryContextSwitchTo(ix->cxt);
	if (c == NULL && list_length(ix->columns) >= MAX_COLUMNS)
	{
		foreach(lc, ix->columns)
		{
			NodeLabelColumn *x = lfirst(lc);

			if (x->used_at == snap->refreshes)
				continue;
			forget(x);
			pfree(x->key);
			pfree(x);
			ix->columns = foreach_delete_current(ix->columns, lc);
		}
	}
	if (c == NULL)
	{
		c = palloc0(sizeof(NodeLabelColumn));
		c->key = pnstrdup(key, keylen);
		c->keylen = keylen;
		c->used_at = snap->refreshes;
		ix->columns = lappend(ix->columns, c);
	}
	else
		forget(c);
	fill(c, snap);
	MemoryContextSwitchTo(old);
	return c;
}

/* The number of value in c; NODE_LABEL_NONE when no node has it */
int32
NodeLabelValueNumber(const NodeLabelColumn *c, const char *value, int len)
{
	uint32		h = hash_bytes((const unsigned char *) value, len);
	NodeLabelValue *s = value_slot(c, h, value, len);

	return s->number < 0 ? NODE_LABEL_NONE : s->number;
}

/* NodeLabelNumber's slow way: the node's own labels read */
int32
NodeLabelNumberOfLabels(const NodeLabelColumn *c, const NodeInfo *n)
{
	int			len;
	const char *v = LabelGet(n->labels, c->key, c->keylen, &len);

	return v == NULL ? NODE_LABEL_NONE : NodeLabelValueNumber(c, v, len);
}

