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
#include "executor/spi.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "jsonutil.h"
#include "kinds.h"
#include "profile.h"
#include "subxact.h"
#include "worker.h"
#include "scheduling_queue.h"

/* Rows of a jsonb array, keyed by "uid" */
typedef struct Row
{
	char	   *uid;
	Jsonb	   *row;
} Row;

static Row *
rows_of(Jsonb *arr, int *n)
{
	Row		   *rows;

	*n = 0;
	if (arr == NULL || !JB_ROOT_IS_ARRAY(arr) || JB_ROOT_IS_SCALAR(arr))
		return NULL;
	rows = palloc0(sizeof(Row) * Max(JB_ROOT_COUNT(arr), 1));
	for (int i = 0; i < (int) JB_ROOT_COUNT(arr); i++)
	{
		JsonbValue *v = getIthJsonbValueFromContainer(&arr->root, i);
		JsonbValue *uid;

		if (v->type != jbvBinary)
			continue;
		uid = JGet(v->val.binary.data, "uid");
		if (uid == NULL || uid->type != jbvString)
			continue;
		rows[*n].uid = pnstrdup(uid->val.string.val, uid->val.string.len);
		rows[*n].row = JsonbValueToJsonb(v);
		(*n)++;
	}
	return rows;
}

static int
row_cmp(const void *a, const void *b)
{
	return strcmp(((const Row *) a)->uid, ((const Row *) b)->uid);
}

/*
 * The rows sorted by uid, for find_row: a statement can change a whole
 * batch of rows (the watch worker writes up to a batch of pods at once), and
 * matching old and new rows must not be quadratic.  The rows themselves stay
 * in statement order, which is the order of the events.
 */
static Row *
by_uid(const Row *rows, int n)
{
	Row		   *sorted = palloc(sizeof(Row) * Max(n, 1));

	if (n > 0)
		memcpy(sorted, rows, sizeof(Row) * n);
	qsort(sorted, n, sizeof(Row), row_cmp);
	return sorted;
}

