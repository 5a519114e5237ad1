/*
 * plan_capacity.c
 *	  Capacity planning: how many nodes of each template would place the
 *	  pending pods, bin-packed with the real filters on a private view of the
 *	  cluster (scheduler.plan_capacity(), scheduler.plan_capacity_pods()).
 *
 * The model is cluster-autoscaler's binpacking estimator, on the private
 * view simulate() uses (the backend's snapshot, changed in memory, then
 * discarded).  First every pod is tried on the cluster as it is, as
 * simulate() tries it: in QueueSort order, a whole scheduling cycle of the
 * scheduler's profile, each pod placed counting against its node for the
 * pods after it; then again those it did not hold, while a pass places some
 * (a pod whose affinity waits for a pod after it).  Nothing is preempted
 * (the profile's PostFilter plugins are left out): a pod that only
 * preemption would place needs a new node, as the estimator, which runs the
 * filters only, says too.
 *
 * The rest are packed onto new nodes made from the templates, in the order
 * given (a preference order, as the priority expander's: a pod goes to the
 * first template that can hold it).  Per template, as the estimator does:
 * the pods left, largest first (First-Fit Decreasing: the pod's cpu request
 * over the template's allocatable cpu plus its memory request over the
 * template's memory, ties in QueueSort order), each tried on the template's
 * new nodes made so far, in the order they were made (PreFilter on the whole
 * view, then each node's Filters), else on a fresh node of the template
 * added to the view; a pod that does not fit even a fresh node is not for
 * this template (the fresh node is taken out again, and its Filter's reason
 * kept), and goes on to the next template.  A pod that a plugin reading
 * other pods kept off (its affinity waits for a pod packed after it) is
 * tried again after the others, while that places some, as the queue tries
 * it again when a pod is assigned.  Pods alike that a fresh node did not
 * pass, whose verdict depends on their own fields and the node alone, are
 * kept off it once (KeptOff).  A new node is the template with
 * metadata.name "<template>-<k>" (k = 1, 2, ..., past the names the cluster
 * has), a fresh uid and the label kubernetes.io/hostname set to that name,
 * with no pods, as the autoscaler sanitizes a template node.  A template
 * gets at most PLAN_MAX_NODES new nodes (the autoscaler's
 * --max-nodes-per-scaleup default): past that its pods go on to the next
 * template.
 *
 * Nothing is written and nothing is locked but by the reads.  A cycle that
 * throws fails its pod alone: the view is made again (the snapshot read
 * afresh, the new nodes and the placements so far laid over it).
 *
 * IDENTIFICATION
 *	  src/plan_capacity.c
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "access.h"
#include "codec.h"
#include "equivalence.h"
#include "explain.h"
#include "framework.h"
#include "jsonutil.h"
#include "mirror.h"
#include "profile.h"
#include "resources.h"
#include "schedule.h"
#include "simulate.h"
#include "snapshot.h"
#include "subxact.h"

/* New nodes per template, at most: cluster-autoscaler's --max-nodes-per-scaleup default */
#define PLAN_MAX_NODES 1000
/* node templates a plan takes (each a packing pass over the pods) */
#define PLAN_MAX_TEMPLATES 100

/*
 * A template's name, at most: "<name>-<k>" is each new node's
 * kubernetes.io/hostname label, a label value of at most 63 characters
 * (k of up to 5 digits: past the cluster's nodes of those names)
 */
#define PLAN_NAME_MAX (63 - 6)

typedef struct PlanTemplate
{
	char	   *name;
	Jsonb	   *object;			/* as given, with kind Node */
	double		cpu;			/* allocatable cpu (millicores) and memory (bytes) */
	double		memory;
	int			next_k;			/* the next "<name>-<k>" to try */
	int			nrows;			/* new nodes made so far (rows of NodeColumns) */
	int			rows_cap;
	HeapTuple  *rows;
	TupleDesc  *descs;
	char	  **node_names;
	char	  **node_uids;
	int			nnodes;			/* rows[0 .. nnodes-1] are in the view, each with pods */
	int			pods;			/* pods planned onto them */
	List	   *kept_off;		/* KeptOff *: the classes the fresh node rows[nnodes] did not pass */
} PlanTemplate;

/*
 * A class of pods (the fields the profile's plugins read of them, as
 * equivalence.c signs them) that a fresh node of a template did not pass,
 * and why: a pod whose verdict depends on nothing but itself and the node
 * (no plugin that reads other pods has anything to say about it) gets the
 * same verdict from the same fresh node without adding it to the view again
 */
typedef struct KeptOff
{
	char	   *key;
	int			k;				/* the fresh node: rows[k] */
	char	   *reason;
} KeptOff;

typedef struct PlanPod
{
	SimPod		sp;
	int			template;		/* the template of its new node, or -1 */
	char	   *node;			/* where it goes (an existing node or a new one), or NULL */
	char	   *message;
	char	  **reasons;		/* per template: why a fresh node of it cannot hold the pod */
	bool		failed;			/* a cycle threw */
	bool		waits;			/* a plugin that reads other pods rejected it (its last try) */
	double		score;			/* First-Fit Decreasing's, for the template being packed */
} PlanPod;

typedef struct CapacityPlan
{
	MemoryContext cxt;			/* the call's */
	ClusterSnapshot *snap;
	Profile    *profile;		/* the scheduler's, without PostFilter */
	int			ntemplates;
	PlanTemplate *templates;
	int			npods;
	PlanPod    *pods;			/* in QueueSort order */
	List	   *placed;			/* int: the pods placed, in the order placed */
	int			next_start;
} CapacityPlan;

/* A string and where it came from, for finding one given twice */
typedef struct Keyed
{
	const char *key;
	int			index;
} Keyed;

static int
cmp_keyed(const void *a, const void *b)
{
	const Keyed *x = a;
	const Keyed *y = b;
	int			c = strcmp(x->key, y->key);

	return c != 0 ? c : (x->index > y->index) - (x->index < y->index);
}

/* By key alone (bsearch over keys sorted by find_duplicate) */
static int
cmp_key(const void *a, const void *b)
{
	return strcmp(((const Keyed *) a)->key, ((const Keyed *) b)->key);
}

