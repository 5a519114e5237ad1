/*
 * queue.c
 *	  QueueingHints: when a mirrored object changes, move back to the queue
 *	  only the unschedulable pods the change could help, and wake the
 *	  scheduler.
 *
 * The queue's states and timers live in scheduler.queue, changed only by
 * scheduling_queue.c.  Here, triggers on nodes and pods hand over the
 * rows a statement changed; they become kube-scheduler's cluster events
 * (NodeAdd, NodeUpdateNodeAllocatable/Label/Taint, NodeDelete,
 * AssignedPodAdd, AssignedPodUpdatePodLabel/ScaleDown, AssignedPodDelete).
 * For every unschedulable pod, only the plugins that rejected it are asked:
 * a plugin that did not register the event says Skip, a registration
 * without a hint says Queue, otherwise its hint decides.  Any Queue moves the pod to backoff (if its
 * backoff has not expired) or active, and NOTIFY scheduler_wakeup is sent at
 * commit; the background worker (worker.c) is woken through its latch.
 *
 * The writer holds scheduler.cycle_lock in SHARE mode from before its first
 * row change (trigger writer_lock, access.c), and schedule_pending() holds
 * it EXCLUSIVE: an event either commits before a cycle reads the cluster or
 * is dispatched after the cycle committed its unschedulable pods.
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "commands/async.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "codec.h"
#include "jsonutil.h"
#include "kinds.h"
#include "profile.h"
#include "queue.h"
#include "subxact.h"
#include "worker.h"
#include "scheduling_queue.h"

/*
 * The rows of a FROM item over a kind's table (a trigger's old_rows or
 * new_rows, or a jsonb_populate_recordset over $1 or $2), read with the
 * kind's codec columns, those meeting where; NULL for no FROM item.
 */
