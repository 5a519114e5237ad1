/*
 * snapshot.c
 *	  The in-memory view of nodes, and of what the pods on them use, that a
 *	  scheduling cycle reads: built once per backend, then kept current.
 *
 * A pod counts against a node when the API server has bound it there
 * (spec.nodeName) or this scheduler has chosen that node for it
 * (assumed_node, kube-scheduler's assume cache), unless it has terminated
 * (phase Succeeded or Failed).  Terminating pods still count.
 *
 * Keeping it current.  Triggers log every changed node and pod in
 * scheduler.changes with the writing transaction's xid.  At each refresh we
 * take x = the xmin of a fresh snapshot: every transaction below x has ended,
 * so re-reading the objects named by changes with xid >= (the previous x)
 * brings the cache up to date with everything committed before x; changes of
 * transactions still running will still be at or above x next time.
 * Re-reading an object is idempotent, so reading a change twice is harmless.
 * The cache is rebuilt from scratch when it has never been built, when the
 * extension was re-created, when changes it needs were pruned, after a
 * TRUNCATE, when more changed than a rebuild costs, or after a (sub)
 * transaction abort, which may have undone assumptions made in the cache.
 *
 * Nodes are kept in kube-scheduler's NodeTree order: zones (region and zone
 * labels) in turn, one node from each, so a sampled search spreads over zones.
 */
#include "postgres.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "access/xact.h"
#include "common/hashfn.h"
#include "common/int.h"
#include "funcapi.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "access.h"
#include "codec.h"
#include "jsonutil.h"
#include "pod_volumes.h"
#include "scheduling_queue.h"
#include "snapshot.h"
#include "worker.h"

#define IMAGE_KEYSIZE		512

typedef struct NodeEntry
{
	char		name[NODE_NAME_KEYSIZE];
	NodeInfo   *node;
	char	   *uid;
} NodeEntry;

/* Node image names are kept verbatim, as kube-scheduler's ImageStates are. */
typedef struct ImageEntry
{
	char		name[IMAGE_KEYSIZE];
	int			nodes;
} ImageEntry;

/* who keeps state beside the snapshot, told of what it counts (topology.c) */
static const SnapshotListener *listener = NULL;

static MemoryContext cache_cxt = NULL;
static MemoryContext nominated_cxt = NULL;	/* the nominated pods, reloaded each time */
static List *nominated_nodes = NIL;	/* nodes whose nominated list is set */
static ClusterSnapshot *cache = NULL;
static bool cache_valid = false;
static uint64 cache_xmin = 0;
static Oid	cache_relid = InvalidOid;
static bool callbacks_registered = false;
static bool order_dirty = false;

/*
 * Objects re-read since the last rebuild.  Small pieces of a replaced pod
 * (scalar resource names, host port strings) are not freed one by one;
 * rebuilding once churn outgrows the cache bounds what they hold.
 */
static int64 churn = 0;

/* SnapshotGet calls, across rebuilds too */
static uint64 refresh_count = 0;

/* apply_changes: the names of the nodes node_load read (NULL: not asked) */
static HTAB *nodes_loaded = NULL;

/* ------------------------------------------------------------------------
 * Parsing rows
 * ------------------------------------------------------------------------
 */
/*
 * ImageLocality's normalizedImageName: an image without a tag gets ":latest".
 * A tag is a ':' after the last '/'.
 */
char *
NormalizedImageName(const char *name)
{
	const char *colon = strrchr(name, ':');
	const char *slash = strrchr(name, '/');

	if (colon == NULL || (slash != NULL && colon < slash))
		return psprintf("%s:latest", name);
	return pstrdup(name);
}

/* ------------------------------------------------------------------------
 * The cache
 * ------------------------------------------------------------------------
 */
/*
 * Free the snapshot: the next SnapshotGet builds it from the tables.  Its
 * memory goes back to the system (malloc_trim), not only to malloc.
 */
static void
release(void)
{
	nodes_loaded = NULL;
	if (cache_cxt)
		MemoryContextDelete(cache_cxt);
	cache_cxt = NULL;
	cache = NULL;
	nominated_cxt = NULL;
	nominated_nodes = NIL;
	cache_valid = false;
	order_dirty = false;
	churn = 0;
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}

/*
 * At the end of each top-level transaction: an abort invalidates the
 * snapshot; a session that may not keep it (WorkerKeepSnapshot:
 * scheduler.snapshot_keepers) frees it.
 */
static void
invalidate_callback(XactEvent event, void *arg pg_attribute_unused())
{
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT)
		cache_valid = false;
	if ((event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT) && cache_cxt != NULL &&
		!WorkerKeepSnapshot())
		release();
}

static void
invalidate_sub_callback(SubXactEvent event, SubTransactionId my pg_attribute_unused(), SubTransactionId parent pg_attribute_unused(), void *arg pg_attribute_unused())
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
		cache_valid = false;
}

/* Anything a Filter reads of the node changed: a new generation (equivalence.c) */
static inline void
touch(NodeInfo *n)
{
	n->generation = ++cache->generations;
	cache->generation_of[n->ordinal] = n->generation;
}

/* Its labels changed: a new labels_version (node_labels.c, equivalence.c) */
static inline void
new_labels_version(NodeInfo *n)
{
	n->labels_version = ++cache->generations;
	cache->labels_version_of[n->ordinal] = n->labels_version;
}

/*
 * A node given back the generation it had before a what-if (preemption's
 * dry runs, fit_hints'): set through here, so that the snapshot's
 * generation_of says the same of its own nodes
 */
void
SnapshotSetGeneration(ClusterSnapshot *snap, NodeInfo *n, uint64 generation)
{
	n->generation = generation;
	if (SnapshotOwnNode(snap, n))
		snap->generation_of[n->ordinal] = generation;
}

/*
 * A stored row that cannot be read whole (SQL wrote it past
 * scheduler.apply()): say which, once per reading of it; what can be read
 * is used.
 */
static void
row_warning(const char *kind, const char *name, const char *err)
{
	ereport(WARNING,
			(errcode(ERRCODE_DATA_EXCEPTION),
			 errmsg("scheduler: the stored row of %s \"%s\" cannot be read whole: %s",
					kind, name ? JShort(name) : "(no name)", err),
			 errdetail("What can be read of it is used."),
			 errhint("Write the object again with scheduler.apply().")));
}