/*
 * A key given twice: false when none; else the index of its first repeat
 * (in the order given) in *dup, where it was given first in *first, and the
 * key in *key.  The keys are left sorted.
 */
static bool
find_duplicate(Keyed *keys, int n, int *first, int *dup, const char **key)
{
	*dup = -1;
	qsort(keys, n, sizeof(Keyed), cmp_keyed);
	for (int j = 0; j + 1 < n; j++)
		if (strcmp(keys[j].key, keys[j + 1].key) == 0 && (*dup < 0 || keys[j + 1].index < *dup))
		{
			int			k = j;

			while (k > 0 && strcmp(keys[k - 1].key, keys[j].key) == 0)
				k--;
			*first = keys[k].index;
			*dup = keys[j + 1].index;
			*key = keys[j].key;
		}
	return *dup >= 0;
}

/* An error caught in a subtransaction, thrown again with where it came from */
static void
rethrow_at(ErrorData *edata, const char *where)
{
	ereport(ERROR,
			(errcode(edata->sqlerrcode),
			 errmsg("%s: %s", where, edata->message),
			 edata->detail ? errdetail("%s", edata->detail) : 0,
			 edata->hint ? errhint("%s", edata->hint) : 0));
}

/* ------------------------------------------------------------------------
 * The templates
 * ------------------------------------------------------------------------
 */
typedef struct WhatIf
{
	Jsonb	   *doc;
	MirrorBatch *batch;
} WhatIf;

/* For RunInSubxact: a document gathered as apply() would apply it */
static void
gather(void *arg)
{
	WhatIf	   *w = arg;

	(void) MirrorApplyWhatIf(w->doc, w->batch);
}

/* One template: a Node object named by metadata.name, with resources; validated as apply() validates a Node */
static void
read_template(PlanTemplate *t, int i, JsonbValue *e)
{
	char	   *what = psprintf("templates[%d]", i);
	JsonbContainer *obj;
	JsonbContainer *status;
	JsonbContainer *alloc;
	const char *alloc_path = "status.allocatable";
	char	   *kind;
	ResourceVec vec;
	WhatIf		w;
	ErrorData  *edata;

	if (e->type != jbvBinary || !JsonContainerIsObject(e->val.binary.data))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: must be a Node object, got %s", what, JTypeName(e))));
	obj = e->val.binary.data;
	kind = JGetString(obj, "kind", what, NULL);
	if (kind && strcmp(kind, "Node") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: kind: must be \"Node\", got \"%s\"", what, JShort(kind))));
	t->name = JGetString(JGetObject(obj, "metadata", what, NULL), "name", what, "metadata");
	if (t->name == NULL || t->name[0] == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: metadata.name: required value", what)));
	if (strlen(t->name) > PLAN_NAME_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: metadata.name: must be no more than %d characters", what, PLAN_NAME_MAX),
				 errdetail("Its new nodes are named \"<name>-<k>\" and labelled kubernetes.io/hostname with that name, a label value of at most 63 characters.")));
	status = JGetObject(obj, "status", what, NULL);
	alloc = JGetObject(status, "allocatable", what, "status");
	if (alloc == NULL)
	{
		alloc = JGetObject(status, "capacity", what, "status");
		alloc_path = "status.capacity";
	}
	if (alloc == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: status.allocatable: required value", what),
				 errdetail("A template says what each of its new nodes offers (or status.capacity, which allocatable defaults to).")));

	/* as apply() takes it: the same checks, the same messages */
	t->object = DatumGetJsonbP(DirectFunctionCall2(jsonb_concat, JsonbPGetDatum(JsonbValueToJsonb(e)),
												   DirectFunctionCall1(jsonb_in, CStringGetDatum("{\"kind\": \"Node\"}"))));
	w.doc = t->object;
	w.batch = MirrorBatchBegin();
	edata = RunInSubxact(gather, &w);
	if (edata)
		rethrow_at(edata, what);

	memset(&vec, 0, sizeof(vec));
	ParseResourceList(alloc, &vec, NULL, what, alloc_path);
	t->cpu = (double) vec.cpu;
	t->memory = (double) vec.memory;
	t->next_k = 1;
}

/* The templates: a JSON array of Node objects, their names unique */
static void
read_templates(CapacityPlan *p, Jsonb *templates)
{
	Keyed	   *keys;
	int			first;
	int			dup;
	const char *key;

	if (templates == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("templates must be a JSON array of Node objects, not NULL")));
	if (!JB_ROOT_IS_ARRAY(templates) || JB_ROOT_IS_SCALAR(templates))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("templates must be a JSON array of Node objects, got %s",
						JB_ROOT_IS_OBJECT(templates) ? "an object" : "a scalar")));
	p->ntemplates = (int) JB_ROOT_COUNT(templates);
	if (p->ntemplates > PLAN_MAX_TEMPLATES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("templates: %d node templates, more than the %d a plan takes", p->ntemplates, PLAN_MAX_TEMPLATES),
				 errhint("Each template is a packing pass over every pod: plan with the shapes you would buy.")));
	p->templates = palloc0(sizeof(PlanTemplate) * Max(p->ntemplates, 1));
	keys = palloc(sizeof(Keyed) * Max(p->ntemplates, 1));
	for (int i = 0; i < p->ntemplates; i++)
	{
		read_template(&p->templates[i], i, getIthJsonbValueFromContainer(&templates->root, i));
		keys[i].key = p->templates[i].name;
		keys[i].index = i;
	}
	if (find_duplicate(keys, p->ntemplates, &first, &dup, &key))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("templates[%d]: metadata.name: duplicate value \"%s\" (templates[%d] has it)",
						dup, JShort(key), first)));
}

/* A name the view knows: a node's, or one its pods name (a node not seen yet) */
static bool
name_taken(ClusterSnapshot *snap, const char *name)
{
	return strlen(name) >= NODE_NAME_KEYSIZE || hash_search(snap->by_name, name, HASH_FIND, NULL) != NULL;
}

