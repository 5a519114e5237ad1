/*
 * simulate.c
 *	  What-ifs: whole scheduling cycles on a private view of the cluster,
 *	  changed by hypothetical objects, writing nothing and locking nothing
 *	  (scheduler.simulate()).
 *
 * The view is the backend's own snapshot (snapshot.c), refreshed as any
 * call refreshes it, then changed in memory: the hypothetical nodes and
 * pods are applied as apply() would apply them (validated, in order, the
 * last event of an object winning: mirror.c's what-if batch), but read back
 * instead of written.  Every pending pod of the profile's schedulerName
 * that is not gated, and every hypothetical pending pod, is tried once, in
 * QueueSort order (priority, then the time it was queued: a hypothetical
 * pod is queued now), through the real framework: each one placed counts
 * against its node for the pods after it (the assume cache), each one that
 * preempts is nominated there.  Nothing is written: no row of any table,
 * no outbox request, no lock but the reads'.  At the end the snapshot is
 * discarded, so that the backend's next call reads the cluster afresh;
 * other sessions' snapshots are their own and never see it.
 *
 * A cycle that throws fails its pod alone, as in schedule_pending(): the
 * view is then made again (the snapshot read afresh, the changes and the
 * decisions so far applied again) and the next pods tried on it.
 *
 * plan_capacity.c reads and orders the pods to try as simulate() does: the
 * queue's pods (SimulateQueuedPods), decoded with the time queued, in
 * QueueSort order (SimulateSortPods), the search starting where the next
 * call would start it (SimulateNextStart).
 *
 * IDENTIFICATION
 *	  src/simulate.c
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "access.h"
#include "codec.h"
#include "explain.h"
#include "framework.h"
#include "jsonutil.h"
#include "mirror.h"
#include "profile.h"
#include "schedule.h"
#include "scheduling_queue.h"
#include "simulate.h"
#include "snapshot.h"
#include "subxact.h"

/* What a cycle decided, replayed on a view made again */
typedef struct SimDecision
{
	int			pod;			/* index into Sim.pods */
	char	   *node;			/* placed there */
	char	   *nominated;		/* or nominated there */
} SimDecision;

typedef struct Sim
{
	MemoryContext cxt;			/* the call's */
	MirrorBatch *batch;			/* the hypothetical nodes and pods */
	ClusterSnapshot *snap;
	const Profile *profile;
	Jsonb	   *config;			/* a KubeSchedulerConfiguration among the changes */
	char	   *scheduler_name;
	bool		named;			/* changed_pods and changed_names are known */
	List	   *changed_pods;	/* the uids of the pods the changes name (char *) */
	List	   *changed_names;	/* and their "namespace/name" */
	int			npods;
	SimPod	   *pods;
	List	   *decisions;		/* SimDecision * */
	int			next_start;
} Sim;

/*
 * SimulateKeepRows
 *		Keep the SPI result's rows (copied into cxt) and free it.
 */
HeapTuple *
SimulateKeepRows(uint64 *n, TupleDesc *desc, MemoryContext cxt)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	HeapTuple  *rows = palloc(sizeof(HeapTuple) * Max(SPI_processed, 1));

	*n = SPI_processed;
	for (uint64 i = 0; i < SPI_processed; i++)
		rows[i] = heap_copytuple(SPI_tuptable->vals[i]);
	*desc = CreateTupleDescCopy(SPI_tuptable->tupdesc);
	MemoryContextSwitchTo(old);
	SPI_freetuptable(SPI_tuptable);
	return rows;
}

/*
 * One change: a KubeSchedulerConfiguration, the profile to use instead (one
 * at most); anything else into the batch, as apply() would take it.
 */
