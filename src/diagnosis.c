/*
 * diagnosis.c
 *	  scheduler.diagnosis(namespace, name): why a pod is pending, as one
 *	  jsonb document (its shape is in the README).  It is read, never
 *	  recomputed, from what the pod's latest attempt stored (schedule.c):
 *	  the message, and the diagnosis groups of explain.c, which why() reads
 *	  too; with the queue (pending_pods' view of it), the preemption's
 *	  victims from the outbox (outbox.c), and the hints of fit_hints().
 *
 *	  why() and the FailedScheduling message are views of the same data:
 *	  the document's "plugins" and "preFilter" hold exactly why()'s rows,
 *	  and the message is rebuilt from them (FitErrorFromReasons) to find
 *	  where the PostFilter's part of it begins.
 *
 * IDENTIFICATION
 *	  src/diagnosis.c
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "access.h"
#include "explain.h"
#include "jsonutil.h"
#include "outbox.h"
#include "plans.h"
#include "subxact.h"

/* What a group of the stored diagnosis is (explain.c's DiagnosisToJsonb) */
typedef enum GroupKind
{
	GROUP_FILTER,				/* nodes a Filter rejected */
	GROUP_REJECTION,			/* a PreFilter rejected the pod: every node */
	GROUP_LEFT_OUT				/* nodes a PreFilterResult left out */
} GroupKind;

typedef struct DiagGroup
{
	char	   *plugin;
	char	   *code;
	char	   *reason;			/* why()'s: the reasons joined with ", " */
	char	  **reasons;		/* one by one, as FitError counts them */
	int			nreasons;
	JsonbContainer *nodes;		/* an array of node names */
	int			count;
	GroupKind	kind;
} DiagGroup;

/* The pod and its latest attempt, as the first statement reads them */
typedef struct Latest
{
	const char *ns;
	const char *name;
	char	   *uid;
	bool		pending;
	char	   *nominated;		/* queue.nominated_node */
	char	   *result;			/* NULL: never attempted */
	char	   *message;
	Jsonb	   *diagnosis;
	bool		has_nnodes;		/* the N of "0/N nodes are available" */
	int			nnodes;
	char	   *pending_message;	/* pending_pods.message */
	Jsonb	   *pod;
	Jsonb	   *attempt;
	DiagGroup	   *groups;
	int			ngroups;
} Latest;

/*
 * The pod, its queue row, its latest attempt and the diagnosis that attempt
 * stored (or shares: diagnosis_of), as why() reads it.  The queue's state and
 * the message come from pending_pods (not its diagnosis column: not called),
 * so that they are the view's, by construction.
 */
static const char *const LatestSql =
"SELECT p.uid, p.pending, q.nominated_node, a.result, a.message,"
" coalesce(h.diagnosis, s.diagnosis), n.nodes, v.message,"
" jsonb_build_object('namespace', p.namespace, 'name', p.name, 'uid', p.uid,"
"   'schedulerName', p.scheduler_name, 'priority', p.priority, 'node', p.node_name,"
"   'assumedNode', p.assumed_node, 'queue', v.queue, 'attempts', coalesce(q.attempts, a.attempts, 0),"
"   'since', q.first_enqueued_at, 'nominatedNode', q.nominated_node,"
"   'schedulingGates', to_jsonb(p.scheduling_gates)),"
" CASE WHEN a.pod_uid IS NOT NULL THEN jsonb_build_object('at', a.last_attempt_at,"
"   'result', a.result, 'node', a.node, 'message', a.message, 'rejectedBy', to_jsonb(a.rejected_by),"
"   'nodes', n.nodes, 'queueWaitMs', round(extract(epoch FROM h.queue_wait) * 1000, 3),"
"   'cycleTimeMs', round(extract(epoch FROM h.cycle_time) * 1000, 3)) END"
" FROM scheduler.pods p"
" LEFT JOIN scheduler.queue q ON q.pod_uid = p.uid"
" LEFT JOIN scheduler.pod_attempts a ON a.pod_uid = p.uid"
" LEFT JOIN scheduler.attempt_history h ON h.id = a.history_id"
" LEFT JOIN scheduler.attempt_history s ON s.id = h.diagnosis_of"
" LEFT JOIN scheduler.pending_pods v ON v.namespace = p.namespace AND v.name = p.name"
" CROSS JOIN LATERAL (SELECT CASE WHEN a.message = 'no nodes available to schedule pods' THEN 0"
"   ELSE substring(a.message FROM '^0/([0-9]{1,9}) nodes are available:')::integer END) AS n(nodes)"
" WHERE p.namespace = $1 AND p.name = $2";