/* Keep the rows of NodeColumns in SPI_tuptable as the template's next new nodes */
static void
keep_node_rows(CapacityPlan *p, PlanTemplate *t, List *names)
{
	TupleDesc	desc;
	uint64		n;
	HeapTuple  *rows = SimulateKeepRows(&n, &desc, p->cxt);
	int			m = list_length(names);

	if ((int) n != m)
		elog(ERROR, "template %s: %d new nodes made, %d read back", t->name, m, (int) n);
	if (t->nrows + m > t->rows_cap)
	{
		MemoryContext old = MemoryContextSwitchTo(p->cxt);

		t->rows_cap = Max(t->nrows + m, 2 * t->rows_cap);
		t->rows = t->rows ? repalloc(t->rows, sizeof(HeapTuple) * t->rows_cap) : palloc(sizeof(HeapTuple) * t->rows_cap);
		t->descs = t->descs ? repalloc(t->descs, sizeof(TupleDesc) * t->rows_cap) : palloc(sizeof(TupleDesc) * t->rows_cap);
		t->node_names = t->node_names ? repalloc(t->node_names, sizeof(char *) * t->rows_cap) :
			palloc(sizeof(char *) * t->rows_cap);
		t->node_uids = t->node_uids ? repalloc(t->node_uids, sizeof(char *) * t->rows_cap) :
			palloc(sizeof(char *) * t->rows_cap);
		MemoryContextSwitchTo(old);
	}
	/* in the order the names were given (the batch reads back in its own order) */
	for (int j = 0; j < m; j++)
	{
		const char *want = list_nth(names, j);
		int			r;

		for (r = 0; r < m; r++)
		{
			char	   *name = rows[r] ? SPI_getvalue(rows[r], desc, NODE_ATT(name)) : NULL;

			if (name && strcmp(name, want) == 0)
				break;
		}
		if (r == m)
			elog(ERROR, "template %s: new node %s not read back", t->name, want);
		t->rows[t->nrows + j] = rows[r];
		t->descs[t->nrows + j] = desc;
		t->node_names[t->nrows + j] = MemoryContextStrdup(p->cxt, want);
		t->node_uids[t->nrows + j] = MemoryContextStrdup(p->cxt, SPI_getvalue(rows[r], desc, NODE_ATT(uid)));
		rows[r] = NULL;
	}
	t->nrows += m;
}

/*
 * At least need new nodes of the template made: each the template as a
 * Node object named "<template>-<k>" (a name the view does not know), with
 * a fresh uid and its kubernetes.io/hostname label, read back as apply()
 * would write it (never written).  Made a few at a time, more each time.
 */
static void
make_rows(CapacityPlan *p, PlanTemplate *t, int need)
{
	MemoryContext tmp;
	MemoryContext old;
	MirrorBatch *batch;
	List	   *names = NIL;
	List	   *gone;
	int			m;

	if (t->nrows >= need)
		return;
	m = Min(Max(need - t->nrows, Max(t->nrows, 8)), PLAN_MAX_NODES - t->nrows);
	tmp = AllocSetContextCreate(CurrentMemoryContext, "plan_capacity new nodes", ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(tmp);
	while (list_length(names) < m)
	{
		char	   *name = psprintf("%s-%d", t->name, t->next_k++);

		if (!name_taken(p->snap, name))
			names = lappend(names, name);
	}
	if (SPI_execute_with_args("SELECT $1 || pg_catalog.jsonb_build_object('metadata', ($1 -> 'metadata')"
							  " || pg_catalog.jsonb_build_object('name', u.n, 'uid', pg_catalog.gen_random_uuid()::text,"
							  "  'labels', CASE WHEN pg_catalog.jsonb_typeof($1 -> 'metadata' -> 'labels') = 'object'"
							  "    THEN $1 -> 'metadata' -> 'labels' ELSE '{}'::jsonb END"
							  "    || pg_catalog.jsonb_build_object('kubernetes.io/hostname', u.n)))"
							  " FROM pg_catalog.unnest($2::text[]) WITH ORDINALITY AS u(n, i) ORDER BY u.i",
							  2, (Oid[]) {JSONBOID, TEXTARRAYOID},
							  (Datum[]) {JsonbPGetDatum(t->object), TextArrayFromList(names)},
							  NULL, true, 0) != SPI_OK_SELECT || (int) SPI_processed != m)
		elog(ERROR, "could not make the new nodes of template %s", t->name);
	batch = MirrorBatchBegin();
	{
		SPITupleTable *tt = SPI_tuptable;
		uint64		n = SPI_processed;

		for (uint64 i = 0; i < n; i++)
		{
			bool		isnull;

			(void) MirrorApplyWhatIf(DatumGetJsonbP(SPI_getbinval(tt->vals[i], tt->tupdesc, 1, &isnull)), batch);
		}
		SPI_freetuptable(tt);
	}
	MirrorBatchRead(batch, MIRROR_NODES, NodeColumns, "", &gone);
	keep_node_rows(p, t, names);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(tmp);
}

/* ------------------------------------------------------------------------
 * The pods
 * ------------------------------------------------------------------------
 */

/* The pods argument, element by element */
typedef struct PodArgs
{
	int			n;
	Keyed	   *keys;			/* each element's "namespace/name" */
	List	   *named_ns;		/* the strings': namespace, name, index */
	List	   *named_names;
	List	   *named_at;
	int			nobjects;		/* the Pod objects, gathered into batch */
	MirrorBatch *batch;
	Keyed	   *uids;			/* the Pod objects' metadata.uid, when given */
	int			nuids;
} PodArgs;

/* One element: "namespace/name" of a pending pod, or a Pod object (a hypothetical pending pod) */
static void
read_pod_arg(PodArgs *a, int i, JsonbValue *e)
{
	char	   *what = psprintf("pods[%d]", i);
	JsonbContainer *obj;
	JsonbContainer *meta;
	char	   *kind;
	char	   *ns;
	char	   *name;
	char	   *uid;
	WhatIf		w;
	ErrorData  *edata;

	a->keys[i].index = i;
	if (e->type == jbvString)
	{
		char	   *s = pnstrdup(e->val.string.val, e->val.string.len);
		char	   *slash = strchr(s, '/');

		if (slash == NULL || slash == s || slash[1] == '\0' || strchr(slash + 1, '/') != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: \"%s\": must be \"namespace/name\"", what, JShort(s))));
		a->keys[i].key = pstrdup(s);
		*slash = '\0';
		a->named_ns = lappend(a->named_ns, s);
		a->named_names = lappend(a->named_names, slash + 1);
		a->named_at = lappend_int(a->named_at, i);
		return;
	}
	if (e->type != jbvBinary || !JsonContainerIsObject(e->val.binary.data))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: must be a \"namespace/name\" string or a Pod object, got %s", what, JTypeName(e))));
	obj = e->val.binary.data;
	kind = JGetString(obj, "kind", what, NULL);
	if (kind == NULL || strcmp(kind, "Pod") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 kind ? errmsg("%s: kind: must be \"Pod\", got \"%s\"", what, JShort(kind)) :
				 errmsg("%s: kind: required value (a Pod object, as apply() takes it)", what)));
	/* as apply() takes it: the same checks, the same messages */
	w.doc = JsonbValueToJsonb(e);
	w.batch = a->batch;
	edata = RunInSubxact(gather, &w);
	if (edata)
		rethrow_at(edata, what);
	meta = JGetObject(obj, "metadata", what, NULL);
	ns = JGetString(meta, "namespace", what, "metadata");
	name = JGetString(meta, "name", what, "metadata");
	uid = JGetString(meta, "uid", what, "metadata");
	a->keys[i].key = psprintf("%s/%s", ns && ns[0] ? ns : "default", name ? name : "");
	if (uid && uid[0])
	{
		a->uids[a->nuids].key = uid;
		a->uids[a->nuids++].index = i;
	}
	a->nobjects++;
}

