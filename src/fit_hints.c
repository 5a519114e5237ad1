/*
 * fit_hints.c
 *	  What would make a pending pod fit (scheduler.fit_hints()): node by
 *	  node, the smallest changes to the cluster that let the pod pass every
 *	  Filter of its profile there, each one checked against the real
 *	  plugins before it is told.
 *
 * For every node the pod may go to (those a PreFilterResult leaves), every
 * Filter runs, not only up to the first rejection (as scheduler.filter()).
 * The nodes nearest to fitting (fewest plugins failing, then the smallest
 * resource deficit) get a fix: starting from the node as it is, each
 * failing plugin asks for the change that answers its reason, and the
 * Filters run again on the node so changed, until all pass or a plugin
 * has nothing to ask for (that node gets no hint).  The changes:
 *
 *	 resource	 NodeResourcesFit: the allocatable the node would need (the
 *				 deficit, exactly: requested + the pod's request)
 *	 eviction	 or, instead, the pods it would have to lose: kube-scheduler's
 *				 victim selection (all off, then back one by one, the most
 *				 important first, those a PodDisruptionBudget protects
 *				 first), over every pod of the node, not only those of
 *				 lower priority: the detail says which preemption would not
 *				 evict, and which budget forbids it
 *	 taint		 TaintToleration: the NoSchedule and NoExecute taints the pod
 *				 does not tolerate, removed; NodeUnschedulable: uncordoned
 *	 label		 NodeAffinity: the labels its nodeSelector and the required
 *				 node affinity term nearest to matching need
 *	 port		 NodePorts: the pods holding the host ports it wants
 *	 spread		 PodTopologySpread: the topology label the node lacks, or the
 *				 matching pods of the node's domain that make the skew too
 *				 high (those on the node first, then the least important)
 *	 affinity	 InterPodAffinity: a pod its required affinity terms match,
 *				 added on the node; the pods its anti-affinity terms match in
 *				 the node's domains, and the pods whose anti-affinity rejects
 *				 it, evicted
 *	 volume		 VolumeZone and VolumeBinding's node affinity conflict: the
 *				 labels the bound PersistentVolumes need; VolumeRestrictions
 *				 and NodeVolumeLimits: the pods whose volumes are in the way
 *
 * A fix is checked as it is built: the node is copied with its changes,
 * the pods to evict are taken off the snapshot and the pods to add are put
 * on it (as DefaultPreemption's dry runs do), PreFilter runs again when a
 * plugin's state counts pods, and the Filters decide.  Every pod is put
 * back after each check, and the placeholder pods a fix adds are forgotten
 * at the end: the backend's snapshot is left as it was found.
 *
 * Each fix is one rank: its rows (one per kind of change) share its
 * change, the list of events simulate() takes, which is enough alone.
 * Fixes are ranked by cost: the fewest and smallest changes first (see
 * part_cost), then by node name.
 *
 * IDENTIFICATION
 *	  src/fit_hints.c
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "access.h"
#include "equivalence.h"
#include "explain.h"
#include "framework.h"
#include "jsonutil.h"
#include "snapshot.h"
#include "tolerations.h"
#include "volumes.h"

#define MAX_ROUNDS			16	/* rounds of Filters on a fix: one change a round */
#define MAX_LABEL_TRIES		32	/* values tried for a missing topology label */
#define MAX_EVICT_STEPS		256 /* pods a skew may take off (topology spread) */
#define MAX_VICTIMS			200 /* pods a fix may evict */
#define MAX_NAMED			10	/* victims a detail names */
#define MAX_CANDIDATES		3	/* nodes fixed per node asked for */

typedef enum HintKind
{
	HK_RESOURCE,
	HK_EVICTION,
	HK_TAINT,
	HK_LABEL,
	HK_PORT,
	HK_SPREAD,
	HK_AFFINITY,
	HK_VOLUME
} HintKind;

static const char *const kind_names[] = {"resource", "eviction", "taint", "label", "port", "spread",
"affinity", "volume"};

/* One kind of change of a fix, and what it says */
typedef struct Part
{
	HintKind	kind;
	char	   *detail;
	double		cost;
} Part;

typedef struct LabelEdit
{
	char	   *key;
	char	   *value;			/* NULL: the label removed */
} LabelEdit;

typedef struct AllocEdit
{
	char	   *name;
	int64		value;			/* the new allocatable */
} AllocEdit;

/* A pod a fix adds on its node (pod affinity) */
typedef struct AddedPod
{
	PodInfo		pod;
	PodRef	   *ref;			/* once assumed in the snapshot */
} AddedPod;

/* A fix: the node's changes, the pods evicted and added, and what it says */
typedef struct Fix
{
	NodeInfo   *node;			/* the snapshot's */
	bool		evict_for_resources;	/* the eviction variant */
	bool		uncordon;
	List	   *drop_taints;	/* Taint *, into node->taints */
	List	   *labels;			/* LabelEdit * */
	List	   *alloc;			/* AllocEdit * */
	List	   *victims;		/* PodRef * */
	List	   *added;			/* AddedPod * */
	List	   *parts;			/* Part * */
	Jsonb	   *saved_labels;	/* the node's own, while a check relabels it */
	bool		ok;
	double		cost;
	Jsonb	   *change;
} Fix;

/* A PodDisruptionBudget, as the details name it */
typedef struct Budget
{
	char	   *namespace;
	char	   *name;
	LabelSelector *selector;
	int32		allowed;
	Jsonb	   *disrupted;		/* status.disruptedPods: pod name -> time */
} Budget;

/* An existing pod's required anti-affinity term that matches the pod */
typedef struct AntiTerm
{
	PodRef	   *pod;
	NodeInfo   *node;
	const AffinityTerm *term;
} AntiTerm;

typedef struct Hints
{
	Explained	e;				/* the pod, the snapshot, the profile, PreFilter */
	Status	   *st;				/* per plugin: a check's verdicts */
	List	   *budgets;		/* Budget * */
	List	   *namespaces;		/* "name" and labels pairs read so far */
	int			nadded;
	List	   *anti;			/* AntiTerm *, once anti_read */
	bool		anti_read;
	List	   *assumed;		/* AddedPod *: every pod a check put in the snapshot */
} Hints;

/* ------------------------------------------------------------------------
 * Formatting
 * ------------------------------------------------------------------------
 */
static char *
fmt_cpu(int64 milli)
{
	return milli % 1000 == 0 ? psprintf(INT64_FORMAT, milli / 1000) : psprintf(INT64_FORMAT "m", milli);
}

