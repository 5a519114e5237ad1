/*
 * equivalence.c
 *	  What a cycle found out about a node for a pod, kept for the next pod
 *	  of the same shape, as long as the node has not changed.
 *
 * Pods of one workload (a ReplicaSet's, a Job's) ask the same question of
 * every node.  When none of the plugins that read other pods (inter-pod
 * affinity, topology spread) has anything to say about a pod (their
 * PreFilter skipped), a node's Filter verdict depends only on the pod's spec
 * and on the node: its own data, the pods on it and the pods nominated to
 * it.  Pods whose specs agree in everything the plugins read (each plugin
 * signs the fields it reads: Plugin.sign, codec.c) form a class;
 * a verdict is kept per class and node together with the node's generation,
 * which the snapshot bumps whenever any of that changes (snapshot.c).  The
 * same goes for DefaultPreemption's dry run on a node, and for the raw
 * score of a plugin whose Score reads the pod's signed fields and the node
 * alone (Plugin.score_node_local: NodeResourcesFit, BalancedAllocation,
 * ImageLocality, TaintToleration, NodeAffinity); as ImageLocality's also
 * weighs how many nodes have an image, scores are kept only while the
 * images are counted alike (snap->images_version).
 *
 * The cache lives beside the snapshot and is emptied at each refresh (the
 * profile, its args and the budgets can only change between calls).
 */
#include "postgres.h"

#include "access/xact.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "equivalence.h"
#include "worker.h"

static void forget_at_end(XactEvent event, void *arg);

#define MAX_CLASSES 16

static MemoryContext equiv_cxt = NULL;
static List *classes = NIL;
static uint64 clock_ticks = 0;
static uint64 stamps = 0;
static uint64 equiv_refreshes = 0;	/* the snapshot refresh they were made for */

/*
 * Forget every class when the snapshot was refreshed (or rebuilt) since
 * they were made: they hold verdicts on the nodes as that refresh saw them.
 */
static void
forget_if_refreshed(const ClusterSnapshot *snap)
{
	if (equiv_cxt != NULL && snap->refreshes == equiv_refreshes)
		return;
	if (equiv_cxt)
		MemoryContextReset(equiv_cxt);
	else
	{
		static bool registered = false;

		if (!registered)
			RegisterXactCallback(forget_at_end, NULL);
		registered = true;
		equiv_cxt = AllocSetContextCreate(TopMemoryContext, "scheduler equivalence classes",
										  ALLOCSET_DEFAULT_SIZES);
	}
	classes = NIL;
	equiv_refreshes = snap->refreshes;
}

/*
 * The class of a pod: the signature of what the profile's plugins read of
 * it (each plugin's sign, as kube-scheduler's SignPod), and what the cycle
 * itself reads (the priority: the nominated pods counted on a node are
 * those of the same or higher priority).  NULL when a plugin that filters
 * cannot sign (it may read anything), or when the pod is nominated
 * somewhere (its own nomination is left out of its node's count, which
 * makes it unlike others), or when a plugin signs the pod's uid (a pod with
 * volumes, VolumesSign): no other pod can share such a class, and the pod
 * itself is tried once per call, each of which refreshes the snapshot and
 * so forgets every class; its verdicts would never be read again, and
 * keeping them would cost a table over every node per pod.
 */
static char *
class_key(const Profile *prof, const PodInfo *pod)
{
	PodKey		key;

	if (pod->nominated_node)
		return NULL;
	PodKeyInit(&key);
	PodKeyAdd(&key, POD_FIELD(priority));
	for (int i = 0; i < prof->nplugins; i++)
	{
		const Plugin *pl = prof->plugins[i].plugin;

		if (pl->sign)
			pl->sign(pod, &key);
		else if (pl->prefilter || pl->filter || pl->postfilter)
			return NULL;
	}
	if (key.fields & POD_FIELD(uid))
		return NULL;
	return PodKeyText(&key, pod);
}

static EquivClass *class_for(CycleCtx *ctx, const PodInfo *pod);

/* Did every plugin whose PreFilter state counts other pods skip this pod? */
bool
PreFilterIsPodLocal(const CycleCtx *ctx)
{
	const Profile *prof = ctx->profile;

	for (int i = 0; i < prof->nplugins; i++)
		if (prof->plugins[i].plugin->reads_pods && !ctx->skip_filter[i])
			return false;
	return true;
}

/*
 * EquivClassFor
 *		The class of a pod whose PreFilters ran in ctx, for its Filter
 *		verdicts and preemption's dry runs: NULL when its verdicts may
 *		depend on pods elsewhere (a plugin that reads other pods did not
 *		skip) or it is nominated.  *scores (unless NULL) is the class for
 *		its node-local scores, which other pods do not sway: the same class,
 *		also when the verdicts depend on pods elsewhere; NULL when the pod is
 *		nominated.
 */