static char *
text_or_null(HeapTuple t, TupleDesc td, int col)
{
	return SPI_getvalue(t, td, col);	/* NULL for SQL NULL */
}

static Jsonb *
jsonb_or_null(HeapTuple t, TupleDesc td, int col)
{
	bool		isnull;
	Datum		d = SPI_getbinval(t, td, col, &isnull);

	return isnull ? NULL : DatumGetJsonbP(d);
}

static void
read_latest(Latest *l, Datum *args)
{
	static SPIPlanPtr plan = NULL;
	Oid			types[2] = {TEXTOID, TEXTOID};
	HeapTuple	t;
	TupleDesc	td;
	bool		isnull;
	Datum		d;

	if (SPI_execute_plan(PlanKept(&plan, LatestSql, 2, types), args, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read scheduler.pods");
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("pod %s/%s not found", l->ns, l->name),
				 errhint("Load it with scheduler.apply().")));
	t = SPI_tuptable->vals[0];
	td = SPI_tuptable->tupdesc;
	l->uid = text_or_null(t, td, 1);
	d = SPI_getbinval(t, td, 2, &isnull);
	l->pending = !isnull && DatumGetBool(d);
	l->nominated = text_or_null(t, td, 3);
	l->result = text_or_null(t, td, 4);
	l->message = text_or_null(t, td, 5);
	l->diagnosis = jsonb_or_null(t, td, 6);
	d = SPI_getbinval(t, td, 7, &isnull);
	l->has_nnodes = !isnull;
	l->nnodes = isnull ? 0 : DatumGetInt32(d);
	l->pending_message = text_or_null(t, td, 8);
	l->pod = jsonb_or_null(t, td, 9);
	l->attempt = jsonb_or_null(t, td, 10);
}

/* A stored diagnosis that cannot be read (SQL wrote it past the cycle) */
static void
unreadable(const Latest *l, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("pod %s/%s: the diagnosis of its latest attempt cannot be read: %s",
					JShort(l->ns), JShort(l->name), what),
			 errhint("Its next attempt stores a new one.")));
}

/*
 * Array c's elements, all strings, or an ERROR naming what: how many, and
 * (keep) copies of them.
 */
static char **
string_array(const Latest *l, JsonbContainer *c, int *n, const char *what, bool keep)
{
	JsonbIterator *it = JsonbIteratorInit(c);
	JsonbValue	v;
	JsonbIteratorToken tok;
	char	  **out = keep ? palloc(sizeof(char *) * Max(JsonContainerSize(c), 1)) : NULL;
	int			k = 0;

	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok != WJB_ELEM)
			continue;
		if (v.type != jbvString)
			unreadable(l, psprintf("%s: an element is no string", what));
		if (keep)
			out[k] = pnstrdup(v.val.string.val, v.val.string.len);
		k++;
	}
	*n = k;
	return out;
}

/* One group: its fields, checked */
static void
read_group(const Latest *l, JsonbContainer *c, int i, DiagGroup *g)
{
	char	   *at = psprintf("group %d", i);
	JsonbContainer *reasons = JAtArray(c, "reasons");

	g->plugin = JAtString(c, "plugin");
	g->code = JAtString(c, "code");
	g->reason = JAtString(c, "reason");
	g->nodes = JAtArray(c, "nodes");
	if (g->plugin == NULL || g->code == NULL || g->reason == NULL || g->nodes == NULL)
		unreadable(l, psprintf("%s: plugin, code and reason must be strings, nodes an array", at));
	(void) string_array(l, g->nodes, &g->count, psprintf("%s: nodes", at), false);
	if (reasons)
	{
		g->reasons = string_array(l, reasons, &g->nreasons, psprintf("%s: reasons", at), true);
		if (g->nreasons == 0)
			unreadable(l, psprintf("%s: reasons is empty", at));
	}
	else if (JGet(c, "reasons") != NULL)
		unreadable(l, psprintf("%s: reasons must be an array", at));
	else
	{
		g->reasons = palloc(sizeof(char *));
		g->reasons[0] = g->reason;
		g->nreasons = 1;
	}
}

