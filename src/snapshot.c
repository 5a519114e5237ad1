/*
 * snapshot.c
 *	  The in-memory view of nodes, and of what the pods on them use, that a
 *	  scheduling cycle reads.
 *
 * A snapshot is read from the mirror tables once per schedule_pending() call;
 * the cycle then reserves on it in memory, so no decision re-reads a node.
 * A pod counts against a node when the API server has bound it there
 * (spec.nodeName) or when this scheduler has chosen that node for it
 * (assumed_node, kube-scheduler's assume cache), unless it has terminated
 * (phase Succeeded or Failed).  Terminating pods still count.
 */
#include "postgres.h"

#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "jsonutil.h"
#include "scheduler.h"

#define NODE_NAME_KEYSIZE 256

typedef struct NodeIndexEntry
{
	char		name[NODE_NAME_KEYSIZE];
	int			index;
} NodeIndexEntry;

static Jsonb *
get_jsonb(HeapTuple tup, TupleDesc desc, int col)
{
	bool		isnull;
	Datum		d = SPI_getbinval(tup, desc, col, &isnull);

	return isnull ? NULL : DatumGetJsonbP(d);
}

static int64
get_int64(HeapTuple tup, TupleDesc desc, int col)
{
	bool		isnull;
	Datum		d = SPI_getbinval(tup, desc, col, &isnull);

	return isnull ? 0 : DatumGetInt64(d);
}

static char *
jstr(JsonbContainer *c, const char *key)
{
	JsonbValue *v = JGet(c, key);

	if (v == NULL || v->type != jbvString || v->val.string.len == 0)
		return NULL;
	return pnstrdup(v->val.string.val, v->val.string.len);
}

static Taint *
TaintsFromJsonb(Jsonb *jb, int *n)
{
	Taint	   *taints;
	int			count;

	*n = 0;
	if (jb == NULL || !JB_ROOT_IS_ARRAY(jb) || JB_ROOT_IS_SCALAR(jb))
		return NULL;
	count = JB_ROOT_COUNT(jb);
	taints = palloc0(sizeof(Taint) * Max(count, 1));
	for (int i = 0; i < count; i++)
	{
		JsonbValue *v = getIthJsonbValueFromContainer(&jb->root, i);
		JsonbContainer *c = v->val.binary.data;
		char	   *value = jstr(c, "value");

		taints[i].key = jstr(c, "key");
		taints[i].value = value ? value : "";
		taints[i].effect = jstr(c, "effect");
	}
	*n = count;
	return taints;
}

Toleration *
TolerationsFromJsonb(Jsonb *jb, int *n)
{
	Toleration *tols;
	int			count;

	*n = 0;
	if (jb == NULL || !JB_ROOT_IS_ARRAY(jb) || JB_ROOT_IS_SCALAR(jb))
		return NULL;
	count = JB_ROOT_COUNT(jb);
	tols = palloc0(sizeof(Toleration) * Max(count, 1));
	for (int i = 0; i < count; i++)
	{
		JsonbValue *v = getIthJsonbValueFromContainer(&jb->root, i);
		JsonbContainer *c = v->val.binary.data;
		char	   *value = jstr(c, "value");

		tols[i].key = jstr(c, "key");
		tols[i].operator = jstr(c, "operator");
		tols[i].value = value ? value : "";
		tols[i].effect = jstr(c, "effect");
	}
	*n = count;
	return tols;
}

/* v1helper Toleration.ToleratesTaint */
bool
TolerationToleratesTaint(const Toleration *tol, const Taint *taint)
{
	if (tol->effect && (taint->effect == NULL || strcmp(tol->effect, taint->effect) != 0))
		return false;
	if (tol->key && (taint->key == NULL || strcmp(tol->key, taint->key) != 0))
		return false;
	if (tol->operator == NULL || strcmp(tol->operator, "Equal") == 0)
		return strcmp(tol->value, taint->value) == 0;
	if (strcmp(tol->operator, "Exists") == 0)
		return true;
	return false;
}

bool
TolerationsTolerateTaint(const Toleration *tols, int ntols, const Taint *taint)
{
	for (int i = 0; i < ntols; i++)
		if (TolerationToleratesTaint(&tols[i], taint))
			return true;
	return false;
}

/*
 * PodInfoFromTuple
 *		A pending pod from a row of (uid, namespace, name, node_name, priority,
 *		requests, nonzero_cpu, nonzero_memory, tolerations).
 */