EquivClass *
EquivClassFor(CycleCtx *ctx, const PodInfo *pod, EquivClass **scores)
{
	EquivClass *c = NULL;
	bool		local = PreFilterIsPodLocal(ctx);

	if (local || scores)
		c = class_for(ctx, pod);
	if (scores)
		*scores = c;
	return local ? c : NULL;
}

/* The class of the pod's signature, made when there is none yet; NULL when it has none */
static EquivClass *
class_for(CycleCtx *ctx, const PodInfo *pod)
{
	char	   *key;
	ListCell   *lc;
	EquivClass *c;
	MemoryContext old;

	forget_if_refreshed(ctx->snap);
	key = class_key(ctx->profile, pod);
	if (key == NULL)
		return NULL;
	clock_ticks++;
	foreach(lc, classes)
	{
		c = lfirst(lc);
		if (strcmp(c->key, key) == 0)
		{
			c->last_used = clock_ticks;
			return c;
		}
	}
	if (list_length(classes) >= MAX_CLASSES)
	{
		EquivClass *oldest = NULL;

		foreach(lc, classes)
		{
			EquivClass *x = lfirst(lc);

			if (oldest == NULL || x->last_used < oldest->last_used)
				oldest = x;
		}
		classes = list_delete_ptr(classes, oldest);
		MemoryContextDelete(oldest->cxt);
	}
	{
		MemoryContext cxt = AllocSetContextCreate(equiv_cxt, "scheduler equivalence class", ALLOCSET_DEFAULT_SIZES);

		old = MemoryContextSwitchTo(cxt);
		c = palloc0(sizeof(EquivClass));
		c->cxt = cxt;
		c->key = pstrdup(key);
		c->nentries = Max(ctx->snap->nordinals, 1);
		c->entries = palloc0(sizeof(EquivEntry) * c->nentries);
		c->whole_generation = palloc0(sizeof(uint64) * c->nentries);
		c->whole_rejected = palloc0(sizeof(int) * c->nentries);
		c->last_used = clock_ticks;
	}
	MemoryContextSwitchTo(equiv_cxt);
	classes = lappend(classes, c);
	MemoryContextSwitchTo(old);
	return c;
}

/* An array of had elements of size bytes grown to n, the new ones zeroed */
static void *
grown(void *array, Size size, int had, int n)
{
	array = repalloc(array, size * n);
	memset((char *) array + size * had, 0, size * (n - had));
	return array;
}

static EquivEntry *
entry(EquivClass *c, const NodeInfo *node)
{
	if (node->ordinal >= c->nentries)
	{
		int			n = node->ordinal + 1 + c->nentries / 2;

		c->entries = grown(c->entries, sizeof(EquivEntry), c->nentries, n);
		c->whole_generation = grown(c->whole_generation, sizeof(uint64), c->nentries, n);
		c->whole_rejected = grown(c->whole_rejected, sizeof(int), c->nentries, n);
		c->nentries = n;
	}
	return &c->entries[node->ordinal];
}

static bool
same_reasons(List *a, List *b)
{
	ListCell   *x,
			   *y;

	if (list_length(a) != list_length(b))
		return false;
	forboth(x, a, y, b)
		if (strcmp(lfirst(x), lfirst(y)) != 0)
		return false;
	return true;
}

/*
 * st as one of the class's distinct statuses, made when it has none like
 * it: equal verdicts kept share one list of reasons, so that those who
 * group them (DiagnosisToJsonb) can tell them equal by pointer
 */
static const Status *
shared_status(EquivClass *c, const Status *st)
{
	ListCell   *lc;
	Status	   *shared;
	MemoryContext old;

	foreach(lc, c->statuses)
	{
		Status	   *x = lfirst(lc);

		if (x->code == st->code && same_reasons(x->reasons, st->reasons))
			return x;
	}
	old = MemoryContextSwitchTo(c->cxt);
	shared = palloc0(sizeof(Status));
	shared->code = st->code;
	foreach(lc, st->reasons)
		shared->reasons = lappend(shared->reasons, pstrdup(lfirst(lc)));
	c->statuses = lappend(c->statuses, shared);
	MemoryContextSwitchTo(old);
	return shared;
}

/*
 * Keep a verdict of this kind (rejected -1: it passes the node); st
 * becomes the kept one, its equal, so that this verdict too shares its
 * reasons with those read back after it
 */