/*
 * What each group is.  The nodes a PreFilterResult left out: code
 * UnschedulableAndUnresolvable, reason "node(s) didn't satisfy plugin(s)
 * [<its plugin>]" (no Filter gives that reason).  A PreFilter's rejection:
 * the first group, every node, and the message is that PreFilter's
 * ("0/N nodes are available: <reason>.", where a Filter's group would read
 * "0/N nodes are available: N <reason>."); with no nodes at all, the only
 * group that can be empty.
 */
static void
classify(const Latest *l, DiagGroup *g, int i)
{
	g->kind = GROUP_FILTER;
	if (strcmp(g->code, "UnschedulableAndUnresolvable") == 0 &&
		strcmp(g->reason, psprintf("node(s) didn't satisfy plugin(s) [%s]", g->plugin)) == 0)
		g->kind = GROUP_LEFT_OUT;
	else if (i == 0)
	{
		char	   *own = psprintf("0/%d nodes are available: %s.", g->count, g->reason);

		if (g->count == 0 || (l->message && strncmp(l->message, own, strlen(own)) == 0))
			g->kind = GROUP_REJECTION;
	}
}

/* The groups of a failed latest attempt (none for any other) */
static void
read_groups(Latest *l)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	int			i = 0;

	l->ngroups = 0;
	l->groups = NULL;
	if (l->diagnosis == NULL || l->result == NULL || strcmp(l->result, "unschedulable") != 0)
		return;
	if (!JB_ROOT_IS_ARRAY(l->diagnosis) || JB_ROOT_IS_SCALAR(l->diagnosis))
		unreadable(l, "not an array");
	l->groups = palloc0(sizeof(DiagGroup) * Max(JB_ROOT_COUNT(l->diagnosis), 1));
	it = JsonbIteratorInit(&l->diagnosis->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok != WJB_ELEM)
			continue;
		if (v.type != jbvBinary || !JsonContainerIsObject(v.val.binary.data))
			unreadable(l, psprintf("group %d: not an object", i));
		read_group(l, v.val.binary.data, i, &l->groups[i]);
		classify(l, &l->groups[i], i);
		i++;
	}
	l->ngroups = i;
}

/*
 * The PostFilter's part of the message: the message is FitError's, built
 * from the groups (the PreFilter's rejection, or each reason counted over
 * its nodes), then " <PostFilter message>".  NULL when there is none, or
 * when the message is not the groups' FitError (a plugin's error).
 */
static char *
postfilter_message(const Latest *l)
{
	const char **reasons;
	int		   *counts;
	int			n = 0;
	const char *prefilter = NULL;
	char	   *fit;
	size_t		len;

	if (!l->has_nnodes || l->message == NULL || l->result == NULL || strcmp(l->result, "unschedulable") != 0)
		return NULL;
	for (int i = 0; i < l->ngroups; i++)
		n += l->groups[i].nreasons;
	reasons = palloc(sizeof(char *) * Max(n, 1));
	counts = palloc(sizeof(int) * Max(n, 1));
	n = 0;
	for (int i = 0; i < l->ngroups; i++)
	{
		const DiagGroup *g = &l->groups[i];

		if (g->kind == GROUP_REJECTION)
		{
			prefilter = g->reason;
			continue;
		}
		for (int r = 0; r < g->nreasons; r++)
		{
			reasons[n] = g->reasons[r];
			counts[n++] = g->count;
		}
	}
	fit = FitErrorFromReasons(l->nnodes, reasons, counts, n, prefilter, NULL);
	len = strlen(fit);
	if (strncmp(l->message, fit, len) != 0 || l->message[len] != ' ')
		return NULL;
	return pstrdup(l->message + len + 1);
}