static char *
fmt_bytes(int64 b)
{
	static const char *const suffix[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
	int			i = -1;

	while (b != 0 && b % 1024 == 0 && i < 5)
	{
		b /= 1024;
		i++;
	}
	return i < 0 ? psprintf(INT64_FORMAT, b) : psprintf(INT64_FORMAT "%s", b, suffix[i]);
}

/* A quantity of the resource, as a person reads it */
static char *
fmt_quantity(const char *name, int64 v)
{
	int			f = ResourceFixedIndex(name);

	if (f == RESOURCE_CPU)
		return fmt_cpu(v);
	if (f == RESOURCE_MEMORY || f == RESOURCE_EPHEMERAL || strncmp(name, "hugepages-", 10) == 0)
		return fmt_bytes(v);
	return psprintf(INT64_FORMAT, v);
}

static char *
pod_name(const PodRef *p)
{
	return psprintf("%s/%s", p->namespace ? p->namespace : "", p->name ? p->name : "");
}

/* A node's name as a label value: at most 63 characters, ending alphanumeric */
static char *
name_as_label(const char *name)
{
	char	   *v = pnstrdup(name, 63);
	int			len = strlen(v);

	while (len > 0 && !isalnum((unsigned char) v[len - 1]))
		v[--len] = '\0';
	return len > 0 ? v : "fit-hint";
}

/* One kind of change of a fix, and what it says (psprintf's format and arguments) */
#define add_part(f, kind, cost, ...) add_part_text(f, kind, cost, psprintf(__VA_ARGS__))

static void
add_part_text(Fix *f, HintKind kind, double cost, char *detail)
{
	Part	   *p = palloc0(sizeof(Part));

	p->kind = kind;
	p->detail = detail;
	p->cost = cost;
	f->parts = lappend(f->parts, p);
}

/* ------------------------------------------------------------------------
 * What the details read: budgets and namespaces
 * ------------------------------------------------------------------------
 */
static void
load_budgets(Hints *h)
{
	if (SPI_execute("SELECT namespace, name, selector, disruptions_allowed, disrupted_pods FROM scheduler.pdbs"
					" ORDER BY namespace, name", true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read scheduler.pdbs");
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		HeapTuple	t = SPI_tuptable->vals[i];
		TupleDesc	d = SPI_tuptable->tupdesc;
		bool		isnull;
		Datum		sel = SPI_getbinval(t, d, 3, &isnull);
		Budget	   *b;
		char	   *err;

		if (isnull)
			continue;
		b = palloc0(sizeof(Budget));
		b->selector = LabelSelectorParseJsonb(DatumGetJsonbPCopy(sel), &err);
		if (b->selector == NULL || b->selector->everything || b->selector->nothing)
			continue;			/* selects nothing, as DefaultPreemption reads it */
		b->namespace = SPI_getvalue(t, d, 1);
		b->name = SPI_getvalue(t, d, 2);
		b->allowed = DatumGetInt32(SPI_getbinval(t, d, 4, &isnull));
		sel = SPI_getbinval(t, d, 5, &isnull);
		b->disrupted = isnull ? NULL : DatumGetJsonbPCopy(sel);
		h->budgets = lappend(h->budgets, b);
	}
	SPI_freetuptable(SPI_tuptable);
}

/* A budget a pod's eviction counts against: its namespace's, selecting it, not already disrupted */
static bool
budget_selects(const Budget *b, const PodRef *p)
{
	int			len;

	return p->labels && JB_ROOT_COUNT(p->labels) > 0 && p->namespace && p->name &&
		strcmp(b->namespace, p->namespace) == 0 && LabelSelectorMatches(b->selector, p->labels) &&
		(b->disrupted == NULL || LabelGet(b->disrupted, p->name, strlen(p->name), &len) == NULL);
}

/* The labels of a namespace (NULL when not mirrored), read once per call */
static Jsonb *
namespace_labels(Hints *h, const char *ns)
{
	ListCell   *lc;
	Jsonb	   *labels;

	for (lc = list_head(h->namespaces); lc; lc = lnext(h->namespaces, lnext(h->namespaces, lc)))
		if (strcmp(lfirst(lc), ns) == 0)
			return lfirst(lnext(h->namespaces, lc));
	labels = NamespaceLabels(ns);
	h->namespaces = lappend(lappend(h->namespaces, pstrdup(ns)), labels);
	return labels;
}

/* ------------------------------------------------------------------------
 * The node as a fix makes it
 * ------------------------------------------------------------------------
 */

/* The value of a label on the node as the fix makes it (NULL: none) */
static char *
fix_label(const Fix *f, const NodeInfo *node, const char *key)
{
	ListCell   *lc;
	int			len;
	const char *v;

	if (node == f->node)
		foreach(lc, f->labels)
		{
			LabelEdit  *e = lfirst(lc);

			if (strcmp(e->key, key) == 0)
				return e->value;
		}
	v = LabelGet(node->labels, key, strlen(key), &len);
	return v ? pnstrdup(v, len) : NULL;
}

/* Set (value) or remove (NULL) a label; false when the fix has it so already */
static bool
set_label(Fix *f, const char *key, const char *value)
{
	ListCell   *lc;
	char	   *now = fix_label(f, f->node, key);
	LabelEdit  *e;

	if ((now == NULL && value == NULL) || (now && value && strcmp(now, value) == 0))
		return false;
	foreach(lc, f->labels)
	{
		e = lfirst(lc);
		if (strcmp(e->key, key) == 0)
		{
			e->value = value ? pstrdup(value) : NULL;
			return true;
		}
	}
	e = palloc0(sizeof(LabelEdit));
	e->key = pstrdup(key);
	e->value = value ? pstrdup(value) : NULL;
	f->labels = lappend(f->labels, e);
	return true;
}

static Jsonb *
labels_with_edits(Jsonb *labels, List *edits)
{
	JsonbParseState *st = NULL;
	JsonbValue *out;
	ListCell   *lc;

	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	if (labels && JB_ROOT_IS_OBJECT(labels))
	{
		JsonbIterator *it = JsonbIteratorInit(&labels->root);
		JsonbValue	k;
		JsonbValue	v;
		JsonbIteratorToken tok;

		while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
		{
			bool		edited = false;

			if (tok != WJB_KEY)
				continue;
			(void) JsonbIteratorNext(&it, &v, true);
			foreach(lc, edits)
			{
				LabelEdit  *e = lfirst(lc);

				edited |= (strlen(e->key) == (size_t) k.val.string.len &&
						   memcmp(e->key, k.val.string.val, k.val.string.len) == 0);
			}
			if (!edited)
			{
				pushJsonbValue(&st, WJB_KEY, &k);
				pushJsonbValue(&st, WJB_VALUE, &v);
			}
		}
	}
	foreach(lc, edits)
	{
		LabelEdit  *e = lfirst(lc);

		if (e->value == NULL)
			continue;
		JPushString(&st, WJB_KEY, e->key);
		JPushString(&st, WJB_VALUE, e->value);
	}
	out = pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	return JsonbValueToJsonb(out);
}

/* The pods the fix adds, in the snapshot (assumed once, then put back) */
static void
put_added(Hints *h, Fix *f)
{
	ListCell   *lc;

	foreach(lc, f->added)
	{
		AddedPod   *a = lfirst(lc);
		ListCell   *pc;

		if (a->ref)
		{
			SnapshotPutBack(h->e.snap, a->ref);
			continue;
		}
		SnapshotAssume(h->e.snap, &a->pod, f->node);
		h->assumed = lappend(h->assumed, a);
		foreach(pc, f->node->pods)
			if (strcmp(((PodRef *) lfirst(pc))->uid, a->pod.uid) == 0)
				a->ref = lfirst(pc);
	}
}

/*
 * view_begin: the fix's victims off the snapshot and its pods on it, and a
 * copy of its node with its changes; view_end puts everything back.
 */
static NodeInfo *
view_begin(Hints *h, Fix *f, uint64 *generation)
{
	NodeInfo   *v = palloc(sizeof(NodeInfo));
	ListCell   *lc;

	*generation = f->node->generation;
	foreach(lc, f->victims)
		SnapshotTakeOut(h->e.snap, lfirst(lc));
	/*
	 * new labels on the snapshot's node itself: the node's pods move to the
	 * domains they make, as topology spread and inter-pod affinity count
	 * them (view_end puts the labels back)
	 */
	if (f->labels)
		f->saved_labels = SnapshotRelabel(h->e.snap, f->node, labels_with_edits(f->node->labels, f->labels), false);
	put_added(h, f);
	*v = *f->node;
	/* a copy: its labels are read from it, and no kept verdict is its */
	v->labels_version = 0;
	v->generation = 0;
	if (f->uncordon)
		v->unschedulable = false;
	if (f->drop_taints)
	{
		v->taints = palloc(sizeof(Taint) * Max(f->node->ntaints, 1));
		v->ntaints = 0;
		for (int i = 0; i < f->node->ntaints; i++)
			if (!list_member_ptr(f->drop_taints, &f->node->taints[i]))
				v->taints[v->ntaints++] = f->node->taints[i];
	}
	if (f->alloc)
	{
		v->allocatable = f->node->allocatable;
		v->allocatable.scalar = NULL;
		v->allocatable.nscalar = v->allocatable.scalar_cap = 0;
		for (int i = 0; i < f->node->allocatable.nscalar; i++)
			*ResourceSlot(&v->allocatable, f->node->allocatable.scalar[i].name, true) =
				f->node->allocatable.scalar[i].value;
		foreach(lc, f->alloc)
		{
			AllocEdit  *a = lfirst(lc);

			*ResourceSlot(&v->allocatable, a->name, true) = a->value;
		}
	}
	return v;
}

static void
view_end(Hints *h, Fix *f, uint64 generation)
{
	ListCell   *lc;

	foreach(lc, f->added)
		SnapshotTakeOut(h->e.snap, ((AddedPod *) lfirst(lc))->ref);
	if (f->labels)
		(void) SnapshotRelabel(h->e.snap, f->node, f->saved_labels, true);
	foreach(lc, f->victims)
		SnapshotPutBack(h->e.snap, lfirst(lc));
	SnapshotSetGeneration(h->e.snap, f->node, generation);
}

/*
 * PreFilter again on the snapshot as the fix makes it (pods off, pods on,
 * the node relabelled): every plugin's, or only that plugin's when only >=
 * 0.  NULL when it rejects the pod or leaves the node out.
 */
static CycleCtx *
prefilter_again(Hints *h, Fix *f, int only)
{
	CycleCtx   *ctx = NewCycleCtx(h->e.snap, h->e.profile);
	CycleResult pre;
	List	   *names;
	bool		restricted;

	if (only < 0)
	{
		memset(&pre, 0, sizeof(pre));
		if (!RunPreFilters(ctx, &h->e.pod, &pre, &names, &restricted) ||
			(restricted && !NameListed(names, f->node->name)))
			return NULL;
	}
	else
	{
		const Plugin *pl = h->e.profile->plugins[only].plugin;
		Status		st = {CODE_SUCCESS, NIL};

		names = NIL;
		ctx->skip_filter[only] = pl->filter == NULL;
		if (pl->prefilter)
			pl->prefilter(&ctx->calls[only], &h->e.pod, &st, &names);
		if (st.code == CODE_SKIP)
			ctx->skip_filter[only] = true;
		else if (st.code != CODE_SUCCESS ||
				 (ctx->calls[only].restricts_nodes && !NameListed(names, f->node->name)))
			return NULL;
	}
	return ctx;
}

/*
 * The Filters on the node as the fix makes it: h->st[i] for each plugin
 * (Success where it passes or does not filter); the number failing, or -1
 * when PreFilter rejects the pod or leaves the node out.  only >= 0: that
 * plugin's Filter alone.
 */
static int
check(Hints *h, Fix *f, int only)
{
	const Profile *prof = h->e.profile;
	CycleCtx   *ctx = h->e.ctx;
	uint64		generation;
	NodeInfo   *v = view_begin(h, f, &generation);
	NodeInfo   *with;
	int			failing = 0;

	/*
	 * PreFilter again when its state may have moved: pods off or on, where
	 * a plugin counts them; new labels, which may even end a plugin's Skip
	 * (an existing pod's anti-affinity that counts once its node has the
	 * key)
	 */
	if ((f->labels || ((f->victims || f->added) && !PreFilterIsPodLocal(h->e.ctx))) &&
		(ctx = prefilter_again(h, f, only)) == NULL)
	{
		view_end(h, f, generation);
		return -1;
	}
	with = NodeWithNominatedPods(v, &h->e.pod);
	for (int i = 0; i < prof->nplugins; i++)
	{
		const Plugin *pl = prof->plugins[i].plugin;
		Status	   *st = &h->st[i];

		st->code = CODE_SUCCESS;
		st->reasons = NIL;
		if (ctx->skip_filter[i] || pl->filter == NULL || (only >= 0 && i != only))
			continue;
		if (with)
			pl->filter(&ctx->calls[i], &h->e.pod, with, st);
		if (st->code == CODE_SUCCESS)
			pl->filter(&ctx->calls[i], &h->e.pod, v, st);
		if (st->code != CODE_SUCCESS)
			failing++;
	}
	view_end(h, f, generation);
	return failing;
}

static bool
has_reason(const Status *st, const char *reason)
{
	ListCell   *lc;

	foreach(lc, st->reasons)
		if (strncmp(lfirst(lc), reason, strlen(reason)) == 0)
			return true;
	return false;
}

/* ------------------------------------------------------------------------
 * Evictions
 * ------------------------------------------------------------------------
 */

static bool
passes(Hints *h, Fix *f, int plugin)
{
	return check(h, f, plugin) == 0;
}

/* The pods that may be evicted of a list: running, not yet evicted, not the pod */
static List *
evictable(Hints *h, Fix *f, List *pods)
{
	List	   *out = NIL;
	ListCell   *lc;
	HASHCTL		ctl = {.keysize = sizeof(PodRef *),.entrysize = sizeof(PodRef *),.hcxt = CurrentMemoryContext};
	HTAB	   *seen = hash_create("fit hints: pods seen", 64, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	bool		found;

	foreach(lc, f->victims)
		(void) hash_search(seen, &lfirst(lc), HASH_ENTER, NULL);
	foreach(lc, f->added)
		(void) hash_search(seen, &((AddedPod *) lfirst(lc))->ref, HASH_ENTER, NULL);
	foreach(lc, pods)
	{
		PodRef	   *p = lfirst(lc);

		if (p->terminating || strcmp(p->uid, h->e.pod.uid) == 0)
			continue;
		(void) hash_search(seen, &p, HASH_ENTER, &found);
		if (!found)
			out = lappend(out, p);
	}
	hash_destroy(seen);
	return out;
}

/*
 * The fewest of the candidates whose eviction lets plugin pass, as
 * DefaultPreemption's SelectVictimsOnNode picks them: all off; then back
 * one by one, the most important first, those whose budget their eviction
 * would break first, each kept if the plugin still passes.  NIL: even all
 * of them off does not do.
 */
static List *
evict_reprieve(Hints *h, Fix *f, int plugin, List *pods)
{
	List	   *cands = evictable(h, f, pods);
	List	   *saved = f->victims;
	List	   *victims = NIL;
	List	   *split[2] = {NIL, NIL};
	int32	   *allowed = palloc(sizeof(int32) * Max(list_length(h->budgets), 1));
	ListCell   *lc;

	if (cands == NIL)
		return NIL;
	f->victims = list_concat_copy(saved, cands);
	if (!passes(h, f, plugin))
	{
		f->victims = saved;
		return NIL;
	}
	list_sort(cands, PodMoreImportant);
	foreach(lc, h->budgets)
		allowed[foreach_current_index(lc)] = ((Budget *) lfirst(lc))->allowed;
	foreach(lc, cands)
	{
		bool		violates = false;
		ListCell   *bc;

		foreach(bc, h->budgets)
		{
			int32	   *a = &allowed[foreach_current_index(bc)];

			if (!budget_selects(lfirst(bc), lfirst(lc)))
				continue;
			/* a planted minimum stays below zero rather than wrap */
			if (*a > PG_INT32_MIN)
				(*a)--;
			if (*a < 0)
				violates = true;
		}
		split[violates ? 0 : 1] = lappend(split[violates ? 0 : 1], lfirst(lc));
	}
	for (int pass = 0; pass < 2; pass++)
		foreach(lc, split[pass])
		{
			f->victims = list_delete_ptr(f->victims, lfirst(lc));
			if (passes(h, f, plugin))
				continue;		/* reprieved */
			f->victims = lappend(f->victims, lfirst(lc));
			victims = lappend(victims, lfirst(lc));
		}
	list_sort(victims, PodMoreImportant);
	return victims;
}

/* The candidates off one at a time, in their order, until plugin passes; NIL: no */
static List *
evict_until(Hints *h, Fix *f, int plugin, List *pods)
{
	List	   *cands = evictable(h, f, pods);
	List	   *saved = f->victims;
	int			lo = 1;
	int			hi = Min(list_length(cands), MAX_EVICT_STEPS);

	/*
	 * the fewest of the first: fewer pods in the domain only lower the skew,
	 * so the search halves (a handful of checks, not one per pod)
	 */
	f->victims = list_concat_copy(saved, list_copy_head(cands, hi));
	if (hi == 0 || !passes(h, f, plugin))
	{
		f->victims = saved;
		return NIL;
	}
	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;

		f->victims = list_concat_copy(saved, list_copy_head(cands, mid));
		if (passes(h, f, plugin))
			hi = mid;
		else
			lo = mid + 1;
	}
	f->victims = list_concat_copy(saved, list_copy_head(cands, lo));
	return list_copy_head(cands, lo);
}

/*
 * The victims as the detail names them: each with its priority, whether
 * preemption would spare it (not of lower priority), and the budgets the
 * evictions would break.  *cost: 2 a pod, 3 more for each that preemption
 * would not evict, 5 for each budget broken.
 */
static char *
victims_text(Hints *h, List *victims, double *cost)
{
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	*cost = 0;
	foreach(lc, victims)
	{
		PodRef	   *p = lfirst(lc);
		bool		spared = p->priority >= h->e.pod.priority || h->e.pod.preempt_never;

		*cost += spared ? 5 : 2;
		if (foreach_current_index(lc) == MAX_NAMED)
			appendStringInfo(&buf, " and %d more", list_length(victims) - MAX_NAMED);
		if (foreach_current_index(lc) >= MAX_NAMED)
			continue;
		appendStringInfo(&buf, "%s%s (priority %d%s)", foreach_current_index(lc) ? ", " : "",
						 pod_name(p), p->priority,
						 !h->e.pod.preempt_never && p->priority >= h->e.pod.priority ?
						 ", not below the pod's: preemption would not evict it" : "");
	}
	if (h->e.pod.preempt_never)
		appendStringInfoString(&buf, "; the pod's preemptionPolicy is Never: preemption evicts none of them");
	foreach(lc, h->budgets)
	{
		Budget	   *b = lfirst(lc);
		int			n = 0;
		ListCell   *vc;

		foreach(vc, victims)
			n += budget_selects(b, lfirst(vc)) ? 1 : 0;
		if (n > 0 && n > b->allowed)
		{
			appendStringInfo(&buf, "; PodDisruptionBudget %s/%s allows %d disruption(s), not %d",
							 b->namespace, b->name, Max(b->allowed, 0), n);
			*cost += 5;
		}
	}
	return buf.data;
}

/*
 * Evict for plugin and say so: all the candidates (when every one blocks);
 * or the fewest, among the pods of lower priority first (those preemption
 * would consider), then among all of them.
 */
static bool
evict_part(Hints *h, Fix *f, int plugin, List *pods, bool all, HintKind kind, const char *why)
{
	List	   *victims = NIL;
	List	   *lower = NIL;
	double		cost;
	char	   *text;
	ListCell   *lc;

	pods = list_copy(pods);		/* a node's own list changes as pods come off */
	if (all)
	{
		victims = evictable(h, f, pods);
		f->victims = list_concat(f->victims, victims);
	}
	else
	{
		foreach(lc, pods)
			if (((PodRef *) lfirst(lc))->priority < h->e.pod.priority)
				lower = lappend(lower, lfirst(lc));
		if (lower)
			victims = evict_reprieve(h, f, plugin, lower);
		if (victims == NIL)
			victims = evict_reprieve(h, f, plugin, pods);
	}
	if (victims == NIL || list_length(victims) > MAX_VICTIMS)
		return false;			/* none does, or too many to call it a hint */
	text = victims_text(h, victims, &cost);
	add_part(f, kind, cost, "%s: evict %s", why, text);
	return true;
}

/* ------------------------------------------------------------------------
 * Node changes: resources, taints, labels
 * ------------------------------------------------------------------------
 */
static void
set_alloc(Fix *f, const char *name, int64 value)
{
	ListCell   *lc;
	AllocEdit  *a;

	foreach(lc, f->alloc)
	{
		a = lfirst(lc);
		if (strcmp(a->name, name) == 0)
		{
			a->value = value;
			return;
		}
	}
	a = palloc0(sizeof(AllocEdit));
	a->name = pstrdup(name);
	a->value = value;
	f->alloc = lappend(f->alloc, a);
}

/* How short a resource is, as a fix costs it and a probe foresees it: relative to the allocatable (10 when none) */
static double
deficit(int64 alloc, int64 used, int64 req)
{
	/* in double: the sums may stand at the int64 limit */
	double		short_by = (double) req - ((double) alloc - (double) used);

	if (req <= 0 || short_by <= 0)
		return 0;
	return alloc > 0 ? short_by / (double) alloc : 10.0;
}

/* One resource short: the allocatable it needs, and what the detail says */
static void
grow(Fix *f, StringInfo buf, double *cost, const char *name, int64 alloc, int64 used, int64 req)
{
	int64		need = used;

	if (!AddSaturating(&need, req) || need <= alloc)
		return;
	set_alloc(f, name, need);
	appendStringInfo(buf, "%sneeds %s more %s (allocatable %s, %s requested, the pod asks %s)",
					 buf->len ? "; " : "", fmt_quantity(name, need - alloc), name,
					 fmt_quantity(name, alloc), fmt_quantity(name, used), fmt_quantity(name, req));
	*cost += deficit(alloc, used, req);
}

/*
 * NodeResourcesFit: the allocatable the node lacks, for each resource its
 * status names (the pods nominated there counted, as the Filter counts
 * them); or, in the eviction variant, the pods to evict instead.
 */
static bool
fix_resources(Hints *h, Fix *f, int plugin, const Status *st)
{
	const ResourceVec *req = &h->e.pod.requests;
	uint64		generation;
	NodeInfo   *v;
	const NodeInfo *n;
	StringInfoData buf;
	double		cost = 3;

	if (f->evict_for_resources)
		return evict_part(h, f, plugin, f->node->pods, false, HK_EVICTION,
						  "to free what the pod requests");
	v = view_begin(h, f, &generation);
	n = NodeWithNominatedPods(v, &h->e.pod);
	if (n == NULL)
		n = v;
	initStringInfo(&buf);
	if (has_reason(st, "Too many pods"))
	{
		set_alloc(f, "pods", (int64) n->npods + 1);
		appendStringInfo(&buf, "needs room for one more pod (allocatable pods %lld, %d there)",
						 (long long) n->allocatable.pods, n->npods);
		cost += 1;
	}
	if (has_reason(st, "Insufficient cpu"))
		grow(f, &buf, &cost, "cpu", n->allocatable.cpu, n->requested.cpu, req->cpu);
	if (has_reason(st, "Insufficient memory"))
		grow(f, &buf, &cost, "memory", n->allocatable.memory, n->requested.memory, req->memory);
	if (has_reason(st, "Insufficient ephemeral-storage"))
		grow(f, &buf, &cost, "ephemeral-storage", n->allocatable.ephemeral, n->requested.ephemeral, req->ephemeral);
	for (int i = 0; i < req->nscalar; i++)
		if (has_reason(st, psprintf("Insufficient %s", req->scalar[i].name)))
			grow(f, &buf, &cost, req->scalar[i].name, ResourceGet(&n->allocatable, req->scalar[i].name),
				 ResourceGet(&n->requested, req->scalar[i].name), req->scalar[i].value);
	view_end(h, f, generation);
	if (buf.len == 0)
		return false;
	add_part(f, HK_RESOURCE, cost, "%s", buf.data);
	return true;
}

static bool
fix_unschedulable(Fix *f)
{
	if (f->uncordon)
		return false;
	f->uncordon = true;
	add_part(f, HK_TAINT, 2, "the node is cordoned (spec.unschedulable, taint node.kubernetes.io/unschedulable:NoSchedule): uncordon it");
	return true;
}

/* TaintToleration: the NoSchedule and NoExecute taints not tolerated, removed */
static bool
fix_taints(Hints *h, Fix *f)
{
	StringInfoData buf;
	int			n = 0;

	initStringInfo(&buf);
	for (int i = 0; i < f->node->ntaints; i++)
	{
		Taint	   *t = &f->node->taints[i];
		char	   *err;

		if (list_member_ptr(f->drop_taints, t) || t->effect == NULL ||
			(strcmp(t->effect, "NoSchedule") != 0 && strcmp(t->effect, "NoExecute") != 0) ||
			TolerationsTolerateTaint(h->e.pod.tolerations, h->e.pod.ntolerations, t, &err))
			continue;
		f->drop_taints = lappend(f->drop_taints, t);
		appendStringInfo(&buf, "%s%s%s%s:%s", n++ ? ", " : "", t->key ? t->key : "",
						 t->value && *t->value ? "=" : "", t->value ? t->value : "", t->effect);
	}
	if (n == 0)
		return false;
	add_part(f, HK_TAINT, 2.0 * n, "the pod does not tolerate the taint%s %s: remove %s from the node (or give the pod a toleration)",
			 n > 1 ? "s" : "", buf.data, n > 1 ? "them" : "it");
	return true;
}

/* strconv.ParseInt(s, 10, 64), as Gt and Lt read a value */
static bool
parse_int64(const char *s, int64 *out)
{
	char	   *end;
	long long	v;

	if (s == NULL || *s == '\0' || isspace((unsigned char) *s))
		return false;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return false;
	*out = (int64) v;
	return true;
}

/*
 * The label edits one NodeSelectorTerm needs on the node as the fix makes
 * it (appended to *edits); -1 when no label edit helps (a matchFields
 * requirement on the name fails, an operator unknown).
 */
static int
term_edits(const Fix *f, JsonbContainer *term, List **edits)
{
	const char *const parts[] = {"matchExpressions", "matchFields"};
	int			n = 0;
	int			nreqs = 0;

	/* a term with no requirement matches no node (nodeaffinity's) */
	for (int k = 0; k < 2; k++)
		nreqs += JAtArray(term, parts[k]) ? (int) JsonContainerSize(JAtArray(term, parts[k])) : 0;
	if (nreqs == 0)
		return -1;

	for (int k = 0; k < 2; k++)
	{
		JsonbContainer *reqs = JAtArray(term, parts[k]);

		for (int i = 0; reqs && i < (int) JsonContainerSize(reqs); i++)
		{
			JsonbValue *rv = getIthJsonbValueFromContainer(reqs, i);
			JsonbContainer *r = rv && rv->type == jbvBinary ? rv->val.binary.data : NULL;
			char	   *key = JAtString(r, "key");
			char	   *op = JAtString(r, "operator");
			JsonbContainer *vals = JAtArray(r, "values");
			JsonbValue *v0 = vals && JsonContainerSize(vals) > 0 ? getIthJsonbValueFromContainer(vals, 0) : NULL;
			char	   *first = v0 && v0->type == jbvString ? pnstrdup(v0->val.string.val, v0->val.string.len) : NULL;
			char	   *now;
			bool		in = false;
			LabelEdit  *e = palloc0(sizeof(LabelEdit));

			if (key == NULL || op == NULL)
				return -1;
			now = k == 1 ? (strcmp(key, "metadata.name") == 0 ? f->node->name : NULL) : fix_label(f, f->node, key);
			for (int j = 0; vals && now && j < (int) JsonContainerSize(vals); j++)
			{
				JsonbValue *vj = getIthJsonbValueFromContainer(vals, j);

				in |= vj && vj->type == jbvString && strlen(now) == (size_t) vj->val.string.len &&
					memcmp(now, vj->val.string.val, vj->val.string.len) == 0;
			}
			e->key = key;
			if (k == 1)
			{
				/* a field: only the node's name, which no label edit changes */
				if ((strcmp(op, "In") == 0 && in) || (strcmp(op, "NotIn") == 0 && !in && now))
					continue;
				return -1;
			}
			if (strcmp(op, "In") == 0 && !in)
			{
				if (first == NULL)
					return -1;
				e->value = first;
			}
			else if (strcmp(op, "NotIn") == 0 && in)
				e->value = NULL;
			else if (strcmp(op, "Exists") == 0 && now == NULL)
				e->value = "true";
			else if (strcmp(op, "DoesNotExist") == 0 && now != NULL)
				e->value = NULL;
			else if (strcmp(op, "Gt") == 0 || strcmp(op, "Lt") == 0)
			{
				int64		bound;
				int64		cur;
				bool		gt = op[0] == 'G';

				if (first == NULL || !parse_int64(first, &bound) || bound == (gt ? PG_INT64_MAX : PG_INT64_MIN))
					return -1;
				if (now && parse_int64(now, &cur) && (gt ? cur > bound : cur < bound))
					continue;
				e->value = psprintf(INT64_FORMAT, gt ? bound + 1 : bound - 1);
			}
			else if (strcmp(op, "In") == 0 || strcmp(op, "NotIn") == 0 || strcmp(op, "Exists") == 0 ||
					 strcmp(op, "DoesNotExist") == 0)
				continue;		/* already so */
			else
				return -1;
			*edits = lappend(*edits, e);
			n++;
		}
	}
	return n;
}

/* The edits of the term of terms (NodeSelectorTerms, ORed) needing the fewest; false: none can */
static bool
best_term(const Fix *f, JsonbContainer *terms, List **edits)
{
	int			best = -1;

	*edits = NIL;
	for (int i = 0; terms && i < (int) JsonContainerSize(terms); i++)
	{
		JsonbValue *tv = getIthJsonbValueFromContainer(terms, i);
		List	   *these = NIL;
		int			n;

		if (tv == NULL || tv->type != jbvBinary || !JsonContainerIsObject(tv->val.binary.data))
			continue;
		n = term_edits(f, tv->val.binary.data, &these);
		if (n >= 0 && (best < 0 || n < best))
		{
			best = n;
			*edits = these;
		}
	}
	return best >= 0;
}

/* The edits applied; their text appended to buf; how many changed anything */
static int
apply_edits(Fix *f, List *edits, StringInfo buf)
{
	ListCell   *lc;
	int			n = 0;

	foreach(lc, edits)
	{
		LabelEdit  *e = lfirst(lc);

		if (!set_label(f, e->key, e->value))
			continue;
		if (e->value)
			appendStringInfo(buf, "%sset label %s=%s", buf->len ? ", " : "", e->key, e->value);
		else
			appendStringInfo(buf, "%sremove label %s", buf->len ? ", " : "", e->key);
		n++;
	}
	return n;
}

/*
 * NodeAffinity: the labels the nodeSelector names, and those of the
 * required term nearest to matching
 */
static bool
fix_node_affinity(Hints *h, Fix *f)
{
	List	   *edits = NIL;
	StringInfoData buf;
	JsonbContainer *na = h->e.pod.affinity && JB_ROOT_IS_OBJECT(h->e.pod.affinity) ?
		JAtObject(&h->e.pod.affinity->root, "nodeAffinity") : NULL;
	JsonbContainer *req = JAtObject(na, "requiredDuringSchedulingIgnoredDuringExecution");
	JsonbContainer *terms = JAtArray(req, "nodeSelectorTerms");
	int			n;

	if (h->e.pod.node_selector && JB_ROOT_IS_OBJECT(h->e.pod.node_selector))
	{
		JsonbIterator *it = JsonbIteratorInit(&h->e.pod.node_selector->root);
		JsonbValue	k;
		JsonbValue	v;

		while (JsonbIteratorNext(&it, &k, true) != WJB_DONE)
		{
			LabelEdit  *e;

			if (k.type != jbvString || JsonbIteratorNext(&it, &v, true) != WJB_VALUE || v.type != jbvString)
				continue;
			e = palloc0(sizeof(LabelEdit));
			e->key = pnstrdup(k.val.string.val, k.val.string.len);
			e->value = pnstrdup(v.val.string.val, v.val.string.len);
			edits = lappend(edits, e);
		}
	}
	if (terms && JsonContainerSize(terms) > 0)
	{
		List	   *t;

		if (!best_term(f, terms, &t))
			return false;
		edits = list_concat(edits, t);
	}
	initStringInfo(&buf);
	n = apply_edits(f, edits, &buf);
	if (n == 0)
		return false;
	add_part(f, HK_LABEL, 2.0 * n, "the node's labels do not match the pod's %s: %s",
			 terms ? (h->e.pod.node_selector && JB_ROOT_COUNT(h->e.pod.node_selector) > 0 ?
					  "nodeSelector and required node affinity" : "required node affinity") : "nodeSelector",
			 buf.data);
	return true;
}

/* The PersistentVolume a pod's volume is bound to, or NULL */
static Pv *
bound_pv(Hints *h, VolumeCatalog *c, const PodVolume *vol)
{
	Pvc		   *pvc;

	if ((vol->kind != PVOL_PVC && vol->kind != PVOL_EPHEMERAL) || vol->claim == NULL)
		return NULL;
	pvc = VolumeFindPvc(c, h->e.pod.namespace, vol->claim);
	if (pvc == NULL || pvc->volume_name == NULL || *pvc->volume_name == '\0')
		return NULL;
	return VolumeFindPv(c, pvc->volume_name);
}

/*
 * VolumeZone: the zone and region labels of the pod's bound volumes (a
 * value "a__b" is a set: the first is taken); VolumeBinding's node affinity
 * conflict: the labels of the term of each bound volume's node affinity
 * nearest to matching.
 */
static bool
fix_volume_labels(Hints *h, Fix *f, bool zone)
{
	static const char *const keys[] = {"topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone",
	"topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region"};
	VolumeCatalog *c = VolumeCatalogGet(h->e.snap);
	StringInfoData buf;
	int			n = 0;

	initStringInfo(&buf);
	for (int i = 0; i < h->e.pod.nvolumes; i++)
	{
		Pv		   *pv = bound_pv(h, c, &h->e.pod.volumes[i]);
		List	   *edits = NIL;
		int			before = buf.len;

		if (pv == NULL)
			continue;
		for (int k = 0; zone && k < 4; k++)
		{
			int			len;
			const char *v = LabelGet(pv->labels, keys[k], strlen(keys[k]), &len);
			char	   *now = fix_label(f, f->node, keys[k]);
			char	   *set = v ? pnstrdup(v, len) : NULL;
			char	   *z = set;
			bool		in = false;

			/* volumehelpers.LabelZonesToSet: values joined by "__" */
			while (z && now && !in)
			{
				char	   *sep = strstr(z, "__");
				size_t		l = sep ? (size_t) (sep - z) : strlen(z);

				in = strlen(now) == l && strncmp(z, now, l) == 0;
				z = sep ? sep + 2 : NULL;
			}
			if (set && !in)
			{
				LabelEdit  *e = palloc0(sizeof(LabelEdit));
				char	   *sep = strstr(set, "__");

				e->key = (char *) keys[k];
				e->value = sep ? pnstrdup(set, sep - set) : set;
				edits = lappend(edits, e);
			}
		}
		if (!zone && pv->node_affinity && JB_ROOT_IS_OBJECT(pv->node_affinity) &&
			!best_term(f, JAtArray(&pv->node_affinity->root, "nodeSelectorTerms"), &edits))
			return false;
		n += apply_edits(f, edits, &buf);
		if (buf.len > before)
			appendStringInfo(&buf, " (PersistentVolume %s)", pv->name);
	}
	if (n == 0)
		return false;
	add_part(f, HK_VOLUME, 2.0 * n, "%s: %s", zone ? "the pod's volumes are in another zone or region" :
			 "the node does not match the node affinity of the pod's volumes", buf.data);
	return true;
}

/* ------------------------------------------------------------------------
 * Pods in the way: host ports, volumes, inter-pod affinity, spread
 * ------------------------------------------------------------------------
 */
static bool
fix_ports(Hints *h, Fix *f, int plugin)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = 0; i < h->e.pod.nports; i++)
		appendStringInfo(&buf, "%s%d/%s", i ? ", " : "", h->e.pod.ports[i].port,
						 h->e.pod.ports[i].protocol ? h->e.pod.ports[i].protocol : "TCP");
	return evict_part(h, f, plugin, f->node->port_pods, false, HK_PORT,
					  psprintf("the host ports the pod asks for (%s) are in use", buf.data));
}