/* The node of that name, made if create; NULL for a name no node can have */
static NodeInfo *
node_slot(const char *name, bool create)
{
	NodeEntry  *e;
	bool		found;

	if (name == NULL || strlen(name) >= NODE_NAME_KEYSIZE)
		return NULL;
	e = hash_search(cache->by_name, name, create ? HASH_ENTER : HASH_FIND, &found);
	if (e == NULL)
		return NULL;
	if (!found)
	{
		NodeInfo   *n = MemoryContextAllocZero(cache_cxt, sizeof(NodeInfo));

		n->name = MemoryContextStrdup(cache_cxt, name);
		/* (room by doubling: a power of two from 1024 on) */
		if (cache->nordinals >= 1024 && (cache->nordinals & (cache->nordinals - 1)) == 0)
		{
			cache->by_ordinal = repalloc(cache->by_ordinal, sizeof(NodeInfo *) * cache->nordinals * 2);
			cache->generation_of = repalloc(cache->generation_of, sizeof(uint64) * cache->nordinals * 2);
			cache->labels_version_of = repalloc(cache->labels_version_of, sizeof(uint64) * cache->nordinals * 2);
		}
		n->ordinal = cache->nordinals++;
		cache->by_ordinal[n->ordinal] = n;
		cache->generation_of[n->ordinal] = n->generation;	/* (0) */
		cache->labels_version_of[n->ordinal] = n->labels_version;	/* (0) */
		n->cxt = AllocSetContextCreate(cache_cxt, "scheduler node", ALLOCSET_SMALL_SIZES);
		e->node = n;
		e->uid = NULL;
	}
	return e->node;
}

static void
image_count(const char *image, int delta)
{
	ImageEntry *e;
	bool		found;

	if (strlen(image) >= IMAGE_KEYSIZE)
		return;					/* no registry allows such names; never matched */
	e = hash_search(cache->image_nodes, image, HASH_ENTER, &found);
	if (!found)
		e->nodes = 0;
	e->nodes += delta;
	cache->images_version++;	/* ImageLocality's kept scores are stale (equivalence.c) */
}

/* The node of that name, when it exists */
NodeInfo *
SnapshotNode(ClusterSnapshot *snap, const char *name)
{
	NodeEntry  *e;

	if (name == NULL || strlen(name) >= NODE_NAME_KEYSIZE)
		return NULL;
	e = hash_search(snap->by_name, name, HASH_FIND, NULL);
	return (e && e->node->exists) ? e->node : NULL;
}

int
SnapshotImageNodes(ClusterSnapshot *snap, const char *image)
{
	ImageEntry *e;

	if (strlen(image) >= IMAGE_KEYSIZE)
		return 0;
	e = hash_search(snap->image_nodes, image, HASH_FIND, NULL);
	return e ? e->nodes : 0;
}

/* Forget a node's own data (not the pods on it). */
static void
node_clear(NodeInfo *n)
{
	/* its pods leave their topology domains while it has no labels */
	if (listener)
		listener->account_node(cache, n, -1);
	touch(n);
	for (int i = 0; i < n->nimages; i++)
		image_count(n->images[i].name, -1);
	MemoryContextReset(n->cxt);
	n->uid = NULL;
	n->exists = false;
	n->labels = NULL;
	n->ntaints = 0;
	n->taints = NULL;
	n->nimages = 0;
	n->images = NULL;
	memset(&n->allocatable, 0, sizeof(ResourceVec));
	n->unschedulable = false;
}

/* (Re)load a node from a row of NodeColumns (codec.c) */
static void
node_load(HeapTuple tup, TupleDesc desc)
{
	char	   *name = SPI_getvalue(tup, desc, NODE_ATT(name));
	NodeInfo   *n = node_slot(name, true);
	NodeEntry  *e;
	Jsonb	   *labels = TupleJsonb(tup, desc, NODE_ATT(labels));
	bool		relabelled;
	List	   *problems = NIL;
	ListCell   *lc;

	churn++;
	if (n == NULL)
	{
		row_warning("node", name, "its name is longer than a node name can be; the node is left out");
		return;
	}
	e = hash_search(cache->by_name, name, HASH_FIND, NULL);
	if (labels && !JB_ROOT_IS_OBJECT(labels))
		labels = NULL;
	/* a status update keeps the topology domains (topology.c) as they are */
	relabelled = !n->exists || (n->labels == NULL) != (labels == NULL) ||
		(labels && (VARSIZE(labels) != VARSIZE(n->labels) || memcmp(labels, n->labels, VARSIZE(labels)) != 0));
	if (n->exists)
		node_clear(n);
	else
		order_dirty = true;

	NodeInfoFromTuple(n, tup, desc, n->cxt, &problems);
	e->uid = n->uid;
	if (nodes_loaded)
		(void) hash_search(nodes_loaded, name, HASH_ENTER, NULL);	/* (shorter than a key: node_slot) */
	foreach(lc, problems)
		row_warning("node", name, lfirst(lc));
	for (int i = 0; i < n->nimages; i++)
		image_count(n->images[i].name, 1);
	if (listener)
		listener->account_node(cache, n, 1);
	touch(n);
	if (relabelled)
	{
		cache->nodes_version++;
		/* what node_labels.c's columns read of its labels is stale */
		new_labels_version(n);
	}
	order_dirty = true;			/* labels may have moved it to another zone */
}

static void
node_remove(const char *name, const char *uid)
{
	NodeEntry  *e;

	if (name == NULL || strlen(name) >= NODE_NAME_KEYSIZE)
		return;
	e = hash_search(cache->by_name, name, HASH_FIND, NULL);
	if (e == NULL || !e->node->exists)
		return;
	if (e->uid && strcmp(e->uid, uid) != 0)
		return;					/* a newer node of that name replaced it */
	node_clear(e->node);
	e->node->labels_version = 0;	/* no labels: nothing of them to trust */
	cache->labels_version_of[e->node->ordinal] = 0;
	cache->nodes_version++;		/* its domains are gone */
	e->uid = NULL;
	order_dirty = true;
}

/*
 * A pod to schedule's requests and host ports, copied (current context)
 * into p, which has none: as a node counts them (the non-zero sums too,
 * which the scorer reads otherwise of the pod it schedules)
 */
static void
copy_usage(PodRef *p, const PodInfo *pod)
{
	memset(&p->requests, 0, sizeof(ResourceVec));
	ResourceAdd(&p->requests, &pod->requests);
	p->nonzero_cpu = pod->placed_nonzero_cpu;
	p->nonzero_memory = pod->placed_nonzero_memory;
	p->nports = pod->nports;
	p->ports = pod->nports > 0 ? palloc(sizeof(HostPort) * pod->nports) : NULL;
	for (int i = 0; i < pod->nports; i++)
	{
		p->ports[i].ip = pod->ports[i].ip ? pstrdup(pod->ports[i].ip) : NULL;
		p->ports[i].protocol = pod->ports[i].protocol ? pstrdup(pod->ports[i].protocol) : NULL;
		p->ports[i].port = pod->ports[i].port;
	}
}

