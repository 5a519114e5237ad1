/*
 * scheduling_queue.c
 *	  The scheduling queue: kube-scheduler's activeQ, backoffQ,
 *	  unschedulablePods and gated pods, one row per pending pod in
 *	  scheduler.queue.  This file is the only one that changes those rows
 *	  (as backend/queue/scheduling_queue.go holds every state change of
 *	  kube-scheduler's queue):
 *
 *	  add       the statement triggers on pods (scheduler_internal.pods_changed)
 *	            admit a pending pod (pods.pending: unassigned, not being
 *	            deleted, not terminated) as active, or gated while
 *	            spec.schedulingGates is not empty; gates cleared make it
 *	            active; a pod no longer pending leaves;
 *	  update    an unschedulable pod whose spec changed is retried;
 *	  pop       the active pods, by priority, then enqueued_at (QueueSort);
 *	  requeue   a failed attempt goes to backoff (an error) or unschedulable
 *	            (a rejection), the backoff doubling from
 *	            scheduler.pod_initial_backoff (1 s) up to
 *	            scheduler.pod_max_backoff (10 s);
 *	  flush     expired backoffs become active; pods unschedulable for
 *	            scheduler.unschedulable_timeout (5 min) are moved back;
 *	  move      the QueueingHints (queue.c) move the unschedulable pods an
 *	            event could help;
 *	  nominate  where preemption made room for a pod (the nominator);
 *	  next wake when the earliest backoff or unschedulable timeout is due.
 *
 * The triggers also write the changelog (scheduler.changes, read by the
 * snapshot cache) and hand the rows to the QueueingHints.  The snapshot
 * holds nodes and the pods on them only: a pod is logged when its row
 * before or after the statement is on a node (bound or assumed), so a
 * pending pod's arrival, change or deletion costs the changelog nothing.  They read the
 * statement's transition tables in C: a batch of rows costs one statement
 * per table written, and no jsonb is built unless a hint has an
 * unschedulable pod to move.
 *
 * IDENTIFICATION
 *	  src/scheduling_queue.c
 */
#include "postgres.h"

#include <limits.h>

#include "catalog/pg_type.h"
#include "commands/async.h"
#include "commands/trigger.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "storage/lmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/tuplestore.h"

#include "access.h"
#include "events.h"
#include "jsonutil.h"
#include "plans.h"
#include "kinds.h"
#include "scheduling_queue.h"
#include "worker.h"

/* settings (kube-scheduler's podInitialBackoffSeconds, podMaxBackoffSeconds, podMaxInUnschedulablePodsDuration) */
int			scheduler_pod_initial_backoff = 1000;	/* ms */
int			scheduler_pod_max_backoff = 10000;	/* ms */
int			scheduler_unschedulable_timeout = 300000;	/* ms */

/* ------------------------------------------------------------------------
 * Running statements (kept prepared by plans.c)
 * ------------------------------------------------------------------------
 */
static uint64
run(SPIPlanPtr plan, Datum *args, int expect)
{
	int			rc = SPI_execute_plan(plan, args, NULL, false, 0);

	if (rc != expect)
		elog(ERROR, "scheduling queue: statement failed: %s", SPI_result_code_string(rc));
	return SPI_processed;
}

static void
exec_args(const char *sql, int n, Oid *types, Datum *args, int expect)
{
	int			rc = SPI_execute_with_args(sql, n, types, args, NULL, false, 0);

	if (rc != expect)
		elog(ERROR, "scheduling queue: statement failed (%s): %s", SPI_result_code_string(rc), sql);
}

static Datum
text_array(Datum *elems, int n)
{
	return PointerGetDatum(construct_array(elems, n, TEXTOID, -1, false, TYPALIGN_INT));
}

/* ------------------------------------------------------------------------
 * The rows of a statement's transition table
 * ------------------------------------------------------------------------
 */
typedef struct Rows
{
	int			n;
	int			npending;		/* pods only */
	int			nassigned;		/* pods only: on a node, bound or assumed */
	Datum	   *uids;			/* text */
	Datum	   *names;			/* text: the node's name, or the pod's ns/name */
	bool	   *pending;
	bool	   *assigned;		/* pods only: on a node, bound or assumed */
	Datum	   *gated;			/* bool */
	Datum	   *created;		/* timestamptz */
	Datum	   *forgotten;		/* bool: pending again, its assumption forgotten (UPDATE's new rows) */
	Datum	   *schedulers;		/* pods only: text, spec.schedulerName */
} Rows;

static int
attnum(TupleDesc desc, const char *name)
{
	int			a = SPI_fnumber(desc, name);

	if (a <= 0)
		elog(ERROR, "scheduling queue: the table has no column \"%s\"", name);
	return a;
}

/*
 * A text column's value, copied out of the slot ('' for NULL); with sep, the
 * value of a second column after it and the separator ("ns/name").  Built
 * as text at once: read per row of each statement, a C string in between
 * copied each twice.
 */
static Datum
texts_of(TupleTableSlot *slot, int att, char sep, int att2)
{
	bool		isnull;
	Datum		d = slot_getattr(slot, att, &isnull);
	text	   *a = isnull ? NULL : DatumGetTextPP(d);
	text	   *b = NULL;
	size_t		la = a ? VARSIZE_ANY_EXHDR(a) : 0;
	size_t		lb = 0;
	text	   *t;

	if (sep)
	{
		d = slot_getattr(slot, att2, &isnull);
		b = isnull ? NULL : DatumGetTextPP(d);
		lb = b ? VARSIZE_ANY_EXHDR(b) : 0;
	}
	t = (text *) palloc(VARHDRSZ + la + (sep ? 1 + lb : 0));
	SET_VARSIZE(t, VARHDRSZ + la + (sep ? 1 + lb : 0));
	if (la)
		memcpy(VARDATA(t), VARDATA_ANY(a), la);
	if (sep)
	{
		VARDATA(t)[la] = sep;
		if (lb)
			memcpy(VARDATA(t) + la + 1, VARDATA_ANY(b), lb);
	}
	return PointerGetDatum(t);
}