static void
gather_one(Sim *s, Jsonb *doc)
{
	char	   *kind = JB_ROOT_IS_OBJECT(doc) ? JAtString(&doc->root, "kind") : NULL;
	char	   *api = JB_ROOT_IS_OBJECT(doc) ? JAtString(&doc->root, "apiVersion") : NULL;

	if (kind == NULL || strcmp(kind, "KubeSchedulerConfiguration") != 0)
	{
		(void) MirrorApplyWhatIf(doc, s->batch);
		return;
	}
	if (api == NULL || strcmp(api, "kubescheduler.config.k8s.io/v1") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("KubeSchedulerConfiguration: apiVersion: Unsupported value: \"%s\": supported values: \"kubescheduler.config.k8s.io/v1\"",
						api ? JShort(api) : "")));
	if (s->config != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("changes: more than one KubeSchedulerConfiguration")));
	s->config = doc;
}

/*
 * The changes into the batch: a JSON array of objects and watch events, or
 * a List (or one object or event), each as apply() takes it.
 */
static void
gather_changes(Sim *s, Jsonb *changes)
{
	if (changes == NULL)
		return;
	if (JB_ROOT_IS_ARRAY(changes) && !JB_ROOT_IS_SCALAR(changes))
	{
		for (int i = 0; i < (int) JB_ROOT_COUNT(changes); i++)
		{
			JsonbValue *e = getIthJsonbValueFromContainer(&changes->root, i);

			if (e->type != jbvBinary || !JsonContainerIsObject(e->val.binary.data))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("changes[%d]: must be an object or a watch event", i)));
			gather_one(s, JsonbValueToJsonb(e));
		}
		return;
	}
	gather_one(s, changes);
}

/* A pod the changes name, by uid and by "namespace/name" (NULL: not known) */
static void
name_pod(Sim *s, const char *uid, const char *ns, const char *name)
{
	MemoryContext old = MemoryContextSwitchTo(s->cxt);

	s->changed_pods = lappend(s->changed_pods, pstrdup(uid));
	if (ns && name)
		s->changed_names = lappend(s->changed_names, psprintf("%s/%s", ns, name));
	MemoryContextSwitchTo(old);
}

/*
 * The changes onto the snapshot: nodes deleted, then added or changed; pods
 * deleted, then on their nodes (or on none any more).  An object the
 * changes delete is found by its uid, or, when the cluster has no such uid,
 * by its name.  The pods the changes name are remembered: their queued rows
 * give way to the changes'.
 */
static void
overlay(Sim *s)
{
	List	   *gone;
	ListCell   *lc;
	HeapTuple  *rows;
	TupleDesc	desc;
	uint64		n;

	MirrorBatchRead(s->batch, MIRROR_NODES, NodeColumns, "", &gone);
	rows = SimulateKeepRows(&n, &desc, CurrentMemoryContext);
	foreach(lc, gone)
	{
		MirrorDeletion *d = lfirst(lc);

		SnapshotOverlayRemoveNode(s->snap, d->uid, d->name);
	}
	SnapshotOverlayNodes(s->snap, rows, desc, n);

	MirrorBatchRead(s->batch, MIRROR_PODS, PodRefColumns, "", &gone);
	rows = SimulateKeepRows(&n, &desc, CurrentMemoryContext);
	foreach(lc, gone)
	{
		MirrorDeletion *d = lfirst(lc);

		SnapshotOverlayRemovePod(s->snap, d->uid, d->ns, d->name);
		if (!s->named)
			name_pod(s, d->uid, d->ns, d->name);
	}
	SnapshotOverlayPods(s->snap, rows, desc, n);
	for (uint64 i = 0; i < n && !s->named; i++)
		name_pod(s, SPI_getvalue(rows[i], desc, POD_REF_ATT(uid)), SPI_getvalue(rows[i], desc, POD_REF_ATT(namespace)),
				 SPI_getvalue(rows[i], desc, POD_REF_ATT(name)));
	s->named = true;
}