/* An int4[] of a List of ints (for SPI arguments) */
static Datum
int_array(List *ints)
{
	Datum	   *d = palloc(sizeof(Datum) * Max(list_length(ints), 1));
	ListCell   *lc;
	int			k = 0;

	foreach(lc, ints)
		d[k++] = Int32GetDatum(lfirst_int(lc));
	return PointerGetDatum(construct_array(d, k, INT4OID, sizeof(int32), true, TYPALIGN_INT));
}

/* A pod the caller chose that a plan cannot take: the error naming it */
static void
refuse_pod(int i, const char *ns, const char *name, int code, const char *why)
{
	ereport(ERROR,
			(errcode(code),
			 errmsg("pods[%d]: pod %s/%s %s", i, JShort(ns), JShort(name), why)));
}

/* A pod's row decoded into out[*nout], with the time it was queued (column at) */
static void
keep_pod(SimPod *out, int *nout, HeapTuple row, TupleDesc desc, int at, MemoryContext cxt)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	bool		isnull;

	PodInfoFromTuple(&out[*nout].pod, row, desc);
	out[*nout].queued = DatumGetTimestampTz(SPI_getbinval(row, desc, at, &isnull));
	(*nout)++;
	MemoryContextSwitchTo(old);
}

/*
 * The pods named by "namespace/name": each must be a pending pod of the
 * scheduler; read as the queue holds it (with its time queued)
 */