#define text_of(slot, att) texts_of(slot, att, '\0', 0)

/* The columns read, by attribute number */
typedef struct Atts
{
	int			uid,
				name,
				namespace,
				pending,
				gates,
				created,
				node,
				assumed,
				scheduler;
} Atts;

static void
atts_of(Atts *a, TupleDesc desc, bool pods)
{
	memset(a, 0, sizeof(Atts));
	a->uid = attnum(desc, "uid");
	a->name = attnum(desc, "name");
	if (!pods)
		return;
	a->namespace = attnum(desc, "namespace");
	a->pending = attnum(desc, "pending");
	a->gates = attnum(desc, "scheduling_gates");
	a->created = attnum(desc, "created_at");
	a->node = attnum(desc, "node_name");
	a->assumed = attnum(desc, "assumed_node");
	a->scheduler = attnum(desc, "scheduler_name");
}

/* What the queue reads of one pod row */
static void
read_pod(Rows *r, TupleTableSlot *slot, const Atts *a)
{
	int			i = r->n;
	bool		isnull;
	Datum		d;

	r->uids[i] = text_of(slot, a->uid);
	r->names[i] = texts_of(slot, a->namespace, '/', a->name);
	d = slot_getattr(slot, a->pending, &isnull);
	r->pending[i] = !isnull && DatumGetBool(d);
	r->npending += r->pending[i] ? 1 : 0;
	d = slot_getattr(slot, a->gates, &isnull);
	if (!isnull)
	{
		ArrayType  *gates = DatumGetArrayTypeP(d);

		isnull = ArrayGetNItems(ARR_NDIM(gates), ARR_DIMS(gates)) == 0;
	}
	r->gated[i] = BoolGetDatum(!isnull);
	r->created[i] = slot_getattr(slot, a->created, &isnull);
	r->schedulers[i] = text_of(slot, a->scheduler);
	(void) slot_getattr(slot, a->node, &isnull);
	if (isnull)
		(void) slot_getattr(slot, a->assumed, &isnull);
	r->assigned[i] = !isnull;
	r->nassigned += isnull ? 0 : 1;
}

/*
 * Read a transition table (NULL: none) with a read pointer of our own, as
 * a scan of it in a query would.
 */
static void
read_rows(Rows *r, Tuplestorestate *ts, Relation rel, bool pods)
{
	TupleDesc	desc = RelationGetDescr(rel);
	TupleTableSlot *slot;
	int			cap = 16;
	Atts		a;

	memset(r, 0, sizeof(Rows));
	if (ts == NULL)
		return;
	atts_of(&a, desc, pods);
	r->uids = palloc(sizeof(Datum) * cap);
	r->names = palloc(sizeof(Datum) * cap);
	r->pending = palloc(sizeof(bool) * cap);
	r->assigned = palloc(sizeof(bool) * cap);
	r->gated = palloc(sizeof(Datum) * cap);
	r->created = palloc(sizeof(Datum) * cap);
	r->forgotten = palloc(sizeof(Datum) * cap);
	r->schedulers = palloc(sizeof(Datum) * cap);
	slot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	/* a read pointer of our own, rewound (the transition table allows it) */
	tuplestore_select_read_pointer(ts, tuplestore_alloc_read_pointer(ts, EXEC_FLAG_REWIND));
	tuplestore_rescan(ts);
	while (tuplestore_gettupleslot(ts, true, false, slot))
	{
		if (r->n == cap)
		{
			cap *= 2;
			r->uids = repalloc(r->uids, sizeof(Datum) * cap);
			r->names = repalloc(r->names, sizeof(Datum) * cap);
			r->pending = repalloc(r->pending, sizeof(bool) * cap);
			r->assigned = repalloc(r->assigned, sizeof(bool) * cap);
			r->gated = repalloc(r->gated, sizeof(Datum) * cap);
			r->created = repalloc(r->created, sizeof(Datum) * cap);
			r->forgotten = repalloc(r->forgotten, sizeof(Datum) * cap);
			r->schedulers = repalloc(r->schedulers, sizeof(Datum) * cap);
		}
		r->forgotten[r->n] = BoolGetDatum(false);
		if (pods)
			read_pod(r, slot, &a);
		else
		{
			r->uids[r->n] = text_of(slot, a.uid);
			r->names[r->n] = text_of(slot, a.name);
			r->assigned[r->n] = true;	/* a node is always logged */
		}
		r->n++;
	}
	ExecDropSingleTupleTableSlot(slot);
}

/* The uids of the rows whose pending is as asked, as text[]; NULL if none */
static Datum
uids_where(const Rows *r, bool pending, int *n)
{
	Datum	   *u = palloc(sizeof(Datum) * Max(r->n, 1));

	*n = 0;
	for (int i = 0; i < r->n; i++)
		if (r->pending[i] == pending)
			u[(*n)++] = r->uids[i];
	return *n > 0 ? text_array(u, *n) : (Datum) 0;
}

/* ------------------------------------------------------------------------
 * The changelog (scheduler.changes) the snapshot cache reads
 * ------------------------------------------------------------------------
 */
