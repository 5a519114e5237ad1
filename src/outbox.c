/*
 * outbox.c
 *	  The outbox: what goes back to the API server.  The one file that
 *	  reads and writes scheduler.outbox (as pg_cron's job_metadata.c is for
 *	  its job tables): schedule.c and bind.c call its functions.
 *
 * schedule_pending() writes the rows in the transaction that makes the
 * decision (only when scheduler.kube_api_url is set); each request's body
 * is built here, with the jsonb C API:
 *	 binding    POST pods/{name}/binding, the pod's uid in its metadata
 *	 condition  PATCH pods/{name}/status: PodScheduled False, Unschedulable
 *	            (SchedulerError when the cycle failed), the message; and
 *	            status.nominatedNodeName after a preemption
 *	 event      POST events.k8s.io/v1 events: FailedScheduling, Scheduled
 *	            after a binding, Preempted on a victim; and a repeat's
 *	            series (client-go's broadcaster's cache is the table
 *	            scheduler.event_series, which this file keeps too)
 *	 delete     DELETE pods/{name}, a preemption victim, its uid a
 *	            precondition
 * The bind worker (bind.c) sends them and reports the responses here, a
 * flight's together (OutboxRecordMany; one by OutboxRecord, also
 * SQL-callable as scheduler.outbox_result()), which holds the response
 * rules a kube-scheduler binding follows.
 *
 * IDENTIFICATION
 *	  src/outbox.c
 */
#include "postgres.h"

#include <math.h>
#include <unistd.h>

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "storage/proc.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

#include "access.h"
#include "jsonutil.h"
#include "kube_client.h"
#include "outbox.h"
#include "plugin.h"
#include "plans.h"
#include "worker.h"

/* ------------------------------------------------------------------------
 * Running statements (kept prepared by plans.c)
 * ------------------------------------------------------------------------
 */
static void
run(SPIPlanPtr plan, Datum *values, const char *nulls, int expect)
{
	int			rc = SPI_execute_plan(plan, values, nulls, false, 0);

	if (rc != expect)
		elog(ERROR, "outbox: statement failed: %s", SPI_result_code_string(rc));
}

/* A statement without parameters, planned for the tables as they are now */
static void
run_now(const char *sql, int expect)
{
	int			rc = SPI_execute(sql, false, 0);

	if (rc != expect)
		elog(ERROR, "outbox: statement failed: %s", SPI_result_code_string(rc));
}

/* a text[] of n strings, NULL ones as SQL NULL */
static Datum
text_array(const char **vals, int n)
{
	Datum	   *d = palloc(sizeof(Datum) * Max(n, 1));
	bool	   *nulls = palloc(sizeof(bool) * Max(n, 1));
	int			dims[1] = {n};
	int			lbs[1] = {1};

	for (int i = 0; i < n; i++)
	{
		nulls[i] = (vals[i] == NULL);
		d[i] = vals[i] ? CStringGetTextDatum(vals[i]) : (Datum) 0;
	}
	return PointerGetDatum(construct_md_array(d, nulls, 1, dims, lbs, TEXTOID, -1, false, TYPALIGN_INT));
}


static const char **
list_strings(List *l)
{
	const char **out = palloc(sizeof(char *) * Max(list_length(l), 1));
	int			i = 0;
	ListCell   *lc;

	foreach(lc, l)
		out[i++] = (const char *) lfirst(lc);
	return out;
}

/* ------------------------------------------------------------------------
 * The bodies
 * ------------------------------------------------------------------------
 */

/*
 * A time as the API server writes it: RFC 3339, UTC, whole seconds (a Time),
 * or with six fractional digits (a MicroTime, which Go reads only so)
 */
static char *
rfc3339(TimestampTz t, bool micro)
{
	struct pg_tm tm;
	fsec_t		fsec;

	if (timestamp2tm(t, NULL, &tm, &fsec, NULL, NULL) != 0)
		elog(ERROR, "outbox: timestamp out of range");
	return psprintf("%04d-%02d-%02dT%02d:%02d:%02d%s%.*dZ",
					tm.tm_year, tm.tm_mon, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
					micro ? "." : "", micro ? 6 : 0, micro ? (int) fsec : 0);
}

char *
OutboxTime(TimestampTz t)
{
	return rfc3339(t, false);
}

/* key: a string, or null when val is NULL */
static void
kv(JsonbParseState **st, const char *key, const char *val)
{
	JPushString(st, WJB_KEY, key);
	if (val)
		JPushString(st, WJB_VALUE, val);
	else
	{
		JsonbValue	v;

		v.type = jbvNull;
		(void) pushJsonbValue(st, WJB_VALUE, &v);
	}
}

static void
begin_object(JsonbParseState **st, const char *key)
{
	if (key)
		JPushString(st, WJB_KEY, key);
	(void) pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
}

static Jsonb *
end_body(JsonbParseState **st)
{
	return JsonbValueToJsonb(pushJsonbValue(st, WJB_END_OBJECT, NULL));
}

static Jsonb *
binding_body(const char *ns, const char *name, const char *uid, const char *node)
{
	JsonbParseState *st = NULL;

	begin_object(&st, NULL);
	kv(&st, "apiVersion", "v1");
	kv(&st, "kind", "Binding");
	begin_object(&st, "metadata");
	kv(&st, "name", name);
	kv(&st, "namespace", ns);
	kv(&st, "uid", uid);
	(void) pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	begin_object(&st, "target");
	kv(&st, "apiVersion", "v1");
	kv(&st, "kind", "Node");
	kv(&st, "name", node);
	(void) pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	return end_body(&st);
}

/* status.conditions: PodScheduled False (a strategic merge patch) */
static Jsonb *
condition_body(bool error, const char *message, const char *now)
{
	JsonbParseState *st = NULL;

	begin_object(&st, NULL);
	begin_object(&st, "status");
	JPushString(&st, WJB_KEY, "conditions");
	(void) pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
	begin_object(&st, NULL);
	kv(&st, "type", "PodScheduled");
	kv(&st, "status", "False");
	kv(&st, "reason", error ? "SchedulerError" : "Unschedulable");
	kv(&st, "message", message);
	kv(&st, "lastTransitionTime", now);
	(void) pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	(void) pushJsonbValue(&st, WJB_END_ARRAY, NULL);
	(void) pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	return end_body(&st);
}

static Datum jsonb_array(Jsonb **vals, int n);

/*
 * An Event's name, as client-go's recorder makes it: "<object>.<Unix time in
 * nanoseconds, hex>".  The nanoseconds below our microsecond count this
 * backend's events, so that two of one pod in the same microsecond differ.
 */
static char *
event_name(const char *object, TimestampTz t)
{
	static uint32 seq = 0;
	int64		unix_us = t + (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY;

	if (seq == 0)
		seq = (uint32) MyProcPid;
	seq++;
	return psprintf("%s.%llx", object, (unsigned long long) unix_us * 1000 + seq % 1000);
}

/* This host's name, for reportingInstance ("<scheduler>-<hostname>", as client-go's) */
static const char *
host_name(void)
{
	static char host[256] = "";

	if (host[0] == '\0' && (gethostname(host, sizeof(host) - 1) != 0 || host[0] == '\0'))
		strlcpy(host, "localhost", sizeof(host));
	host[sizeof(host) - 1] = '\0';
	return host;
}

/*
 * kube-scheduler's truncateMessage: a FailedScheduling note longer than the
 * API's 1024-byte limit is cut to 1020 bytes (here on a character boundary)
 * and " ..." added.
 */
#define NOTE_LENGTH_LIMIT 1024
static const char *
truncate_note(const char *msg)
{
	int			len = strlen(msg);

	if (len <= NOTE_LENGTH_LIMIT)
		return msg;
	len = pg_mbcliplen(msg, len, NOTE_LENGTH_LIMIT - 4);
	return psprintf("%.*s ...", len, msg);
}

/*
 * An event, as kube-scheduler's recorder (client-go's events.k8s.io/v1
 * EventRecorder) makes it: regarding the pod, related to another (a
 * preemptor) or none, reported by the pod's scheduler from this host.
 */
typedef struct EventSpec
{
	const char *ns;				/* the pod it regards */
	const char *name;
	const char *uid;
	const char *related_ns;		/* the related pod; NULL: none */
	const char *related_name;
	const char *related_uid;
	const char *reason;
	const char *action;
	const char *note;
	const char *type;			/* Warning, Normal */
	const char *controller;		/* the reporting scheduler */
	bool		may_start;		/* may make a new Event (else only counts in its series) */
} EventSpec;

static void
pod_reference(JsonbParseState **st, const char *key, const char *ns, const char *name, const char *uid)
{
	begin_object(st, key);
	kv(st, "kind", "Pod");
	kv(st, "namespace", ns);
	kv(st, "name", name);
	kv(st, "uid", uid);
	kv(st, "apiVersion", "v1");
	(void) pushJsonbValue(st, WJB_END_OBJECT, NULL);
}

static Jsonb *
event_body(const EventSpec *e, const char *name, TimestampTz t)
{
	JsonbParseState *st = NULL;

	begin_object(&st, NULL);
	kv(&st, "apiVersion", "events.k8s.io/v1");
	kv(&st, "kind", "Event");
	begin_object(&st, "metadata");
	kv(&st, "name", name);
	kv(&st, "namespace", e->ns);
	(void) pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	kv(&st, "eventTime", rfc3339(t, true));
	kv(&st, "reportingController", e->controller);
	kv(&st, "reportingInstance", psprintf("%s-%s", e->controller, host_name()));
	kv(&st, "action", e->action);
	kv(&st, "reason", e->reason);
	pod_reference(&st, "regarding", e->ns, e->name, e->uid);
	if (e->related_uid)
		pod_reference(&st, "related", e->related_ns, e->related_name, e->related_uid);
	kv(&st, "note", e->note);
	kv(&st, "type", e->type);
	return end_body(&st);
}

/* n strings of the events, one field each */
#define EVENT_FIELD(f) \
	static Datum \
	events_##f(const EventSpec *e, int n) \
	{ \
		const char **v = palloc(sizeof(char *) * Max(n, 1)); \
		for (int i = 0; i < n; i++) \
			v[i] = e[i].f; \
		return text_array(v, n); \
	}
EVENT_FIELD(uid)
EVENT_FIELD(reason)
EVENT_FIELD(action)
EVENT_FIELD(type)
EVENT_FIELD(controller)
EVENT_FIELD(note)
static Datum
events_related(const EventSpec *e, int n)
{
	const char **v = palloc(sizeof(char *) * Max(n, 1));

	for (int i = 0; i < n; i++)
		v[i] = e[i].related_uid ? e[i].related_uid : "";
	return text_array(v, n);
}

/* {"series": {"count": s.count, "lastObservedTime": s.last_observed}} added to s.body, in SQL */
#define SERIES_BODY(s) \
	s ".body || jsonb_build_object('series', jsonb_build_object('count', " s ".count," \
	" 'lastObservedTime', to_char(" s ".last_observed AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')))"

/*
 * An event that has happened before (its key in scheduler.event_series)
 * counts there, as client-go's broadcaster counts a repeat in its cache:
 * the second occurrence puts the Event's series (count 2) in the outbox at
 * once; later ones are written by OutboxEventSeriesTick.  Sets bumped[i].
 */
static void
count_repeats(const EventSpec *e, int n, TimestampTz now, bool *bumped)
{
	static SPIPlanPtr plan = NULL;
	Oid			types[8] = {TEXTARRAYOID, TEXTARRAYOID, TEXTARRAYOID, TEXTARRAYOID, TEXTARRAYOID,
	TEXTARRAYOID, TEXTARRAYOID, TIMESTAMPTZOID};
	Datum		args[8] = {events_uid(e, n), events_reason(e, n), events_action(e, n), events_type(e, n),
	events_controller(e, n), events_related(e, n), events_note(e, n), TimestampTzGetDatum(now)};

	run(PlanKeptBatch(&plan,
				"WITH b AS (UPDATE scheduler.event_series s"
				"  SET count = least(s.count, 2147483646) + 1, last_observed = $8,"
				"  refreshed_at = CASE WHEN s.count = 1 THEN $8 ELSE s.refreshed_at END"
				"  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])"
				"    WITH ORDINALITY AS d(uid, reason, action, type, controller, related, note, i)"
				"  WHERE s.regarding_uid = d.uid AND s.reason = d.reason AND s.action = d.action"
				"  AND s.type = d.type AND s.reporting_controller = d.controller"
				"  AND s.related_uid = d.related AND s.note = d.note"
				"  RETURNING d.i, s.*),"
				" p AS (INSERT INTO scheduler.outbox (kind, pod_uid, namespace, name, object, body)"
				"  SELECT 'event', b.regarding_uid, b.namespace, b.body -> 'regarding' ->> 'name', b.name,"
				"  " SERIES_BODY("b")
				"  FROM b WHERE b.count = 2 ORDER BY b.i)"
				" SELECT i FROM b",
				8, types),
		args, NULL, SPI_OK_SELECT);
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		bool		isnull;
		int64		i = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 1, &isnull)) - 1;

		if (i >= 0 && i < n)
			bumped[i] = true;
	}
}