static void
read_named_pods(PodArgs *a, SimPod *out, int *nout, MemoryContext cxt)
{
	HeapTuple  *rows;
	TupleDesc	desc;
	uint64		n;
	int			at = POD_NCOLUMNS;

	if (a->named_at == NIL)
		return;
	if (SPI_execute_with_args(psprintf("SELECT %s, COALESCE(q.enqueued_at, pg_catalog.now()), n.i, p.uid IS NOT NULL,"
									   " p.pending, p.scheduler_name, COALESCE(p.node_name, p.assumed_node), n.ns, n.name"
									   " FROM ROWS FROM (pg_catalog.unnest($1), pg_catalog.unnest($2), pg_catalog.unnest($3))"
									   "  AS n(ns, name, i)"
									   " LEFT JOIN scheduler.pods p ON p.namespace = n.ns AND p.name = n.name"
									   " LEFT JOIN scheduler.queue q ON q.pod_uid = p.uid ORDER BY n.i",
									   PodInfoColumnsQualified),
							  3, (Oid[]) {TEXTARRAYOID, TEXTARRAYOID, INT4ARRAYOID},
							  (Datum[]) {TextArrayFromList(a->named_ns), TextArrayFromList(a->named_names),
								  int_array(a->named_at)},
							  NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read the pods named");
	rows = SimulateKeepRows(&n, &desc, cxt);
	for (uint64 r = 0; r < n; r++)
	{
		bool		isnull;
		int			i = DatumGetInt32(SPI_getbinval(rows[r], desc, at + 2, &isnull));
		char	   *ns = SPI_getvalue(rows[r], desc, at + 7);
		char	   *name = SPI_getvalue(rows[r], desc, at + 8);
		char	   *sched = SPI_getvalue(rows[r], desc, at + 5);
		char	   *node = SPI_getvalue(rows[r], desc, at + 6);

		if (!DatumGetBool(SPI_getbinval(rows[r], desc, at + 3, &isnull)))
			refuse_pod(i, ns, name, ERRCODE_UNDEFINED_OBJECT, "does not exist");
		if (!DatumGetBool(SPI_getbinval(rows[r], desc, at + 4, &isnull)))
			refuse_pod(i, ns, name, ERRCODE_INVALID_PARAMETER_VALUE,
					   node ? psprintf("is not pending: it is on node %s", JShort(node)) :
					   "is not pending: it is being deleted or has terminated");
		if (sched == NULL || strcmp(sched, scheduler_scheduler_name) != 0)
			refuse_pod(i, ns, name, ERRCODE_INVALID_PARAMETER_VALUE,
					   psprintf("is for schedulerName \"%s\", not \"%s\" (scheduler.scheduler_name), whose profile plans",
								JShort(sched ? sched : ""), JShort(scheduler_scheduler_name)));
		keep_pod(out, nout, rows[r], desc, at + 1, cxt);
	}
}

/*
 * The Pod objects gathered: each must be pending, of the scheduler, and no
 * pod the cluster runs (its uid); queued now
 */
static void
read_pod_objects(PodArgs *a, SimPod *out, int *nout, MemoryContext cxt)
{
	HeapTuple  *rows;
	TupleDesc	desc;
	uint64		n;
	List	   *gone;
	int			at = POD_NCOLUMNS;

	if (a->nobjects == 0)
		return;
	MirrorBatchRead(a->batch, MIRROR_PODS,
					psprintf("%s, pg_catalog.now(), p.pending, p.scheduler_name, p.namespace, p.name,"
							 " (SELECT COALESCE(o.node_name, o.assumed_node) FROM scheduler.pods o WHERE o.uid = p.uid"
							 "  AND COALESCE(o.node_name, o.assumed_node) IS NOT NULL AND NOT o.terminal), p.uid",
							 PodInfoColumnsQualified),
					"LEFT JOIN (SELECT NULL::text AS nominated_node) q ON true", &gone);
	rows = SimulateKeepRows(&n, &desc, cxt);
	if ((int) n != a->nobjects)
		elog(ERROR, "%d Pod objects given, %d read back", a->nobjects, (int) n);
	for (uint64 r = 0; r < n; r++)
	{
		bool		isnull;
		char	   *ns = SPI_getvalue(rows[r], desc, at + 4);
		char	   *name = SPI_getvalue(rows[r], desc, at + 5);
		char	   *sched = SPI_getvalue(rows[r], desc, at + 3);
		char	   *node = SPI_getvalue(rows[r], desc, at + 6);
		Keyed		want = {psprintf("%s/%s", ns ? ns : "", name ? name : ""), -1};
		Keyed	   *k = bsearch(&want, a->keys, a->n, sizeof(Keyed), cmp_key);
		int			i;

		if (k == NULL)
			elog(ERROR, "pod %s/%s read back, not given", ns, name);
		i = k->index;
		if (!DatumGetBool(SPI_getbinval(rows[r], desc, at + 2, &isnull)))
			refuse_pod(i, ns, name, ERRCODE_INVALID_PARAMETER_VALUE,
					   "is not pending: a pod to plan for has no spec.nodeName, no deletionTimestamp and no terminal phase");
		if (sched == NULL || strcmp(sched, scheduler_scheduler_name) != 0)
			refuse_pod(i, ns, name, ERRCODE_INVALID_PARAMETER_VALUE,
					   psprintf("is for schedulerName \"%s\", not \"%s\" (scheduler.scheduler_name), whose profile plans",
								JShort(sched ? sched : ""), JShort(scheduler_scheduler_name)));
		if (node)
			refuse_pod(i, ns, name, ERRCODE_INVALID_PARAMETER_VALUE,
					   psprintf("has the metadata.uid \"%s\" of a pod on node %s: give a pending pod a uid of its own",
								JShort(SPI_getvalue(rows[r], desc, at + 7)), JShort(node)));
		keep_pod(out, nout, rows[r], desc, at + 1, cxt);
	}
}

/*
 * The pods to plan for, in QueueSort order: every pending pod of the
 * scheduler that is not gated (NULL, as simulate() tries them), or those
 * given (a JSON array of "namespace/name" strings and Pod objects)
 */
static void
read_pods(CapacityPlan *p, Jsonb *pods)
{
	SimPod	   *sp;
	int			n = 0;
	PodArgs		a;
	int			first;
	int			dup;
	const char *key;

	if (pods == NULL)
		sp = SimulateQueuedPods(scheduler_scheduler_name, TextArrayFromList(NIL), TextArrayFromList(NIL), p->cxt, &n);
	else
	{
		if (!JB_ROOT_IS_ARRAY(pods) || JB_ROOT_IS_SCALAR(pods))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("pods must be a JSON array of \"namespace/name\" strings and Pod objects, got %s",
							JB_ROOT_IS_OBJECT(pods) ? "an object" : "a scalar")));
		memset(&a, 0, sizeof(a));
		a.n = (int) JB_ROOT_COUNT(pods);
		a.keys = palloc0(sizeof(Keyed) * Max(a.n, 1));
		a.uids = palloc0(sizeof(Keyed) * Max(a.n, 1));
		a.batch = MirrorBatchBegin();
		for (int i = 0; i < a.n; i++)
			read_pod_arg(&a, i, getIthJsonbValueFromContainer(&pods->root, i));
		if (find_duplicate(a.uids, a.nuids, &first, &dup, &key))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("pods[%d]: metadata.uid: duplicate value \"%s\" (pods[%d] has it)", dup, JShort(key), first)));
		if (find_duplicate(a.keys, a.n, &first, &dup, &key))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("pods[%d]: pod %s is given twice (pods[%d] is it too)", dup, JShort(key), first)));
		sp = MemoryContextAllocZero(p->cxt, sizeof(SimPod) * Max(a.n, 1));
		read_named_pods(&a, sp, &n, p->cxt);
		read_pod_objects(&a, sp, &n, p->cxt);
	}
	SimulateSortPods(sp, n);
	p->npods = n;
	p->pods = MemoryContextAllocZero(p->cxt, sizeof(PlanPod) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		p->pods[i].sp = sp[i];
		p->pods[i].template = -1;
		p->pods[i].reasons = MemoryContextAllocZero(p->cxt, sizeof(char *) * Max(p->ntemplates, 1));
	}
}

/* ------------------------------------------------------------------------
 * The plan
 * ------------------------------------------------------------------------
 */

/* The scheduler's profile without the plugins that only PostFilter: nothing is preempted */
static Profile *
plan_profile(const char *scheduler_name)
{
	Profile    *prof = ProfileLoad(scheduler_name);
	Profile    *copy = palloc(sizeof(Profile));

	*copy = *prof;
	copy->plugins = palloc(sizeof(ProfilePlugin) * Max(prof->nplugins, 1));
	copy->nplugins = 0;
	for (int i = 0; i < prof->nplugins; i++)
	{
		const Plugin *pl = prof->plugins[i].plugin;

		if (pl->postfilter && !pl->prefilter && !pl->filter && !pl->prescore && !pl->score && !pl->reserve)
			continue;
		copy->plugins[copy->nplugins++] = prof->plugins[i];
	}
	return copy;
}

/* The view made again: the snapshot afresh, the new nodes, the pods placed so far */
static void
make_view(CapacityPlan *p)
{
	ListCell   *lc;

	p->snap = SnapshotGet();
	for (int t = 0; t < p->ntemplates; t++)
		for (int k = 0; k < p->templates[t].nnodes; k++)
			SnapshotOverlayNodes(p->snap, &p->templates[t].rows[k], p->templates[t].descs[k], 1);
	foreach(lc, p->placed)
	{
		PlanPod    *pp = &p->pods[lfirst_int(lc)];
		NodeInfo   *node = pp->node && !pp->failed ? SnapshotNode(p->snap, pp->node) : NULL;

		if (node)
			SnapshotAssume(p->snap, &pp->sp.pod, node);
	}
}