/* VolumeRestrictions, NodeVolumeLimits: the fewest pods with volumes whose eviction does */
static bool
fix_volume_pods(Hints *h, Fix *f, int plugin, bool limits)
{
	List	   *with = NIL;
	ListCell   *lc;

	foreach(lc, f->node->pods)
		if (((PodRef *) lfirst(lc))->nvolumes > 0)
			with = lappend(with, lfirst(lc));
	return evict_part(h, f, plugin, with, false, HK_VOLUME,
					  limits ? "the node has as many volumes attached as it may" :
					  "a volume the pod uses is in use there in a way it cannot share");
}

/* The nodes in the same domain of key as the fix's node (it too), or NIL when it lacks the key */
static List *
domain_pods(Fix *f, ClusterSnapshot *snap, const char *key)
{
	char	   *value = fix_label(f, f->node, key);
	List	   *pods = NIL;

	if (value == NULL)
		return NIL;
	for (int i = 0; i < snap->nnodes; i++)
	{
		NodeInfo   *m = snap->nodes[i];
		char	   *vm = fix_label(f, m, key);

		if (vm && strcmp(vm, value) == 0)
			pods = list_concat(pods, m->pods);
	}
	return pods;
}

/* Labels a pod needs to match every selector (NULL: they conflict) */
static Jsonb *
labels_for(const AffinityTerm *terms, int n)
{
	List	   *edits = NIL;
	ListCell   *lc;

	for (int i = 0; i < n; i++)
		for (int r = 0; r < terms[i].selector->nreqs; r++)
		{
			const LabelRequirement *q = &terms[i].selector->reqs[r];
			char	   *want = q->op == LABEL_IN && q->nvalues > 0 ? q->values[0] :
				q->op == LABEL_EXISTS ? "true" : NULL;
			LabelEdit  *e;
			bool		seen = false;

			if (want == NULL)
				continue;
			foreach(lc, edits)
				if (strcmp(((LabelEdit *) lfirst(lc))->key, q->key) == 0)
					seen = true;
			if (seen)
				continue;
			e = palloc0(sizeof(LabelEdit));
			e->key = q->key;
			e->value = want;
			edits = lappend(edits, e);
		}
	return labels_with_edits(NULL, edits);
}