void
PodInfoFromTuple(PodInfo *pod, HeapTuple tup, TupleDesc desc)
{
	bool		isnull;

	memset(pod, 0, sizeof(*pod));
	pod->uid = SPI_getvalue(tup, desc, 1);
	pod->namespace = SPI_getvalue(tup, desc, 2);
	pod->name = SPI_getvalue(tup, desc, 3);
	pod->node_name = SPI_getvalue(tup, desc, 4);
	pod->priority = DatumGetInt32(SPI_getbinval(tup, desc, 5, &isnull));
	ResourceVecFromNormalized(&pod->requests, get_jsonb(tup, desc, 6));
	pod->nonzero_cpu = get_int64(tup, desc, 7);
	pod->nonzero_memory = get_int64(tup, desc, 8);
	pod->tolerations = TolerationsFromJsonb(get_jsonb(tup, desc, 9), &pod->ntolerations);
}

/*
 * SnapshotLoad
 *		Read every node and the use of the pods on it.  Call inside SPI.
 */
ClusterSnapshot *
SnapshotLoad(MemoryContext parent)
{
	MemoryContext cxt = AllocSetContextCreate(parent, "scheduler snapshot", ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	ClusterSnapshot   *snap = palloc0(sizeof(ClusterSnapshot));
	HASHCTL		hctl;
	SPITupleTable *tt;

	snap->cxt = cxt;

	if (SPI_execute("SELECT name, unschedulable, taints, allocatable FROM scheduler.nodes ORDER BY name",
					false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read scheduler.nodes");
	tt = SPI_tuptable;
	snap->nnodes = (int) SPI_processed;
	snap->nodes = palloc0(sizeof(NodeInfo) * Max(snap->nnodes, 1));

	memset(&hctl, 0, sizeof(hctl));
	hctl.keysize = NODE_NAME_KEYSIZE;
	hctl.entrysize = sizeof(NodeIndexEntry);
	hctl.hcxt = cxt;
	snap->by_name = hash_create("scheduler snapshot nodes", Max(snap->nnodes, 16), &hctl,
								HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);

	for (int i = 0; i < snap->nnodes; i++)
	{
		HeapTuple	tup = tt->vals[i];
		NodeInfo   *node = &snap->nodes[i];
		bool		isnull;
		NodeIndexEntry *e;
		bool		found;

		node->name = SPI_getvalue(tup, tt->tupdesc, 1);
		node->unschedulable = DatumGetBool(SPI_getbinval(tup, tt->tupdesc, 2, &isnull));
		node->taints = TaintsFromJsonb(get_jsonb(tup, tt->tupdesc, 3), &node->ntaints);
		ResourceVecFromNormalized(&node->allocatable, get_jsonb(tup, tt->tupdesc, 4));
		if (strlen(node->name) >= NODE_NAME_KEYSIZE)
			ereport(ERROR,
					(errcode(ERRCODE_NAME_TOO_LONG),
					 errmsg("node name \"%s\" is longer than %d characters", node->name, NODE_NAME_KEYSIZE - 1)));
		e = hash_search(snap->by_name, node->name, HASH_ENTER, &found);
		e->index = i;
	}
	SPI_freetuptable(tt);

	if (SPI_execute("SELECT coalesce(node_name, assumed_node), requests, nonzero_cpu, nonzero_memory"
					" FROM scheduler.pods"
					" WHERE coalesce(node_name, assumed_node) IS NOT NULL"
					" AND (phase IS NULL OR phase NOT IN ('Succeeded', 'Failed'))",
					false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read scheduler.pods");
	tt = SPI_tuptable;
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		HeapTuple	tup = tt->vals[i];
		char	   *nodename = SPI_getvalue(tup, tt->tupdesc, 1);
		NodeInfo   *node = SnapshotFindNode(snap, nodename);
		PodInfo		pod;

		if (node == NULL)
			continue;			/* bound to a node we do not have */
		memset(&pod, 0, sizeof(pod));
		ResourceVecFromNormalized(&pod.requests, get_jsonb(tup, tt->tupdesc, 2));
		pod.nonzero_cpu = get_int64(tup, tt->tupdesc, 3);
		pod.nonzero_memory = get_int64(tup, tt->tupdesc, 4);
		SnapshotReserve(snap, node, &pod);
	}
	SPI_freetuptable(tt);

	MemoryContextSwitchTo(old);
	return snap;
}

NodeInfo *
SnapshotFindNode(ClusterSnapshot *snap, const char *name)
{
	NodeIndexEntry *e;

	if (name == NULL || strlen(name) >= NODE_NAME_KEYSIZE)
		return NULL;
	e = hash_search(snap->by_name, name, HASH_FIND, NULL);
	return e ? &snap->nodes[e->index] : NULL;
}

/* Count a pod against a node (kube-scheduler's NodeInfo.AddPod). */
void
SnapshotReserve(ClusterSnapshot *snap, NodeInfo *node, const PodInfo *pod)
{
	MemoryContext old = MemoryContextSwitchTo(snap->cxt);

	ResourceAdd(&node->requested, &pod->requests);
	node->nonzero_cpu += pod->nonzero_cpu;
	node->nonzero_memory += pod->nonzero_memory;
	node->npods++;
	MemoryContextSwitchTo(old);
}