/* What a pod's try is given, for RunInSubxact */
typedef struct PlanTry
{
	CapacityPlan *p;
	int			i;				/* the pod */
	int			t;				/* the template, -1: the cluster as it is */
} PlanTry;

/* The pod placed on node (of template t, or none: -1) */
static void
place(CapacityPlan *p, int i, int t, NodeInfo *node)
{
	PlanPod    *pp = &p->pods[i];
	MemoryContext old;

	SnapshotAssume(p->snap, &pp->sp.pod, node);
	old = MemoryContextSwitchTo(p->cxt);
	pp->node = pstrdup(node->name);
	pp->template = t;
	p->placed = lappend_int(p->placed, i);
	MemoryContextSwitchTo(old);
}

/* On the cluster as it is: a whole cycle, as simulate() runs it (without preemption) */
static void
try_cluster(void *arg)
{
	PlanTry    *c = arg;
	CapacityPlan *p = c->p;
	PlanPod    *pp = &p->pods[c->i];
	CycleResult res;

	RunSchedulingCycle(p->snap, p->profile, &pp->sp.pod, &p->next_start, &res);
	if (res.chosen)
		(void) RunReservePlugins(&pp->sp.pod, &res);
	if (res.chosen)
	{
		place(p, c->i, -1, res.chosen);
		pp->message = MemoryContextStrdup(p->cxt, psprintf("Successfully assigned %s/%s to %s", pp->sp.pod.namespace,
														   pp->sp.pod.name, res.chosen->name));
		return;
	}
	pp->message = MemoryContextStrdup(p->cxt, FitErrorMessage(&res));
	/* a plugin's error (or a row that cannot be read) fails the pod alone, as in schedule_pending() */
	pp->failed = res.error != NULL || (res.prefilter_plugin >= 0 && res.prefilter_status.code == CODE_ERROR);
	/* only a plugin that reads other pods may pass it once more pods are placed */
	pp->waits = res.prefilter_plugin >= 0 && p->profile->plugins[res.prefilter_plugin].plugin->reads_pods;
	for (int v = 0; v < res.nverdicts && !pp->waits; v++)
		pp->waits = res.verdicts[v].rejected_by >= 0 &&
			p->profile->plugins[res.verdicts[v].rejected_by].plugin->reads_pods;
}

/* A cycle's result, ready for PreFilter on the view */
static void
cycle_init(CapacityPlan *p, CycleResult *res)
{
	memset(res, 0, sizeof(*res));
	res->ctx = NewCycleCtx(p->snap, p->profile);
	res->nnodes = p->snap->nnodes;
	res->snap = p->snap;
	res->profile = p->profile;
	res->best_score = -1;
	res->prefilter_plugin = -1;
}

/*
 * The first of the template's new nodes (in the order they were made) that
 * passes the pod: PreFilter on the whole view, then each node's Filters
 * (kept per equivalence class while the node is unchanged, as a cycle keeps
 * them).  NULL when none.
 */
static NodeInfo *
fit_new_nodes(CapacityPlan *p, PlanTemplate *t, const PodInfo *pod, CycleResult *res)
{
	List	   *names;
	bool		restricted;
	CycleCtx   *ctx;

	if (t->nnodes == 0)
		return NULL;
	cycle_init(p, res);
	ctx = res->ctx;
	if (!RunPreFilters(ctx, pod, res, &names, &restricted))
		return NULL;
	ctx->equiv = EquivClassFor(ctx, pod, NULL);
	for (int k = 0; k < t->nnodes; k++)
	{
		NodeInfo   *node = SnapshotNode(p->snap, t->node_names[k]);
		Status		st = {CODE_SUCCESS, NIL};
		int			rejected;

		if (node == NULL || (restricted && !NameListed(names, node->name)))
			continue;
		rejected = FilterNode(ctx, pod, node, &st);
		if (rejected < 0)
		{
			res->chosen = node;
			return node;
		}
	}
	return NULL;
}

/*
 * The pod's class (equivalence.c's signature) when its verdict on a fresh
 * node depends on nothing but itself and the node: every plugin that reads
 * other pods skipped it in PreFilter on the view, every plugin that filters
 * signs what it reads, and it has no volumes (signed by uid) and no
 * nomination; else NULL
 */
static char *
pod_local_class(CapacityPlan *p, const PodInfo *pod)
{
	CycleResult res;
	List	   *names;
	bool		restricted;
	PodKey		key;

	if (pod->nominated_node)
		return NULL;
	cycle_init(p, &res);
	if (!RunPreFilters(res.ctx, pod, &res, &names, &restricted) || !PreFilterIsPodLocal(res.ctx))
		return NULL;
	PodKeyInit(&key);
	PodKeyAdd(&key, POD_FIELD(priority));
	for (int i = 0; i < p->profile->nplugins; i++)
	{
		const Plugin *pl = p->profile->plugins[i].plugin;

		if (pl->sign)
			pl->sign(pod, &key);
		else if (pl->prefilter || pl->filter)
			return NULL;
	}
	if (key.fields & POD_FIELD(uid))
		return NULL;
	return PodKeyText(&key, pod);
}

/* Why the fresh node rows[k] of the template did not pass the class, or NULL */
static char *
kept_off(PlanTemplate *t, int k, const char *key)
{
	ListCell   *lc;

	foreach(lc, t->kept_off)
	{
		KeptOff    *o = lfirst(lc);

		if (o->k == k && strcmp(o->key, key) == 0)
			return o->reason;
	}
	return NULL;
}

/*
 * A fresh node of the template added to the view, and the pod tried on it
 * (PreFilter on the whole view, then its Filters): the node when it passes;
 * else it is taken out again, and NULL, with the reason in *reason and
 * whether the plugin that rejected it reads other pods in *waits.
 */