/*
 * A name for a pod a fix adds, "fit-hint-<n>", that no pod of the namespace
 * has, and a uid no pod has (the snapshot's pods are keyed by uid)
 */
static void
hint_pod_name(Hints *h, const char *ns, PodInfo *pod)
{
	Oid			types[3] = {TEXTOID, TEXTOID, TEXTOID};

	for (;;)
	{
		Datum		args[3];
		bool		taken;
		bool		isnull;

		pod->name = psprintf("fit-hint-%d", ++h->nadded);
		pod->uid = psprintf("fit-hint:%s/%s", ns, pod->name);
		args[0] = CStringGetTextDatum(ns);
		args[1] = CStringGetTextDatum(pod->name);
		args[2] = CStringGetTextDatum(pod->uid);
		if (SPI_execute_with_args("SELECT EXISTS (SELECT FROM scheduler.pods WHERE (namespace = $1 AND name = $2) OR uid = $3)",
								  3, types, args, NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
			elog(ERROR, "could not read scheduler.pods");
		taken = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
		SPI_freetuptable(SPI_tuptable);
		if (!taken)
			return;
	}
}

/*
 * A value for a topology key the node lacks: that of a node holding a pod
 * every term matches (in the node's own domain then, it needs no pod
 * added), else the node's name as a label value
 */
static char *
domain_with_match(Hints *h, Fix *f, const AffinityTerm *t, int n, const char *key)
{
	for (int i = 0; i < h->e.snap->nnodes; i++)
	{
		NodeInfo   *m = h->e.snap->nodes[i];
		char	   *v = fix_label(f, m, key);
		ListCell   *lc;

		if (v == NULL || m == f->node)
			continue;
		foreach(lc, m->pods)
		{
			PodRef	   *p = lfirst(lc);
			bool		all = true;

			for (int k = 0; k < n && all; k++)
				all = AffinityTermMatches(&t[k], p->namespace, p->labels, namespace_labels(h, p->namespace));
			if (all)
				return v;
		}
	}
	return name_as_label(f->node->name);
}

/*
 * InterPodAffinity's required affinity: a pod every term matches, added on
 * the node (in the terms' first namespace); a term's topology key the node
 * lacks, set to the value of a node that holds such a pod (or its name)
 */
static bool
fix_pod_affinity(Hints *h, Fix *f, const PodAffinity *pa)
{
	const AffinityTerm *t = pa->req_aff;
	AddedPod   *a;
	char	   *ns = t[0].nnamespaces > 0 ? t[0].namespaces[0] : h->e.pod.namespace;
	Jsonb	   *labels = labels_for(t, pa->nreq_aff);
	StringInfoData buf;

	for (int i = 0; i < pa->nreq_aff; i++)
		if (fix_label(f, f->node, t[i].topology_key) == NULL)
		{
			char	   *v = domain_with_match(h, f, t, pa->nreq_aff, t[i].topology_key);

			set_label(f, t[i].topology_key, v);
			add_part(f, HK_AFFINITY, 2, "the node lacks the label %s that the pod's affinity term needs: set label %s=%s",
					 t[i].topology_key, t[i].topology_key, v);
			return true;
		}
	for (int i = 0; i < pa->nreq_aff; i++)
		if (!AffinityTermMatches(&t[i], ns, labels, namespace_labels(h, ns)))
			return false;		/* no one pod matches them all */
	if (list_length(f->added) > 0)
		return false;
	a = palloc0(sizeof(AddedPod));
	hint_pod_name(h, ns, &a->pod);
	a->pod.namespace = ns;
	a->pod.labels = labels;
	a->pod.node_name = f->node->name;
	f->added = lappend(f->added, a);
	initStringInfo(&buf);
	for (int i = 0; i < pa->nreq_aff; i++)
		appendStringInfo(&buf, "%s%s=%s", i ? ", " : "", t[i].topology_key, fix_label(f, f->node, t[i].topology_key));
	add_part(f, HK_AFFINITY, 3, "no pod that the pod's required affinity terms match is in its domain (%s): add one there, as pod %s/%s with labels %s on the node",
			 buf.data, ns, a->pod.name, JsonbToCString(NULL, &labels->root, VARSIZE(labels)));
	return true;
}

/*
 * The existing pods' required anti-affinity terms that match the pod, with
 * their pods and nodes: read once a call
 */
static List *
existing_anti(Hints *h)
{
	ClusterSnapshot *snap = h->e.snap;
	ListCell   *lc;

	if (h->anti_read)
		return h->anti;
	h->anti_read = true;
	for (int i = 0; i < snap->nnodes; i++)
		foreach(lc, snap->nodes[i]->anti_pods)
		{
			PodRef	   *p = lfirst(lc);

			for (int k = 0; p->affinity && k < p->affinity->nreq_anti; k++)
				if (AffinityTermMatches(&p->affinity->req_anti[k], h->e.pod.namespace, h->e.pod.labels,
										namespace_labels(h, h->e.pod.namespace)))
				{
					AntiTerm   *a = palloc(sizeof(AntiTerm));

					a->pod = p;
					a->node = snap->nodes[i];
					a->term = &p->affinity->req_anti[k];
					h->anti = lappend(h->anti, a);
				}
		}
	return h->anti;
}

/* InterPodAffinity: the pod's own anti-affinity, the existing pods', then its affinity */
static bool
fix_inter_pod(Hints *h, Fix *f, int plugin, const Status *st)
{
	char	   *err;
	PodAffinity *pa = PodAffinityParse(h->e.pod.affinity, h->e.pod.namespace, h->e.pod.labels, &err);
	List	   *pods = NIL;
	ClusterSnapshot *snap = h->e.snap;
	ListCell   *lc;

	if (has_reason(st, "node(s) didn't satisfy existing pods anti-affinity rules"))
	{
		foreach(lc, existing_anti(h))
		{
			AntiTerm   *a = lfirst(lc);
			char	   *vm = fix_label(f, a->node, a->term->topology_key);
			char	   *vx = fix_label(f, f->node, a->term->topology_key);

			if (vm && vx && strcmp(vm, vx) == 0)
				pods = lappend(pods, a->pod);
		}
		return evict_part(h, f, plugin, pods, true, HK_AFFINITY,
						  "the required anti-affinity of pods in the node's domain rejects the pod");
	}
	if (has_reason(st, "node(s) didn't match pod anti-affinity rules") && pa)
	{
		StringInfoData terms;

		initStringInfo(&terms);
		for (int k = 0; k < pa->nreq_anti; k++)
		{
			int			before = list_length(pods);

			foreach(lc, domain_pods(f, snap, pa->req_anti[k].topology_key))
			{
				PodRef	   *p = lfirst(lc);

				if (AffinityTermMatches(&pa->req_anti[k], p->namespace, p->labels, namespace_labels(h, p->namespace)))
					pods = lappend(pods, p);
			}
			if (list_length(pods) > before)
				appendStringInfo(&terms, "%s%s=%s", terms.len ? ", " : "", pa->req_anti[k].topology_key,
								 fix_label(f, f->node, pa->req_anti[k].topology_key));
		}
		return evict_part(h, f, plugin, pods, true, HK_AFFINITY,
						  psprintf("the pod's required anti-affinity terms match pods in the node's domain (%s)", terms.data));
	}
	if (has_reason(st, "node(s) didn't match pod affinity rules") && pa && pa->nreq_aff > 0)
		return fix_pod_affinity(h, f, pa);
	return false;
}

/* Order of the pods a skew evicts: those on the node first, then the least important */
static NodeInfo *spread_node;
static int
cmp_spread(const ListCell *a, const ListCell *b)
{
	const PodRef *x = lfirst(a);
	const PodRef *y = lfirst(b);
	bool		xa = x->node && strcmp(x->node, spread_node->name) == 0;
	bool		ya = y->node && strcmp(y->node, spread_node->name) == 0;

	if (xa != ya)
		return xa ? -1 : 1;
	return -PodMoreImportant(a, b);
}

/* A topology label the node lacks: the first value of another node's that lets the plugin pass */
static bool
spread_label(Hints *h, Fix *f, int plugin, const char *key)
{
	List	   *tried = NIL;

	for (int i = 0; i < h->e.snap->nnodes && list_length(tried) < MAX_LABEL_TRIES; i++)
	{
		char	   *v = fix_label(f, h->e.snap->nodes[i], key);
		ListCell   *lc;
		bool		seen = false;

		if (v == NULL)
			continue;
		foreach(lc, tried)
			seen |= strcmp(lfirst(lc), v) == 0;
		if (seen)
			continue;
		tried = lappend(tried, v);
		set_label(f, key, v);
		if (passes(h, f, plugin))
			break;
	}
	if (tried == NIL)
		set_label(f, key, name_as_label(f->node->name));
	add_part(f, HK_SPREAD, 2, "the node lacks the label %s that the pod's topology spread constraint needs: set label %s=%s",
			 key, key, fix_label(f, f->node, key));
	return true;
}

/*
 * PodTopologySpread (DoNotSchedule constraints): a topology label the node
 * lacks; or the pods its constraints count in the node's domains, off one
 * at a time until the skew allows the pod
 */
static bool
fix_spread(Hints *h, Fix *f, int plugin)
{
	JsonbContainer *cs = h->e.pod.spread && JB_ROOT_IS_ARRAY(h->e.pod.spread) ? &h->e.pod.spread->root : NULL;
	List	   *pods = NIL;
	List	   *victims;
	StringInfoData keys;

	initStringInfo(&keys);
	for (int i = 0; cs && i < (int) JsonContainerSize(cs); i++)
	{
		JsonbValue *cv = getIthJsonbValueFromContainer(cs, i);
		JsonbContainer *c = cv && cv->type == jbvBinary ? cv->val.binary.data : NULL;
		char	   *key = JAtString(c, "topologyKey");
		char	   *when = JAtString(c, "whenUnsatisfiable");
		JsonbValue *sv = c ? JGet(c, "labelSelector") : NULL;
		char	   *err;
		LabelSelector *sel = sv ? LabelSelectorParse(sv, &err) : NULL;
		ListCell   *lc;
		bool		has_skew;

		if (key == NULL || when == NULL || strcmp(when, "DoNotSchedule") != 0)
			continue;
		if (fix_label(f, f->node, key) == NULL)
			return spread_label(h, f, plugin, key);
		appendStringInfo(&keys, "%s%s=%s, maxSkew %d", keys.len ? "; " : "", key, fix_label(f, f->node, key),
						 JAtInt32(c, "maxSkew", &has_skew));
		foreach(lc, domain_pods(f, h->e.snap, key))
		{
			PodRef	   *p = lfirst(lc);

			if (sel && p->namespace && strcmp(p->namespace, h->e.pod.namespace) == 0 &&
				LabelSelectorMatches(sel, p->labels))
				pods = lappend(pods, p);
		}
	}
	spread_node = f->node;
	list_sort(pods, cmp_spread);
	victims = evict_until(h, f, plugin, pods);
	if (victims == NIL)
		return false;
	{
		double		cost;
		char	   *text = victims_text(h, victims, &cost);

		add_part(f, HK_SPREAD, cost, "the pod's topology spread constraints count too many pods in the node's domain (%s): evict %s",
				 keys.data, text);
	}
	return true;
}

/* ------------------------------------------------------------------------
 * Fixes
 * ------------------------------------------------------------------------
 */

/* The change a failing plugin asks for; false: none it knows */
static bool
fix_plugin(Hints *h, Fix *f, int i, const Status *st)
{
	const char *name = h->e.profile->plugins[i].plugin->name;

	if (strcmp(name, "NodeUnschedulable") == 0)
		return fix_unschedulable(f);
	if (strcmp(name, "TaintToleration") == 0)
		return fix_taints(h, f);
	if (strcmp(name, "NodeAffinity") == 0)
		return fix_node_affinity(h, f);
	if (strcmp(name, "NodeResourcesFit") == 0)
		return fix_resources(h, f, i, st);
	if (strcmp(name, "NodePorts") == 0)
		return fix_ports(h, f, i);
	if (strcmp(name, "InterPodAffinity") == 0)
		return fix_inter_pod(h, f, i, st);
	if (strcmp(name, "PodTopologySpread") == 0)
		return fix_spread(h, f, i);
	if (strcmp(name, "VolumeZone") == 0)
		return fix_volume_labels(h, f, true);
	if (strcmp(name, "VolumeBinding") == 0 && has_reason(st, "node(s) had volume node affinity conflict"))
		return fix_volume_labels(h, f, false);
	if (strcmp(name, "VolumeRestrictions") == 0)
		return fix_volume_pods(h, f, i, false);
	if (strcmp(name, "NodeVolumeLimits") == 0)
		return fix_volume_pods(h, f, i, true);
	return false;
}

/* The fix of a node: rounds of Filters and a change until every Filter passes */
static void
build_fix(Hints *h, Fix *f)
{
	int			nplugins = h->e.profile->nplugins;

	/*
	 * one change a round, for the first plugin failing, on statuses just
	 * read: a change may answer a later plugin's reason too
	 */
	for (int round = 0; round < MAX_ROUNDS; round++)
	{
		int			failing = check(h, f, -1);
		int			i = 0;
		Status		st;

		if (failing <= 0)
		{
			f->ok = failing == 0 && f->parts != NIL;
			break;
		}
		while (i < nplugins && h->st[i].code == CODE_SUCCESS)
			i++;
		st = h->st[i];
		if (!fix_plugin(h, f, i, &st))
			return;
	}
	if (f->ok)
	{
		ListCell   *lc;

		foreach(lc, f->parts)
			f->cost += ((Part *) lfirst(lc))->cost;
	}
}

/* A node as a candidate: how far from fitting it looks before any fix */
typedef struct Probe
{
	NodeInfo   *node;
	double		distance;
	bool		short_of_resources;	/* NodeResourcesFit failed: an eviction variant too */
} Probe;

static int
cmp_probe(const void *a, const void *b)
{
	const Probe *x = a;
	const Probe *y = b;

	if (x->distance != y->distance)
		return x->distance < y->distance ? -1 : 1;
	return strcmp(x->node->name, y->node->name);
}

static int
cmp_fix(const ListCell *a, const ListCell *b)
{
	const Fix  *x = lfirst(a);
	const Fix  *y = lfirst(b);
	int			c;

	if (x->cost != y->cost)
		return x->cost < y->cost ? -1 : 1;
	c = strcmp(x->node->name, y->node->name);
	return c != 0 ? c : (int) x->evict_for_resources - (int) y->evict_for_resources;
}

/*
 * Every node the pod may go to, probed: the plugins failing there (a
 * resource short counting by how short); *fits_now when one passes.
 */
static Probe *
probe_nodes(Hints *h, int *n, bool *fits_now)
{
	int			ncand;
	int			nabsent;
	NodeInfo  **cand = CandidateNodes(h->e.snap, h->e.names, h->e.restricted, &ncand, &nabsent);
	Probe	   *probes = palloc0(sizeof(Probe) * Max(ncand, 1));
	const Profile *prof = h->e.profile;

	*n = 0;
	*fits_now = false;
	for (int k = 0; k < ncand; k++)
	{
		Fix			f = {.node = cand[k]};
		int			failing = check(h, &f, -1);
		Probe	   *p = &probes[*n];

		if (failing == 0)
			*fits_now = true;
		if (failing <= 0)
			continue;
		p->node = cand[k];
		p->distance = failing;
		for (int i = 0; i < prof->nplugins; i++)
			if (h->st[i].code != CODE_SUCCESS && strcmp(prof->plugins[i].plugin->name, "NodeResourcesFit") == 0)
			{
				const ResourceVec *a = &cand[k]->allocatable;
				const ResourceVec *u = &cand[k]->requested;
				const ResourceVec *r = &h->e.pod.requests;

				p->short_of_resources = true;
				p->distance += deficit(a->cpu, u->cpu, r->cpu) + deficit(a->memory, u->memory, r->memory) +
					deficit(a->ephemeral, u->ephemeral, r->ephemeral);
				for (int s = 0; s < r->nscalar; s++)
					p->distance += deficit(ResourceGet(a, r->scalar[s].name), ResourceGet(u, r->scalar[s].name),
										   r->scalar[s].value);
			}
		(*n)++;
	}
	qsort(probes, *n, sizeof(Probe), cmp_probe);
	return probes;
}

/* ------------------------------------------------------------------------
 * The change, as simulate() takes it
 * ------------------------------------------------------------------------
 */

/* A quantity as the Node's status.allocatable holds it */
static char *
quantity_text(const char *name, int64 v)
{
	return ResourceFixedIndex(name) == RESOURCE_CPU ? psprintf(INT64_FORMAT "m", v) : psprintf(INT64_FORMAT, v);
}

/* The fix's node edits and pods as the arguments of change_sql */
static void
change_args(Fix *f, Datum *args, char *nulls)
{
	JsonbParseState *st = NULL;
	List	   *removed = NIL;
	List	   *ns = NIL,
			   *names = NIL,
			   *uids = NIL;
	ListCell   *lc;

	memset(nulls, ' ', 11);
	args[0] = CStringGetTextDatum(f->node->name);
	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	foreach(lc, f->labels)
	{
		LabelEdit  *e = lfirst(lc);

		if (e->value == NULL)
			removed = lappend(removed, e->key);
		else
		{
			JPushString(&st, WJB_KEY, e->key);
			JPushString(&st, WJB_VALUE, e->value);
		}
	}
	args[1] = JsonbPGetDatum(JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_OBJECT, NULL)));
	args[2] = TextArrayFromList(removed);
	pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
	foreach(lc, f->drop_taints)
	{
		Taint	   *t = lfirst(lc);

		pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
		JPushString(&st, WJB_KEY, "key");
		JPushString(&st, WJB_VALUE, t->key ? t->key : "");
		JPushString(&st, WJB_KEY, "value");
		JPushString(&st, WJB_VALUE, t->value ? t->value : "");
		JPushString(&st, WJB_KEY, "effect");
		JPushString(&st, WJB_VALUE, t->effect ? t->effect : "");
		pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	}
	args[3] = JsonbPGetDatum(JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_ARRAY, NULL)));
	args[4] = BoolGetDatum(f->uncordon);
	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	foreach(lc, f->alloc)
	{
		AllocEdit  *a = lfirst(lc);

		JPushString(&st, WJB_KEY, a->name);
		JPushString(&st, WJB_VALUE, quantity_text(a->name, a->value));
	}
	args[5] = JsonbPGetDatum(JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_OBJECT, NULL)));
	args[6] = BoolGetDatum(f->labels || f->drop_taints || f->uncordon || f->alloc);
	foreach(lc, f->victims)
	{
		PodRef	   *p = lfirst(lc);

		ns = lappend(ns, p->namespace ? p->namespace : "");
		names = lappend(names, p->name ? p->name : "");
		uids = lappend(uids, p->uid);
	}
	args[7] = TextArrayFromList(ns);
	args[8] = TextArrayFromList(names);
	args[9] = TextArrayFromList(uids);
	pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
	foreach(lc, f->added)
	{
		AddedPod   *a = lfirst(lc);
		JsonbValue	lv;

		pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
		JPushString(&st, WJB_KEY, "namespace");
		JPushString(&st, WJB_VALUE, a->pod.namespace);
		JPushString(&st, WJB_KEY, "name");
		JPushString(&st, WJB_VALUE, a->pod.name);
		JPushString(&st, WJB_KEY, "labels");
		lv.type = jbvBinary;
		lv.val.binary.data = &a->pod.labels->root;
		lv.val.binary.len = VARSIZE(a->pod.labels);
		pushJsonbValue(&st, WJB_VALUE, &lv);
		pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	}
	args[10] = JsonbPGetDatum(JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_ARRAY, NULL)));
}