void
EquivVerdictPut(EquivClass *c, VerdictKind kind, const NodeInfo *node, int rejected, Status *st)
{
	KeptVerdict *v = &entry(c, node)->verdicts[kind];

	v->generation = node->generation;
	v->rejected_by = rejected;
	v->status = *shared_status(c, st);
	*st = v->status;
	if (kind == VERDICT_WHOLE)
	{
		c->whole_generation[node->ordinal] = v->generation;
		c->whole_rejected[node->ordinal] = rejected;
	}
}

/* Keep a dry run (allocated in EquivMemory(c)) */
void
EquivPreemptPut(EquivClass *c, const NodeInfo *node, void *result)
{
	EquivEntry *e = entry(c, node);

	e->preempt_generation = node->generation;
	e->preempt = result;
}

MemoryContext
EquivMemory(EquivClass *c)
{
	return c->cxt;
}

/*
 * EquivScoresUsable
 *		May the node-local raw scores of prof's plugins be kept in c, and
 *		read back?  A class keeps them for one profile; those kept before
 *		the nodes' images were last counted are dropped (ImageLocality
 *		weighs an image by the share of nodes that have it).
 */
bool
EquivScoresUsable(EquivClass *c, const ClusterSnapshot *snap, const Profile *prof)
{
	if (prof->nplugins > 64)
		return false;
	if (c->scores_profile == NULL)
	{
		c->scores_profile = prof;
		c->slot = MemoryContextAlloc(c->cxt, sizeof(int) * Max(prof->nplugins, 1));
		for (int i = 0; i < prof->nplugins; i++)
			c->slot[i] = prof->plugins[i].plugin->score_node_local ? c->nslots++ : -1;
	}
	else if (c->scores_profile != prof)
		return false;
	if (c->scores_stamp == 0 || c->scores_images != snap->images_version)
	{
		c->scores_stamp = ++stamps;
		c->scores_images = snap->images_version;
	}
	return true;
}

/* Keep node's raw scores: raw[i][k] for each plugin i in mask (k: the node's index in raw) */
void
EquivScoresPut(EquivClass *c, const NodeInfo *node, int64 **raw, int k, uint64 mask)
{
	EquivEntry *e = entry(c, node);
	const Profile *prof = c->scores_profile;

	if (mask == 0 || node->generation == 0)
		return;
	if (e->scores == NULL)
		e->scores = MemoryContextAlloc(c->cxt, sizeof(int64) * Max(c->nslots, 1));
	for (int i = 0; i < prof->nplugins; i++)
		if (mask & (UINT64CONST(1) << i))
			e->scores[c->slot[i]] = raw[i][k];
	e->scores_kept = mask;
	e->scores_generation = node->generation;
	e->scores_labels = node->labels_version;
	e->scores_stamp = c->scores_stamp;
	/* and again by ordinal (EquivScoresGetAt), room made as for the entries */
	if (c->nslots == 0)
		return;
	if (node->ordinal >= c->score_room)
	{
		int			n = Max(c->nentries, node->ordinal + 1);

		if (c->score_room == 0)
		{
			c->score_heads = MemoryContextAllocZero(c->cxt, sizeof(EquivScoreHead) * n);
			c->score_rows = MemoryContextAlloc(c->cxt, sizeof(int64) * c->nslots * n);
		}
		else
		{
			c->score_heads = grown(c->score_heads, sizeof(EquivScoreHead), c->score_room, n);
			c->score_rows = repalloc(c->score_rows, sizeof(int64) * c->nslots * n);
		}
		c->score_room = n;
	}
	memcpy(&c->score_rows[(size_t) node->ordinal * c->nslots], e->scores, sizeof(int64) * c->nslots);
	c->score_heads[node->ordinal].kept = e->scores_kept;
	c->score_heads[node->ordinal].generation = e->scores_generation;
	c->score_heads[node->ordinal].labels = e->scores_labels;
	c->score_heads[node->ordinal].stamp = e->scores_stamp;
}

/* Where plugin i's score is in a row EquivScoresGet returns (it is node-local) */
int
EquivScoreSlot(EquivClass *c, int i)
{
	return c->slot[i];
}

/*
 * At the end of each top-level transaction, a session that does not keep
 * its snapshot (WorkerKeepSnapshot, as snapshot.c frees it) frees every
 * class: they were made on that snapshot.
 */
static void
forget_at_end(XactEvent event, void *arg pg_attribute_unused())
{
	if ((event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT) && equiv_cxt != NULL &&
		!WorkerKeepSnapshot())
	{
		MemoryContextDelete(equiv_cxt);
		equiv_cxt = NULL;
		classes = NIL;
	}
}