/* ------------------------------------------------------------------------
 * Building the document
 * ------------------------------------------------------------------------
 */
static void
push_key(JsonbParseState **st, const char *key)
{
	JPushString(st, WJB_KEY, key);
}

static void
push_text(JsonbParseState **st, JsonbIteratorToken tok, const char *s)
{
	JsonbValue	v;

	if (s != NULL)
	{
		JPushString(st, tok, s);
		return;
	}
	v.type = jbvNull;
	pushJsonbValue(st, tok, &v);
}

static void
push_int(JsonbParseState **st, int64 n)
{
	JsonbValue	v;

	v.type = jbvNumeric;
	v.val.numeric = int64_to_numeric(n);
	pushJsonbValue(st, WJB_VALUE, &v);
}

/* a jsonb value, or null */
static void
push_jsonb(JsonbParseState **st, Jsonb *jb)
{
	JsonbValue	v;

	if (jb == NULL)
		v.type = jbvNull;
	else if (JB_ROOT_IS_SCALAR(jb))
		(void) JsonbExtractScalar(&jb->root, &v);
	else
	{
		v.type = jbvBinary;
		v.val.binary.data = &jb->root;
		v.val.binary.len = VARSIZE(jb) - VARHDRSZ;
	}
	pushJsonbValue(st, WJB_VALUE, &v);
}

static void
push_strings(JsonbParseState **st, char **s, int n)
{
	pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
	for (int i = 0; i < n; i++)
		JPushString(st, WJB_ELEM, s[i]);
	pushJsonbValue(st, WJB_END_ARRAY, NULL);
}

/* the node names of groups[0..n) (read_group checked them), in order */
static void
push_nodes(JsonbParseState **st, DiagGroup **groups, int n)
{
	push_key(st, "nodes");
	pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
	for (int i = 0; i < n; i++)
	{
		JsonbIterator *it = JsonbIteratorInit(groups[i]->nodes);
		JsonbValue	v;
		JsonbIteratorToken tok;

		while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
			if (tok == WJB_ELEM)
				pushJsonbValue(st, WJB_ELEM, &v);
	}
	pushJsonbValue(st, WJB_END_ARRAY, NULL);
}

/*
 * {"code", "count", "nodes", "reasons"} (and "reason"): the groups of one
 * plugin and reason (one, but for a reason given with two codes) as one
 * entry, its object left open for the caller to add to and end.
 */
static void
push_entry(JsonbParseState **st, DiagGroup **groups, int n, bool with_reason)
{
	int64		count = 0;

	for (int i = 0; i < n; i++)
		count += groups[i]->count;
	pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
	push_key(st, "code");
	push_text(st, WJB_VALUE, groups[0]->code);
	push_key(st, "count");
	push_int(st, count);
	push_nodes(st, groups, n);
	push_key(st, "reasons");
	push_strings(st, groups[0]->reasons, groups[0]->nreasons);
	if (with_reason)
	{
		push_key(st, "reason");
		push_text(st, WJB_VALUE, groups[0]->reason);
	}
}

static int
cmp_group(const void *a, const void *b)
{
	const DiagGroup *x = *(DiagGroup *const *) a;
	const DiagGroup *y = *(DiagGroup *const *) b;
	int			c = strcmp(x->plugin, y->plugin);

	return c != 0 ? c : strcmp(x->reason, y->reason);
}