/*
 * A pod's requests added to the node's sums.  Each pod's own total fits in
 * int64 (scheduler.apply() refuses one that does not), but a node's sum may
 * not: it then stops at the limit, the node is marked saturated, and the
 * sums are recomputed when a pod leaves it (never wrapped to a small or
 * negative number that would let pods in).
 */
static void
add_sums(NodeInfo *n, const PodRef *p)
{
	if (ResourceAddSaturating(&n->requested, &p->requests) != NULL)
		n->saturated = true;
	if (!AddSaturating(&n->nonzero_cpu, p->nonzero_cpu))
		n->saturated = true;
	if (!AddSaturating(&n->nonzero_memory, p->nonzero_memory))
		n->saturated = true;
}

/* What a pod uses of a node: its requests, one pod, its host ports */
static void
add_usage(NodeInfo *n, PodRef *p)
{
	add_sums(n, p);
	n->npods++;
	if (p->nports > 0)
		n->port_pods = lappend(n->port_pods, p);
}

/* The sums of a saturated node, from its pods (in the cache context) */
static void
recompute_sums(NodeInfo *n)
{
	ListCell   *lc;

	for (int i = 0; i < n->requested.nscalar; i++)
		n->requested.scalar[i].value = 0;
	n->requested.cpu = n->requested.memory = n->requested.ephemeral = n->requested.pods = 0;
	n->nonzero_cpu = n->nonzero_memory = 0;
	n->saturated = false;
	foreach(lc, n->pods)
		add_sums(n, lfirst(lc));
}

/*
 * Add (sign 1) or remove (sign -1) a pod's use of its node, n (the
 * snapshot's NodeInfo of that name).
 */
static void
pod_account_on(PodRef *p, NodeInfo *n, int sign)
{
	MemoryContext old;

	touch(n);
	/* aggregates may add scalar resource slots: they live in the cache */
	old = MemoryContextSwitchTo(cache_cxt);
	if (sign > 0)
	{
		add_usage(n, p);
		n->pods = lappend(n->pods, p);
		if (p->affinity)
			n->affinity_pods = lappend(n->affinity_pods, p);
		if (p->affinity && p->affinity->nreq_anti > 0)
			n->anti_pods = lappend(n->anti_pods, p);
		if (listener)
			listener->account_pod(cache, p, n, 1);
	}
	else
	{
		n->npods--;
		if (p->nports > 0)
			n->port_pods = list_delete_ptr(n->port_pods, p);
		n->pods = list_delete_ptr(n->pods, p);
		if (n->saturated)
			recompute_sums(n);
		else
		{
			ResourceSub(&n->requested, &p->requests);
			n->nonzero_cpu -= p->nonzero_cpu;
			n->nonzero_memory -= p->nonzero_memory;
		}
		if (p->affinity)
			n->affinity_pods = list_delete_ptr(n->affinity_pods, p);
		if (p->affinity && p->affinity->nreq_anti > 0)
			n->anti_pods = list_delete_ptr(n->anti_pods, p);
		if (listener)
			listener->account_pod(cache, p, n, -1);
	}
	MemoryContextSwitchTo(old);
}

/* Add (sign 1) or remove (sign -1) a pod's use of its node. */
static void
pod_account(PodRef *p, int sign)
{
	NodeInfo   *n;

	if (p->node == NULL)
		return;
	n = node_slot(p->node, true);
	if (n == NULL)
		return;					/* no node can have that name: it counts nowhere */
	pod_account_on(p, n, sign);
}

/*
 * Take a pod off its node, and put it back: DefaultPreemption's dry runs
 * (what-if without the victims).  Everything that counts pods follows.
 */
static void overlay_check(ClusterSnapshot *snap);

void
SnapshotTakeOut(ClusterSnapshot *snap pg_attribute_unused(), PodRef *p)
{
	Assert(!p->taken_out);
	pod_account(p, -1);
	p->taken_out = true;		/* what counts pods anew leaves it out */
}

void
SnapshotPutBack(ClusterSnapshot *snap pg_attribute_unused(), PodRef *p)
{
	Assert(p->taken_out);
	p->taken_out = false;
	pod_account(p, 1);
}

/*
 * SnapshotRelabel
 *		A node's labels replaced in place for a what-if (fit_hints' checks),
 *		what counts by label following: its pods move to the topology
 *		domains of the new labels (the listener), node_labels.c's columns
 *		read them (a new labels_version, the nodes' version moved on).  The
 *		labels are copied into the node's memory; the old ones are returned,
 *		to be put back the same way (restore: the very labels returned).  The search order and the node's
 *		generation are left as they are: the caller puts the labels back
 *		before anything else reads the snapshot.
 */
Jsonb *
SnapshotRelabel(ClusterSnapshot *snap, NodeInfo *n, Jsonb *labels, bool restore)
{
	Jsonb	   *was = n->labels;

	overlay_check(snap);
	if (listener)
		listener->account_node(cache, n, -1);
	n->labels = labels;
	if (labels && !restore)
	{
		n->labels = (Jsonb *) MemoryContextAlloc(n->cxt, VARSIZE(labels));
		memcpy(n->labels, labels, VARSIZE(labels));
	}
	if (listener)
		listener->account_node(cache, n, 1);
	cache->nodes_version++;
	new_labels_version(n);
	return was;
}

/*
 * The pods table is keyed by the uid string, which may be as long as a
 * name and namespace make it (the hash key is the PodRef's uid pointer).
 */
static uint32
uid_hash(const void *key, Size keysize pg_attribute_unused())
{
	const char *uid = *(char *const *) key;

	return hash_bytes((const unsigned char *) uid, (int) strlen(uid));
}

static int
uid_match(const void *a, const void *b, Size keysize pg_attribute_unused())
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

static PodRef *
pod_find(const char *uid)
{
	return hash_search(cache->pods, &uid, HASH_FIND, NULL);
}

/*
 * A pod's use of its node taken away, and what pod_forget() always freed of
 * it (its node's name, scalar requests, ports, labels; its key kept)
 */
static void
pod_release(PodRef *p)
{
	pod_account(p, -1);
	if (p->node)
		pfree(p->node);
	if (p->requests.scalar)
		pfree(p->requests.scalar);
	if (p->ports)
		pfree(p->ports);
	if (p->labels)
		pfree(p->labels);
}