/*
 * The events of a fix: the node MODIFIED (its stored object with the
 * labels, taints, spec.unschedulable and status.allocatable changed), the
 * pods DELETED, the pods ADDED on the node.
 */
static const char *const change_sql =
"SELECT coalesce(pg_catalog.jsonb_agg(e ORDER BY k), '[]'::jsonb) FROM ("
" SELECT 0 AS k, pg_catalog.jsonb_build_object('type', 'MODIFIED', 'object', n.object"
"   || pg_catalog.jsonb_build_object('metadata', (n.object->'metadata') || pg_catalog.jsonb_build_object('labels',"
"        (coalesce(n.object->'metadata'->'labels', '{}'::jsonb) - $3) || $2))"
"   || pg_catalog.jsonb_build_object('spec', (coalesce(n.object->'spec', '{}'::jsonb) - CASE WHEN $5 THEN 'unschedulable' ELSE '' END)"
"        || CASE WHEN pg_catalog.jsonb_array_length($4) = 0 THEN '{}'::jsonb ELSE pg_catalog.jsonb_build_object('taints',"
"           coalesce((SELECT pg_catalog.jsonb_agg(t ORDER BY i) FROM pg_catalog.jsonb_array_elements(n.object->'spec'->'taints') WITH ORDINALITY AS x(t, i)"
"             WHERE NOT EXISTS (SELECT FROM pg_catalog.jsonb_array_elements($4) d WHERE d->>'key' = coalesce(t->>'key', '')"
"               AND d->>'value' = coalesce(t->>'value', '') AND d->>'effect' = coalesce(t->>'effect', ''))), '[]'::jsonb)) END)"
"   || pg_catalog.jsonb_build_object('status', coalesce(n.object->'status', '{}'::jsonb) || pg_catalog.jsonb_build_object('allocatable',"
"        coalesce(n.object->'status'->'allocatable', n.object->'status'->'capacity', '{}'::jsonb) || $6))) AS e"
" FROM scheduler.nodes n WHERE n.name = $1 AND $7"
" UNION ALL"
" SELECT i, pg_catalog.jsonb_build_object('type', 'DELETED', 'object', pg_catalog.jsonb_build_object('apiVersion', 'v1',"
"   'kind', 'Pod', 'metadata', pg_catalog.jsonb_build_object('namespace', ns, 'name', nm, 'uid', u)))"
" FROM ROWS FROM (pg_catalog.unnest($8), pg_catalog.unnest($9), pg_catalog.unnest($10)) WITH ORDINALITY AS v(ns, nm, u, i)"
" UNION ALL"
" SELECT 1000000 + i, pg_catalog.jsonb_build_object('type', 'ADDED', 'object', pg_catalog.jsonb_build_object('apiVersion', 'v1',"
"   'kind', 'Pod', 'metadata', pg_catalog.jsonb_build_object('namespace', a->>'namespace', 'name', a->>'name', 'labels', a->'labels'),"
"   'spec', pg_catalog.jsonb_build_object('nodeName', $1, 'containers', '[{\"name\": \"placeholder\", \"image\": \"registry.k8s.io/pause:3.9\"}]'::jsonb),"
"   'status', '{\"phase\": \"Running\"}'::jsonb))"
" FROM pg_catalog.jsonb_array_elements($11) WITH ORDINALITY AS x(a, i)) s";