static SPITupleTable *
event_rows(const char *columns, const char *from, const char *where, Datum *args)
{
	Oid			types[2] = {JSONBOID, JSONBOID};
	Datum		none[2] = {0, 0};
	char		nulls[2] = {'n', 'n'};

	if (from == NULL)
		return NULL;
	if (args)
		for (int i = 0; i < 2; i++)
			nulls[i] = args[i] ? ' ' : 'n';
	if (SPI_execute_with_args(psprintf("SELECT %s FROM %s%s%s", columns, from, where ? " WHERE " : "",
									   where ? where : ""),
							  2, types, args ? args : none, nulls, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read the rows of a cluster event");
	return SPI_tuptable;
}

/*
 * One side of a statement (its rows before, or after), decoded, with each
 * row's uid and the rows in uid order: old and new rows are matched by
 * uid, and a statement can change a whole batch (the watch worker writes
 * up to a batch at once), so not quadratically.  The rows themselves stay
 * in statement order, which is the order of the events.
 */
typedef struct Side
{
	SPITupleTable *rows;		/* NULL: no rows */
	int			n;
	void	  **objs;			/* decoded: a NodeInfo, a PodRef, or NULL */
	char	  **uids;
	int		   *by_uid;			/* row indexes in uid order */
} Side;

/* A decoded row (NULL: none of the kind's objects), and its uid */
typedef void *(*SideDecoder) (HeapTuple tup, TupleDesc desc, char **uid);

static int
uid_cmp(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int
by_uid_cmp(const void *a, const void *b, void *arg)
{
	char	  **uids = (char **) arg;

	return uid_cmp(uids[*(const int *) a], uids[*(const int *) b]);
}

static Side
read_side(const char *columns, const char *from, const char *where, Datum *args, SideDecoder decode)
{
	Side		s = {event_rows(columns, from, where, args), 0, NULL, NULL, NULL};

	s.n = s.rows ? (int) s.rows->numvals : 0;
	s.objs = palloc0(sizeof(void *) * Max(s.n, 1));
	s.uids = palloc0(sizeof(char *) * Max(s.n, 1));
	s.by_uid = palloc(sizeof(int) * Max(s.n, 1));
	for (int i = 0; i < s.n; i++)
	{
		s.objs[i] = decode(s.rows->vals[i], s.rows->tupdesc, &s.uids[i]);
		s.by_uid[i] = i;
	}
	qsort_arg(s.by_uid, s.n, sizeof(int), by_uid_cmp, s.uids);
	return s;
}

/* The row of s with that uid, or -1 */
static int
side_find(const Side *s, const char *uid)
{
	int			lo = 0,
				hi = s->n - 1;

	while (lo <= hi)
	{
		int			mid = (lo + hi) / 2;
		int			c = uid_cmp(s->uids[s->by_uid[mid]], uid);

		if (c == 0)
			return s->by_uid[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

static ClusterEvent *
add_event(List **events, int resource, int action, const char *label)
{
	ClusterEvent *ev = palloc0(sizeof(ClusterEvent));

	ev->resource = resource;
	ev->action = action;
	ev->label = label;
	*events = lappend(*events, ev);
	return ev;
}

/*
 * Does a jsonb cell differ between two rows?  NULL and JSON null are the
 * same (no value), as they are to the plugins that read it.
 */
static bool
cell_differs(SPITupleTable *a, int i, SPITupleTable *b, int j, int col)
{
	Jsonb	   *x = TupleJsonb(a->vals[i], a->tupdesc, col);
	Jsonb	   *y = TupleJsonb(b->vals[j], b->tupdesc, col);

	if (x && JB_ROOT_IS_SCALAR(x) && getIthJsonbValueFromContainer(&x->root, 0)->type == jbvNull)
		x = NULL;
	if (y && JB_ROOT_IS_SCALAR(y) && getIthJsonbValueFromContainer(&y->root, 0)->type == jbvNull)
		y = NULL;
	if (x == NULL || y == NULL)
		return x != y;
	return compareJsonbContainers(&x->root, &y->root) != 0;
}

/* A row of NodeColumns */
static void *
decode_node(HeapTuple tup, TupleDesc desc, char **uid)
{
	NodeInfo   *n = palloc0(sizeof(NodeInfo));
	List	   *problems = NIL;

	NodeInfoFromTuple(n, tup, desc, CurrentMemoryContext, &problems);
	*uid = n->uid;
	return n;
}

/*
 * Node rows before and after a statement -> NodeAdd, NodeDelete, and for an
 * update one event per kind of change, as kube-scheduler's node update
 * handler extracts them: uncordoned (UpdateNodeTaint), allocatable,
 * labels, taints.  Cordoning a node makes no event.
 */
List *
NodeRowEvents(const MirrorKind *k pg_attribute_unused(), const char *olds, const char *news, Datum *args)
{
	Side		o = read_side(NodeColumns, olds, NULL, args, decode_node);
	Side		n = read_side(NodeColumns, news, NULL, args, decode_node);
	NodeInfo  **before = (NodeInfo **) o.objs;
	NodeInfo  **after = (NodeInfo **) n.objs;
	List	   *events = NIL;

	for (int i = 0; i < n.n; i++)
	{
		int			j = side_find(&o, n.uids[i]);
		ClusterEvent *ev;

		if (j < 0)
		{
			ev = add_event(&events, RES_NODE, ACT_ADD, "NodeAdd");
			ev->new_node = after[i];
			continue;
		}
#define NODE_UPDATE(act, lbl) \
		do { ev = add_event(&events, RES_NODE, act, lbl); ev->old_node = before[j]; ev->new_node = after[i]; } while (0)
		if (before[j]->unschedulable && !after[i]->unschedulable)
			NODE_UPDATE(ACT_UPDATE_NODE_TAINT, "NodeUpdateNodeTaint");
		if (cell_differs(o.rows, j, n.rows, i, NODE_ATT(allocatable)))
			NODE_UPDATE(ACT_UPDATE_NODE_ALLOCATABLE, "NodeUpdateNodeAllocatable");
		if (cell_differs(o.rows, j, n.rows, i, NODE_ATT(labels)))
			NODE_UPDATE(ACT_UPDATE_NODE_LABEL, "NodeUpdateNodeLabel");
		if (cell_differs(o.rows, j, n.rows, i, NODE_ATT(taints)))
			NODE_UPDATE(ACT_UPDATE_NODE_TAINT, "NodeUpdateNodeTaint");
#undef NODE_UPDATE
	}
	for (int j = 0; j < o.n; j++)
		if (side_find(&n, o.uids[j]) < 0)
			add_event(&events, RES_NODE, ACT_DELETE, "NodeDelete")->old_node = before[j];
	return events;
}

/* A row of PodRefColumns: a PodRef when the pod is on a node, else NULL */
static void *
decode_pod(HeapTuple tup, TupleDesc desc, char **uid)
{
	PodRef	   *p = palloc0(sizeof(PodRef));
	List	   *problems = NIL;
	bool		on_node = PodRefFromTuple(p, tup, desc, CurrentMemoryContext, &problems);

	*uid = p->uid;
	return on_node ? p : NULL;
}

/* Did some request go down (or away)? */
static bool
scaled_down(const PodRef *before, const PodRef *after)
{
	if (after->requests.cpu < before->requests.cpu ||
		after->requests.memory < before->requests.memory ||
		after->requests.ephemeral < before->requests.ephemeral)
		return true;
	for (int i = 0; i < before->requests.nscalar; i++)
		if (ResourceGet(&after->requests, before->requests.scalar[i].name) < before->requests.scalar[i].value)
			return true;
	return false;
}

/*
 * Pod rows before and after -> AssignedPodAdd, AssignedPodDelete (a pod
 * that left its node: deleted, or finished), and for an update
 * UpdatePodLabel and UpdatePodScaleDown.  Only pods that are or were on a
 * node make them.
 */
#define ON_A_NODE "coalesce(node_name, assumed_node) IS NOT NULL"

List *
PodRowEvents(const MirrorKind *k pg_attribute_unused(), const char *olds, const char *news, Datum *args)
{
	Side		o = read_side(PodRefColumns, olds, ON_A_NODE, args, decode_pod);
	Side		n = read_side(PodRefColumns, news, ON_A_NODE, args, decode_pod);
	PodRef	  **before = (PodRef **) o.objs;
	PodRef	  **after = (PodRef **) n.objs;
	List	   *events = NIL;

	for (int i = 0; i < n.n; i++)
	{
		int			j = side_find(&o, n.uids[i]);
		PodRef	   *was = j >= 0 ? before[j] : NULL;
		PodRef	   *is = after[i];
		ClusterEvent *ev;

		if (is && was)
		{
			if (cell_differs(o.rows, j, n.rows, i, POD_REF_ATT(labels)))
			{
				ev = add_event(&events, RES_ASSIGNED_POD, ACT_UPDATE_POD_LABEL, "AssignedPodUpdatePodLabel");
				ev->old_pod = was;
				ev->new_pod = is;
			}
			if (scaled_down(was, is))
			{
				ev = add_event(&events, RES_ASSIGNED_POD, ACT_UPDATE_POD_SCALE_DOWN, "AssignedPodUpdatePodScaleDown");
				ev->old_pod = was;
				ev->new_pod = is;
			}
		}
		else if (is)
			add_event(&events, RES_ASSIGNED_POD, ACT_ADD, "AssignedPodAdd")->new_pod = is;
		else if (was)
			add_event(&events, RES_ASSIGNED_POD, ACT_DELETE, "AssignedPodDelete")->old_pod = was;
	}
	for (int j = 0; j < o.n; j++)
		if (before[j] && side_find(&n, o.uids[j]) < 0)
			add_event(&events, RES_ASSIGNED_POD, ACT_DELETE, "AssignedPodDelete")->old_pod = before[j];
	return events;
}

/*
 * Would any plugin that rejected the pod let it try again after ev?  Only
 * the registrations of those plugins that match the event are asked; a
 * registration without a hint says Queue.  Returns the plugin, or NULL.
 */
static const char *
hint_for(const PodInfo *pod, char **rejected_by, int nrejected, const ClusterEvent *ev)
{
	if (pod->invalid)
		return "(its stored row)";	/* be safe: its cycle reports the row */
	for (int i = 0; i < nrejected; i++)
	{
		const Plugin *pl = FindPlugin(rejected_by[i]);

		if (pl == NULL)
			return rejected_by[i];	/* unknown plugin: be safe, queue */
		for (const EventRegistration *r = pl->events; r->resource != 0; r++)
			if (r->resource == ev->resource && (r->actions & ev->action) != 0 &&
				(r->hint == NULL || r->hint(pod, ev) == HINT_QUEUE))
				return pl->name;
	}
	return NULL;
}

/* A row of (uid, object): the object kept whole */
static void *
decode_object(HeapTuple tup, TupleDesc desc, char **uid)
{
	Jsonb	   *obj = TupleJsonb(tup, desc, 2);

	*uid = SPI_getvalue(tup, desc, 1);
	if (*uid == NULL)
		*uid = "";
	return obj;
}

/* "<Kind><Action>", as kube-scheduler labels a cluster event */
static const char *
object_label(const MirrorKind *k, const char *action)
{
	return psprintf("%s%s", k->kind, action);
}

/*
 * Rows of a kind kept whole (the storage kinds) before and after a
 * statement -> <Kind>Add, <Kind>Update (the object changed), <Kind>Delete,
 * each carrying the objects: the plugins' hints read what they need of them.
 */
List *
ObjectRowEvents(const MirrorKind *k, const char *olds, const char *news, Datum *args)
{
	Side		o = read_side("uid, object", olds, NULL, args, decode_object);
	Side		n = read_side("uid, object", news, NULL, args, decode_object);
	List	   *events = NIL;

	for (int i = 0; i < n.n; i++)
	{
		int			j = side_find(&o, n.uids[i]);
		Jsonb	   *after = n.objs[i];
		Jsonb	   *before = j >= 0 ? o.objs[j] : NULL;
		ClusterEvent *ev;

		if (j >= 0 && before && after && compareJsonbContainers(&before->root, &after->root) == 0)
			continue;
		ev = j < 0 ? add_event(&events, k->events, ACT_ADD, object_label(k, "Add")) :
			add_event(&events, k->events, ACT_UPDATE_OBJECT, object_label(k, "Update"));
		ev->old_obj = before;
		ev->new_obj = after;
	}
	for (int j = 0; j < o.n; j++)
		if (side_find(&n, o.uids[j]) < 0)
		{
			ClusterEvent *ev = add_event(&events, k->events, ACT_DELETE, object_label(k, "Delete"));

			ev->old_obj = o.objs[j];
		}
	return events;
}

/*
 * QueueMoveOnEvents
 *		Evaluate the hints of every unschedulable pod for the events; move
 *		those that may now fit.  Returns how many moved.  Call inside SPI.
 */
static int
QueueMoveOnEvents(List *events)
{
	SPITupleTable *tt;
	List	   *moved = NIL;
	List	   *why = NIL;
	uint64		n;

	if (events == NIL)
		return 0;
	if (SPI_execute(psprintf("SELECT %s, q.rejected_by FROM scheduler.queue q"
							 " JOIN scheduler.pods p ON p.uid = q.pod_uid"
							 " WHERE q.state = 'unschedulable' AND q.unschedulable_since < 'infinity'",
							 PodInfoColumnsQualified),
					false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read the scheduling queue");
	tt = SPI_tuptable;
	n = SPI_processed;
	for (uint64 i = 0; i < n; i++)
	{
		PodInfo		pod;
		bool		isnull;
		Datum		d = SPI_getbinval(tt->vals[i], tt->tupdesc, tt->tupdesc->natts, &isnull);
		Datum	   *elems;
		int			nrejected = 0;
		char	  **rejected;
		ListCell   *lc;

		PodInfoFromTuple(&pod, tt->vals[i], tt->tupdesc);
		deconstruct_array(DatumGetArrayTypeP(d), TEXTOID, -1, false, TYPALIGN_INT, &elems, NULL, &nrejected);
		rejected = palloc(sizeof(char *) * Max(nrejected, 1));
		for (int k = 0; k < nrejected; k++)
			rejected[k] = TextDatumGetCString(elems[k]);
		foreach(lc, events)
		{
			const ClusterEvent *ev = lfirst(lc);
			const char *plugin = hint_for(&pod, rejected, nrejected, ev);

			if (plugin)
			{
				moved = lappend(moved, pod.uid);
				why = lappend(why, psprintf("%s (%s)", ev->label, plugin));
				break;
			}
		}
	}
	SPI_freetuptable(tt);

	return SchedQueueMove(moved, why);
}

/*
 * QueueMoveOnEvents in a subtransaction: a hint that fails (a bug, a row
 * written past apply()) must not fail the writer's transaction, or a watch
 * would skip the event.  Failing, every unschedulable pod moves: the safe
 * side (each is tried again, and fails again if it must).
 */
typedef struct Move
{
	List	   *events;
	int			moved;
} Move;

static void
move_on_events(void *arg)
{
	Move	   *m = (Move *) arg;

	m->moved = QueueMoveOnEvents(m->events);
}

static int
move_safely(List *events)
{
	Move		m = {events, 0};
	ErrorData  *edata = RunInSubxact(move_on_events, &m);

	if (edata == NULL)
		return m.moved;
	if (ERRCODE_TO_CATEGORY(edata->sqlerrcode) == ERRCODE_TO_CATEGORY(ERRCODE_TRANSACTION_ROLLBACK) ||
		edata->sqlerrcode == ERRCODE_QUERY_CANCELED ||
		ERRCODE_TO_CATEGORY(edata->sqlerrcode) == ERRCODE_TO_CATEGORY(ERRCODE_OPERATOR_INTERVENTION))
		ReThrowError(edata);
	ereport(WARNING,
			(errmsg("scheduler: a QueueingHint failed: %s", edata->message),
			 errdetail("Every unschedulable pod is moved back to the queue instead.")));
	return SchedQueueMoveAll("a QueueingHint failed");
}

/*
 * QueueDispatch
 *		The rows a statement changed on the table of kind k become its
 *		cluster events (k->row_events); the unschedulable pods they may help
 *		move.  Returns how many moved.  Call inside SPI, where olds and news
 *		(FROM items, NULL: none) can be read.
 */
int
QueueDispatch(const MirrorKind *k, const char *olds, const char *news, Datum *args)
{
	List	   *events;
	List	   *wanted = NIL;
	ListCell   *lc;

	/*
	 * An update script runs with this library over the tables of the version
	 * it updates from: the changed rows may lack the columns the events are
	 * read from.  They are not read; every unschedulable pod moves, as for a
	 * change no QueueingHint can judge.
	 */
	if (creating_extension)
		return SchedQueueMoveAll("the extension is being updated");
	/* a kind no plugin registers for: its rows are not read */
	{
		ClusterEvent probe = {.resource = k->events,.action = ~0};

		if (!EventOfInterest(&probe))
			return 0;
	}
	events = k->row_events(k, olds, news, args);
	/* events no plugin registers for move nothing */
	foreach(lc, events)
		if (EventOfInterest(lfirst(lc)))
			wanted = lappend(wanted, lfirst(lc));
	return wanted == NIL ? 0 : move_safely(wanted);
}

int
QueueHints(const char *kind, const char *olds, const char *news)
{
	const MirrorKind *k = KindByEvents(kind);

	if (k == NULL)
		elog(ERROR, "no kind \"%s\" raises cluster events", kind);
	return QueueDispatch(k, olds, news, NULL);
}

PG_FUNCTION_INFO_V1(scheduler_dispatch_events);
/*
 * scheduler_internal.dispatch_events(kind text, old_rows jsonb, new_rows jsonb)
 *		QueueDispatch from SQL: the rows of a kind's table before and after a
 *		change, as JSON arrays of rows (to_jsonb of them: the columns by
 *		name).  Returns how many pods moved.
 */
Datum
scheduler_dispatch_events(PG_FUNCTION_ARGS)
{
	char	   *kind = text_to_cstring(PG_GETARG_TEXT_PP(0));
	const MirrorKind *k = KindByEvents(kind);
	Datum		args[2];
	int			moved;

	if (k == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("no kind \"%s\" raises cluster events", JShort(kind))));
	for (int i = 0; i < 2; i++)
	{
		args[i] = PG_ARGISNULL(i + 1) ? (Datum) 0 : PG_GETARG_DATUM(i + 1);
		if (args[i] && (!JB_ROOT_IS_ARRAY(DatumGetJsonbP(args[i])) || JB_ROOT_IS_SCALAR(DatumGetJsonbP(args[i]))))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: expected a JSON array of rows", i == 0 ? "old_rows" : "new_rows")));
	}
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	moved = QueueDispatch(k,
						  args[0] ? psprintf("jsonb_populate_recordset(NULL::%s, $1)", k->table) : NULL,
						  args[1] ? psprintf("jsonb_populate_recordset(NULL::%s, $2)", k->table) : NULL,
						  args);
	SPI_finish();
	PG_RETURN_INT32(moved);
}