static void
pod_forget(const char *uid)
{
	PodRef	   *p = pod_find(uid);
	char	   *key;

	if (p == NULL)
		return;
	pod_release(p);
	key = p->uid;
	hash_search(cache->pods, &uid, HASH_REMOVE, NULL);
	pfree(key);
}

/*
 * The pod's entry, empty, for it to be loaded anew: the one it had (what
 * that held released: pod_forget's, without taking the entry out and
 * putting it back), or a new one.
 */
static PodRef *
pod_renew(const char *uid)
{
	char	   *key = MemoryContextStrdup(cache_cxt, uid);	/* the entry holds it */
	bool		found;
	PodRef	   *p = hash_search(cache->pods, &key, HASH_ENTER, &found);

	if (found)
	{
		pod_release(p);
		pfree(key);
		key = p->uid;
	}
	memset(p, 0, sizeof(PodRef));
	p->uid = key;
	return p;
}

static PodRef *
pod_enter(const char *uid)
{
	PodRef	   *p;
	bool		found;

	p = hash_search(cache->pods, &uid, HASH_ENTER, &found);
	Assert(!found);
	memset(p, 0, sizeof(PodRef));
	p->uid = MemoryContextStrdup(cache_cxt, uid);	/* the same key, held by the entry */
	return p;
}

/*
 * (Re)load a pod from a row of PodRefColumns (codec.c): it counts on its
 * node when it is on one and takes room there.  What cannot be read counts
 * as nothing, with a WARNING naming the pod.
 */
static void
pod_load(HeapTuple tup, TupleDesc desc)
{
	PodRef		row;
	PodRef	   *p;
	char	   *key;
	List	   *problems = NIL;
	ListCell   *lc;
	bool		on_node;

	churn++;
	on_node = PodRefFromTuple(&row, tup, desc, cache_cxt, &problems);
	if (row.uid == NULL)
		return;
	pod_forget(row.uid);
	foreach(lc, problems)
	{
		char	   *ns = SPI_getvalue(tup, desc, POD_REF_ATT(namespace));
		char	   *name = SPI_getvalue(tup, desc, POD_REF_ATT(name));

		row_warning("pod", psprintf("%s/%s", ns ? ns : "", name ? name : ""), lfirst(lc));
	}
	if (!on_node)
		return;
	p = pod_enter(row.uid);
	key = p->uid;
	*p = row;
	p->uid = key;
	pod_account(p, 1);
}

/* kube-scheduler's zone key (GetZoneKey): the beta labels win over the GA ones */
static char *
zone_key(NodeInfo *n)
{
	char	   *region = NULL;
	char	   *zone = NULL;

	if (n->labels)
	{
		zone = JStr(&n->labels->root, "failure-domain.beta.kubernetes.io/zone");
		if (zone == NULL)
			zone = JStr(&n->labels->root, "topology.kubernetes.io/zone");
		region = JStr(&n->labels->root, "failure-domain.beta.kubernetes.io/region");
		if (region == NULL)
			region = JStr(&n->labels->root, "topology.kubernetes.io/region");
	}
	if (region == NULL && zone == NULL)
		return "";
	return psprintf("%s:\\x00:%s", region ? region : "", zone ? zone : "");
}

static int
cmp_node_name(const void *a, const void *b)
{
	return strcmp((*(NodeInfo *const *) a)->name, (*(NodeInfo *const *) b)->name);
}

typedef struct ZoneList
{
	char	   *key;
	int			n;
	int			next;
	NodeInfo  **nodes;
} ZoneList;

/* Lay the existing nodes out in NodeTree order: zones in turn. */
static void
order_nodes(void)
{
	HASH_SEQ_STATUS seq;
	NodeEntry  *e;
	NodeInfo  **all;
	int			n = 0;
	ZoneList   *zones;
	int			nzones = 0;
	int			out = 0;

	/* temporaries in the caller's (SPI) context; the result in the cache */
	all = palloc(sizeof(NodeInfo *) * Max(hash_get_num_entries(cache->by_name), 1));
	hash_seq_init(&seq, cache->by_name);
	while ((e = hash_seq_search(&seq)) != NULL)
		if (e->node->exists)
			all[n++] = e->node;
	qsort(all, n, sizeof(NodeInfo *), cmp_node_name);

	zones = palloc0(sizeof(ZoneList) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		char	   *key = zone_key(all[i]);
		int			z;

		for (z = 0; z < nzones; z++)
			if (strcmp(zones[z].key, key) == 0)
				break;
		if (z == nzones)
		{
			zones[z].key = key;
			zones[z].nodes = palloc(sizeof(NodeInfo *) * n);
			nzones++;
		}
		zones[z].nodes[zones[z].n++] = all[i];
	}
	if (cache->nodes)
		pfree(cache->nodes);
	if (cache->ordinals)
		pfree(cache->ordinals);
	cache->nodes = MemoryContextAlloc(cache_cxt, sizeof(NodeInfo *) * Max(n, 1));
	cache->ordinals = MemoryContextAlloc(cache_cxt, sizeof(int) * Max(n, 1));
	while (out < n)
		for (int z = 0; z < nzones; z++)
			if (zones[z].next < zones[z].n)
			{
				zones[z].nodes[zones[z].next]->position = out;
				cache->ordinals[out] = zones[z].nodes[zones[z].next]->ordinal;
				cache->nodes[out++] = zones[z].nodes[zones[z].next++];
			}
	cache->nnodes = n;
	order_dirty = false;
}