/*
 * write_events
 *		Record events, as client-go's events.k8s.io/v1 broadcaster does: one
 *		seen before counts in its series (count_repeats); a new one, when
 *		it may start, is created (a POST with its fixed name) and its key
 *		kept.  Returns how many Events were created.
 */
static int
write_events(const EventSpec *e, int n)
{
	static SPIPlanPtr plan = NULL;
	TimestampTz now = GetCurrentTimestamp();
	bool	   *bumped = palloc0(sizeof(bool) * Max(n, 1));
	const char **names = palloc(sizeof(char *) * Max(n, 1));
	const char **ns = palloc(sizeof(char *) * Max(n, 1));
	Jsonb	  **bodies = palloc(sizeof(Jsonb *) * Max(n, 1));
	EventSpec  *fresh = palloc(sizeof(EventSpec) * Max(n, 1));
	int			m = 0;
	Oid			types[10] = {TEXTARRAYOID, TEXTARRAYOID, JSONBARRAYOID, TEXTARRAYOID, TEXTARRAYOID,
	TEXTARRAYOID, TEXTARRAYOID, TEXTARRAYOID, TEXTARRAYOID, TEXTARRAYOID};
	Datum		args[10];

	if (n == 0)
		return 0;
	count_repeats(e, n, now, bumped);
	for (int i = 0; i < n; i++)
		if (!bumped[i] && e[i].may_start)
		{
			fresh[m] = e[i];
			ns[m] = e[i].ns;
			names[m] = event_name(e[i].name, now);
			bodies[m] = event_body(&e[i], names[m], now);
			m++;
		}
	if (m == 0)
		return 0;
	args[0] = text_array(ns, m);
	args[1] = text_array(names, m);
	args[2] = jsonb_array(bodies, m);
	args[3] = events_uid(fresh, m);
	args[4] = events_reason(fresh, m);
	args[5] = events_action(fresh, m);
	args[6] = events_type(fresh, m);
	args[7] = events_controller(fresh, m);
	args[8] = events_related(fresh, m);
	args[9] = events_note(fresh, m);
	/* a key another session made meanwhile: that one stands */
	run(PlanKeptBatch(&plan,
				"WITH k AS (INSERT INTO scheduler.event_series (namespace, name, regarding_uid, related_uid,"
				"  type, action, reason, reporting_controller, note, event_time, body)"
				"  SELECT d.ns, d.name, d.uid, d.related, d.type, d.action, d.reason, d.controller, d.note,"
				"  (d.body ->> 'eventTime')::timestamptz, d.body"
				"  FROM unnest($1::text[], $2::text[], $3::jsonb[], $4::text[], $5::text[], $6::text[],"
				"    $7::text[], $8::text[], $9::text[], $10::text[])"
				"    WITH ORDINALITY AS d(ns, name, body, uid, reason, action, type, controller, related, note, i)"
				"  ORDER BY d.i"
				"  ON CONFLICT DO NOTHING RETURNING namespace, name, regarding_uid, body)"
				" INSERT INTO scheduler.outbox (kind, pod_uid, namespace, name, object, body)"
				" SELECT 'event', k.regarding_uid, k.namespace, k.body -> 'regarding' ->> 'name', k.name, k.body"
				" FROM k",
				10, types),
		args, NULL, SPI_OK_INSERT);
	return (int) SPI_processed;
}

/*
 * OutboxEventSeriesTick
 *		client-go's broadcaster's two timers, on scheduler.event_series:
 *		every series is written again 30 minutes after it last was
 *		(refreshExistingEventSeries: the Event's TTL), and a series whose
 *		last occurrence is 6 minutes old is written a last time and
 *		forgotten (finishSeries), as is an Event seen once, 6 minutes after
 *		it was made.  A series write not sent yet gives way to the newer
 *		count.  The bind worker calls it every few seconds.  It never
 *		waits for a row a scheduling call holds (SKIP LOCKED): that row is
 *		taken next time, and no deadlock fails the call.
 */
void
OutboxEventSeriesTick(void)
{
	run_now("WITH due AS (SELECT s.namespace, s.name FROM scheduler.event_series s"
			"  WHERE CASE WHEN s.count = 1 THEN s.event_time ELSE s.last_observed END"
			"    < now() - interval '6 minutes'"
			"  OR (s.count > 1 AND s.refreshed_at < now() - interval '30 minutes')"
			"  FOR UPDATE SKIP LOCKED),"
			" fin AS (DELETE FROM scheduler.event_series s USING due"
			"  WHERE s.namespace = due.namespace AND s.name = due.name"
			"  AND CASE WHEN s.count = 1 THEN s.event_time ELSE s.last_observed END"
			"    < now() - interval '6 minutes'"
			"  RETURNING s.*),"
			" ref AS (UPDATE scheduler.event_series s SET refreshed_at = now() FROM due"
			"  WHERE s.namespace = due.namespace AND s.name = due.name"
			"  AND s.count > 1 AND s.refreshed_at < now() - interval '30 minutes'"
			"  AND s.last_observed >= now() - interval '6 minutes'"
			"  RETURNING s.*),"
			" w AS (SELECT * FROM fin WHERE fin.count > 1 UNION ALL SELECT * FROM ref),"
			" sup AS (UPDATE scheduler.outbox o SET state = 'done', finished_at = now(),"
			"  last_error = 'not sent: superseded by a newer count'"
			"  FROM w WHERE o.state = 'pending' AND o.kind = 'event' AND o.namespace = w.namespace"
			"  AND o.object = w.name AND o.body ? 'series')"
			" INSERT INTO scheduler.outbox (kind, pod_uid, namespace, name, object, body)"
			" SELECT 'event', w.regarding_uid, w.namespace, coalesce(w.body -> 'regarding' ->> 'name', ''), w.name,"
			" " SERIES_BODY("w")
			" FROM w",
			SPI_OK_INSERT);
}

/*
 * OutboxSeriesPatch
 *		An event row's body with a series: the strategic merge patch of it
 *		({"series": ...}) that client-go sends first; NULL when the body
 *		has none (the Event is created).
 */
char *
OutboxSeriesPatch(const char *body)
{
	Jsonb	   *jb = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(body)));
	JsonbValue *v;
	JsonbParseState *st = NULL;
	Jsonb	   *patch;

	if (!JB_ROOT_IS_OBJECT(jb) ||
		(v = getKeyJsonValueFromContainer(&jb->root, "series", 6, NULL)) == NULL)
		return NULL;
	begin_object(&st, NULL);
	JPushString(&st, WJB_KEY, "series");
	(void) pushJsonbValue(&st, WJB_VALUE, v);
	patch = end_body(&st);
	return JsonbToCString(NULL, &patch->root, VARSIZE(patch));
}

/*
 * OutboxDisruptionPatch
 *		A preemption victim's DisruptionTarget condition, as kube-scheduler's
 *		preemption patches it before the deletion: True, reason
 *		PreemptionByScheduler, "<scheduler>: preempting to accommodate a
 *		higher priority pod".  The victim's uid in the patch: another pod of
 *		that name is not patched (the API server refuses a changed uid).
 *		The bind worker sends it, then the row's DELETE.
 */
char *
OutboxDisruptionPatch(const char *uid, const char *scheduler)
{
	JsonbParseState *st = NULL;
	Jsonb	   *body;

	begin_object(&st, NULL);
	begin_object(&st, "metadata");
	kv(&st, "uid", uid ? uid : "");
	(void) pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	begin_object(&st, "status");
	JPushString(&st, WJB_KEY, "conditions");
	(void) pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
	begin_object(&st, NULL);
	kv(&st, "type", "DisruptionTarget");
	kv(&st, "status", "True");
	kv(&st, "reason", "PreemptionByScheduler");
	kv(&st, "message", psprintf("%s: preempting to accommodate a higher priority pod", scheduler));
	kv(&st, "lastTransitionTime", OutboxTime(GetCurrentTimestamp()));
	(void) pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	(void) pushJsonbValue(&st, WJB_END_ARRAY, NULL);
	(void) pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	body = end_body(&st);
	return JsonbToCString(NULL, &body->root, VARSIZE(body));
}

/* DeleteOptions: the victim's uid a precondition */
static Jsonb *
delete_body(const char *uid)
{
	JsonbParseState *st = NULL;

	begin_object(&st, NULL);
	kv(&st, "apiVersion", "v1");
	kv(&st, "kind", "DeleteOptions");
	begin_object(&st, "preconditions");
	kv(&st, "uid", uid);
	(void) pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	return end_body(&st);
}

/* a node name as a JSON value: a string, or null ("" or NULL) */
static Jsonb *
node_value(const char *node)
{
	JsonbValue	v;

	if (node == NULL || node[0] == '\0')
		v.type = jbvNull;
	else
	{
		v.type = jbvString;
		v.val.string.val = (char *) node;
		v.val.string.len = strlen(node);
	}
	return JsonbValueToJsonb(&v);
}

/* {"status": {"nominatedNodeName": node}} */
static Jsonb *
nomination_body(const char *node)
{
	JsonbParseState *st = NULL;

	begin_object(&st, NULL);
	begin_object(&st, "status");
	kv(&st, "nominatedNodeName", (node && node[0]) ? node : NULL);
	(void) pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	return end_body(&st);
}

/* ------------------------------------------------------------------------
 * New rows, inserted in order in one statement
 * ------------------------------------------------------------------------
 */
typedef struct NewRows
{
	int			n;
	int			cap;
	const char **kind;
	const char **uid;
	const char **ns;
	const char **name;
	const char **node;
	Jsonb	  **body;
	/* set after rows_add, for PreBind requests and the bindings that wait */
	int64	   *id;				/* 0: the identity's next */
	const char **object;
	Jsonb	  **waits;			/* a jsonb array of ids, or NULL */
	Jsonb	  **claims;			/* a jsonb array of names, or NULL */
	int64	   *wait_secs;
	/* a binding's, for the metrics (OutboxDecision); -infinity and 0: none */
	TimestampTz *cycle_started;
	TimestampTz *enqueued;
	int64	   *attempt;
} NewRows;