/* "plugins": {"<plugin>": {"<reason>": entry}}, the Filters' groups */
static void
push_plugins(JsonbParseState **st, const Latest *l)
{
	DiagGroup	  **f = palloc(sizeof(DiagGroup *) * Max(l->ngroups, 1));
	int			n = 0;

	for (int i = 0; i < l->ngroups; i++)
		if (l->groups[i].kind == GROUP_FILTER)
			f[n++] = &l->groups[i];
	qsort(f, n, sizeof(DiagGroup *), cmp_group);
	push_key(st, "plugins");
	pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
	for (int i = 0; i < n;)
	{
		push_key(st, f[i]->plugin);
		pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
		do
		{
			int			j = i + 1;

			while (j < n && cmp_group(&f[i], &f[j]) == 0)
				j++;
			push_key(st, f[i]->reason);
			push_entry(st, f + i, j - i, false);
			pushJsonbValue(st, WJB_END_OBJECT, NULL);
			i = j;
		} while (i < n && strcmp(f[i]->plugin, f[i - 1]->plugin) == 0);
		pushJsonbValue(st, WJB_END_OBJECT, NULL);
	}
	pushJsonbValue(st, WJB_END_OBJECT, NULL);
}

/*
 * "preFilter": {"rejection": entry and "plugin", "nodesLeftOut": entry and
 * "plugins"}, each null when there is none; null when neither is.
 */
static void
push_prefilter(JsonbParseState **st, const Latest *l)
{
	DiagGroup	   *rejection = NULL;
	DiagGroup	   *left_out = NULL;

	for (int i = 0; i < l->ngroups; i++)
		if (l->groups[i].kind == GROUP_REJECTION)
			rejection = &l->groups[i];
		else if (l->groups[i].kind == GROUP_LEFT_OUT)
			left_out = &l->groups[i];
	push_key(st, "preFilter");
	if (rejection == NULL && left_out == NULL)
	{
		push_jsonb(st, NULL);
		return;
	}
	pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
	push_key(st, "rejection");
	if (rejection == NULL)
		push_jsonb(st, NULL);
	else
	{
		push_entry(st, &rejection, 1, true);
		push_key(st, "plugin");
		push_text(st, WJB_VALUE, rejection->plugin);
		pushJsonbValue(st, WJB_END_OBJECT, NULL);
	}
	push_key(st, "nodesLeftOut");
	if (left_out == NULL)
		push_jsonb(st, NULL);
	else
	{
		char	   *names = pstrdup(left_out->plugin);
		char	   *save = NULL;

		push_entry(st, &left_out, 1, true);
		/* the group's plugin is the plugins' names joined by spaces */
		push_key(st, "plugins");
		pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
		for (char *p = strtok_r(names, " ", &save); p != NULL; p = strtok_r(NULL, " ", &save))
			JPushString(st, WJB_ELEM, p);
		pushJsonbValue(st, WJB_END_ARRAY, NULL);
		pushJsonbValue(st, WJB_END_OBJECT, NULL);
	}
	pushJsonbValue(st, WJB_END_OBJECT, NULL);
}

static void
push_victim(void *arg, const char *ns, const char *name, const char *uid, const char *deletion)
{
	JsonbParseState **st = arg;

	pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
	push_key(st, "namespace");
	push_text(st, WJB_VALUE, ns);
	push_key(st, "name");
	push_text(st, WJB_VALUE, name);
	push_key(st, "uid");
	push_text(st, WJB_VALUE, uid);
	push_key(st, "deletion");
	push_text(st, WJB_VALUE, deletion);
	pushJsonbValue(st, WJB_END_OBJECT, NULL);
}

/*
 * "preemption": {"nominatedNode", "message" (the PostFilter's part of the
 * message), "victims" (of the nomination, from the outbox)}; null when the
 * pod is nominated nowhere and its message has no PostFilter part.
 */
static void
push_preemption(JsonbParseState **st, const Latest *l)
{
	char	   *post = postfilter_message(l);

	push_key(st, "preemption");
	if (l->nominated == NULL && post == NULL)
	{
		push_jsonb(st, NULL);
		return;
	}
	pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
	push_key(st, "nominatedNode");
	push_text(st, WJB_VALUE, l->nominated);
	push_key(st, "message");
	push_text(st, WJB_VALUE, post);
	push_key(st, "victims");
	pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
	if (l->nominated != NULL)
		OutboxVictims(l->uid, l->nominated, push_victim, st);
	pushJsonbValue(st, WJB_END_ARRAY, NULL);
	pushJsonbValue(st, WJB_END_OBJECT, NULL);
}