/*
 * SimulateQueuedPods
 *		The pods the queue holds for scheduler_name, but the gated ones and
 *		those whose uid is in except_uids or whose "namespace/name" is in
 *		except_names (text[] Datums), each decoded into cxt with the time it
 *		was queued.  The caller has SPI connected.
 */
SimPod *
SimulateQueuedPods(const char *scheduler_name, Datum except_uids, Datum except_names, MemoryContext cxt,
				   int *npods)
{
	HeapTuple  *rows;
	TupleDesc	desc;
	uint64		n;

	if (SPI_execute_with_args(psprintf("SELECT %s, q.enqueued_at FROM scheduler.queue q"
									   " JOIN scheduler.pods p ON p.uid = q.pod_uid"
									   " WHERE q.state <> 'gated' AND p.scheduler_name = $1"
									   " AND NOT (p.uid = ANY ($2)) AND NOT (p.namespace || '/' || p.name = ANY ($3))",
									   PodInfoColumnsQualified),
							  3, (Oid[]) {TEXTOID, TEXTARRAYOID, TEXTARRAYOID},
							  (Datum[]) {CStringGetTextDatum(scheduler_name), except_uids, except_names},
							  NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read the scheduling queue");
	rows = SimulateKeepRows(&n, &desc, cxt);
	*npods = (int) n;
	return SimulatePodsFromRows(rows, desc, n, cxt);
}

/*
 * SimulatePodsFromRows
 *		Rows of PodInfoColumnsQualified followed by the time queued (their
 *		last column), decoded into cxt.
 */
SimPod *
SimulatePodsFromRows(HeapTuple *rows, TupleDesc desc, uint64 n, MemoryContext cxt)
{
	SimPod	   *pods = MemoryContextAllocZero(cxt, sizeof(SimPod) * Max(n, 1));

	for (uint64 i = 0; i < n; i++)
	{
		bool		isnull;
		MemoryContext old = MemoryContextSwitchTo(cxt);

		PodInfoFromTuple(&pods[i].pod, rows[i], desc);
		pods[i].queued = DatumGetTimestampTz(SPI_getbinval(rows[i], desc, desc->natts, &isnull));
		MemoryContextSwitchTo(old);
	}
	return pods;
}

/* The pods to try: the queue's (but those the changes name) and the changes' pending ones */
static void
read_pods(Sim *s)
{
	SimPod	   *queued;
	SimPod	   *added;
	HeapTuple  *rows;
	TupleDesc	desc;
	int			nq;
	uint64		na;
	List	   *none;

	queued = SimulateQueuedPods(s->scheduler_name, TextArrayFromList(s->changed_pods),
								TextArrayFromList(s->changed_names), s->cxt, &nq);
	/*
	 * the changes' pending pods: one that replaces a queued pod (its uid, or
	 * its namespace and name) keeps that pod's place, as the queue updates a
	 * pod it holds; the others are queued now
	 */
	MirrorBatchRead(s->batch, MIRROR_PODS,
					psprintf("%s, coalesce((SELECT oq.enqueued_at FROM scheduler.queue oq WHERE oq.pod_uid = p.uid),"
							 " (SELECT oq.enqueued_at FROM scheduler.pods op JOIN scheduler.queue oq ON oq.pod_uid = op.uid"
							 "  WHERE op.namespace = p.namespace AND op.name = p.name), now())", PodInfoColumnsQualified),
					psprintf("LEFT JOIN (SELECT NULL::text AS nominated_node) q ON true"
							 " WHERE p.pending AND pg_catalog.cardinality(p.scheduling_gates) = 0"
							 " AND p.scheduler_name = %s", quote_literal_cstr(s->scheduler_name)),
					&none);
	rows = SimulateKeepRows(&na, &desc, s->cxt);
	added = SimulatePodsFromRows(rows, desc, na, s->cxt);

	s->npods = nq + (int) na;
	s->pods = MemoryContextAllocZero(s->cxt, sizeof(SimPod) * Max(s->npods, 1));
	memcpy(s->pods, queued, sizeof(SimPod) * nq);
	memcpy(s->pods + nq, added, sizeof(SimPod) * na);
}

/* QueueSort (SchedQueueSortCompare, the pop's order) */
static void
queue_key(const SimPod *p, SchedQueueSortKey *k)
{
	k->priority = p->pod.priority;
	k->queued = p->queued;
	k->namespace = p->pod.namespace ? p->pod.namespace : "";
	k->namespace_len = strlen(k->namespace);
	k->name = p->pod.name ? p->pod.name : "";
	k->name_len = strlen(k->name);
}

/* a pod's sort key, read once, and its place in the array */
typedef struct SimPodKey
{
	SchedQueueSortKey key;
	int			index;
} SimPodKey;

static int
cmp_queue(const void *a, const void *b)
{
	return SchedQueueSortCompare(&((const SimPodKey *) a)->key, &((const SimPodKey *) b)->key);
}

/*
 * SimulateSortPods
 *		In QueueSort order, the pop's (SchedQueueSortCompare): priority,
 *		then the time queued, then namespace and name, for a stable answer.
 *		Each pod's key is read once (its names' lengths), not at each
 *		comparison.
 */
void
SimulateSortPods(SimPod *pods, int n)
{
	SimPodKey  *keys;
	SimPod	   *sorted;

	if (n < 2)
		return;
	keys = palloc(sizeof(SimPodKey) * n);
	for (int i = 0; i < n; i++)
	{
		queue_key(&pods[i], &keys[i].key);
		keys[i].index = i;
	}
	qsort(keys, n, sizeof(SimPodKey), cmp_queue);
	sorted = palloc(sizeof(SimPod) * n);
	for (int i = 0; i < n; i++)
		sorted[i] = pods[keys[i].index];
	memcpy(pods, sorted, sizeof(SimPod) * n);
	pfree(sorted);
	pfree(keys);
}

/* The view made (again): the snapshot afresh, the changes, the decisions so far */
static void
make_view(Sim *s)
{
	ListCell   *lc;

	s->snap = SnapshotGet();
	overlay(s);
	foreach(lc, s->decisions)
	{
		SimDecision *d = lfirst(lc);
		NodeInfo   *node;

		if (d->node && (node = SnapshotNode(s->snap, d->node)) != NULL)
			SnapshotAssume(s->snap, &s->pods[d->pod].pod, node);
		else if (d->nominated)
			SnapshotNominate(s->snap, &s->pods[d->pod].pod, d->nominated);
	}
}

/* One pod's cycle, for RunInSubxact */
typedef struct SimCycle
{
	Sim		   *s;
	int			i;
	char	   *node;			/* out, in s->cxt */
	char	   *message;
} SimCycle;

static void
cycle(void *arg)
{
	SimCycle   *c = arg;
	Sim		   *s = c->s;
	SimPod	   *p = &s->pods[c->i];
	CycleResult res;
	SimDecision *d;
	MemoryContext old;

	RunSchedulingCycle(s->snap, s->profile, &p->pod, &s->next_start, &res);
	if (res.chosen)
		(void) RunReservePlugins(&p->pod, &res);
	old = MemoryContextSwitchTo(s->cxt);
	d = palloc0(sizeof(SimDecision));
	d->pod = c->i;
	if (res.chosen)
	{
		SnapshotAssume(s->snap, &p->pod, res.chosen);
		c->node = d->node = pstrdup(res.chosen->name);
		c->message = psprintf("Successfully assigned %s/%s to %s", p->pod.namespace, p->pod.name, c->node);
	}
	else
	{
		c->message = FitErrorMessage(&res);
		if (res.nominated)
		{
			SnapshotNominate(s->snap, &p->pod, res.nominated);
			d->nominated = pstrdup(res.nominated);
		}
	}
	if (d->node || d->nominated)
		s->decisions = lappend(s->decisions, d);
	MemoryContextSwitchTo(old);
}

static void
emit(ReturnSetInfo *rsinfo, const PodInfo *pod, const char *node, const char *message)
{
	Datum		v[5];
	bool		nulls[5] = {false, false, node == NULL, false, false};

	v[0] = CStringGetTextDatum(pod->namespace ? pod->namespace : "");
	v[1] = CStringGetTextDatum(pod->name ? pod->name : "");
	v[2] = node ? CStringGetTextDatum(node) : (Datum) 0;
	v[3] = CStringGetTextDatum(node ? "scheduled" : "unschedulable");
	v[4] = CStringGetTextDatum(message);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, nulls);
}

/*
 * SimulateNextStart
 *		Where the search starts, as schedule_pending() would start it now.
 */
int
SimulateNextStart(void)
{
	bool		isnull;
	Datum		d;

	if (SPI_execute("SELECT next_start_node_index FROM scheduler.cycle_lock", true, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		return 0;
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	return isnull ? 0 : Max(DatumGetInt32(d), 0);
}

/* Every pod tried, its row emitted */
static void
run(Sim *s, ReturnSetInfo *rsinfo)
{
	MemoryContext cycle_cxt = AllocSetContextCreate(s->cxt, "simulated cycle", ALLOCSET_DEFAULT_SIZES);

	for (int i = 0; i < s->npods; i++)
	{
		SimCycle	c = {s, i, NULL, NULL};
		ErrorData  *edata;
		MemoryContext old;

		CHECK_FOR_INTERRUPTS();
		MemoryContextReset(cycle_cxt);
		old = MemoryContextSwitchTo(cycle_cxt);
		edata = RunInSubxact(cycle, &c);
		MemoryContextSwitchTo(old);
		if (edata != NULL && ErrorEndsTheCall(edata))
			ReThrowError(edata);	/* a cancel, a timeout, out of memory: no pod's own */
		if (edata != NULL)
		{
			/* as schedule_pending() reports it; the view made again */
			c.node = NULL;
			c.message = psprintf("running scheduling cycle: %s",
								 JCut(edata->message, strlen(edata->message), 500));
			make_view(s);
		}
		emit(rsinfo, &s->pods[i].pod, c.node, c.message);
	}
}

PG_FUNCTION_INFO_V1(scheduler_simulate);
/*
 * scheduler.simulate(changes jsonb DEFAULT '[]', scheduler_name text DEFAULT NULL)
 *		RETURNS TABLE (namespace text, name text, node text, result text, message text)
 */
Datum
scheduler_simulate(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Jsonb	   *changes = PG_ARGISNULL(0) ? NULL : PG_GETARG_JSONB_P(0);
	Sim			s;
	AsOwner		as;

	AsOwnerBegin(&as, ROLE_READER, "simulate scheduling");
	InitMaterializedSRF(fcinfo, 0);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	memset(&s, 0, sizeof(s));
	s.cxt = CurrentMemoryContext;
	s.scheduler_name = PG_ARGISNULL(1) ? scheduler_scheduler_name : text_to_cstring(PG_GETARG_TEXT_PP(1));
	s.batch = MirrorBatchBegin();
	gather_changes(&s, changes);

	PG_TRY();
	{
		s.snap = SnapshotGet();
		overlay(&s);
		s.profile = s.config ? ProfileFromConfig(s.config, s.scheduler_name) : ProfileLoad(s.scheduler_name);
		read_pods(&s);
		SimulateSortPods(s.pods, s.npods);
		s.next_start = SimulateNextStart();
		run(&s, rsinfo);
	}
	PG_FINALLY();
	{
		/* whatever happened, the backend's next call reads the cluster afresh */
		SnapshotDiscard();
	}
	PG_END_TRY();

	SPI_finish();
	AsOwnerEnd(&as);
	return (Datum) 0;
}