static Jsonb *
find_row(const Row *sorted, int n, const char *uid)
{
	Row			key = {.uid = (char *) uid};
	Row		   *found = n > 0 ? bsearch(&key, sorted, n, sizeof(Row), row_cmp) : NULL;

	return found ? found->row : NULL;
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
 * Does member "key" differ between two rows?  Absent and JSON null are the
 * same (no value), as they are to the plugins that read it.
 */
static bool
member_differs(Jsonb *a, Jsonb *b, const char *key)
{
	JsonbValue *x = JGet(&a->root, key);
	JsonbValue *y = JGet(&b->root, key);

	if (x == NULL || y == NULL)
		return x != y;
	if (x->type != y->type)
		return true;
	if (x->type != jbvBinary)
	{
		Jsonb	   *jx = JsonbValueToJsonb(x);
		Jsonb	   *jy = JsonbValueToJsonb(y);

		return compareJsonbContainers(&jx->root, &jy->root) != 0;
	}
	return compareJsonbContainers(x->val.binary.data, y->val.binary.data) != 0;
}

/*
 * Node rows before and after a statement -> NodeAdd, NodeDelete, and for an
 * update one event per kind of change, as kube-scheduler's node update
 * handler extracts them: uncordoned (UpdateNodeTaint), allocatable,
 * labels, taints.  Cordoning a node makes no event.
 */
List *
NodeRowEvents(Jsonb *olds, Jsonb *news)
{
	int			no,
				nn;
	Row		   *o = rows_of(olds, &no);
	Row		   *n = rows_of(news, &nn);
	Row		   *o_by_uid = by_uid(o, no);
	Row		   *n_by_uid = by_uid(n, nn);
	List	   *events = NIL;

	for (int i = 0; i < nn; i++)
	{
		Jsonb	   *before = find_row(o_by_uid, no, n[i].uid);
		NodeInfo   *after = NodeInfoFromJsonb(n[i].row);
		NodeInfo   *prev;
		ClusterEvent *ev;

		if (before == NULL)
		{
			ev = add_event(&events, RES_NODE, ACT_ADD, "NodeAdd");
			ev->new_node = after;
			continue;
		}
		prev = NodeInfoFromJsonb(before);
#define NODE_UPDATE(act, lbl) \
		do { ev = add_event(&events, RES_NODE, act, lbl); ev->old_node = prev; ev->new_node = after; } while (0)
		if (prev->unschedulable && !after->unschedulable)
			NODE_UPDATE(ACT_UPDATE_NODE_TAINT, "NodeUpdateNodeTaint");
		if (member_differs(before, n[i].row, "allocatable"))
			NODE_UPDATE(ACT_UPDATE_NODE_ALLOCATABLE, "NodeUpdateNodeAllocatable");
		if (member_differs(before, n[i].row, "labels"))
			NODE_UPDATE(ACT_UPDATE_NODE_LABEL, "NodeUpdateNodeLabel");
		if (member_differs(before, n[i].row, "taints"))
			NODE_UPDATE(ACT_UPDATE_NODE_TAINT, "NodeUpdateNodeTaint");
#undef NODE_UPDATE
	}
	for (int i = 0; i < no; i++)
		if (find_row(n_by_uid, nn, o[i].uid) == NULL)
			add_event(&events, RES_NODE, ACT_DELETE, "NodeDelete")->old_node = NodeInfoFromJsonb(o[i].row);
	return events;
}

static bool
assigned(Jsonb *row)
{
	JsonbValue *node;
	JsonbValue *counts;

	if (row == NULL)
		return false;
	node = JGet(&row->root, "node");
	counts = JGet(&row->root, "counts");
	return node != NULL && node->type == jbvString &&
		(counts == NULL || (counts->type == jbvBool && counts->val.boolean));
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
 * UpdatePodLabel and UpdatePodScaleDown.
 */
List *
PodRowEvents(Jsonb *olds, Jsonb *news)
{
	int			no,
				nn;
	Row		   *o = rows_of(olds, &no);
	Row		   *n = rows_of(news, &nn);
	Row		   *o_by_uid = by_uid(o, no);
	Row		   *n_by_uid = by_uid(n, nn);
	List	   *events = NIL;

	for (int i = 0; i < nn; i++)
	{
		Jsonb	   *before = find_row(o_by_uid, no, n[i].uid);
		bool		was = assigned(before);
		bool		is = assigned(n[i].row);
		ClusterEvent *ev;

		if (is && was)
		{
			PodRef	   *prev = PodRefFromJsonb(before);
			PodRef	   *after = PodRefFromJsonb(n[i].row);

			if (member_differs(before, n[i].row, "labels"))
			{
				ev = add_event(&events, RES_ASSIGNED_POD, ACT_UPDATE_POD_LABEL, "AssignedPodUpdatePodLabel");
				ev->old_pod = prev;
				ev->new_pod = after;
			}
			if (scaled_down(prev, after))
			{
				ev = add_event(&events, RES_ASSIGNED_POD, ACT_UPDATE_POD_SCALE_DOWN, "AssignedPodUpdatePodScaleDown");
				ev->old_pod = prev;
				ev->new_pod = after;
			}
		}
		else if (is)
			add_event(&events, RES_ASSIGNED_POD, ACT_ADD, "AssignedPodAdd")->new_pod = PodRefFromJsonb(n[i].row);
		else if (was)
			add_event(&events, RES_ASSIGNED_POD, ACT_DELETE, "AssignedPodDelete")->old_pod = PodRefFromJsonb(before);
	}
	for (int i = 0; i < no; i++)
		if (find_row(n_by_uid, nn, o[i].uid) == NULL && assigned(o[i].row))
			add_event(&events, RES_ASSIGNED_POD, ACT_DELETE, "AssignedPodDelete")->old_pod = PodRefFromJsonb(o[i].row);
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

PG_FUNCTION_INFO_V1(scheduler_dispatch_events);
/*
 * scheduler_internal.dispatch_events(kind text, old_rows jsonb, new_rows jsonb)
 *		Called by the triggers on a kind's table (nodes: 'node', pods: 'pod')
 *		with the rows a statement changed; the kind's entry (kinds.c) makes
 *		them cluster events.  Returns how many pods moved.
 */
Datum
scheduler_dispatch_events(PG_FUNCTION_ARGS)
{
	char	   *kind = text_to_cstring(PG_GETARG_TEXT_PP(0));
	Jsonb	   *olds = PG_ARGISNULL(1) ? NULL : PG_GETARG_JSONB_P(1);
	Jsonb	   *news = PG_ARGISNULL(2) ? NULL : PG_GETARG_JSONB_P(2);
	const MirrorKind *k = KindByEvents(kind);
	List	   *events;
	int			moved;

	if (k == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("no kind \"%s\" raises cluster events", JShort(kind))));
	events = k->row_events(olds, news);
	{
		/* events no plugin registers for move nothing */
		List	   *wanted = NIL;
		ListCell   *lc;

		foreach(lc, events)
			if (EventOfInterest(lfirst(lc)))
				wanted = lappend(wanted, lfirst(lc));
		events = wanted;
	}
	if (events == NIL)
		PG_RETURN_INT32(0);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	moved = move_safely(events);
	SPI_finish();
	PG_RETURN_INT32(moved);
}