static Jsonb *
fix_change(Fix *f, SPIPlanPtr *plan)
{
	static const Oid types[11] = {TEXTOID, JSONBOID, TEXTARRAYOID, JSONBOID, BOOLOID, JSONBOID, BOOLOID,
	TEXTARRAYOID, TEXTARRAYOID, TEXTARRAYOID, JSONBOID};
	Datum		args[11];
	char		nulls[11];
	bool		isnull;
	Jsonb	   *out;

	change_args(f, args, nulls);
	if (*plan == NULL && (*plan = SPI_prepare(change_sql, 11, (Oid *) types)) == NULL)
		elog(ERROR, "could not prepare the change of a fit hint: %s", SPI_result_code_string(SPI_result));
	if (SPI_execute_plan(*plan, args, nulls, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not make the change of a fit hint");
	out = DatumGetJsonbPCopy(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	SPI_freetuptable(SPI_tuptable);
	return out;
}

/* ------------------------------------------------------------------------
 * scheduler.fit_hints()
 * ------------------------------------------------------------------------
 */

/* The fixes of the nodes nearest to fitting, ranked, those of max_nodes nodes */
static List *
find_fixes(Hints *h, int max_nodes)
{
	int			nprobes;
	bool		fits_now;
	Probe	   *probes = probe_nodes(h, &nprobes, &fits_now);
	List	   *fixes = NIL;
	List	   *out = NIL;
	List	   *nodes = NIL;
	ListCell   *lc;

	if (fits_now)
		return NIL;				/* the next cycle places it: nothing to change */
	/*
	 * the nearest first, until max_nodes have a fix and a few more were
	 * tried (the probe's distance only foresees a fix's cost), or enough
	 */
	for (int k = 0; k < nprobes && k < max_nodes * MAX_CANDIDATES &&
		 (list_length(nodes) < max_nodes || k < max_nodes + 5); k++)
		for (int variant = 0; variant < (probes[k].short_of_resources ? 2 : 1); variant++)
		{
			Fix		   *f = palloc0(sizeof(Fix));
			ListCell   *pc;
			bool		evicts = false;

			CHECK_FOR_INTERRUPTS();
			f->node = probes[k].node;
			f->evict_for_resources = variant == 1;
			build_fix(h, f);
			foreach(pc, f->parts)
				evicts |= ((Part *) lfirst(pc))->kind == HK_EVICTION;
			/* the eviction variant is its own fix only when it evicts for room */
			if (!f->ok || (f->evict_for_resources && !evicts))
				continue;
			fixes = lappend(fixes, f);
			nodes = list_append_unique_ptr(nodes, f->node);
		}
	nodes = NIL;
	list_sort(fixes, cmp_fix);
	foreach(lc, fixes)
	{
		Fix		   *f = lfirst(lc);

		if (!list_member_ptr(nodes, f->node))
		{
			if (list_length(nodes) >= max_nodes)
				continue;
			nodes = lappend(nodes, f->node);
		}
		out = lappend(out, f);
	}
	return out;
}

static void
emit(ReturnSetInfo *rsinfo, List *fixes)
{
	ListCell   *lc;
	SPIPlanPtr	plan = NULL;

	foreach(lc, fixes)
	{
		Fix		   *f = lfirst(lc);
		ListCell   *pc;

		f->change = fix_change(f, &plan);
		foreach(pc, f->parts)
		{
			Part	   *p = lfirst(pc);
			Datum		v[5];
			bool		nulls[5] = {false, false, false, false, false};

			v[0] = Int32GetDatum(foreach_current_index(lc) + 1);
			v[1] = CStringGetTextDatum(f->node->name);
			v[2] = CStringGetTextDatum(kind_names[p->kind]);
			v[3] = CStringGetTextDatum(p->detail);
			v[4] = JsonbPGetDatum(f->change);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, nulls);
		}
	}
}

/*
 * The placeholder pods the checks put in the snapshot, out of it again (each
 * is off its node between checks: put back, then forgotten), so that the
 * backend's snapshot is as it was and its next call need not read it afresh
 */
static void
forget_assumed(Hints *h)
{
	ListCell   *lc;

	foreach(lc, h->assumed)
	{
		AddedPod   *a = lfirst(lc);

		if (a->ref == NULL)
			continue;
		SnapshotPutBack(h->e.snap, a->ref);
		SnapshotOverlayRemovePod(h->e.snap, a->pod.uid, NULL, NULL);
	}
}

PG_FUNCTION_INFO_V1(scheduler_fit_hints);
/*
 * scheduler.fit_hints(namespace text, name text, max_nodes integer DEFAULT 10)
 *		RETURNS TABLE (rank integer, node text, kind text, detail text, change jsonb)
 */
Datum
scheduler_fit_hints(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int32		max_nodes = PG_GETARG_INT32(2);
	Hints		h;
	AsOwner		as;

	if (max_nodes < 1 || max_nodes > 1000)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_nodes must be between 1 and 1000, not %d", max_nodes)));
	AsOwnerBegin(&as, ROLE_READER, "explain the scheduler's decisions");
	InitMaterializedSRF(fcinfo, 0);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	memset(&h, 0, sizeof(h));
	ExplainSetup(PG_GETARG_DATUM(0), PG_GETARG_DATUM(1), &h.e);
	/* bound, or on its way to a node: nothing to hint; nor when PreFilter rejects it */
	if (h.e.pod.node_name == NULL && h.e.prefilter_ok && h.e.profile->nplugins > 0)
	{
		h.st = palloc0(sizeof(Status) * h.e.profile->nplugins);
		load_budgets(&h);
		PG_TRY();
		{
			emit(rsinfo, find_fixes(&h, max_nodes));
		}
		PG_CATCH();
		{
			/* pods may be off their nodes: the next call reads the cluster afresh */
			SnapshotDiscard();
			PG_RE_THROW();
		}
		PG_END_TRY();
		forget_assumed(&h);
	}
	SPI_finish();
	AsOwnerEnd(&as);
	return (Datum) 0;
}