static void
rows_add(NewRows *r, const char *kind, const char *uid, const char *ns, const char *name,
		 const char *node, Jsonb *body)
{
	if (r->n == r->cap)
	{
		r->cap = Max(16, r->cap * 2);
#define GROW(f) (r->f = r->f ? repalloc(r->f, sizeof(*r->f) * r->cap) : palloc(sizeof(*r->f) * r->cap))
		GROW(kind);
		GROW(uid);
		GROW(ns);
		GROW(name);
		GROW(node);
		GROW(body);
		GROW(id);
		GROW(object);
		GROW(waits);
		GROW(claims);
		GROW(wait_secs);
		GROW(cycle_started);
		GROW(enqueued);
		GROW(attempt);
#undef GROW
	}
	r->kind[r->n] = kind;
	r->uid[r->n] = uid;
	r->ns[r->n] = ns;
	r->name[r->n] = name;
	r->node[r->n] = node;
	r->body[r->n] = body;
	r->id[r->n] = 0;
	r->object[r->n] = NULL;
	r->waits[r->n] = NULL;
	r->claims[r->n] = NULL;
	r->wait_secs[r->n] = 0;
	TIMESTAMP_NOBEGIN(r->cycle_started[r->n]);
	TIMESTAMP_NOBEGIN(r->enqueued[r->n]);
	r->attempt[r->n] = 0;
	r->n++;
}

/* a jsonb[] of n values, NULL ones as SQL NULL */
static Datum
jsonb_array(Jsonb **vals, int n)
{
	Datum	   *d = palloc(sizeof(Datum) * Max(n, 1));
	bool	   *nulls = palloc(sizeof(bool) * Max(n, 1));
	int			dims[1] = {n};
	int			lbs[1] = {1};

	for (int i = 0; i < n; i++)
	{
		nulls[i] = (vals[i] == NULL);
		d[i] = vals[i] ? JsonbPGetDatum(vals[i]) : (Datum) 0;
	}
	return PointerGetDatum(construct_md_array(d, nulls, 1, dims, lbs, JSONBOID, -1, false, TYPALIGN_INT));
}

static Datum
int8_array(const int64 *vals, int n)
{
	Datum	   *d = palloc(sizeof(Datum) * Max(n, 1));

	for (int i = 0; i < n; i++)
		d[i] = Int64GetDatum(vals[i]);
	return PointerGetDatum(construct_array(d, n, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

/* a timestamptz[] of n values */
static Datum
timestamptz_array(const TimestampTz *vals, int n)
{
	Datum	   *d = palloc(sizeof(Datum) * Max(n, 1));

	for (int i = 0; i < n; i++)
		d[i] = TimestampTzGetDatum(vals[i]);
	return PointerGetDatum(construct_array(d, n, TIMESTAMPTZOID, sizeof(TimestampTz), FLOAT8PASSBYVAL,
										   TYPALIGN_DOUBLE));
}

/*
 * The rows, in order.  A binding that waits for claims waits at most
 * wait_secs (capped at ten years: the timestamp stays finite), and is not
 * due until the bind worker found it ready (settle_waiting_bindings): it
 * comes in due at infinity, so that no claim of the due rows takes it
 * before a settle saw it.
 */
static void
rows_insert(NewRows *r)
{
	static SPIPlanPtr plan = NULL;
	Oid			types[15] = {TEXTARRAYOID, TEXTARRAYOID, TEXTARRAYOID, TEXTARRAYOID, TEXTARRAYOID, JSONBARRAYOID,
		INT8ARRAYOID, TEXTARRAYOID, JSONBARRAYOID, JSONBARRAYOID, INT8ARRAYOID, INT8ARRAYOID,
	TIMESTAMPTZARRAYOID, TIMESTAMPTZARRAYOID, INT8ARRAYOID};
	Datum		args[15];
	int64	   *ords;

	if (r->n == 0)
		return;
	/* each row's place, for the ids to follow the rows (an array like the others: the same estimate) */
	ords = palloc(sizeof(int64) * r->n);
	for (int i = 0; i < r->n; i++)
		ords[i] = i + 1;
	args[0] = text_array(r->kind, r->n);
	args[1] = text_array(r->uid, r->n);
	args[2] = text_array(r->ns, r->n);
	args[3] = text_array(r->name, r->n);
	args[4] = text_array(r->node, r->n);
	args[5] = jsonb_array(r->body, r->n);
	args[6] = int8_array(r->id, r->n);
	args[7] = text_array(r->object, r->n);
	args[8] = jsonb_array(r->waits, r->n);
	args[9] = jsonb_array(r->claims, r->n);
	args[10] = int8_array(r->wait_secs, r->n);
	args[11] = int8_array(ords, r->n);
	args[12] = timestamptz_array(r->cycle_started, r->n);
	args[13] = timestamptz_array(r->enqueued, r->n);
	args[14] = int8_array(r->attempt, r->n);
	run(PlanKept(&plan,
				"INSERT INTO scheduler.outbox (id, kind, pod_uid, namespace, name, node, body,"
				" object, waits_for, claims, wait_until, next_attempt_at, cycle_started_at, enqueued_at,"
				" pod_attempts)"
				" OVERRIDING SYSTEM VALUE"
				" SELECT CASE WHEN r.id = 0 THEN nextval('scheduler.outbox_id_seq'::regclass) ELSE r.id END, r.kind, r.uid, r.ns, r.name, r.node, r.body, r.object,"
				" CASE WHEN r.waits IS NOT NULL THEN ARRAY(SELECT jsonb_array_elements_text(r.waits)::int8) END,"
				" CASE WHEN r.claims IS NOT NULL THEN ARRAY(SELECT jsonb_array_elements_text(r.claims)) END,"
				" CASE WHEN r.claims IS NOT NULL"
				"   THEN now() + least(greatest(r.secs, 0), 315360000) * interval '1 second' END,"
				" CASE WHEN r.claims IS NOT NULL THEN 'infinity' ELSE now() END,"
				" CASE WHEN isfinite(r.started) THEN r.started END, CASE WHEN isfinite(r.enqueued) THEN r.enqueued END,"
				" CASE WHEN r.attempt > 0 THEN least(r.attempt, 2147483647)::int4 END"
				" FROM (SELECT unnest($1::text[]) AS kind, unnest($2::text[]) AS uid, unnest($3::text[]) AS ns,"
				"       unnest($4::text[]) AS name, unnest($5::text[]) AS node, unnest($6::jsonb[]) AS body,"
				"       unnest($7::int8[]) AS id, unnest($8::text[]) AS object, unnest($9::jsonb[]) AS waits,"
				"       unnest($10::jsonb[]) AS claims, unnest($11::int8[]) AS secs,"
				"       unnest($12::int8[]) AS ord, unnest($13::timestamptz[]) AS started,"
				"       unnest($14::timestamptz[]) AS enqueued, unnest($15::int8[]) AS attempt) r"
				" ORDER BY r.ord",
				15, types),
		args, NULL, SPI_OK_INSERT);
}

/* n ids of scheduler.outbox, taken now (for rows that others name) */
static int64 *
take_ids(int n)
{
	static SPIPlanPtr plan = NULL;
	Oid			type = INT4OID;
	Datum		arg = Int32GetDatum(n);
	int64	   *ids = palloc(sizeof(int64) * Max(n, 1));

	run(PlanKept(&plan,
				"SELECT nextval('scheduler.outbox_id_seq'::regclass) FROM generate_series(1, $1)",
				1, &type),
		&arg, NULL, SPI_OK_SELECT);
	if (SPI_processed != (uint64) n)
		elog(ERROR, "outbox: could not take %d ids", n);
	for (int i = 0; i < n; i++)
	{
		bool		isnull;

		ids[i] = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
	}
	return ids;
}

/* a jsonb array of strings, or of numbers (ids) */
static Jsonb *
array_of(List *strings, const int64 *ids, int nids)
{
	JsonbParseState *st = NULL;
	ListCell   *lc;

	(void) pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
	foreach(lc, strings)
		JPushString(&st, WJB_ELEM, lfirst(lc));
	for (int i = 0; i < nids; i++)
	{
		JsonbValue	v;

		v.type = jbvNumeric;
		v.val.numeric = int64_to_numeric(ids[i]);
		(void) pushJsonbValue(&st, WJB_ELEM, &v);
	}
	return JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_ARRAY, NULL));
}

/* ------------------------------------------------------------------------
 * Writing the decisions
 * ------------------------------------------------------------------------
 */
bool
OutboxEnabled(void)
{
	return KubeApiConfigured();
}

/* What the outbox needs to know of a decided pod */
typedef struct PodFacts
{
	bool		found;			/* the pod is still there */
	char	   *ns;
	char	   *name;
	char	   *scheduler_name;
	char	   *posted_message; /* the PodScheduled message last put in the outbox */
	bool		event_due;		/* no FailedScheduling event within the interval */
} PodFacts;

static PodFacts *
read_facts(const OutboxDecision *d, int n, int event_interval_ms)
{
	static SPIPlanPtr plan = NULL;
	Oid			type = TEXTARRAYOID;
	Datum		arg;
	const char **uids = palloc(sizeof(char *) * n);
	PodFacts   *f = palloc0(sizeof(PodFacts) * n);
	TimestampTz since = GetCurrentTransactionStartTimestamp() - (int64) event_interval_ms * 1000;

	for (int i = 0; i < n; i++)
		uids[i] = d[i].uid;
	arg = text_array(uids, n);
	run(PlanKeptBatch(&plan,
				"SELECT d.i, p.namespace, p.name, p.scheduler_name, a.posted_message, a.event_posted_at"
				" FROM unnest($1::text[]) WITH ORDINALITY AS d(uid, i)"
				" JOIN scheduler.pods p ON p.uid = d.uid"
				" LEFT JOIN scheduler.pod_attempts a ON a.pod_uid = d.uid",
				1, &type),
		&arg, NULL, SPI_OK_SELECT);
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		HeapTuple	t = SPI_tuptable->vals[r];
		TupleDesc	td = SPI_tuptable->tupdesc;
		bool		isnull;
		int64		i = DatumGetInt64(SPI_getbinval(t, td, 1, &isnull)) - 1;
		Datum		posted_at;

		if (i < 0 || i >= n)
			continue;
		f[i].found = true;
		f[i].ns = SPI_getvalue(t, td, 2);
		f[i].name = SPI_getvalue(t, td, 3);
		f[i].scheduler_name = SPI_getvalue(t, td, 4);
		f[i].posted_message = SPI_getvalue(t, td, 5);
		posted_at = SPI_getbinval(t, td, 6, &isnull);
		f[i].event_due = isnull || DatumGetTimestampTz(posted_at) <= since;
	}
	return f;
}

/*
 * OutboxWriteDecisions
 *		A binding per choice; per failure the PodScheduled condition when
 *		its message changed, and a FailedScheduling event: a repeat counts
 *		in its series, and a new one is made at most every
 *		event_interval_ms.  A newer condition closes one of the pod's not
 *		sent yet, unsent: it must not land last.  Rows go in as
 *		kube-scheduler would send them: bindings, conditions, events.
 */