static NodeInfo *
fit_fresh_node(CapacityPlan *p, PlanTemplate *t, const PodInfo *pod, CycleResult *res, char **reason, bool *waits)
{
	int			k = t->nnodes;
	NodeInfo   *node;
	List	   *names;
	bool		restricted;
	Status		st = {CODE_SUCCESS, NIL};
	int			rejected = -1;
	char	   *class;

	*waits = false;

	if (k >= PLAN_MAX_NODES)
	{
		*reason = psprintf("the plan's limit of %d new nodes of a template reached", PLAN_MAX_NODES);
		return NULL;
	}
	if ((class = pod_local_class(p, pod)) != NULL && (*reason = kept_off(t, k, class)) != NULL)
		return NULL;
	make_rows(p, t, k + 1);
	SnapshotOverlayNodes(p->snap, &t->rows[k], t->descs[k], 1);
	node = SnapshotNode(p->snap, t->node_names[k]);
	if (node == NULL)
		elog(ERROR, "new node %s is not in the view", t->node_names[k]);
	cycle_init(p, res);
	if (!RunPreFilters(res->ctx, pod, res, &names, &restricted))
	{
		*reason = StatusMessage(&res->prefilter_status);
		rejected = res->prefilter_plugin;
	}
	else if (restricted && !NameListed(names, node->name))
		*reason = psprintf("node(s) didn't satisfy plugin(s) %s", AbsentPluginsText(res));
	else if ((rejected = RunFilters(res->ctx, pod, node, &st)) >= 0)
		*reason = StatusMessage(&st);
	else
	{
		res->chosen = node;
		return node;
	}
	*waits = rejected >= 0 && p->profile->plugins[rejected].plugin->reads_pods;
	SnapshotOverlayRemoveNode(p->snap, t->node_uids[k], t->node_names[k]);
	if (class)
	{
		MemoryContext old = MemoryContextSwitchTo(p->cxt);
		KeptOff    *o = palloc(sizeof(KeptOff));

		o->key = pstrdup(class);
		o->k = k;
		o->reason = pstrdup(*reason);
		/* those of an earlier fresh node are of no more use */
		if (t->kept_off != NIL && ((KeptOff *) linitial(t->kept_off))->k != k)
			t->kept_off = NIL;
		t->kept_off = lappend(t->kept_off, o);
		MemoryContextSwitchTo(old);
	}
	return NULL;
}

/* On the template's new nodes, else on a fresh one; else the reason kept */
static void
try_template(void *arg)
{
	PlanTry    *c = arg;
	CapacityPlan *p = c->p;
	PlanPod    *pp = &p->pods[c->i];
	PlanTemplate *t = &p->templates[c->t];
	CycleResult res;
	char	   *reason = NULL;
	bool		fresh = false;
	NodeInfo   *node = fit_new_nodes(p, t, &pp->sp.pod, &res);

	if (node == NULL)
		fresh = (node = fit_fresh_node(p, t, &pp->sp.pod, &res, &reason, &pp->waits)) != NULL;
	if (node && !RunReservePlugins(&pp->sp.pod, &res))
	{
		reason = res.error;
		if (fresh)
			SnapshotOverlayRemoveNode(p->snap, t->node_uids[t->nnodes], t->node_names[t->nnodes]);
		node = NULL;
	}
	if (node == NULL)
	{
		pp->reasons[c->t] = MemoryContextStrdup(p->cxt, reason ? reason : "no new node passes the pod");
		return;
	}
	place(p, c->i, c->t, node);
	if (fresh)
		t->nnodes++;
	t->pods++;
}

/* One pod's try, in a subtransaction: an error fails the pod alone, and the view is made again */
static void
try_pod(CapacityPlan *p, int i, int t, MemoryContext cycle_cxt)
{
	PlanTry		c = {p, i, t};
	PlanPod    *pp = &p->pods[i];
	ErrorData  *edata;
	MemoryContext old;

	CHECK_FOR_INTERRUPTS();
	MemoryContextReset(cycle_cxt);
	old = MemoryContextSwitchTo(cycle_cxt);
	edata = RunInSubxact(t < 0 ? try_cluster : try_template, &c);
	MemoryContextSwitchTo(old);
	if (edata == NULL)
		return;
	if (ErrorEndsTheCall(edata))
		ReThrowError(edata);	/* a cancel, a timeout, out of memory: no pod's own */
	/* as schedule_pending() reports it */
	pp->failed = true;
	pp->node = NULL;
	pp->template = -1;
	pp->message = MemoryContextStrdup(p->cxt, psprintf("running scheduling cycle: %s",
													   JCut(edata->message, strlen(edata->message), 500)));
	make_view(p);
}

/* First-Fit Decreasing: the larger score first, then QueueSort order */
static int
cmp_ffd(const void *a, const void *b, void *arg)
{
	const CapacityPlan *p = arg;
	int			x = *(const int *) a;
	int			y = *(const int *) b;
	double		sx = p->pods[x].score;
	double		sy = p->pods[y].score;

	if (sx != sy)
		return sx > sy ? -1 : 1;
	return (x > y) - (x < y);
}

/*
 * The pods no node holds yet, packed onto new nodes of template t, largest
 * first, as the autoscaler's DecreasingPodOrderer scores them: the pod's
 * cpu over the template's allocatable cpu, plus its memory over the
 * template's memory (here the pod's effective request).  A pod that a
 * plugin reading other pods kept off a fresh node (its affinity waits for
 * a pod packed after it) is tried again after the others.
 */
static void
pack_template(CapacityPlan *p, int t, MemoryContext cycle_cxt)
{
	PlanTemplate *tp = &p->templates[t];
	int		   *order = palloc(sizeof(int) * Max(p->npods, 1));
	int			n = 0;

	for (int i = 0; i < p->npods; i++)
	{
		PlanPod    *pp = &p->pods[i];

		if (pp->node || pp->failed)
			continue;
		pp->score = 0;
		if (tp->cpu > 0)
			pp->score += (double) pp->sp.pod.requests.cpu / tp->cpu;
		if (tp->memory > 0)
			pp->score += (double) pp->sp.pod.requests.memory / tp->memory;
		order[n++] = i;
	}
	qsort_arg(order, n, sizeof(int), cmp_ffd, p);
	/* again, while a pass places some, for those a plugin reading other pods rejected */
	for (int pass = 0, placed = -1; tp->pods > placed; pass++)
	{
		placed = tp->pods;
		for (int j = 0; j < n; j++)
		{
			PlanPod    *pp = &p->pods[order[j]];

			if (pp->node == NULL && !pp->failed && (pass == 0 || pp->waits))
				try_pod(p, order[j], t, cycle_cxt);
		}
	}
	pfree(order);
}