static void
rebuild(void)
{
	HASHCTL		hctl;
	MemoryContext old;
	SPITupleTable *tt;

	nodes_loaded = NULL;		/* (one an error left is gone with its context) */
	if (cache_cxt)
		MemoryContextDelete(cache_cxt);
	nominated_cxt = NULL;		/* it lived in cache_cxt */
	nominated_nodes = NIL;
	churn = 0;
	cache_cxt = AllocSetContextCreate(TopMemoryContext, "scheduler snapshot cache", ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cache_cxt);
	cache = palloc0(sizeof(ClusterSnapshot));
	cache->cxt = cache_cxt;
	cache->by_ordinal = palloc(sizeof(NodeInfo *) * 1024);
	cache->generation_of = palloc(sizeof(uint64) * 1024);
	cache->labels_version_of = palloc(sizeof(uint64) * 1024);

	memset(&hctl, 0, sizeof(hctl));
	hctl.keysize = NODE_NAME_KEYSIZE;
	hctl.entrysize = sizeof(NodeEntry);
	hctl.hcxt = cache_cxt;
	cache->by_name = hash_create("scheduler nodes", 1024, &hctl, HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
	hctl.keysize = sizeof(char *);
	hctl.entrysize = sizeof(PodRef);
	hctl.hash = uid_hash;
	hctl.match = uid_match;
	cache->pods = hash_create("scheduler pods", 4096, &hctl,
							  HASH_ELEM | HASH_FUNCTION | HASH_COMPARE | HASH_CONTEXT);
	hctl.keysize = IMAGE_KEYSIZE;
	hctl.entrysize = sizeof(ImageEntry);
	cache->image_nodes = hash_create("scheduler images", 256, &hctl, HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
	MemoryContextSwitchTo(old);

	if (SPI_execute(psprintf("SELECT %s FROM scheduler.nodes", NodeColumns), false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read scheduler.nodes");
	tt = SPI_tuptable;
	for (uint64 i = 0; i < SPI_processed; i++)
		node_load(tt->vals[i], tt->tupdesc);
	SPI_freetuptable(tt);

	if (SPI_execute(psprintf("SELECT %s FROM scheduler.pods"
							 " WHERE coalesce(node_name, assumed_node) IS NOT NULL AND NOT terminal",
							 PodRefColumns),
					false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read scheduler.pods");
	tt = SPI_tuptable;
	for (uint64 i = 0; i < SPI_processed; i++)
		pod_load(tt->vals[i], tt->tupdesc);
	SPI_freetuptable(tt);
	order_nodes();
}

/*
 * SnapshotPerCall
 *		For what is read once per refresh (one schedule_pending() call: no
 *		writer runs meanwhile): NULL while c holds what this refresh read;
 *		else c's memory, emptied, to read into, and then
 *		SnapshotPerCallFilled.  With no snapshot (a QueueingHint) it is
 *		read every time.
 */
MemoryContext
SnapshotPerCall(ClusterSnapshot *snap, PerCallCache *c, const char *name)
{
	if (snap && c->at == snap->refreshes)
		return NULL;
	if (c->cxt == NULL)
	{
		c->cxt = AllocSetContextCreate(TopMemoryContext, "scheduler per-call cache", ALLOCSET_SMALL_SIZES);
		MemoryContextSetIdentifier(c->cxt, name);
	}
	else
		MemoryContextReset(c->cxt);
	c->at = 0;
	return c->cxt;
}

void
SnapshotPerCallFilled(ClusterSnapshot *snap, PerCallCache *c)
{
	if (snap)
		c->at = snap->refreshes;
}

/* Load the rows sql ($1 = the uids) returns, with load. */
static void
reload(const char *sql, List *uids, void (*load) (HeapTuple, TupleDesc))
{
	Datum		arg = TextArrayFromList(uids);
	Oid			argtype = TEXTARRAYOID;
	SPITupleTable *tt;

	if (SPI_execute_with_args(sql, 1, &argtype, &arg, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not reload changed objects");
	tt = SPI_tuptable;
	for (uint64 i = 0; i < SPI_processed; i++)
		load(tt->vals[i], tt->tupdesc);
	SPI_freetuptable(tt);
}

/* Apply the changes logged since the last refresh; false if a rebuild is needed. */
static bool
apply_changes(void)
{
	Datum		arg;
	Oid			argtype = TEXTOID;
	SPITupleTable *tt;
	List	   *node_uids = NIL;
	List	   *node_gone = NIL;	/* pairs: name, uid */
	List	   *pod_uids = NIL;
	uint64		nchanges;
	char		xmin_text[32];

	snprintf(xmin_text, sizeof(xmin_text), UINT64_FORMAT, cache_xmin);
	arg = CStringGetTextDatum(xmin_text);
	/* (distinct byte by byte: no locale's comparison per pair of rows) */
	/*
	 * a row per statement, its objects in arrays (a truncate's row names
	 * none: kept as one row with none); a row per object before 0.3
	 */
	if (SPI_execute_with_args(SchedChangesInArrays(AccessShareLock) ?
							  "SELECT DISTINCT c.kind, o.uid COLLATE \"C\", o.name COLLATE \"C\""
							  " FROM scheduler.changes c"
							  " LEFT JOIN LATERAL unnest(c.uids, c.names) AS o(uid, name) ON true"
							  " WHERE c.xid >= $1::xid8 AND (o.uid IS NOT NULL OR c.kind = 't')" :
							  "SELECT DISTINCT kind, uid COLLATE \"C\", name COLLATE \"C\" FROM scheduler.changes"
							  " WHERE xid >= $1::xid8",
							  1, &argtype, &arg, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read scheduler.changes");
	tt = SPI_tuptable;
	nchanges = SPI_processed;
	/* past a quarter of what we hold, reading everything is cheaper */
	if (nchanges > 1000 && nchanges > (uint64) (hash_get_num_entries(cache->pods) + cache->nnodes) / 4)
		return false;
	for (uint64 i = 0; i < nchanges; i++)
	{
		char	   *kind = SPI_getvalue(tt->vals[i], tt->tupdesc, 1);
		char	   *uid = SPI_getvalue(tt->vals[i], tt->tupdesc, 2);

		if (kind[0] == 't')
			return false;
		if (kind[0] == 'n')
		{
			node_uids = lappend(node_uids, uid);
			node_gone = lappend(node_gone, SPI_getvalue(tt->vals[i], tt->tupdesc, 3));
			node_gone = lappend(node_gone, uid);
		}
		else
			pod_uids = lappend(pod_uids, uid);
	}
	SPI_freetuptable(tt);

	if (node_uids != NIL)
	{
		HASHCTL		hctl;
		ListCell   *lc;

		/*
		 * Load the changed nodes that exist (a status update keeps what
		 * its labels made: node_load), then drop those no row holds any
		 * more under that name.
		 */
		memset(&hctl, 0, sizeof(hctl));
		hctl.keysize = NODE_NAME_KEYSIZE;
		hctl.entrysize = NODE_NAME_KEYSIZE;
		hctl.hcxt = CurrentMemoryContext;
		/* (set again by each apply_changes and rebuild: an error leaves none behind) */
		nodes_loaded = hash_create("scheduler nodes reloaded", 64, &hctl, HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
		reload(psprintf("SELECT %s FROM scheduler.nodes WHERE uid = ANY($1)", NodeColumns), node_uids, node_load);
		for (lc = list_head(node_gone); lc != NULL; lc = lnext(node_gone, lnext(node_gone, lc)))
		{
			const char *name = lfirst(lc);

			if (name != NULL && strlen(name) < NODE_NAME_KEYSIZE &&
				hash_search(nodes_loaded, name, HASH_FIND, NULL) != NULL)
				continue;		/* read again just now */
			node_remove(lfirst(lc), lfirst(lnext(node_gone, lc)));
		}
		hash_destroy(nodes_loaded);
		nodes_loaded = NULL;
	}
	if (pod_uids != NIL)
	{
		ListCell   *lc;

		foreach(lc, pod_uids)
			pod_forget(lfirst(lc));
		reload(psprintf("SELECT %s FROM scheduler.pods WHERE uid = ANY($1)", PodRefColumns), pod_uids, pod_load);
	}
	if (order_dirty)
		order_nodes();
	return true;
}

static char *
dup_or_null(const char *s)
{
	return s ? pstrdup(s) : NULL;
}

/* A deep copy of pod's volumes (NULL when none) into its PodRef p (assumed or nominated) */
static void
copy_volumes(PodRef *p, const PodInfo *pod)
{
	PodVolume  *copy;

	p->volumes = NULL;
	p->nvolumes = 0;
	if (pod->volumes == NULL || pod->nvolumes <= 0)
		return;
	copy = palloc0(sizeof(PodVolume) * pod->nvolumes);
	for (int i = 0; i < pod->nvolumes; i++)
	{
		const PodVolume *v = &pod->volumes[i];
		PodVolume  *c = &copy[i];

		*c = *v;
		c->name = dup_or_null(v->name);
		c->claim = dup_or_null(v->claim);
		c->disk = dup_or_null(v->disk);
		c->pool = dup_or_null(v->pool);
		c->fs_type = dup_or_null(v->fs_type);
		c->portal = dup_or_null(v->portal);
		c->nmonitors = 0;
		c->monitors = NULL;
		if (v->monitors != NULL && v->nmonitors > 0)
		{
			c->monitors = palloc0(sizeof(char *) * v->nmonitors);
			for (int j = 0; j < v->nmonitors; j++)
				c->monitors[c->nmonitors++] = dup_or_null(v->monitors[j]);
		}
	}
	p->volumes = copy;
	p->nvolumes = pod->nvolumes;
}

/*
 * What the Filters read of a nominated pod besides its usage: namespace,
 * labels and inter-pod affinity terms (InterPodAffinity's and
 * PodTopologySpread's AddPod) and name (the volume plugins, with its
 * volumes: the pod is among the node's pods), copied into the current
 * context.  Terms that do not parse are none.
 */
static void
nominated_terms(PodRef *p, const char *namespace, const char *name, Jsonb *labels, Jsonb *affinity)
{
	char	   *err;

	p->namespace = pstrdup(namespace ? namespace : "");
	p->name = pstrdup(name ? name : "");
	p->labels = labels && JB_ROOT_IS_OBJECT(labels) ? DatumGetJsonbPCopy(JsonbPGetDatum(labels)) : NULL;
	p->affinity = affinity ? PodAffinityParse(affinity, p->namespace, p->labels, &err) : NULL;
}

/*
 * A pending pod as the nodes' nominated lists keep it, in nominated_cxt.
 * What cannot be read of it counts as nothing (the pod's own cycle reports
 * its row).
 */
static PodRef *
nominated_ref(const char *uid, int32 priority, Jsonb *requests, int64 nzc, int64 nzm, Jsonb *ports,
			  const char *namespace, const char *name, Jsonb *labels, Jsonb *affinity, Jsonb *volumes)
{
	PodRef	   *p = palloc0(sizeof(PodRef));
	char	   *err;

	p->uid = pstrdup(uid);
	p->priority = priority;
	(void) ResourceVecFromNormalized(&p->requests, requests, &err);
	p->nonzero_cpu = Max(nzc, 0);
	p->nonzero_memory = Max(nzm, 0);
	p->ports = HostPortsFromJsonb(ports, &p->nports, &err);
	nominated_terms(p, namespace, name, labels, affinity);
	if (volumes != NULL)
	{
		/* those that read, as a pod on a node keeps them (decode_ref_volumes) */
		p->volumes = PodVolumesFromJsonb(volumes, p->name, &p->nvolumes, &err);
	}
	return p;
}

static void
nominate(NodeInfo *n, PodRef *p)
{
	MemoryContext old = MemoryContextSwitchTo(nominated_cxt);

	if (n->nominated == NIL)
		nominated_nodes = lappend(nominated_nodes, n);
	n->nominated = lappend(n->nominated, p);
	touch(n);
	MemoryContextSwitchTo(old);
}

/*
 * The pending pods nominated to nodes (queue.nominated_node, set when
 * preemption made room for them): kube-scheduler's nominator.  Read afresh
 * at each refresh; there are few.
 */
static void
load_nominated(void)
{
	SPITupleTable *tt;
	ListCell   *lc;

	foreach(lc, nominated_nodes)
	{
		((NodeInfo *) lfirst(lc))->nominated = NIL;
		touch(lfirst(lc));
	}
	nominated_nodes = NIL;
	if (nominated_cxt == NULL)
		nominated_cxt = AllocSetContextCreate(cache_cxt, "scheduler nominated pods", ALLOCSET_SMALL_SIZES);
	else
		MemoryContextReset(nominated_cxt);
	SchedQueueNominated("p.uid, q.nominated_node, p.priority, p.requests, p.nonzero_cpu, p.nonzero_memory,"
						" p.host_ports, p.namespace, p.name, p.labels, p.affinity, p.volumes");
	tt = SPI_tuptable;
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		char	   *uid = SPI_getvalue(tt->vals[i], tt->tupdesc, 1);
		NodeInfo   *n = SnapshotNode(cache, SPI_getvalue(tt->vals[i], tt->tupdesc, 2));
		MemoryContext old;
		PodRef	   *p;

		if (n == NULL || uid == NULL)
			continue;
		old = MemoryContextSwitchTo(nominated_cxt);
		p = nominated_ref(uid, DatumGetInt32(SPI_getbinval(tt->vals[i], tt->tupdesc, 3, &isnull)),
						  TupleJsonb(tt->vals[i], tt->tupdesc, 4), TupleInt64(tt->vals[i], tt->tupdesc, 5),
						  TupleInt64(tt->vals[i], tt->tupdesc, 6), TupleJsonb(tt->vals[i], tt->tupdesc, 7),
						  SPI_getvalue(tt->vals[i], tt->tupdesc, 8), SPI_getvalue(tt->vals[i], tt->tupdesc, 9),
						  TupleJsonb(tt->vals[i], tt->tupdesc, 10), TupleJsonb(tt->vals[i], tt->tupdesc, 11),
						  TupleJsonb(tt->vals[i], tt->tupdesc, 12));
		MemoryContextSwitchTo(old);
		nominate(n, p);
	}
	SPI_freetuptable(tt);
}

/*
 * Forget a pod's nomination (it has been assumed, or nominated elsewhere).
 * A pod is nominated where queue.nominated_node said when its cycle began,
 * or where this call nominated it since (kept in nominated_at).
 */
static void
unnominate(const char *uid, const char *where)
{
	NodeInfo   *n = where ? SnapshotNode(cache, where) : NULL;
	ListCell   *x;

	if (n == NULL)
		return;
	foreach(x, n->nominated)
		if (strcmp(((PodRef *) lfirst(x))->uid, uid) == 0)
		{
			n->nominated = foreach_delete_current(n->nominated, x);
			touch(n);
			break;
		}
}

/* Preemption made room for pod on node: later cycles leave it that room. */
void
SnapshotNominate(ClusterSnapshot *snap, const PodInfo *pod, const char *node)
{
	NodeInfo   *n = SnapshotNode(snap, node);
	MemoryContext old;
	PodRef	   *p;

	unnominate(pod->uid, pod->nominated_node);
	if (n == NULL)
		return;
	old = MemoryContextSwitchTo(nominated_cxt);
	p = palloc0(sizeof(PodRef));
	p->uid = pstrdup(pod->uid);
	p->priority = pod->priority;
	copy_usage(p, pod);
	nominated_terms(p, pod->namespace, pod->name, pod->labels, pod->affinity);
	copy_volumes(p, pod);
	MemoryContextSwitchTo(old);
	nominate(n, p);
}

/*
 * Does a pod nominated to a node count there for pod?  Those of the same or
 * higher priority, but pod itself (kube-scheduler's addGENominatedPods).
 */
bool
NominatedPodCounts(const PodRef *nominated, const PodInfo *pod)
{
	return nominated->priority >= pod->priority && strcmp(nominated->uid, pod->uid) != 0;
}

/*
 * addGENominatedPods: the node as the filters see it for pod, with the pods
 * nominated to it that count (NominatedPodCounts) counted in: their
 * requests, their number and their host ports.  nominated_in is set: the
 * Filters that read more of them (InterPodAffinity, PodTopologySpread, the
 * volume plugins through NodePodsWithNominated) look them up.  NULL when
 * there are none.  A copy in the current context.
 */
NodeInfo *
NodeWithNominatedPods(const NodeInfo *node, const PodInfo *pod)
{
	NodeInfo   *copy = NULL;
	ListCell   *lc;

	foreach(lc, node->nominated)
	{
		PodRef	   *p = lfirst(lc);

		if (!NominatedPodCounts(p, pod))
			continue;
		if (copy == NULL)
		{
			copy = palloc(sizeof(NodeInfo));
			*copy = *node;
			memset(&copy->requested, 0, sizeof(ResourceVec));
			ResourceAdd(&copy->requested, &node->requested);
			copy->port_pods = list_copy(node->port_pods);
			copy->nominated_in = true;
		}
		add_usage(copy, p);
	}
	return copy;
}

/*
 * The pods on node as the volume plugins' Filters see them for pod:
 * node->pods, and on a copy made by NodeWithNominatedPods the nominated
 * pods that count and have volumes too (the nodeInfo.Pods of
 * kube-scheduler's copy, to which AddPodInfo added them; those without
 * volumes change nothing these plugins read).  node->pods itself when
 * nothing is added; else a new list in the current context.
 */
List *
NodePodsWithNominated(const NodeInfo *node, const PodInfo *pod)
{
	List	   *pods = node->pods;
	ListCell   *lc;

	if (!node->nominated_in)
		return pods;
	foreach(lc, node->nominated)
	{
		PodRef	   *p = lfirst(lc);

		if (p->volumes == NULL || !NominatedPodCounts(p, pod))
			continue;
		if (pods == node->pods)
			pods = list_copy(node->pods);
		pods = lappend(pods, p);
	}
	return pods;
}

/*
 * SnapshotGet
 *		The current snapshot, refreshed.  Call inside SPI, in the transaction
 *		that will use it.
 */
ClusterSnapshot *
SnapshotGet(void)
{
	uint64		xmin;
	uint64		horizon;
	Oid			relid;
	bool		isnull;
	HeapTuple	tup;
	TupleDesc	desc;

	if (!callbacks_registered)
	{
		RegisterXactCallback(invalidate_callback, NULL);
		RegisterSubXactCallback(invalidate_sub_callback, NULL);
		callbacks_registered = true;
	}

	if (SPI_execute("SELECT pg_snapshot_xmin(pg_current_snapshot())::text::numeric::int8,"
					" horizon::text::numeric::int8, 'scheduler.nodes'::regclass::oid"
					" FROM scheduler.changes_horizon", false, 0) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not read scheduler.changes_horizon");
	tup = SPI_tuptable->vals[0];
	desc = SPI_tuptable->tupdesc;
	xmin = (uint64) DatumGetInt64(SPI_getbinval(tup, desc, 1, &isnull));
	horizon = (uint64) DatumGetInt64(SPI_getbinval(tup, desc, 2, &isnull));
	relid = DatumGetObjectId(SPI_getbinval(tup, desc, 3, &isnull));
	SPI_freetuptable(SPI_tuptable);

	if (!cache_valid || cache == NULL || relid != cache_relid || cache_xmin < horizon ||
		churn > 2 * (hash_get_num_entries(cache->pods) + cache->nnodes) + 10000 ||
		!apply_changes())
		rebuild();
	cache_valid = true;
	cache_relid = relid;
	cache_xmin = xmin;
	load_nominated();
	cache->refreshes = ++refresh_count;
	return cache;
}

/*
 * SnapshotAssume
 *		Count pod against node from now on (Reserve), in this backend's cache;
 *		the caller records it in the table in the same transaction.
 */
void
SnapshotAssume(ClusterSnapshot *snap pg_attribute_unused(), const PodInfo *pod, NodeInfo *node)
{
	PodRef	   *p;
	MemoryContext old;
	char	   *err;

	unnominate(pod->uid, pod->nominated_node);
	p = pod_renew(pod->uid);
	old = MemoryContextSwitchTo(cache_cxt);
	p->node = pstrdup(node->name);
	copy_usage(p, pod);
	/* what inter-pod affinity and topology spread read of it, as a PodRef's */
	p->namespace = pstrdup(pod->namespace ? pod->namespace : "");
	p->name = pstrdup(pod->name ? pod->name : "");
	p->priority = pod->priority;
	p->start_time = GetCurrentTimestamp();
	p->labels = pod->labels && JB_ROOT_IS_OBJECT(pod->labels) ?
		DatumGetJsonbPCopy(JsonbPGetDatum(pod->labels)) : NULL;
	p->terminating = false;
	p->affinity = PodAffinityParse(pod->affinity, p->namespace, p->labels, &err);
	/* and what the volume plugins read (VolumeRestrictions' disks, claims) */
	copy_volumes(p, pod);
	MemoryContextSwitchTo(old);
	/* node itself when it is the snapshot's (not a copy of it): no lookup by name */
	if (SnapshotOwnNode(cache, node))
		pod_account_on(p, node, 1);
	else
		pod_account(p, 1);
}

/*
 * SnapshotPrune: drop changes every cache has had the chance to read; a
 * cache older than the new horizon rebuilds.  Called by schedule_pending().
 */
void
SnapshotPrune(void)
{
	char		xmin_text[32];
	Datum		arg;
	Oid			argtype = TEXTOID;

	snprintf(xmin_text, sizeof(xmin_text), UINT64_FORMAT, cache_xmin);
	arg = CStringGetTextDatum(xmin_text);
	if (SPI_execute_with_args("WITH pruned AS (DELETE FROM scheduler.changes WHERE xid < $1::xid8 RETURNING 1)"
							  " UPDATE scheduler.changes_horizon SET horizon = greatest(horizon, $1::xid8)"
							  " WHERE EXISTS (SELECT 1 FROM pruned)",
							  1, &argtype, &arg, NULL, false, 0) < 0)
		elog(ERROR, "could not prune scheduler.changes");
}

PG_FUNCTION_INFO_V1(scheduler_snapshot);
/*
 * scheduler.snapshot()
 *		RETURNS TABLE (node text, position integer, unschedulable boolean,
 *					   allocatable jsonb, requested jsonb, nonzero_cpu bigint,
 *					   nonzero_memory bigint, pods integer)
 *
 * What this backend's cache holds, refreshed as a cycle would refresh it:
 * one row per node in search (NodeTree) order.
 */
Datum
scheduler_snapshot(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ClusterSnapshot *snap;
	AsOwner		as;

	AsOwnerBegin(&as, ROLE_READER, "read the scheduler's state");
	InitMaterializedSRF(fcinfo, 0);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	snap = SnapshotGet();
	for (int i = 0; i < snap->nnodes; i++)
	{
		NodeInfo   *n = snap->nodes[i];
		Datum		v[8];
		bool		nulls[8] = {false, false, false, false, false, false, false, false};

		v[0] = CStringGetTextDatum(n->name);
		v[1] = Int32GetDatum(i + 1);
		v[2] = BoolGetDatum(n->unschedulable);
		v[3] = JsonbPGetDatum(ResourceVecToJsonb(&n->allocatable));
		v[4] = JsonbPGetDatum(ResourceVecToJsonb(&n->requested));
		v[5] = Int64GetDatum(n->nonzero_cpu);
		v[6] = Int64GetDatum(n->nonzero_memory);
		v[7] = Int32GetDatum(n->npods);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, nulls);
	}
	SPI_finish();
	AsOwnerEnd(&as);
	return (Datum) 0;
}

/*
 * SnapshotListen
 *		Tell l of every node and pod the snapshot counts in or out, from now
 *		on (_PG_init registers topology.c's, before any snapshot is made).
 */
void
SnapshotListen(const SnapshotListener *l)
{
	listener = l;
}

/* ------------------------------------------------------------------------
 * What-ifs (simulate.c): the backend's snapshot changed in memory only,
 * then discarded, so that the next refresh reads the cluster afresh
 * ------------------------------------------------------------------------
 */
static void
overlay_check(ClusterSnapshot *snap)
{
	if (snap == NULL || snap != cache)
		elog(ERROR, "a what-if changes the backend's current snapshot only");
}

/* Nodes as rows of NodeColumns (the SPI result): each added, or read again */
void
SnapshotOverlayNodes(ClusterSnapshot *snap, HeapTuple *rows, TupleDesc desc, uint64 n)
{
	overlay_check(snap);
	for (uint64 i = 0; i < n; i++)
		node_load(rows[i], desc);
	if (order_dirty)
		order_nodes();
}

/*
 * The node of that uid gone, or, when no node has it, the node of that name
 * (NULL: none); its pods stay, as they do when a node is deleted
 */
void
SnapshotOverlayRemoveNode(ClusterSnapshot *snap, const char *uid, const char *name)
{
	HASH_SEQ_STATUS seq;
	NodeEntry  *e;
	char	   *found = NULL;
	char	   *found_uid = NULL;

	overlay_check(snap);
	hash_seq_init(&seq, cache->by_name);
	while ((e = hash_seq_search(&seq)) != NULL)
		if (found == NULL && e->uid && strcmp(e->uid, uid) == 0)
		{
			found = pstrdup(e->name);
			found_uid = pstrdup(e->uid);
		}
	if (found == NULL && name && strlen(name) < NODE_NAME_KEYSIZE &&
		(e = hash_search(cache->by_name, name, HASH_FIND, NULL)) != NULL && e->node->exists && e->uid)
	{
		found = pstrdup(name);
		found_uid = pstrdup(e->uid);
	}
	if (found)
		node_remove(found, found_uid);
	if (order_dirty)
		order_nodes();
}

/* Pods as rows of PodRefColumns: each on its node now, or on none */
void
SnapshotOverlayPods(ClusterSnapshot *snap, HeapTuple *rows, TupleDesc desc, uint64 n)
{
	overlay_check(snap);
	for (uint64 i = 0; i < n; i++)
		pod_load(rows[i], desc);
}

/*
 * The pod of that uid on no node any more, or, when no pod on a node has
 * it, the pod of that namespace and name (NULL: none)
 */
void
SnapshotOverlayRemovePod(ClusterSnapshot *snap, const char *uid, const char *ns, const char *name)
{
	HASH_SEQ_STATUS seq;
	PodRef	   *p;
	char	   *found = NULL;

	overlay_check(snap);
	if (pod_find(uid) != NULL || ns == NULL || name == NULL)
	{
		pod_forget(uid);
		return;
	}
	hash_seq_init(&seq, cache->pods);
	while ((p = hash_seq_search(&seq)) != NULL)
		if (found == NULL && p->namespace && p->name && strcmp(p->namespace, ns) == 0 && strcmp(p->name, name) == 0)
			found = pstrdup(p->uid);
	if (found)
		pod_forget(found);
}

/*
 * SnapshotDiscard
 *		The backend's snapshot holds what a what-if made of it: the next
 *		refresh rebuilds it from the tables.
 */
void
SnapshotDiscard(void)
{
	cache_valid = false;
}