/* The uids and names of the rows the snapshot holds (see above); false if none */
static bool
logged_rows(const Rows *r, Datum *uids, Datum *names)
{
	Datum	   *u = palloc(sizeof(Datum) * Max(r->n, 1));
	Datum	   *m = palloc(sizeof(Datum) * Max(r->n, 1));
	int			n = 0;

	for (int i = 0; i < r->n; i++)
		if (r->assigned[i])
		{
			u[n] = r->uids[i];
			m[n++] = r->names[i];
		}
	*uids = text_array(u, n);
	*names = text_array(m, n);
	return n > 0;
}

/*
 * An UPDATE: a pod that was on a node and is on none now (an assumption
 * forgotten) is logged by its new row, and marked forgotten when it is
 * pending.  An old row on a node whose uid no new row has (a uid rewritten
 * by hand) stays marked, to be logged by itself; the others are unmarked,
 * logged by their new rows.
 */
static void
mark_left_nodes(Rows *news, Rows *olds)
{
	HASHCTL		ctl;
	HTAB	   *by_uid;
	typedef struct
	{
		char		uid[NAMEDATALEN * 4];
		int			i;
	}			Entry;

	if (olds->nassigned == 0)
		return;
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = NAMEDATALEN * 4;
	ctl.entrysize = sizeof(Entry);
	ctl.hcxt = CurrentMemoryContext;
	by_uid = hash_create("scheduler updated pods", Max(news->n, 16), &ctl,
						 HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
	for (int i = 0; i < news->n; i++)
		((Entry *) hash_search(by_uid, TextDatumGetCString(news->uids[i]), HASH_ENTER, NULL))->i = i;
	for (int i = 0; i < olds->n; i++)
	{
		Entry	   *e;

		if (!olds->assigned[i])
			continue;
		e = hash_search(by_uid, TextDatumGetCString(olds->uids[i]), HASH_FIND, NULL);
		/* (the key holds a uid's first 255 bytes: a hit is compared whole) */
		if (e == NULL || strcmp(TextDatumGetCString(news->uids[e->i]), TextDatumGetCString(olds->uids[i])) != 0)
			continue;			/* its uid went: logged by itself */
		news->assigned[e->i] = true;
		news->forgotten[e->i] = BoolGetDatum(news->pending[e->i]);
		olds->assigned[i] = false;
	}
	hash_destroy(by_uid);
}

bool
SchedChangesInArrays(LOCKMODE mode)
{
	Oid			relid = SchedulerRelid("changes");

	LockRelationOid(relid, mode);
	return get_attnum(relid, "uids") != InvalidAttrNumber;
}

/*
 * "INSERT INTO scheduler.changes" of the uids and names (two text[]
 * parameters) of a kind (a parameter or a literal), in the table's shape:
 * one row, none when there is no uid; a row each before 0.3.
 */
static char *
insert_changes(bool arrays, const char *kind, const char *uids, const char *names)
{
	return arrays ?
		psprintf("INSERT INTO scheduler.changes (kind, uids, names)"
				 " SELECT %s, %s, %s WHERE pg_catalog.cardinality(%s) > 0", kind, uids, names, uids) :
		psprintf("INSERT INTO scheduler.changes (kind, uid, name)"
				 " SELECT %s, unnest(%s), unnest(%s)", kind, uids, names);
}

static void
log_changes(char kind, const Rows *r)
{
	static SPIPlanPtr plan[2] = {NULL, NULL};
	Oid			types[3] = {CHAROID, TEXTARRAYOID, TEXTARRAYOID};
	Datum		args[3];
	bool		arrays;

	if (!logged_rows(r, &args[1], &args[2]))
		return;
	args[0] = CharGetDatum(kind);
	arrays = SchedChangesInArrays(RowExclusiveLock);
	run(PlanKeptBatch(&plan[arrays], insert_changes(arrays, "$1", "$2", "$3"), 3, types),
		args, SPI_OK_INSERT);
}

/* ------------------------------------------------------------------------
 * add, update, delete: what a statement on pods does to the queue
 * ------------------------------------------------------------------------
 */

/*
 * Log the rows (as log_changes) and admit the pending pods (gated while
 * they have scheduling gates); a gate cleared makes a pod active again,
 * enqueued now.  A pod whose assumption was forgotten (its binding failed,
 * or its node went first) comes back in backoff, its attempts kept, as
 * kube-scheduler's binding cycle hands a failed pod back to the queue
 * (handleBindingCycleError: backoff by its attempts so far, enqueued now;
 * with no attempt recorded, none: active).  Each queued pod carries its
 * schedulerName, kept as its row says, so that a call pops its own pods
 * without looking up every active pod of every other scheduler.  One
 * statement: a relist writes pods one by one.  Returns how many became
 * active or backoff (the worker, woken, times its next run by a backoff's
 * end).
 */
static uint64
log_and_admit(const Rows *r)
{
	static SPIPlanPtr plan[4] = {NULL, NULL, NULL, NULL};
	bool		named;
	bool		arrays = SchedChangesInArrays(RowExclusiveLock);
	Oid			types[9] = {TEXTARRAYOID, TEXTARRAYOID, TEXTARRAYOID, BOOLARRAYOID, TIMESTAMPTZARRAYOID,
	BOOLARRAYOID, INT4OID, INT4OID, TEXTARRAYOID};
	Datum		args[9];
	Datum	   *u = palloc(sizeof(Datum) * r->npending);
	Datum	   *s = palloc(sizeof(Datum) * r->npending);
	Datum	   *g = palloc(sizeof(Datum) * r->npending);
	Datum	   *c = palloc(sizeof(Datum) * r->npending);
	Datum	   *f = palloc(sizeof(Datum) * r->npending);
	int			n = 0;
	bool		isnull;

	for (int i = 0; i < r->n; i++)
		if (r->pending[i])
		{
			u[n] = r->uids[i];
			g[n] = r->gated[i];
			f[n] = r->forgotten[i];
			s[n] = r->schedulers[i];
			c[n++] = r->created[i];
		}
	(void) logged_rows(r, &args[0], &args[1]);
	args[2] = text_array(u, n);
	args[3] = PointerGetDatum(construct_array(g, n, BOOLOID, 1, true, TYPALIGN_CHAR));
	args[4] = PointerGetDatum(construct_array(c, n, TIMESTAMPTZOID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	args[5] = PointerGetDatum(construct_array(f, n, BOOLOID, 1, true, TYPALIGN_CHAR));
	args[6] = Int32GetDatum(scheduler_pod_initial_backoff);
	args[7] = Int32GetDatum(scheduler_pod_max_backoff);
	args[8] = text_array(s, n);
	/*
	 * (an upgrade's script may write pods before it gives the queue its
	 * scheduler_name: the pods then go in without it, the script fills it)
	 */
	named = get_attnum(SchedulerRelid("queue"), "scheduler_name") != InvalidAttrNumber;
	run(PlanKeptBatch(&plan[named * 2 + arrays],
				 psprintf("WITH logged AS (%s),"
						  " entered AS ("
						  " INSERT INTO scheduler.queue AS q (pod_uid, state, enqueued_at, attempts, backoff_until%s)"
						  " SELECT d.uid, CASE WHEN d.gated THEN 'gated' WHEN d.forgotten AND a.attempts > 0 THEN 'backoff'"
						  "  ELSE 'active' END,"
						  "  CASE WHEN d.forgotten THEN clock_timestamp() ELSE d.created END,"
						  "  coalesce(a.attempts, 0),"
						  "  CASE WHEN d.forgotten AND a.attempts > 0 THEN now() + least($7::float8 * power(2::float8,"
						  "    least(a.attempts - 1, 40)::float8), $8::float8) * interval '1 millisecond' END%s"
						  " FROM (SELECT unnest($3) AS uid, unnest($4) AS gated, unnest($5) AS created,"
						  "       unnest($6) AS forgotten, unnest($9) AS scheduler) d"
						  " LEFT JOIN scheduler.pod_attempts a ON d.forgotten AND a.pod_uid = d.uid"
						  " ON CONFLICT (pod_uid) DO UPDATE SET"
						  "  state = CASE WHEN EXCLUDED.state = 'gated' THEN 'gated'"
						  "               WHEN q.state = 'gated' THEN 'active'"
						  "               ELSE q.state END,"
						  "  enqueued_at = CASE WHEN q.state = 'gated' AND EXCLUDED.state = 'active'"
						  "                     THEN clock_timestamp() ELSE q.enqueued_at END%s"
						  " WHERE (EXCLUDED.state = 'gated') <> (q.state = 'gated')%s"
						  " RETURNING q.state)"
						  " SELECT count(*) FROM entered WHERE state IN ('active', 'backoff')",
						  insert_changes(arrays, "'p'", "$1", "$2"),
						  named ? ", scheduler_name" : "",
						  named ? ", d.scheduler" : "",
						  named ? ", scheduler_name = EXCLUDED.scheduler_name" : "",
						  named ? " OR q.scheduler_name IS DISTINCT FROM EXCLUDED.scheduler_name" : ""),
				 9, types),
		args, SPI_OK_SELECT);
	return (uint64) DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
}

/*
 * Take pods out of the queue (gone from pending: uids, or (Datum) 0 for
 * none); deleted pods' attempts too (attempts_of, or (Datum) 0)
 */
static void
forget(Datum uids, Datum attempts_of)
{
	static SPIPlanPtr queue_plan = NULL;
	static SPIPlanPtr attempts_plan = NULL;
	Oid			t = TEXTARRAYOID;

	/*
	 * = ANY of the array, planned for each batch (a constant there): an
	 * index scan of the primary key for a few uids, a hashed filter over
	 * the table for many.  (A generic plan made before the table was
	 * analyzed scans it for every batch, with a linear search of the array
	 * for each row; a join with unnest() hashed the whole table.)
	 */
	if (uids != (Datum) 0)
		run(PlanKeptBatch(&queue_plan, "DELETE FROM scheduler.queue WHERE pod_uid = ANY($1)", 1, &t),
			&uids, SPI_OK_DELETE);
	if (attempts_of != (Datum) 0)
		run(PlanKeptBatch(&attempts_plan, "DELETE FROM scheduler.pod_attempts WHERE pod_uid = ANY($1)", 1, &t),
			&attempts_of, SPI_OK_DELETE);
}

static bool
any_unschedulable(void)
{
	static SPIPlanPtr plan = NULL;

	return run(PlanKept(&plan, "SELECT 1 FROM scheduler.queue WHERE state = 'unschedulable' LIMIT 1",
						0, NULL), NULL, SPI_OK_SELECT) > 0;
}

/*
 * An unschedulable pod whose spec changed is worth another try
 * (kube-scheduler's queue Update of an unschedulable pod); one set aside
 * (its cycle crashed a server process) comes back on any change but its
 * status and bookkeeping (isPodUpdated's).  Rare: read from the transition
 * tables by SQL (the transition tables are joined through subqueries of
 * the columns needed, kept apart by OFFSET 0: joined whole, an UPDATE
 * copies their whole rows, toasted objects included, for EvalPlanQual).
 */
static bool
retry_updated(void)
{
	if (SPI_execute("UPDATE scheduler.queue q"
					" SET state = CASE WHEN q.backoff_until > clock_timestamp() THEN 'backoff' ELSE 'active' END,"
					"     moved_at = clock_timestamp(), moved_by = 'pod updated'"
					" FROM (SELECT n.uid,"
					"        (n.requests, n.tolerations, n.affinity, n.node_selector, n.host_ports, n.priority)"
					"        IS DISTINCT FROM (o.requests, o.tolerations, o.affinity, o.node_selector, o.host_ports,"
					"        o.priority) AS spec_changed,"
					"        scheduler_internal.pod_sans_status(n.object) IS DISTINCT FROM scheduler_internal.pod_sans_status(o.object)"
					"        AS changed"
					"       FROM new_rows n JOIN old_rows o ON o.uid = n.uid WHERE n.pending OFFSET 0) n"
					" WHERE q.pod_uid = n.uid AND q.state = 'unschedulable'"
					"   AND (n.spec_changed OR (n.changed AND q.unschedulable_since = 'infinity'))",
					false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "scheduling queue: could not retry updated pods");
	return SPI_processed > 0;
}

static SchedQueueHints queue_hints = NULL;

void
SchedQueueSetHints(SchedQueueHints hints)
{
	queue_hints = hints;
}

/*
 * The QueueingHints (queue.c): the statement's rows, read only when an
 * unschedulable pod waits.  (Without hints, every unschedulable pod moves:
 * the safe side.)
 */
static void
dispatch(const char *kind, bool olds, bool news)
{
	if (queue_hints == NULL)
		(void) SchedQueueMoveAll("no QueueingHints");
	else
		(void) queue_hints(kind, olds ? "old_rows" : NULL, news ? "new_rows" : NULL);
}

static TriggerData *
statement_trigger(FunctionCallInfo fcinfo, const char *name)
{
	TriggerData *td = (TriggerData *) fcinfo->context;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_AFTER(td->tg_event) ||
		!TRIGGER_FIRED_FOR_STATEMENT(td->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("scheduler_internal.%s() is an AFTER ... FOR EACH STATEMENT trigger function", name)));
	if (td->tg_trigger->tgoldtable == NULL && td->tg_trigger->tgnewtable == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("scheduler_internal.%s() needs the statement's transition tables (REFERENCING)", name)));
	return td;
}

/* Open SPI with the statement's transition tables as old_rows and new_rows */
static void
open_spi(TriggerData *td, bool with_tables)
{
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (with_tables && SPI_register_trigger_data(td) != SPI_OK_TD_REGISTER)
		elog(ERROR, "could not register the transition tables");
}

PG_FUNCTION_INFO_V1(scheduler_pods_changed);
/*
 * scheduler_internal.pods_changed(): after each INSERT, UPDATE and DELETE statement
 * on pods: (1) the changelog; (2) the queue: gone pods out (and their
 * latest attempt), pending pods in, gates set or cleared, spec changes
 * retried; (3) the QueueingHints for the unschedulable pods the change
 * could help.
 */
Datum
scheduler_pods_changed(PG_FUNCTION_ARGS)
{
	TriggerData *td = statement_trigger(fcinfo, "pods_changed");
	bool		deleting = TRIGGER_FIRED_BY_DELETE(td->tg_event);
	bool		updating = TRIGGER_FIRED_BY_UPDATE(td->tg_event);
	Rows		olds;
	Rows		news;
	bool		wake = false;
	int			n;
	Datum		uids;

	read_rows(&olds, td->tg_oldtable, td->tg_relation, true);
	read_rows(&news, td->tg_newtable, td->tg_relation, true);
	if (olds.n == 0 && news.n == 0)
		return PointerGetDatum(NULL);
	open_spi(td, false);
	if (deleting)
	{
		log_changes('p', &olds);
		/*
		 * only a pending pod has a queue row: this trigger takes a pod out
		 * of the queue when it stops being pending (the placed victims of a
		 * preemption are looked for in the attempts alone)
		 */
		forget(uids_where(&olds, true, &n), text_array(olds.uids, olds.n));
	}
	else
	{
		if ((uids = uids_where(&news, false, &n)) != (Datum) 0)
			forget(uids, (Datum) 0);
		if (updating)
		{
			mark_left_nodes(&news, &olds);
			log_changes('p', &olds);
		}
		if (news.npending > 0)
			wake = log_and_admit(&news) > 0;
		else
			log_changes('p', &news);
	}
	if ((updating && news.npending > 0) || olds.nassigned > 0 || news.nassigned > 0)
	{
		if (any_unschedulable())
		{
			if (SPI_register_trigger_data(td) != SPI_OK_TD_REGISTER)
				elog(ERROR, "could not register the transition tables");
			if (updating && news.npending > 0)
				wake |= retry_updated();
			if (olds.nassigned > 0 || news.nassigned > 0)
				dispatch("pod", olds.nassigned > 0, news.nassigned > 0);
		}
	}
	if (wake)
		SchedulerWakeup();
	SPI_finish();
	return PointerGetDatum(NULL);
}

PG_FUNCTION_INFO_V1(scheduler_nodes_changed);
/*
 * scheduler_internal.nodes_changed(): after each INSERT, UPDATE and DELETE statement
 * on nodes: (1) the changelog; (3) the QueueingHints.
 */
Datum
scheduler_nodes_changed(PG_FUNCTION_ARGS)
{
	TriggerData *td = statement_trigger(fcinfo, "nodes_changed");
	Rows		olds;
	Rows		news;

	read_rows(&olds, td->tg_oldtable, td->tg_relation, false);
	read_rows(&news, td->tg_newtable, td->tg_relation, false);
	if (olds.n == 0 && news.n == 0)
		return PointerGetDatum(NULL);
	open_spi(td, true);
	log_changes('n', &news);
	log_changes('n', &olds);
	if (any_unschedulable())
		dispatch("node", td->tg_oldtable != NULL, td->tg_newtable != NULL);
	SPI_finish();
	return PointerGetDatum(NULL);
}

PG_FUNCTION_INFO_V1(scheduler_objects_changed);
/*
 * scheduler_internal.objects_changed(): after each INSERT, UPDATE and DELETE
 * statement on a table of a kind kept whole (the storage kinds): the
 * QueueingHints.  The snapshot reads these tables once per refresh: no
 * changelog.  A claim or volume changed may complete a binding that waits
 * for its claims (outbox.c): the bind worker looks at once.
 */
Datum
scheduler_objects_changed(PG_FUNCTION_ARGS)
{
	TriggerData *td = statement_trigger(fcinfo, "objects_changed");
	char	   *table = psprintf("scheduler.%s", RelationGetRelationName(td->tg_relation));
	const MirrorKind *k = KindByTable(table);

	if (k == NULL)
		elog(ERROR, "objects_changed: no kind is mirrored in %s", table);
	open_spi(td, true);
	if (any_unschedulable())
		dispatch(k->kind, td->tg_oldtable != NULL, td->tg_newtable != NULL);
	if (k->events == RES_PVC || k->events == RES_PV)
		WorkerWakeAtCommit(WORKER_BIND);
	SPI_finish();
	return PointerGetDatum(NULL);
}

PG_FUNCTION_INFO_V1(scheduler_truncate_queue);
/* scheduler_internal.truncate_queue(): TRUNCATE pods empties the queue */
Datum
scheduler_truncate_queue(PG_FUNCTION_ARGS)
{
	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("scheduler_internal.truncate_queue() is a trigger function")));
	open_spi(NULL, false);
	if (SPI_execute("DELETE FROM scheduler.queue", false, 0) != SPI_OK_DELETE)
		elog(ERROR, "scheduling queue: could not empty the queue");
	SPI_finish();
	return PointerGetDatum(NULL);
}