void
OutboxWriteDecisions(const OutboxDecision *d, int n, int event_interval_ms)
{
	static SPIPlanPtr supersede = NULL;
	PodFacts   *f;
	NewRows		rows = {0};
	List	   *conditions = NIL;
	char	   *now = OutboxTime(GetCurrentTransactionStartTimestamp());
	EventSpec  *events;
	int			nevents = 0;

	if (n == 0)
		return;
	f = read_facts(d, n, event_interval_ms);
	events = palloc(sizeof(EventSpec) * n);
	for (int i = 0; i < n; i++)
		if (f[i].found && d[i].node)
		{
			int			nreq = list_length(d[i].prebind);
			int64	   *ids = nreq > 0 ? take_ids(nreq) : NULL;
			int			k = 0;
			ListCell   *lc;

			/* VolumeBinding's PreBind: its requests first, the binding waits */
			foreach(lc, d[i].prebind)
			{
				PreBindRequest *q = lfirst(lc);

				rows_add(&rows, q->kind, d[i].uid, f[i].ns, f[i].name, NULL, q->patch);
				rows.id[rows.n - 1] = ids[k++];
				rows.object[rows.n - 1] = q->object;
			}
			rows_add(&rows, "binding", d[i].uid, f[i].ns, f[i].name, d[i].node,
					 binding_body(f[i].ns, f[i].name, d[i].uid, d[i].node));
			/* the scheduler that placed it, for its Scheduled event and the metrics */
			rows.object[rows.n - 1] = f[i].scheduler_name;
			rows.cycle_started[rows.n - 1] = d[i].cycle_started;
			rows.enqueued[rows.n - 1] = d[i].enqueued;
			rows.attempt[rows.n - 1] = d[i].attempt;
			if (d[i].wait_claims != NIL || nreq > 0)
			{
				rows.waits[rows.n - 1] = array_of(NIL, ids, nreq);
				rows.claims[rows.n - 1] = array_of(d[i].wait_claims, NULL, 0);
				rows.wait_secs[rows.n - 1] = d[i].wait_seconds;
			}
		}
	for (int i = 0; i < n; i++)
		if (f[i].found && !d[i].node &&
			(f[i].posted_message == NULL || strcmp(f[i].posted_message, d[i].message) != 0))
		{
			rows_add(&rows, "condition", d[i].uid, f[i].ns, f[i].name, NULL,
					 condition_body(d[i].error, d[i].message, now));
			conditions = lappend(conditions, (void *) d[i].uid);
		}
	for (int i = 0; i < n; i++)
		if (f[i].found && !d[i].node && f[i].scheduler_name != NULL)
		{
			EventSpec  *e = &events[nevents++];

			memset(e, 0, sizeof(EventSpec));
			e->ns = f[i].ns;
			e->name = f[i].name;
			e->uid = d[i].uid;
			e->reason = "FailedScheduling";
			e->action = "Scheduling";
			e->note = truncate_note(d[i].message);
			e->type = "Warning";
			e->controller = f[i].scheduler_name;
			e->may_start = f[i].event_due;
		}
	if (conditions != NIL)
	{
		Oid			type = TEXTARRAYOID;
		Datum		arg = TextArrayFromList(conditions);

		run(PlanKeptBatch(&supersede,
					"UPDATE scheduler.outbox SET state = 'done', finished_at = now(),"
					" last_error = 'not sent: superseded by a newer condition'"
					" WHERE kind = 'condition' AND state = 'pending' AND pod_uid = ANY($1::text[])",
					1, &type),
			&arg, NULL, SPI_OK_UPDATE);
	}
	rows_insert(&rows);
	(void) write_events(events, nevents);
	WorkerWakeAtCommit(WORKER_BIND);
}

/*
 * OutboxWriteNominations
 *		status.nominatedNodeName (null when the node is ""), sent with the
 *		PodScheduled condition as kube-scheduler's updatePod sends both:
 *		set in the pod's pending condition, or sent alone when there is
 *		none.
 */
void
OutboxWriteNominations(List *uids, List *nodes)
{
	static SPIPlanPtr patch = NULL;
	static SPIPlanPtr alone = NULL;
	Oid			types[2] = {TEXTARRAYOID, JSONBARRAYOID};
	Datum		args[2];
	int			n = list_length(uids);
	const char **node = list_strings(nodes);
	Jsonb	  **values = palloc(sizeof(Jsonb *) * Max(n, 1));
	Jsonb	  **bodies = palloc(sizeof(Jsonb *) * Max(n, 1));

	if (n == 0)
		return;
	for (int i = 0; i < n; i++)
	{
		values[i] = node_value(node[i]);
		bodies[i] = nomination_body(node[i]);
	}
	args[0] = TextArrayFromList(uids);
	args[1] = jsonb_array(values, n);
	run(PlanKept(&patch,
				"UPDATE scheduler.outbox o"
				" SET body = jsonb_set(o.body, '{status,nominatedNodeName}', d.value)"
				" FROM unnest($1::text[], $2::jsonb[]) AS d(uid, value)"
				" WHERE o.kind = 'condition' AND o.state = 'pending' AND o.pod_uid = d.uid",
				2, types),
		args, NULL, SPI_OK_UPDATE);
	args[1] = jsonb_array(bodies, n);
	run(PlanKept(&alone,
				"INSERT INTO scheduler.outbox (kind, pod_uid, namespace, name, body)"
				" SELECT 'condition', p.uid, p.namespace, p.name, d.body"
				" FROM unnest($1::text[], $2::jsonb[]) AS d(uid, body)"
				" JOIN scheduler.pods p ON p.uid = d.uid"
				" WHERE NOT EXISTS (SELECT 1 FROM scheduler.outbox o WHERE o.kind = 'condition'"
				"   AND o.state = 'pending' AND o.pod_uid = d.uid)",
				2, types),
		args, NULL, SPI_OK_INSERT);
}

/* A victim's Preempted event message, naming its preemptor (kube-scheduler's) */
static char *
preempted_message(const char *preemptor_uid, const char *node)
{
	return psprintf("Preempted by pod %s on node %s", preemptor_uid, node);
}

/*
 * OutboxWriteVictims
 *		DefaultPreemption's victims (uids, each with the preemptor's uid and
 *		node): deleted through the API server, the uid a precondition (once
 *		each), after a DisruptionTarget condition (the bind worker patches
 *		it first: the row's object is the preemptor's schedulerName the
 *		condition's message names), and, as kube-scheduler records it, a
 *		Preempted event on each.
 */
void
OutboxWriteVictims(List *victims, List *preemptors, List *nodes)
{
	static SPIPlanPtr plan = NULL;
	Oid			types[2] = {TEXTARRAYOID, TEXTARRAYOID};
	Datum		args[2];
	const char **node = list_strings(nodes);
	const char **preemptor = list_strings(preemptors);
	NewRows		deletes = {0};
	EventSpec  *events = palloc(sizeof(EventSpec) * Max(list_length(victims), 1));
	int			nevents = 0;

	if (victims == NIL)
		return;
	args[0] = TextArrayFromList(victims);
	args[1] = TextArrayFromList(preemptors);
	run(PlanKeptBatch(&plan,
				"SELECT v.i, p.uid, p.namespace, p.name, pr.scheduler_name, pr.namespace, pr.name"
				" FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS v(uid, preemptor, i)"
				" JOIN scheduler.pods p ON p.uid = v.uid"
				" LEFT JOIN scheduler.pods pr ON pr.uid = v.preemptor"
				" ORDER BY v.i",
				2, types),
		args, NULL, SPI_OK_SELECT);
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		HeapTuple	t = SPI_tuptable->vals[r];
		TupleDesc	td = SPI_tuptable->tupdesc;
		bool		isnull;
		int64		i = DatumGetInt64(SPI_getbinval(t, td, 1, &isnull)) - 1;
		char	   *uid = SPI_getvalue(t, td, 2);
		char	   *ns = SPI_getvalue(t, td, 3);
		char	   *name = SPI_getvalue(t, td, 4);
		char	   *component = SPI_getvalue(t, td, 5);
		bool		seen = false;

		if (i < 0 || i >= list_length(victims))
			continue;
		for (int k = 0; k < deletes.n && !seen; k++)
			seen = strcmp(deletes.uid[k], uid) == 0;
		if (!seen)
		{
			rows_add(&deletes, "delete", uid, ns, name, NULL, delete_body(uid));
			/* whose DisruptionTarget condition names the preemptor's scheduler */
			deletes.object[deletes.n - 1] = component;
		}
		/* regarding the victim, related to its preemptor (while it is still there) */
		if (component != NULL && preemptor[i] && node[i])
		{
			EventSpec  *e = &events[nevents++];

			memset(e, 0, sizeof(EventSpec));
			e->ns = ns;
			e->name = name;
			e->uid = uid;
			e->related_ns = SPI_getvalue(t, td, 6);
			e->related_name = SPI_getvalue(t, td, 7);
			e->related_uid = preemptor[i];
			e->reason = "Preempted";
			e->action = "Preempting";
			e->note = preempted_message(preemptor[i], node[i]);
			e->type = "Normal";
			e->controller = component;
			e->may_start = true;
		}
	}
	rows_insert(&deletes);
	(void) write_events(events, nevents);
}

/*
 * OutboxVictims
 *		The victims of preemptor's preemption on node, as the outbox keeps
 *		them: each victim's Preempted event naming preemptor and node, and the
 *		state of the victim's latest deletion (NULL: none written).  fn is
 *		called per victim, in the order they were written.  Reads only.
 */