/* fit_hints()' rows as one jsonb array, for RunInSubxact */
typedef struct HintsCall
{
	Datum	   *args;
	MemoryContext cxt;			/* where the array is copied */
	Jsonb	   *hints;
} HintsCall;

static void
read_hints(void *arg)
{
	static SPIPlanPtr plan = NULL;
	HintsCall  *h = arg;
	Oid			types[2] = {TEXTOID, TEXTOID};
	Jsonb	   *j;

	if (SPI_execute_plan(PlanKept(&plan,
								  "SELECT coalesce(jsonb_agg(jsonb_build_object('rank', h.rank, 'node', h.node,"
								  " 'kind', h.kind, 'detail', h.detail, 'change', h.change)"
								  " ORDER BY h.rank, h.node, h.kind), '[]')"
								  " FROM scheduler.fit_hints($1, $2) h",
								  2, types),
						 h->args, NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not read scheduler.fit_hints()");
	j = jsonb_or_null(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	if (j != NULL)
	{
		h->hints = MemoryContextAlloc(h->cxt, VARSIZE(j));
		memcpy(h->hints, j, VARSIZE(j));
	}
}

/*
 * "hints": fit_hints()' rows, for a pending pod whose latest attempt
 * failed ([] for any other), and "hintsError".  fit_hints() runs in a
 * subtransaction: its ERROR fails no document (nor pending_pods), it is
 * "hintsError" with "hints" null; but a cancel, a shutdown or a
 * serialization failure is thrown on.
 */
static void
push_hints(JsonbParseState **st, const Latest *l, Datum *args)
{
	HintsCall	h = {args, CurrentMemoryContext, NULL};
	ErrorData  *e = NULL;

	if (l->pending && l->result != NULL && strcmp(l->result, "unschedulable") == 0)
	{
		e = RunInSubxact(read_hints, &h);
		if (e != NULL && ErrorEndsTheCall(e))
			ReThrowError(e);
	}
	push_key(st, "hints");
	if (e != NULL)
		push_jsonb(st, NULL);
	else if (h.hints != NULL)
		push_jsonb(st, h.hints);
	else
	{
		pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
		pushJsonbValue(st, WJB_END_ARRAY, NULL);
	}
	push_key(st, "hintsError");
	push_text(st, WJB_VALUE, e ? e->message : NULL);
}

static Jsonb *
build(Latest *l, Datum *args)
{
	JsonbParseState *st = NULL;

	read_groups(l);
	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	push_key(&st, "pod");
	push_jsonb(&st, l->pod);
	push_key(&st, "message");
	push_text(&st, WJB_VALUE, l->pending_message);
	push_key(&st, "attempt");
	push_jsonb(&st, l->attempt);
	push_plugins(&st, l);
	push_prefilter(&st, l);
	push_preemption(&st, l);
	push_hints(&st, l, args);
	return JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_OBJECT, NULL));
}

PG_FUNCTION_INFO_V1(scheduler_diagnosis);
/*
 * scheduler.diagnosis(namespace, name) RETURNS jsonb
 *		Why the pod is pending, as one document; an unknown pod is an ERROR
 *		(42704), as in why().  Writes nothing.
 */
Datum
scheduler_diagnosis(PG_FUNCTION_ARGS)
{
	Datum		args[2] = {PG_GETARG_DATUM(0), PG_GETARG_DATUM(1)};
	Latest		l;
	Jsonb	   *doc;
	Jsonb	   *out;
	AsOwner		as;

	AsOwnerBegin(&as, ROLE_READER, "explain the scheduler's decisions");
	memset(&l, 0, sizeof(l));
	l.ns = text_to_cstring(PG_GETARG_TEXT_PP(0));
	l.name = text_to_cstring(PG_GETARG_TEXT_PP(1));
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	read_latest(&l, args);
	doc = build(&l, args);
	out = SPI_palloc(VARSIZE(doc));
	memcpy(out, doc, VARSIZE(doc));
	SPI_finish();
	AsOwnerEnd(&as);
	PG_RETURN_JSONB_P(out);
}