/* ------------------------------------------------------------------------
 * pop, requeue, nominate, flush, move, next wake: the cycle's side
 * ------------------------------------------------------------------------
 */
/* A popped row's sort keys (the first SCHED_QUEUE_POP_KEYS columns) */
typedef struct PopKeys
{
	SchedQueueSortKey key;
	HeapTuple	row;
} PopKeys;

/* two strings byte by byte, the shorter first on a tie: COLLATE "C" */
static int
cmp_bytes(const char *a, int la, const char *b, int lb)
{
	int			c = memcmp(a, b, Min(la, lb));

	return c != 0 ? c : (la > lb) - (la < lb);
}

/* ORDER BY priority DESC, enqueued_at, namespace COLLATE "C", name COLLATE "C" */
int
SchedQueueSortCompare(const SchedQueueSortKey *x, const SchedQueueSortKey *y)
{
	int			c;

	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	if (x->queued != y->queued)
		return x->queued < y->queued ? -1 : 1;
	c = cmp_bytes(x->namespace, x->namespace_len, y->namespace, y->namespace_len);
	return c != 0 ? c : cmp_bytes(x->name, x->name_len, y->name, y->name_len);
}

static int
cmp_pop(const void *a, const void *b)
{
	return SchedQueueSortCompare(&((const PopKeys *) a)->key, &((const PopKeys *) b)->key);
}