void
OutboxVictims(const char *preemptor_uid, const char *node,
			  void (*fn) (void *arg, const char *ns, const char *name, const char *uid, const char *deletion),
			  void *arg)
{
	static SPIPlanPtr plan = NULL;
	Oid			type = TEXTOID;
	Datum		msg = CStringGetTextDatum(preempted_message(preemptor_uid, node));
	SPITupleTable *tt;

	if (SPI_execute_plan(PlanKeptBatch(&plan,
									   "SELECT DISTINCT ON (e.id) e.namespace, e.name, e.pod_uid, d.state"
									   " FROM scheduler.outbox e"
									   " LEFT JOIN scheduler.outbox d ON d.kind = 'delete' AND d.pod_uid = e.pod_uid"
									   " WHERE e.kind = 'event' AND e.body ->> 'reason' = 'Preempted'"
									   " AND e.body ->> 'note' = $1 AND NOT e.body ? 'series'"
									   " ORDER BY e.id, d.id DESC",
									   1, &type),
						 &msg, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "outbox: could not read the victims");
	tt = SPI_tuptable;
	for (uint64 i = 0; i < SPI_processed; i++)
		fn(arg, SPI_getvalue(tt->vals[i], tt->tupdesc, 1), SPI_getvalue(tt->vals[i], tt->tupdesc, 2),
		   SPI_getvalue(tt->vals[i], tt->tupdesc, 3), SPI_getvalue(tt->vals[i], tt->tupdesc, 4));
}

/* What the API server has answered is kept as long as the history */
void
OutboxPrune(int retention_s)
{
	static SPIPlanPtr plan = NULL;
	Oid			type = INT4OID;
	Datum		arg = Int32GetDatum(retention_s);

	run(PlanKept(&plan,
				"DELETE FROM scheduler.outbox"
				" WHERE state <> 'pending' AND finished_at < now() - $1 * interval '1 second'",
				1, &type),
		&arg, NULL, SPI_OK_DELETE);
}

/* ------------------------------------------------------------------------
 * The bind worker's side
 * ------------------------------------------------------------------------
 */

/* When the next pending row falls due, in ms from now (at most a second while a binding waits for claims); -1: none */
long
OutboxNextDue(bool bindings, bool status)
{
	static SPIPlanPtr plan = NULL;
	Oid			types[2] = {BOOLOID, BOOLOID};
	Datum		args[2] = {BoolGetDatum(bindings), BoolGetDatum(status)};
	bool		isnull;
	Datum		v;

	/* NULL when nothing is pending (not greatest(0, ...): that makes it 0) */
	run(PlanKept(&plan,
				"SELECT least(ceil(1000 * extract(epoch FROM min(next_attempt_at) - clock_timestamp()))::int8,"
				"  CASE WHEN $1 AND EXISTS (SELECT 1 FROM scheduler.outbox WHERE state = 'pending'"
				"    AND wait_until IS NOT NULL) THEN 1000 END)"
				" FROM scheduler.outbox WHERE state = 'pending' AND isfinite(next_attempt_at)"
				" AND (kind IN ('condition', 'event') AND $2 OR kind NOT IN ('condition', 'event') AND $1)",
				2, types),
		args, NULL, SPI_OK_SELECT);
	if (SPI_processed != 1)
		return -1;
	v = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	return isnull ? -1 : (long) Max(DatumGetInt64(v), 0);
}

/*
 * Failed bindings, their pods forgotten (pending again): each pod's latest
 * attempt is its failure (pending_pods shows the message), and its
 * PodScheduled condition (SchedulerError) and a FailedScheduling event say
 * so in the API, as kube-scheduler's handleSchedulingFailure does when a
 * binding cycle fails (PreBind or Bind).  d[] holds uid and message.
 */
static void
tell_binding_failures(OutboxDecision *d, int n)
{
	static SPIPlanPtr latest = NULL;
	Oid			types[2] = {TEXTARRAYOID, TEXTARRAYOID};
	Datum		args[2];
	List	   *uids = NIL;
	List	   *messages = NIL;

	if (n == 0)
		return;
	for (int i = 0; i < n; i++)
	{
		d[i].error = true;
		uids = lappend(uids, (void *) d[i].uid);
		messages = lappend(messages, (void *) d[i].message);
	}
	OutboxWriteDecisions(d, n, 0);
	args[0] = TextArrayFromList(uids);
	args[1] = TextArrayFromList(messages);
	run(PlanKeptBatch(&latest,
				"UPDATE scheduler.pod_attempts a SET result = 'unschedulable', node = NULL,"
				" message = d.message, rejected_by = '{}', posted_message = d.message,"
				" event_posted_at = now(), last_attempt_at = now()"
				" FROM unnest($1::text[], $2::text[]) AS d(uid, message) WHERE a.pod_uid = d.uid",
				2, types),
		args, NULL, SPI_OK_UPDATE);
}

/*
 * The bindings that wait for their claims (VolumeBinding's PreBind,
 * BindPodVolumes: checkBindings every second until bindTimeoutSeconds).
 * Those that cannot complete fail, as kube-scheduler's PreBind fails: a
 * PreBind request failed (its API error), a provisioned claim whose
 * selected-node the provisioner removed or changed ("selectedNode
 * annotation reset", "provisioning failed"), a volume whose claimRef was
 * reset, a claim deleted, or the timeout.  An object is judged only once
 * the mirror holds a version newer than the one the request patched
 * (CompareResourceVersion, numeric, as kube-scheduler's assume cache
 * compares).  Their pods are forgotten (pending again, in the queue) and
 * told why (PodScheduled False, SchedulerError, and a FailedScheduling
 * event).  A claim the pod shares, annotated for another node since, fails
 * it too (checkBindings: "provisioning failed").  The others are due at
 * once when every PreBind request is done and every claim bound: they came
 * in due at infinity, waiting (wait_until set), and only this makes them
 * due, and no longer waiting (wait_until NULL: never failed after).  The
 * bind worker looks again each second while any waits (OutboxNextDue), and
 * when a claim or volume changes.
 */
#define PREBIND_PREFIX "running PreBind plugin \"VolumeBinding\": "
/* the mirror's version m is newer than the patched one p (unreadable: yes) */
#define NEWER(m, p) "(CASE WHEN " p " ~ '^[0-9]{1,30}$' AND " m " ~ '^[0-9]{1,30}$'" \
	" THEN " m "::numeric > " p "::numeric ELSE true END)"

/*
 * kube-scheduler's BindPodVolumes: bindAPIUpdate sends the requests in
 * order and stops at the first that fails; then checkBindings, each
 * second, goes through the pod, the static bindings and the claims to
 * provision in order, and stops at the first that fails (the binding
 * fails with its words) or is not there yet (it waits: nothing after
 * it is judged this round).  Here each binding's items become rows
 * (why NULL: wait), the first decides; and a request not done yet is a
 * wait, bindAPIUpdate not being over.
 *
 * Planned at each round, not kept (a plan made on the first, small
 * tables stays bad once they are large), and written so that no
 * estimate can make it scan a table per waiting binding: each binding's
 * requests are looked up by id and its claims and volumes by their
 * unique keys, one at a time (LATERAL ... LIMIT 1: nothing else for the
 * planner to combine), and the rest joins what was looked up.
 */
static const char settle_failures[] =
	"WITH b AS MATERIALIZED ("
	" SELECT id, pod_uid, namespace, name, node, waits_for, claims, wait_until FROM scheduler.outbox"
	" WHERE state = 'pending' AND wait_until IS NOT NULL AND kind = 'binding' AND node IS NOT NULL),"
	/* each one's PreBind requests, by id */
	" req AS MATERIALIZED ("
	" SELECT b.id AS bid, r.id, r.kind, r.state, r.object, r.last_error, r.last_status,"
	"  r.body->'metadata'->>'resourceVersion' AS patched, r.body->'spec'->'claimRef'->>'name' AS claim"
	" FROM b CROSS JOIN LATERAL unnest(b.waits_for) AS w(id)"
	" CROSS JOIN LATERAL (SELECT * FROM scheduler.outbox r WHERE r.id = w.id LIMIT 1) r),"
	/* each one's claims, by namespace and name */
	" cl AS MATERIALIZED ("
	" SELECT b.id AS bid, n.claim, n.ord, c.uid, c.selected_node, c.resource_version, c.annotated, c.bound"
	" FROM b CROSS JOIN LATERAL unnest(b.claims) WITH ORDINALITY AS n(claim, ord)"
	" LEFT JOIN LATERAL (SELECT c.uid, c.selected_node, c.resource_version, c.bound,"
	"   jsonb_typeof(c.object->'metadata'->'annotations') = 'object' AS annotated"
	"   FROM scheduler.persistent_volume_claims c WHERE c.namespace = b.namespace AND c.name = n.claim"
	"   LIMIT 1) c ON true),"
	/* each one's claims that a static binding names (one row per binding) */
	" statics AS (SELECT bid, array_agg(claim) AS claims FROM req WHERE kind = 'volume' GROUP BY bid),"
	" items AS ("
	/* bindAPIUpdate: a request refused ends it; one not done yet is a wait */
	" SELECT bid, 1 AS step, id AS ord, CASE WHEN state = 'failed' THEN"
	"  '" PREBIND_PREFIX "' || coalesce(last_error, 'HTTP ' || last_status, 'request failed') END AS why"
	" FROM req WHERE state <> 'done'"
	/* checkBindings: the pod deleted */
	" UNION ALL"
	" SELECT b.id, 2, 0, '" PREBIND_PREFIX "binding volumes: pod does not exist any more: '"
	"  || format('pod %s not found', to_json(b.name))"
	" FROM b LEFT JOIN LATERAL (SELECT true AS there FROM scheduler.pods p WHERE p.uid = b.pod_uid LIMIT 1) p"
	"  ON true WHERE p.there IS NULL"
	/*
	 * each static binding: its volume and claim gone, the mirror
	 * not showing our patch yet (wait), the claimRef reset, the
	 * claim not bound yet (wait)
	 */
	" UNION ALL"
	" SELECT r.bid, 3, r.id, CASE"
	"  WHEN v.uid IS NULL THEN '" PREBIND_PREFIX "binding volumes: '"
	"    || format('failed to check binding: could not find v1.PersistentVolume %s', to_json(r.object))"
	"  WHEN c.uid IS NULL THEN '" PREBIND_PREFIX "binding volumes: '"
	"    || format('failed to check binding: could not find v1.PersistentVolumeClaim %s',"
	"       to_json(b.namespace || '/' || coalesce(r.claim, '')))"
	"  WHEN NOT " NEWER("v.resource_version", "r.patched") " THEN NULL"
	"  WHEN coalesce(v.claim_uid, '') = '' THEN '" PREBIND_PREFIX "binding volumes: '"
	"    || format('ClaimRef got reset for pv %s', to_json(v.name))"
	"  END"
	" FROM req r JOIN b ON b.id = r.bid"
	" LEFT JOIN LATERAL (SELECT v.uid, v.name, v.resource_version,"
	"   v.object->'spec'->'claimRef'->>'uid' AS claim_uid"
	"   FROM scheduler.persistent_volumes v WHERE v.name = r.object LIMIT 1) v ON true"
	" LEFT JOIN LATERAL (SELECT c.uid, c.bound FROM scheduler.persistent_volume_claims c"
	"   WHERE c.namespace = b.namespace AND c.name = r.claim LIMIT 1) c ON true"
	" WHERE r.kind = 'volume' AND r.state = 'done'"
	" AND (v.uid IS NULL OR c.uid IS NULL OR NOT " NEWER("v.resource_version", "r.patched")
	"  OR coalesce(v.claim_uid, '') = '' OR NOT c.bound)"
	/*
	 * each claim to provision: those annotated before (by an
	 * earlier attempt or another pod's request: no request of
	 * ours) first, then ours.  Gone; the mirror not showing our
	 * patch yet (wait); no annotations at all ("reset"); another
	 * node's ("provisioning failed"); not bound yet (wait).  One
	 * annotated before that has none now (another pod's request
	 * not sent yet, or a static binding done before) is waited for.
	 */
	" UNION ALL"
	" SELECT cl.bid, 4, CASE WHEN mine.id IS NULL THEN cl.ord ELSE 1000000000 + mine.id END, CASE"
	"  WHEN cl.uid IS NULL THEN '" PREBIND_PREFIX "binding volumes: '"
	"    || format('failed to check provisioning pvc: could not find v1.PersistentVolumeClaim %s',"
	"       to_json(b.namespace || '/' || cl.claim))"
	"  WHEN mine.id IS NOT NULL AND NOT " NEWER("cl.resource_version", "mine.patched") " THEN NULL"
	"  WHEN mine.id IS NOT NULL AND cl.annotated IS NOT TRUE THEN '" PREBIND_PREFIX "binding volumes: '"
	"    || format('selectedNode annotation reset for PVC %s', to_json(cl.claim))"
	"  WHEN cl.selected_node IS DISTINCT FROM b.node AND (mine.id IS NOT NULL OR cl.selected_node IS NOT NULL)"
	"    THEN '" PREBIND_PREFIX "binding volumes: ' || format('provisioning failed for PVC %s', to_json(cl.claim))"
	"  END"
	" FROM cl JOIN b ON b.id = cl.bid"
	" LEFT JOIN statics ON statics.bid = cl.bid"
	" LEFT JOIN (SELECT DISTINCT ON (bid, object) bid, object, id, patched FROM req"
	"   WHERE kind = 'claim' AND state = 'done' ORDER BY bid, object, id DESC) mine"
	"  ON mine.bid = cl.bid AND mine.object = cl.claim"
	" WHERE NOT coalesce(cl.claim = ANY (statics.claims), false)"
	" AND (cl.uid IS NULL OR cl.bound IS NOT TRUE"
	"  OR (mine.id IS NOT NULL AND NOT " NEWER("cl.resource_version", "mine.patched") ")"
	"  OR cl.selected_node IS DISTINCT FROM b.node)),"
	" first AS (SELECT DISTINCT ON (bid) bid, why FROM items ORDER BY bid, step, ord),"
	/* the poll's timeout */
	" w AS (SELECT b.id, coalesce(f.why, CASE WHEN b.wait_until <= now()"
	"   THEN '" PREBIND_PREFIX "binding volumes: context deadline exceeded' END) AS why"
	"  FROM b LEFT JOIN first f ON f.bid = b.id)"
	" UPDATE scheduler.outbox o SET state = 'failed', finished_at = now(), last_error = w.why"
	" FROM w WHERE o.id = w.id AND w.why IS NOT NULL AND o.state = 'pending' AND o.wait_until IS NOT NULL"
	" RETURNING o.pod_uid, o.node, o.last_error";

static void
settle_waiting_bindings(void)
{
	static SPIPlanPtr forget = NULL;
	OutboxDecision *d;
	int			n;
	List	   *uids = NIL;
	List	   *nodes = NIL;
	Oid			types[2] = {TEXTARRAYOID, TEXTARRAYOID};
	Datum		args[2];

	run_now(settle_failures, SPI_OK_UPDATE_RETURNING);
	n = (int) SPI_processed;
	d = palloc0(sizeof(OutboxDecision) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		HeapTuple	t = SPI_tuptable->vals[i];
		TupleDesc	td = SPI_tuptable->tupdesc;

		d[i].uid = SPI_getvalue(t, td, 1);
		d[i].message = SPI_getvalue(t, td, 3);
		d[i].error = true;
		uids = lappend(uids, (void *) d[i].uid);
		nodes = lappend(nodes, SPI_getvalue(t, td, 2));
	}
	if (n > 0)
	{
		/* forgotten (Unreserve, ForgetPod): pending again; its requests left unsent */
		args[0] = TextArrayFromList(uids);
		args[1] = TextArrayFromList(nodes);
		run(PlanKeptBatch(&forget,
					"WITH f AS (UPDATE scheduler.pods p SET assumed_node = NULL"
					"  FROM unnest($1::text[], $2::text[]) AS d(uid, node)"
					"  WHERE p.uid = d.uid AND p.assumed_node = d.node AND p.node_name IS NULL RETURNING p.uid)"
					" UPDATE scheduler.outbox o SET state = 'failed', finished_at = now(),"
					" last_error = 'not sent: the binding failed'"
					" WHERE o.state = 'pending' AND o.kind IN ('volume', 'claim') AND o.pod_uid = ANY ($1::text[])",
					2, types),
			args, NULL, SPI_OK_UPDATE);
		tell_binding_failures(d, n);
	}
	/* ready: every request done, every claim bound (each looked up by its key) */
	run_now("UPDATE scheduler.outbox b SET next_attempt_at = now(), wait_until = NULL"
				" WHERE b.state = 'pending' AND b.wait_until IS NOT NULL AND b.kind = 'binding'"
				"  AND NOT EXISTS (SELECT 1 FROM unnest(b.waits_for) AS w(id)"
				"    CROSS JOIN LATERAL (SELECT r.state FROM scheduler.outbox r WHERE r.id = w.id LIMIT 1) r"
				"    WHERE r.state <> 'done')"
				"  AND NOT EXISTS (SELECT 1 FROM unnest(b.claims) AS n(claim)"
				"    LEFT JOIN LATERAL (SELECT c.bound FROM scheduler.persistent_volume_claims c"
				"      WHERE c.namespace = b.namespace AND c.name = n.claim LIMIT 1) c ON true"
				"    WHERE c.bound IS NOT TRUE)",
			SPI_OK_UPDATE);
}

/*
 * OutboxClaim
 *		Settle the bindings that wait for claims, close conditions made
 *		stale by a later placement (they would overwrite
 *		PodScheduled=True), then take what is due: bindings, deletions and
 *		PreBind requests first, then conditions and events.
 */
List *
OutboxClaim(int max_bindings, int max_status, const int64 *exclude, int nexclude)
{
	static SPIPlanPtr stale = NULL;
	static SPIPlanPtr due = NULL;
	Oid			types[3] = {INT4OID, INT4OID, INT8ARRAYOID};
	Datum		args[3] = {Int32GetDatum(Max(max_bindings, 0)), Int32GetDatum(Max(max_status, 0)),
	int8_array(exclude, nexclude)};
	List	   *rows = NIL;

	settle_waiting_bindings();
	/* (the pod looked up by uid for each pending condition, whatever the estimates) */
	run(PlanKept(&stale,
				"UPDATE scheduler.outbox o SET state = 'done', finished_at = now(),"
				" last_error = 'not sent: the pod was scheduled since'"
				" WHERE o.state = 'pending' AND o.kind = 'condition'"
				" AND (SELECT p.assumed_node IS NOT NULL OR p.node_name IS NOT NULL"
				"      FROM scheduler.pods p WHERE p.uid = o.pod_uid LIMIT 1)",
				0, NULL),
		NULL, NULL, SPI_OK_UPDATE);
	run(PlanKept(&due,
				"(SELECT id, kind, namespace, name, body::text, object, pod_uid FROM scheduler.outbox"
				"  WHERE state = 'pending' AND kind IN ('binding', 'delete', 'volume', 'claim')"
				"  AND next_attempt_at <= now() AND id <> ALL ($3)"
				"  ORDER BY id LIMIT $1)"
				" UNION ALL"
				" (SELECT id, kind, namespace, name, body::text, object, pod_uid FROM scheduler.outbox"
				"  WHERE state = 'pending' AND kind IN ('condition', 'event') AND next_attempt_at <= now()"
				"  AND id <> ALL ($3)"
				"  ORDER BY kind = 'event', id LIMIT $2)",
				3, types),
		args, NULL, SPI_OK_SELECT);
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		HeapTuple	t = SPI_tuptable->vals[i];
		TupleDesc	td = SPI_tuptable->tupdesc;
		bool		isnull;
		OutboxRow  *r = palloc0(sizeof(OutboxRow));

		r->id = DatumGetInt64(SPI_getbinval(t, td, 1, &isnull));
		r->kind = SPI_getvalue(t, td, 2);
		r->namespace = SPI_getvalue(t, td, 3);
		r->name = SPI_getvalue(t, td, 4);
		r->body = SPI_getvalue(t, td, 5);
		r->object = SPI_getvalue(t, td, 6);
		r->uid = SPI_getvalue(t, td, 7);
		rows = lappend(rows, r);
	}
	return rows;
}