/*
 * Why no template holds the pod: each template's reason, from trying the
 * pod on a fresh node of it, in the order given
 */
static char *
unplaced_message(CapacityPlan *p, PlanPod *pp)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfo(&buf, "0/%d templates can hold the pod", p->ntemplates);
	for (int t = 0; t < p->ntemplates; t++)
		appendStringInfo(&buf, "%s %s: %s", t == 0 ? ":" : ";", p->templates[t].name,
						 pp->reasons[t] ? pp->reasons[t] : "not tried");
	appendStringInfoChar(&buf, '.');
	return buf.data;
}

/*
 * Every pod on the cluster as it is, then the rest template by template.
 * The cluster is tried again, while a pass places some, for the pods it did
 * not hold that a plugin reading other pods rejected (inter-pod affinity,
 * topology spread): the pods placed since may let them on, as the queue
 * tries such a pod again when a pod is assigned.
 */
static void
run_plan(CapacityPlan *p)
{
	MemoryContext cycle_cxt = AllocSetContextCreate(p->cxt, "planned cycle", ALLOCSET_DEFAULT_SIZES);
	int			placed = -1;

	for (int pass = 0; list_length(p->placed) > placed; pass++)
	{
		placed = list_length(p->placed);
		for (int i = 0; i < p->npods; i++)
			if (p->pods[i].node == NULL && !p->pods[i].failed && (pass == 0 || p->pods[i].waits))
				try_pod(p, i, -1, cycle_cxt);
	}
	for (int t = 0; t < p->ntemplates; t++)
		pack_template(p, t, cycle_cxt);
	for (int i = 0; i < p->npods; i++)
		if (p->pods[i].node == NULL && !p->pods[i].failed)
			p->pods[i].message = unplaced_message(p, &p->pods[i]);
	MemoryContextDelete(cycle_cxt);
}

/* The plan of one call: read, validated, made on the private view, then the view discarded */
static void
plan(FunctionCallInfo fcinfo, CapacityPlan *p)
{
	Jsonb	   *templates = PG_ARGISNULL(0) ? NULL : PG_GETARG_JSONB_P(0);
	Jsonb	   *pods = PG_ARGISNULL(1) ? NULL : PG_GETARG_JSONB_P(1);

	memset(p, 0, sizeof(*p));
	p->cxt = CurrentMemoryContext;
	PG_TRY();
	{
		read_templates(p, templates);
		p->profile = plan_profile(scheduler_scheduler_name);
		read_pods(p, pods);
		p->snap = SnapshotGet();
		p->next_start = SimulateNextStart();
		run_plan(p);
	}
	PG_FINALLY();
	{
		/* whatever happened, the backend's next call reads the cluster afresh */
		SnapshotDiscard();
	}
	PG_END_TRY();
}

PG_FUNCTION_INFO_V1(scheduler_plan_capacity);
/*
 * scheduler.plan_capacity(templates jsonb, pods jsonb DEFAULT NULL)
 *		RETURNS TABLE (template text, nodes integer, pods integer)
 *
 * One row per template, in the order given: the new nodes of it the plan
 * uses and the pods it places on them; then one row whose template is NULL
 * (nodes 0): the pods the plan places nowhere.
 */
Datum
scheduler_plan_capacity(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	AsOwner		as;
	CapacityPlan p;
	int			nowhere = 0;

	AsOwnerBegin(&as, ROLE_READER, "plan capacity");
	InitMaterializedSRF(fcinfo, 0);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	plan(fcinfo, &p);
	for (int t = 0; t < p.ntemplates; t++)
	{
		Datum		v[3] = {CStringGetTextDatum(p.templates[t].name), Int32GetDatum(p.templates[t].nnodes),
		Int32GetDatum(p.templates[t].pods)};
		bool		nulls[3] = {false, false, false};

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, nulls);
	}
	for (int i = 0; i < p.npods; i++)
		nowhere += p.pods[i].node == NULL;
	{
		Datum		v[3] = {(Datum) 0, Int32GetDatum(0), Int32GetDatum(nowhere)};
		bool		nulls[3] = {true, false, false};

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, nulls);
	}
	SPI_finish();
	AsOwnerEnd(&as);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(scheduler_plan_capacity_pods);
/*
 * scheduler.plan_capacity_pods(templates jsonb, pods jsonb DEFAULT NULL)
 *		RETURNS TABLE (namespace text, name text, template text, node text, message text)
 *
 * The same plan pod by pod, in QueueSort order: the template and the new
 * node each pod goes to; for a pod the cluster holds as it is, no template
 * and its node; for a pod the plan places nowhere, neither, and why.
 */
Datum
scheduler_plan_capacity_pods(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	AsOwner		as;
	CapacityPlan p;

	AsOwnerBegin(&as, ROLE_READER, "plan capacity");
	InitMaterializedSRF(fcinfo, 0);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	plan(fcinfo, &p);
	for (int i = 0; i < p.npods; i++)
	{
		PlanPod    *pp = &p.pods[i];
		Datum		v[5];
		bool		nulls[5] = {false, false, pp->template < 0, pp->node == NULL, pp->message == NULL};

		v[0] = CStringGetTextDatum(pp->sp.pod.namespace ? pp->sp.pod.namespace : "");
		v[1] = CStringGetTextDatum(pp->sp.pod.name ? pp->sp.pod.name : "");
		v[2] = pp->template >= 0 ? CStringGetTextDatum(p.templates[pp->template].name) : (Datum) 0;
		v[3] = pp->node ? CStringGetTextDatum(pp->node) : (Datum) 0;
		v[4] = pp->message ? CStringGetTextDatum(pp->message) : (Datum) 0;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, nulls);
	}
	SPI_finish();
	AsOwnerEnd(&as);
	return (Datum) 0;
}