/*
 * SPI_tuptable's rows put in the pop's order, as its ORDER BY puts them
 * (the columns are NOT NULL, and a pod's namespace and name unique)
 */
static void
sort_popped(void)
{
	uint64		n = SPI_processed;
	PopKeys    *k = palloc(sizeof(PopKeys) * Max(n, 1));
	TupleDesc	desc = SPI_tuptable->tupdesc;

	for (uint64 i = 0; i < n; i++)
	{
		HeapTuple	t = SPI_tuptable->vals[i];
		Datum		d[SCHED_QUEUE_POP_KEYS];
		text	   *ns;
		text	   *name;

		for (int j = 0; j < SCHED_QUEUE_POP_KEYS; j++)
		{
			bool		isnull;

			d[j] = SPI_getbinval(t, desc, j + 1, &isnull);
			if (isnull)
				elog(ERROR, "scheduling queue: a popped pod's sort key is null");
		}
		k[i].row = t;
		k[i].key.priority = DatumGetInt32(d[0]);
		k[i].key.queued = DatumGetTimestampTz(d[1]);
		ns = DatumGetTextPP(d[2]);
		name = DatumGetTextPP(d[3]);
		k[i].key.namespace = VARDATA_ANY(ns);
		k[i].key.namespace_len = VARSIZE_ANY_EXHDR(ns);
		k[i].key.name = VARDATA_ANY(name);
		k[i].key.name_len = VARSIZE_ANY_EXHDR(name);
	}
	qsort(k, n, sizeof(PopKeys), cmp_pop);
	for (uint64 i = 0; i < n; i++)
		SPI_tuptable->vals[i] = k[i].row;
	pfree(k);
}