/*
 * OutboxPreBindAssumed
 *		The PreBind requests of pods assumed and not bound, not failed; and
 *		those a pending binding waits for, whatever became of its pod: one
 *		forgotten because its deletion started, or deleted, keeps its
 *		volumes assumed until its binding fails, as kube-scheduler's
 *		handleAssumedPodDeletion frees the pod's room at once but its
 *		volumes only at the binding cycle's Unreserve.  (The pod looked up
 *		by uid per row, whatever the estimates; the pending bindings'
 *		requests read once, hashed.)
 */
void
OutboxPreBindAssumed(void (*fn) (void *arg, const char *kind, const char *ns, const char *object, Jsonb *patch),
					 void *arg)
{
	static SPIPlanPtr plan = NULL;
	SPITupleTable *tt;

	run(PlanKept(&plan,
				"SELECT r.kind, r.namespace, r.object, r.body FROM scheduler.outbox r"
				" LEFT JOIN LATERAL (SELECT true AS assumed FROM scheduler.pods p WHERE p.uid = r.pod_uid"
				"   AND p.assumed_node IS NOT NULL AND p.node_name IS NULL LIMIT 1) p ON true"
				" WHERE r.kind IN ('volume', 'claim') AND r.state <> 'failed'"
				" AND (p.assumed OR r.id IN (SELECT unnest(b.waits_for) FROM scheduler.outbox b"
				"                            WHERE b.kind = 'binding' AND b.state = 'pending'))"
				" ORDER BY r.id",
				0, NULL),
		NULL, NULL, SPI_OK_SELECT);
	tt = SPI_tuptable;
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		Datum		body = SPI_getbinval(tt->vals[i], tt->tupdesc, 4, &isnull);
		char	   *object = SPI_getvalue(tt->vals[i], tt->tupdesc, 3);

		if (isnull || object == NULL)
			continue;
		fn(arg, SPI_getvalue(tt->vals[i], tt->tupdesc, 1), SPI_getvalue(tt->vals[i], tt->tupdesc, 2),
		   object, DatumGetJsonbP(body));
	}
}

/* ------------------------------------------------------------------------
 * The response rules
 * ------------------------------------------------------------------------
 */

/* coalesce(response->>'message', ''): the text of any JSON value */
static char *
response_message(Jsonb *response)
{
	JsonbValue *v;

	if (response == NULL || !JB_ROOT_IS_OBJECT(response))
		return "";
	v = getKeyJsonValueFromContainer(&response->root, "message", 7, NULL);
	if (v == NULL || v->type == jbvNull)
		return "";
	if (v->type == jbvBinary)
		return JsonbToCString(NULL, v->val.binary.data, v->val.binary.len);
	return JScalarText(v);
}

typedef enum Verdict
{
	V_DONE,
	V_RETRY,
	V_FAILED
} Verdict;

/*
 * 201 (200 for a status patch or an event's series): done.  An event's 409
 * (AlreadyExists): done, or retried for a series.  A victim's delete: 202 or
 * 404 (gone already) done too; its 409 (the uid precondition: another pod
 * of that name now) failed.  409 to a binding whose pod is already
 * assigned to the same node: done.  No response (0), 401, 403, 429 or 5xx:
 * retried.  Anything else (-1: not sent; a 404 or another 409 to a
 * binding): failed.  has_status false (SQL NULL): failed.
 */
/* No response (0), 401, 403, 429 or 5xx: an answer that is retried */
static bool
retryable_status(int32 status)
{
	return status == 0 || status == 401 || status == 403 || status == 429 || status >= 500;
}

static Verdict
judge(const char *kind, const char *node, bool series, bool has_status, int32 status, const char *msg)
{
	if (!has_status)
		return V_FAILED;
	if (status == 200 || status == 201)
		return V_DONE;
	/*
	 * An Event that exists (AlreadyExists): made by this create sent before
	 * (its answer lost), done, as client-go does not retry it; for a
	 * series, made meanwhile: retried, its patch goes through next time.
	 */
	if (strcmp(kind, "event") == 0 && status == 409)
		return series ? V_RETRY : V_DONE;
	if (strcmp(kind, "delete") == 0 && (status == 202 || status == 404))
		return V_DONE;
	/* a PreBind patch: any other answer but a retry fails it, and its binding */
	if (strcmp(kind, "binding") == 0 && status == 409 && node != NULL &&
		strstr(msg, psprintf("is already assigned to node \"%s\"", node)) != NULL)
		return V_DONE;
	if (retryable_status(status))
		return V_RETRY;
	return V_FAILED;
}

/* A request's row, locked, and the verdict this batch writes to it */
typedef struct Request
{
	int64		id;
	char	   *kind;
	char	   *pod_uid;
	char	   *node;
	char	   *state;
	int32		attempts;
	bool		series;			/* an event's series */
	/* the verdict to write, when written */
	bool		written;
	const char *new_state;		/* "done" or "failed"; NULL: pending, due at next_at */
	TimestampTz next_at;
	bool		has_status;
	int32		status;
	const char *msg;			/* "": none */
} Request;

static int
request_cmp(const void *a, const void *b)
{
	int64		x = ((const Request *) a)->id;
	int64		y = ((const Request *) b)->id;

	return (x > y) - (x < y);
}

/*
 * The rows of these ids that exist, locked in id order (no two recorders
 * wait on each other), sorted by id; *nrows of them.
 */
static Request *
lock_requests(const int64 *ids, int n, int *nrows)
{
	static SPIPlanPtr plan = NULL;
	Oid			type = INT8ARRAYOID;
	Datum		arg = int8_array(ids, n);
	Request    *rs;

	run(PlanKeptBatch(&plan,
					  "SELECT id, kind, pod_uid, node, state, attempts, body ? 'series' FROM scheduler.outbox"
					  " WHERE id = ANY($1) ORDER BY id FOR UPDATE",
					  1, &type),
		&arg, NULL, SPI_OK_SELECT);
	rs = palloc0(sizeof(Request) * Max(SPI_processed, 1));
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		HeapTuple	t = SPI_tuptable->vals[i];
		TupleDesc	td = SPI_tuptable->tupdesc;
		Request    *r = &rs[i];
		bool		isnull;

		r->id = DatumGetInt64(SPI_getbinval(t, td, 1, &isnull));
		r->kind = SPI_getvalue(t, td, 2);
		r->pod_uid = SPI_getvalue(t, td, 3);
		r->node = SPI_getvalue(t, td, 4);
		r->state = SPI_getvalue(t, td, 5);
		r->attempts = DatumGetInt32(SPI_getbinval(t, td, 6, &isnull));
		r->series = DatumGetBool(SPI_getbinval(t, td, 7, &isnull)) && !isnull;
	}
	*nrows = (int) SPI_processed;
	/* (sorted already: kept so, whatever the plan) */
	qsort(rs, *nrows, sizeof(Request), request_cmp);
	return rs;
}

/* now() + min(2^min(attempts, 10), 60) seconds */
static TimestampTz
retry_at(int32 attempts)
{
	Interval	second = {.time = USECS_PER_SEC};
	double		secs = Min(pow(2.0, (double) Min(attempts, 10)), 60.0);
	Datum		iv = DirectFunctionCall2(interval_mul, IntervalPGetDatum(&second), Float8GetDatum(secs));

	return DatumGetTimestampTz(DirectFunctionCall2(timestamptz_pl_interval,
												   TimestampTzGetDatum(GetCurrentTransactionStartTimestamp()),
												   iv));
}

/*
 * Write the verdicts, one statement for the batch: a retry keeps its row
 * pending, due again at next_at; done and failed close it.  A PodScheduled
 * condition that failed is no longer the pod's last message told
 * (pod_attempts.posted_message): the next failure with that message writes
 * it again, as kube-scheduler's updatePod compares with the pod's own
 * condition, which never got it.  Only with cycle_lock held (record()
 * takes it first when a condition may fail): schedule_pending() writes
 * pod_attempts and then pending condition rows (a nomination), so a
 * recorder holding a condition row must not wait for pod_attempts.
 */
static void
write_verdicts(const Request *rs, int nrows, bool cycle_locked)
{
	static SPIPlanPtr plan = NULL;
	Oid			types[7] = {INT8ARRAYOID, TEXTARRAYOID, INT4ARRAYOID, INT4ARRAYOID, TEXTARRAYOID,
	TIMESTAMPTZARRAYOID, BOOLOID};
	Datum		args[7];
	int64	   *ids = palloc(sizeof(int64) * Max(nrows, 1));
	const char **states = palloc(sizeof(char *) * Max(nrows, 1));
	const char **msgs = palloc(sizeof(char *) * Max(nrows, 1));
	Datum	   *tries = palloc(sizeof(Datum) * Max(nrows, 1));
	Datum	   *statuses = palloc(sizeof(Datum) * Max(nrows, 1));
	bool	   *status_nulls = palloc(sizeof(bool) * Max(nrows, 1));
	Datum	   *nexts = palloc(sizeof(Datum) * Max(nrows, 1));
	bool	   *next_nulls = palloc(sizeof(bool) * Max(nrows, 1));
	int			dims[1];
	int			lbs[1] = {1};
	int			n = 0;

	for (int i = 0; i < nrows; i++)
	{
		const Request *r = &rs[i];

		if (!r->written)
			continue;
		ids[n] = r->id;
		states[n] = r->new_state;
		msgs[n] = r->msg[0] ? r->msg : NULL;
		tries[n] = Int32GetDatum(r->attempts);
		status_nulls[n] = !r->has_status;
		statuses[n] = Int32GetDatum(r->has_status ? r->status : 0);
		next_nulls[n] = (r->new_state != NULL);
		nexts[n] = TimestampTzGetDatum(r->next_at);
		n++;
	}
	if (n == 0)
		return;
	dims[0] = n;
	args[0] = int8_array(ids, n);
	args[1] = text_array(states, n);
	args[2] = PointerGetDatum(construct_array(tries, n, INT4OID, 4, true, TYPALIGN_INT));
	args[3] = PointerGetDatum(construct_md_array(statuses, status_nulls, 1, dims, lbs, INT4OID, 4, true,
												 TYPALIGN_INT));
	args[4] = text_array(msgs, n);
	args[5] = PointerGetDatum(construct_md_array(nexts, next_nulls, 1, dims, lbs, TIMESTAMPTZOID, 8,
												 FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	args[6] = BoolGetDatum(cycle_locked);
	run(PlanKeptBatch(&plan,
					  "WITH v AS (UPDATE scheduler.outbox o SET state = coalesce(d.state, o.state), attempts = d.tries,"
					  " last_status = d.status, last_error = d.msg,"
					  " next_attempt_at = coalesce(d.next_at, o.next_attempt_at),"
					  " finished_at = CASE WHEN d.state IS NOT NULL THEN now() ELSE o.finished_at END"
					  " FROM (SELECT unnest($1::int8[]) AS id, unnest($2::text[]) AS state, unnest($3::int4[]) AS tries,"
					  "       unnest($4::int4[]) AS status, unnest($5::text[]) AS msg,"
					  "       unnest($6::timestamptz[]) AS next_at) d"
					  " WHERE o.id = d.id"
					  " RETURNING o.pod_uid, CASE WHEN o.kind = 'condition' AND d.state = 'failed'"
					  "  THEN o.body #>> '{status,conditions,0,message}' END AS lost)"
					  /* a condition that never landed is not the pod's: told again */
					  " UPDATE scheduler.pod_attempts a SET posted_message = NULL FROM v"
					  " WHERE $7 AND v.lost IS NOT NULL AND a.pod_uid = v.pod_uid AND a.posted_message = v.lost",
					  7, types),
		args, NULL, SPI_OK_UPDATE);
}

/*
 * A failed binding forgets its reservation (the pod is pending again, if it
 * still exists): true when it did
 */
static bool
forget_reservation(const Request *r)
{
	static SPIPlanPtr plan = NULL;
	Oid			types[2] = {TEXTOID, TEXTOID};
	Datum		args[2] = {CStringGetTextDatum(r->pod_uid), CStringGetTextDatum(r->node)};

	run(PlanKept(&plan,
				"UPDATE scheduler.pods SET assumed_node = NULL"
				" WHERE uid = $1 AND assumed_node = $2 AND node_name IS NULL",
				2, types),
		args, NULL, SPI_OK_UPDATE);
	return SPI_processed > 0;
}

/*
 * A PreBind patch answered 409 whose change the mirror already shows (the
 * volume claimed by the claim it names, the claim annotated with its node):
 * sent before, by a bind worker killed before it recorded the answer, as a
 * binding sent twice is answered "already assigned".  Done, then.
 */
static bool
prebind_applied(int64 id)
{
	static SPIPlanPtr plan = NULL;
	Oid			type = INT8OID;
	Datum		arg = Int64GetDatum(id);

	run(PlanKept(&plan,
				"SELECT 1 FROM scheduler.outbox r"
				" WHERE r.id = $1 AND ("
				"  (r.kind = 'claim' AND EXISTS (SELECT 1 FROM scheduler.persistent_volume_claims c"
				"    WHERE c.namespace = r.namespace AND c.name = r.object"
				"    AND c.selected_node = r.body->'metadata'->'annotations'->>'volume.kubernetes.io/selected-node'))"
				"  OR (r.kind = 'volume' AND EXISTS (SELECT 1 FROM scheduler.persistent_volumes v"
				"    WHERE v.name = r.object"
				"    AND v.claim_namespace = r.body->'spec'->'claimRef'->>'namespace'"
				"    AND v.claim_name = r.body->'spec'->'claimRef'->>'name')))",
				1, &type),
		&arg, NULL, SPI_OK_SELECT);
	return SPI_processed > 0;
}

/*
 * Must the recorder take cycle_lock before these rows, the responses that
 * are no plain success (failed[]: those that are no retry either)?  When
 * one is a binding (its failure forgets a reservation), or may fail a
 * pending condition (its failure clears pod_attempts.posted_message): an
 * answer that is no retry, or the attempts cap reached.  A condition's 404
 * is left out: the pod is gone.  (Read unlocked: a row's kind never
 * changes, but a concurrent recorder, a SQL outbox_result() beside the
 * bind worker, may move a condition's attempts; one failed so without the
 * lock clears nothing, and the pod's next failure with that message then
 * writes no condition.  The bind worker alone never races itself: a row is
 * in one flight at a time.)
 */
static bool
needs_cycle_lock(const int64 *unsure, int nunsure, const int64 *failed, int nfailed,
				 bool has_cap, int32 max_attempts)
{
	static SPIPlanPtr plan = NULL;
	Oid			types[4] = {INT8ARRAYOID, INT8ARRAYOID, BOOLOID, INT4OID};
	Datum		args[4];

	args[0] = int8_array(unsure, nunsure);
	args[1] = int8_array(failed, nfailed);
	args[2] = BoolGetDatum(has_cap);
	args[3] = Int32GetDatum(max_attempts);
	run(PlanKeptBatch(&plan,
					  "SELECT 1 FROM scheduler.outbox WHERE id = ANY($1) AND (kind = 'binding'"
					  " OR (kind = 'condition' AND state = 'pending'"
					  "     AND (id = ANY($2) OR ($3 AND attempts::int8 >= $4::int8 - 1)))) LIMIT 1",
					  4, types),
		args, NULL, SPI_OK_SELECT);
	return SPI_processed > 0;
}

/* The events pending, as scheduled_events() counts them in this transaction */
static LocalTransactionId counted_in = InvalidLocalTransactionId;
static int64 waiting = 0;

/*
 * Bindings done: kube-scheduler's Normal "Scheduled" event on each pod,
 * "Successfully assigned <ns>/<name> to <node>", reported by its
 * schedulerName, sent after the binding as the status writes are; in the
 * order of ids[], written together.
 */
static void
scheduled_events(const int64 *ids, int n)
{
	static SPIPlanPtr plan = NULL;
	static SPIPlanPtr count_plan = NULL;
	Oid			type = INT8ARRAYOID;
	Datum		arg;
	EventSpec  *e;
	int			m = 0;
	bool		isnull;

	if (n == 0)
		return;

	/*
	 * As client-go's broadcaster drops events when 1000 wait, no Scheduled
	 * event is written past 1000 pending: counted once per transaction
	 * (the bind worker records a flight's responses in one), after the
	 * batch's verdicts, then followed as this transaction writes events
	 * and records theirs (events_left).  Counting at each binding read the
	 * 1000 rows again for every one while they waited.  An estimate, as
	 * client-go's is: what other sessions commit meanwhile is not seen, so
	 * the cap may be passed by a flight; and a batch's room is taken by
	 * the first bindings done in it, each counted as one Event made (one
	 * that repeats an earlier Event, counted in its series, makes none).
	 */
	if (MyProc->lxid != counted_in)
	{
		run(PlanKept(&count_plan,
					 "SELECT count(*) FROM (SELECT 1 FROM scheduler.outbox e"
					 " WHERE e.state = 'pending' AND e.kind = 'event' LIMIT 1000) w",
					 0, NULL),
			NULL, NULL, SPI_OK_SELECT);
		waiting = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
		counted_in = MyProc->lxid;
	}
	if (waiting >= 1000)
		return;

	/* The binding row names its scheduler (rows written before it did: the pod's) */
	arg = int8_array(ids, n);
	run(PlanKeptBatch(&plan,
					  "SELECT o.namespace, o.name, o.pod_uid, o.node,"
					  " coalesce(o.object, (SELECT p.scheduler_name FROM scheduler.pods p WHERE p.uid = o.pod_uid LIMIT 1))"
					  " FROM unnest($1::int8[]) WITH ORDINALITY AS d(id, i)"
					  " JOIN scheduler.outbox o ON o.id = d.id"
					  " WHERE o.node IS NOT NULL ORDER BY d.i",
					  1, &type),
		&arg, NULL, SPI_OK_SELECT);
	e = palloc0(sizeof(EventSpec) * Max(SPI_processed, 1));
	for (uint64 i = 0; i < SPI_processed && m < 1000 - waiting; i++)
	{
		HeapTuple	t = SPI_tuptable->vals[i];
		TupleDesc	td = SPI_tuptable->tupdesc;
		EventSpec  *x = &e[m];

		x->ns = SPI_getvalue(t, td, 1);
		x->name = SPI_getvalue(t, td, 2);
		x->uid = SPI_getvalue(t, td, 3);
		x->controller = SPI_getvalue(t, td, 5);
		if (x->ns == NULL || x->name == NULL || x->uid == NULL || x->controller == NULL)
			continue;
		x->reason = "Scheduled";
		x->action = "Binding";
		x->note = psprintf("Successfully assigned %s/%s to %s", x->ns, x->name, SPI_getvalue(t, td, 4));
		x->type = "Normal";
		x->may_start = true;
		m++;
	}
	waiting += write_events(e, m);
}

/* An event's request left the pending ones: the count above follows it */
static void
events_left(void)
{
	if (MyProc->lxid == counted_in && waiting > 0)
		waiting--;
}

/*
 * Apply the responses, in their order; each one's request's new state in
 * states[] (when not NULL).  A late duplicate report changes nothing.  A
 * retry that would be attempt max_attempts (has_cap) fails instead: "gave
 * up after N attempts".  Attempts stop at the int4 maximum.  The rows are
 * locked together, in id order; the verdicts written in one statement,
 * then the Scheduled events of the bindings done, in another: a flight's
 * responses are recorded in a few statements, not a few per response.
 *
 * A failed binding forgets its pod's reservation, an UPDATE of pods, which
 * takes cycle_lock SHARE (writer_lock): when a binding's response is not a
 * plain success (200, 201), cycle_lock is taken first, before the rows, as
 * schedule_pending() takes it before it writes pending rows (a condition
 * superseded, a nomination): neither then holds what the other waits for.
 * So is it when a condition may fail (needs_cycle_lock): its failure
 * clears pod_attempts.posted_message (write_verdicts).  Other failures
 * forget nothing and wait for no scheduling call; a condition retried
 * (429, 5xx) takes no lock.
 */
static void
record(const OutboxResponse *resps, const bool *has_status, int n, bool has_cap, int32 max_attempts,
	   const char **states)
{
	int64	   *ids = palloc(sizeof(int64) * Max(n, 1));
	int64	   *bound = palloc(sizeof(int64) * Max(n, 1));
	int			nbound = 0;
	List	   *forgets = NIL;
	int64	   *unsure = palloc(sizeof(int64) * Max(n, 1));	/* not a plain success */
	int64	   *failed = palloc(sizeof(int64) * Max(n, 1));	/* nor a retry, nor a 404 */
	int			nunsure = 0;
	int			nfailed = 0;
	bool		cycle_locked = false;
	Request    *rs;
	int			nrows;
	ListCell   *lc;
	OutboxDecision *told;
	int			ntold = 0;

	for (int i = 0; i < n; i++)
	{
		int32		st = resps[i].http_status;

		ids[i] = resps[i].id;
		if ((has_status && !has_status[i]) || (st != 200 && st != 201))
		{
			/* (a 404: the pod is gone, and its pod_attempts row with it) */
			if ((has_status && !has_status[i]) || (!retryable_status(st) && st != 404))
				failed[nfailed++] = resps[i].id;
			unsure[nunsure++] = resps[i].id;
		}
	}
	if (nunsure > 0 && needs_cycle_lock(unsure, nunsure, failed, nfailed, has_cap, max_attempts))
	{
		LockRelationOid(SchedulerRelid("cycle_lock"), ShareLock);
		cycle_locked = true;
	}
	rs = lock_requests(ids, n, &nrows);
	for (int i = 0; i < n; i++)
	{
		const OutboxResponse *p = &resps[i];
		bool		hs = has_status ? has_status[i] : true;
		Request		key = {.id = p->id};
		Request    *r = bsearch(&key, rs, nrows, sizeof(Request), request_cmp);
		char	   *msg = response_message(p->response);
		int32		tries;
		Verdict		v;

		if (r == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_OBJECT),
					 errmsg("outbox request %lld not found", (long long) p->id)));
		if (strcmp(r->state, "pending") != 0)
		{
			if (states)
				states[i] = r->state;
			continue;
		}
		tries = Min(r->attempts, PG_INT32_MAX - 1) + 1;
		v = judge(r->kind, r->node, r->series, hs, p->http_status, msg);
		if (v == V_FAILED && hs && p->http_status == 409 && prebind_applied(r->id))
			v = V_DONE;
		if (v == V_RETRY && has_cap && tries >= max_attempts)
		{
			v = V_FAILED;
			msg = psprintf("gave up after %d attempts%s%s", tries, msg[0] ? ": " : "", msg);
		}
		/* a 2xx's body is the object, not an error: its message is not one to keep */
		if (hs && p->http_status >= 200 && p->http_status < 300)
			msg = "";
		/* the server's Retry-After, when it gave one; else the backoff */
		if (v == V_RETRY)
			r->next_at = p->retry_after_ms >= 0
				? TimestampTzPlusMilliseconds(GetCurrentTransactionStartTimestamp(),
											  Min(p->retry_after_ms, 600000L))
				: retry_at(r->attempts);
		r->written = true;
		r->new_state = v == V_DONE ? "done" : v == V_FAILED ? "failed" : NULL;
		r->has_status = hs;
		r->status = p->http_status;
		r->msg = msg;
		/* as the row now is: a second report of it in the batch sees this */
		r->attempts = tries;
		if (r->new_state)
			r->state = (char *) r->new_state;
		if (states)
			states[i] = v == V_RETRY ? "pending" : r->new_state;
		if (v == V_FAILED && strcmp(r->kind, "binding") == 0 && r->node != NULL)
			forgets = lappend(forgets, r);
		if (v != V_RETRY && strcmp(r->kind, "event") == 0)
			events_left();
		if (v == V_DONE && strcmp(r->kind, "binding") == 0)
			bound[nbound++] = r->id;
	}
	write_verdicts(rs, nrows, cycle_locked);
	told = palloc0(sizeof(OutboxDecision) * Max(list_length(forgets), 1));
	foreach(lc, forgets)
	{
		const Request *r = lfirst(lc);

		/*
		 * Told why as a failed Bind plugin is (DefaultBinder's error), but
		 * for a 404 or a 409: the pod is gone, or bound elsewhere, or
		 * another pod has its name now (the uid precondition), and a
		 * condition patched by name would say False over the True of its
		 * binding, or tell the other pod
		 */
		if (forget_reservation(r) && !(r->has_status && (r->status == 404 || r->status == 409)))
		{
			told[ntold].uid = r->pod_uid;
			told[ntold].message =
				psprintf("running Bind plugin \"DefaultBinder\": %s",
						 r->msg[0] ? r->msg : r->has_status ? psprintf("HTTP %d", r->status) : "no response");
			ntold++;
		}
	}
	tell_binding_failures(told, ntold);
	scheduled_events(bound, nbound);
}