/*
 * The active pods of a schedulerName, by the queue's own copy of it, and
 * checked against the pod's row: the active pods of other schedulers are
 * dropped as the queue is read, not looked up in pods at each call (with
 * 40,000 of them, that cost more than the call's own work).  No index
 * serves the name: when every active pod is the call's (the common case)
 * the planner reads both tables whole and hashes them, which an index on
 * the name turned into a lookup of pods per pod.  Ties (pods queued in one
 * statement) go by namespace and name byte by byte, as simulate() orders
 * them (both by SchedQueueSortCompare), whatever the database's collation:
 * the same order everywhere, and no locale's comparison per pair.
 *
 * The four sort keys come first in each row (SCHED_QUEUE_POP_KEYS of them),
 * the caller's columns after.  Every active pod (no max_pods) is read
 * unsorted and put in order here, by its keys alone (sort_popped); with a
 * max_pods, the query's top-N sort takes them, comparing a tie's later
 * keys by walking the row up to them (at its end, that walk crossed every
 * column the pod carries, at each comparison).
 */
void
SchedQueuePop(const char *scheduler_name, int64 max_pods, const char *columns)
{
	Datum		args[2];
	Oid			types[2] = {TEXTOID, INT8OID};
	char		nulls[2] = {' ', ' '};
	bool		all = max_pods < 0;

	args[0] = CStringGetTextDatum(scheduler_name);
	args[1] = Int64GetDatum(max_pods);
	/*
	 * no ORDER BY when every pod is read: sorted by the query, each whole row
	 * was copied into the sort and out again, a quarter of the pop's time at
	 * 10,000 pods
	 */
	if (SPI_execute_with_args(psprintf("SELECT p.priority, q.enqueued_at,"
									   " p.namespace COLLATE \"C\", p.name COLLATE \"C\", %s"
									   " FROM scheduler.queue q"
									   " JOIN scheduler.pods p ON p.uid = q.pod_uid"
									   " WHERE q.state = 'active' AND q.scheduler_name = $1 AND p.scheduler_name = $1"
									   "%s", columns, all ? "" : " ORDER BY 1 DESC, 2, 3, 4 LIMIT $2"),
							  all ? 1 : 2, types, args, nulls, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read the scheduling queue");
	if (all)
		sort_popped();
}

/*
 * The failures: back to the queue as kube-scheduler does (an error to
 * backoff, a rejection to unschedulable), the backoff doubling from its
 * initial value up to the max (the exponent bounded: a pod may fail a great
 * many times).  A cycle that threw twice in a row, or crashed, is set
 * aside: unschedulable until it changes (a crash), or until the
 * unschedulable timeout flushes it too (an ERROR).  rejected: each pod's
 * rejecting plugins as a text[] literal, '{}' for none.
 */
void
SchedQueueRequeue(Datum uids, Datum nodes, Datum rejected, Datum errors, Datum internals, Datum asides,
				  Datum nominated)
{
	Oid			types[9] = {TEXTARRAYOID, TEXTARRAYOID, TEXTARRAYOID, BOOLARRAYOID, BOOLARRAYOID,
	BOOLARRAYOID, INT4OID, INT4OID, TEXTARRAYOID};
	Datum		args[9] = {uids, nodes, rejected, errors, internals, asides,
		Int32GetDatum(scheduler_pod_initial_backoff), Int32GetDatum(scheduler_pod_max_backoff), nominated};

	exec_args("UPDATE scheduler.queue q SET attempts = least(q.attempts, 2147483646) + 1,"
			  " state = CASE WHEN d.aside OR (d.internal AND q.internal_errors > 0) THEN 'unschedulable'"
			  "              WHEN d.error OR d.rejected = '{}' THEN 'backoff'"
			  "              ELSE 'unschedulable' END,"
			  " internal_errors = CASE WHEN d.internal THEN least(q.internal_errors, 2147483646) + 1 ELSE 0 END,"
			  " rejected_by = d.rejected::text[],"
			  " backoff_until = now() + least($7::float8 * power(2::float8, least(q.attempts, 40)::float8),"
			  "                               $8::float8) * interval '1 millisecond',"
			  " unschedulable_since = CASE WHEN d.aside THEN 'infinity'::timestamptz ELSE now() END,"
			  " enqueued_at = clock_timestamp(), moved_at = NULL, moved_by = NULL,"
			  " nominated_node = CASE WHEN d.nominated IS NULL THEN q.nominated_node ELSE nullif(d.nominated, '') END"
			  " FROM (SELECT unnest($1::text[]) AS uid, unnest($2::text[]) AS node, unnest($3::text[]) AS rejected,"
			  "       unnest($4::bool[]) AS error, unnest($5::bool[]) AS internal, unnest($6::bool[]) AS aside,"
			  "       unnest($9::text[]) AS nominated) d"
			  " WHERE d.node IS NULL AND q.pod_uid = d.uid",
			  9, types, args, SPI_OK_UPDATE);
}

/*
 * DefaultPreemption's nominations (kube-scheduler's nominator): lower
 * priority pods nominated to a node now taken lose their nomination, before
 * the pods are nominated with their requeue (SchedQueueRequeue): a
 * nomination made by this chunk takes none made by it.  Returns the uids
 * of the pods that lost theirs.
 */
List *
SchedQueueOutrankNominations(Datum uids, Datum nodes)
{
	List	   *outranked = NIL;

	Oid			types[2] = {TEXTARRAYOID, TEXTARRAYOID};
	Datum		args[2] = {uids, nodes};

	exec_args("UPDATE scheduler.queue o SET nominated_node = NULL"
			  " FROM (SELECT unnest($1::text[]) AS uid, unnest($2::text[]) AS node) d"
			  " JOIN scheduler.pods p ON p.uid = d.uid, scheduler.pods op"
			  " WHERE d.node <> '' AND o.nominated_node = d.node AND op.uid = o.pod_uid"
			  " AND op.priority < p.priority AND o.pod_uid <> d.uid"
			  " RETURNING o.pod_uid",
			  2, types, args, SPI_OK_UPDATE_RETURNING);
	for (uint64 i = 0; i < SPI_processed; i++)
		outranked = lappend(outranked, SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1));
	return outranked;
}

/*
 * The nominated pods (the nominator's): columns of pods p and queue q of
 * the pods nominated to a node, as SPI_tuptable.
 */
void
SchedQueueNominated(const char *columns)
{
	if (SPI_execute(psprintf("SELECT %s FROM scheduler.queue q JOIN scheduler.pods p ON p.uid = q.pod_uid"
							 " WHERE q.nominated_node IS NOT NULL", columns), false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read the nominated pods");
}

/* Promote expired backoffs; flush pods unschedulable for too long. */
void
SchedQueueFlush(void)
{
	Oid			t = INT4OID;
	Datum		v = Int32GetDatum(scheduler_unschedulable_timeout);

	exec_args("UPDATE scheduler.queue SET state = 'active', moved_at = coalesce(moved_at, backoff_until)"
			  " WHERE state = 'backoff' AND backoff_until <= clock_timestamp()",
			  0, NULL, NULL, SPI_OK_UPDATE);
	exec_args("UPDATE scheduler.queue"
			  " SET state = CASE WHEN backoff_until > clock_timestamp() THEN 'backoff' ELSE 'active' END,"
			  " moved_at = clock_timestamp(), moved_by = 'UnschedulableTimeout'"
			  " WHERE state = 'unschedulable'"
			  " AND unschedulable_since <= clock_timestamp() - $1 * interval '1 millisecond'",
			  1, &t, &v, SPI_OK_UPDATE);
}

int
SchedQueueMove(List *uids, List *why)
{
	Oid			types[2] = {TEXTARRAYOID, TEXTARRAYOID};
	Datum		args[2];

	if (uids == NIL)
		return 0;
	args[0] = TextArrayFromList(uids);
	args[1] = TextArrayFromList(why);
	exec_args("UPDATE scheduler.queue q"
			  " SET state = CASE WHEN q.backoff_until > clock_timestamp() THEN 'backoff' ELSE 'active' END,"
			  " moved_at = clock_timestamp(), moved_by = m.why"
			  " FROM (SELECT unnest($1::text[]) AS uid, unnest($2::text[]) AS why) m"
			  " WHERE q.pod_uid = m.uid AND q.state = 'unschedulable'",
			  2, types, args, SPI_OK_UPDATE);
	if (SPI_processed > 0)
		SchedulerWakeup();
	return (int) SPI_processed;
}

/* Every unschedulable pod but those set aside */
int
SchedQueueMoveAll(const char *why)
{
	Oid			t = TEXTOID;
	Datum		v = CStringGetTextDatum(why);

	exec_args("UPDATE scheduler.queue"
			  " SET state = CASE WHEN backoff_until > clock_timestamp() THEN 'backoff' ELSE 'active' END,"
			  " moved_at = clock_timestamp(), moved_by = $1"
			  " WHERE state = 'unschedulable' AND unschedulable_since < 'infinity'",
			  1, &t, &v, SPI_OK_UPDATE);
	if (SPI_processed > 0)
		SchedulerWakeup();
	return (int) SPI_processed;
}

long
SchedQueueNextWake(void)
{
	Oid			t = INT4OID;
	Datum		v = Int32GetDatum(scheduler_unschedulable_timeout);
	bool		isnull;
	Datum		d;

	/* NULL when nothing waits (greatest() would turn that into 0) */
	exec_args("SELECT (1000 * extract(epoch FROM least("
			  " (SELECT min(backoff_until) FROM scheduler.queue WHERE state = 'backoff'),"
			  " (SELECT min(unschedulable_since) + $1 * interval '1 millisecond'"
			  "  FROM scheduler.queue WHERE state = 'unschedulable'"
			  "   AND unschedulable_since < 'infinity'))"
			  " - clock_timestamp()))::int8",
			  1, &t, &v, SPI_OK_SELECT);
	if (SPI_processed != 1)
		return -1;
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	return isnull ? -1 : Max((long) DatumGetInt64(d), 0);
}

/*
 * SchedulerWakeup
 *		At commit: NOTIFY scheduler_wakeup for clients, and set the
 *		background worker's latch (worker.c).
 */
void
SchedulerWakeup(void)
{
	Async_Notify("scheduler_wakeup", "");
	WorkerWakeAtCommit(WORKER_SCHEDULE);
}

PG_FUNCTION_INFO_V1(scheduler_wakeup);
/* scheduler_internal.wakeup(): wake the scheduler when this transaction commits */
Datum
scheduler_wakeup(PG_FUNCTION_ARGS)
{
	SchedulerWakeup();
	PG_RETURN_VOID();
}

/* _PG_init's part: the queue's settings */
void
SchedQueueInit(void)
{
	DefineCustomIntVariable("scheduler.pod_initial_backoff",
							"Backoff after a pod's first failed attempt (kube-scheduler podInitialBackoffSeconds).",
							"Doubles with every further attempt, up to scheduler.pod_max_backoff.",
							&scheduler_pod_initial_backoff,
							1000, 0, INT_MAX,
							PGC_USERSET, GUC_UNIT_MS, NULL, NULL, NULL);
	DefineCustomIntVariable("scheduler.pod_max_backoff",
							"Longest backoff (kube-scheduler podMaxBackoffSeconds).",
							NULL,
							&scheduler_pod_max_backoff,
							10000, 0, INT_MAX,
							PGC_USERSET, GUC_UNIT_MS, NULL, NULL, NULL);
	DefineCustomIntVariable("scheduler.unschedulable_timeout",
							"How long an unschedulable pod waits for an event before it is tried again (podMaxInUnschedulablePodsDuration).",
							NULL,
							&scheduler_unschedulable_timeout,
							300000, 0, INT_MAX,
							PGC_USERSET, GUC_UNIT_MS, NULL, NULL, NULL);
}