/*
 * OutboxRecordMany
 *		The bind worker's report of responses (inside SPI).
 */
void
OutboxRecordMany(const OutboxResponse *responses, int n, int32 max_attempts)
{
	if (n > 0)
		record(responses, NULL, n, true, max_attempts, NULL);
}

/*
 * OutboxRecord
 *		One response; the row's new state.
 */
const char *
OutboxRecord(int64 id, int32 http_status, Jsonb *response, int32 max_attempts, long retry_after_ms)
{
	OutboxResponse r = {id, http_status, response, retry_after_ms};
	const char *state;

	record(&r, NULL, 1, true, max_attempts, &state);
	return state;
}

PG_FUNCTION_INFO_V1(scheduler_outbox_result);
/*
 * scheduler.outbox_result(request bigint, http_status integer,
 *						   response jsonb DEFAULT NULL,
 *						   max_attempts integer DEFAULT 10) RETURNS text
 *	A NULL status fails the request; a NULL cap retries without end.
 */
Datum
scheduler_outbox_result(PG_FUNCTION_ARGS)
{
	const char *state;
	size_t		len;
	text	   *result;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("outbox request <NULL> not found")));
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	{
		OutboxResponse r = {PG_GETARG_INT64(0), PG_ARGISNULL(1) ? 0 : PG_GETARG_INT32(1),
		PG_ARGISNULL(2) ? NULL : PG_GETARG_JSONB_P(2), -1};
		bool		has_status = !PG_ARGISNULL(1);

		record(&r, &has_status, 1, !PG_ARGISNULL(3), PG_ARGISNULL(3) ? 0 : PG_GETARG_INT32(3), &state);
	}
	len = strlen(state);
	result = (text *) SPI_palloc(VARHDRSZ + len);
	SET_VARSIZE(result, VARHDRSZ + len);
	memcpy(VARDATA(result), state, len);
	SPI_finish();
	PG_RETURN_TEXT_P(result);
}

/*
 * OutboxCloseBindingsToDeleted
 *		Close unsent the bindings still waiting for nodes just deleted: those
 *		in the trigger's transition table old_rows (registered on the
 *		caller's SPI connection), or every node's after a TRUNCATE, and
 *		their pods' PreBind requests not sent yet.  A pod placed anew is
 *		never bound to a vanished node first, nor its claim annotated so.
 */
void
OutboxCloseBindingsToDeleted(bool all)
{
	static const char *const close_deleted =
	"WITH c AS (UPDATE scheduler.outbox o SET state = 'failed', finished_at = now(),"
	" last_error = 'not sent: node \"' || g.name || '\" was deleted'"
	" FROM (SELECT name FROM old_rows OFFSET 0) g"
	" WHERE o.state = 'pending' AND o.kind = 'binding' AND o.node = g.name RETURNING o.pod_uid, o.last_error)"
	" UPDATE scheduler.outbox o SET state = 'failed', finished_at = now(), last_error = c.last_error"
	" FROM c WHERE o.state = 'pending' AND o.kind IN ('volume', 'claim') AND o.pod_uid = c.pod_uid";
	static const char *const close_all =
	"WITH c AS (UPDATE scheduler.outbox o SET state = 'failed', finished_at = now(),"
	" last_error = 'not sent: node \"' || o.node || '\" was deleted'"
	" WHERE o.state = 'pending' AND o.kind = 'binding' RETURNING o.pod_uid, o.last_error)"
	" UPDATE scheduler.outbox o SET state = 'failed', finished_at = now(), last_error = c.last_error"
	" FROM c WHERE o.state = 'pending' AND o.kind IN ('volume', 'claim') AND o.pod_uid = c.pod_uid";

	if (SPI_execute(all ? close_all : close_deleted, false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "could not close the bindings to deleted nodes");
}
