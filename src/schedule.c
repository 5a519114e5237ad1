/*
 * schedule.c
 *	  schedule_pending(max_pods): run scheduling cycles for the pods the queue
 *	  holds ready, and write the results back.
 *
 * One call:
 *	 1. serialises: it locks scheduler.cycle_lock EXCLUSIVE (every writer of
 *		nodes and pods holds it in SHARE mode, so a change commits either
 *		before this call reads the cluster or after it commits, never unseen
 *		in between; nobody else may take it: access.c), then updates its
 *		single row
 *		(under REPEATABLE READ or SERIALIZABLE a caller with a stale snapshot
 *		fails with a serialization error instead of reading stale room);
 *	 2. moves pods whose backoff expired to active, and pods unschedulable
 *		for longer than scheduler.unschedulable_timeout back to backoff or
 *		active (kube-scheduler's flushBackoffQCompleted and
 *		flushUnschedulablePodsLeftover);
 *	 3. refreshes the snapshot (snapshot.c), loads the profile of
 *		scheduler.scheduler_name (profile.c), and takes the active pods of
 *		that schedulerName, highest priority first, then longest queued;
 *	 4. runs one cycle per pod (framework.c), starting each node search where
 *		the last one stopped, reserving each choice on the snapshot (the
 *		assume cache); a cycle that throws fails its pod alone (kube-
 *		scheduler's error status: backoff), and one that crashed the server
 *		last time has its pod set aside (a marker file, below);
 *	 5. writes back in a few batched statements: the attempt history, the
 *		choices (pods.assumed_node, which takes the pods out of the queue),
 *		the failures (unschedulable with their rejecting plugins, or backoff
 *		after an error; attempts and backoff as kube-scheduler counts them),
 *		the outbox for the API server (when scheduler.kube_api_url is set)
 *		and the latest attempt per pod;
 *	 6. adds its attempts to kube-scheduler's running totals (metrics.c:
 *		scheduler_schedule_attempts_total and its histograms), tallied as
 *		they were written, in one statement.
 */
#include "postgres.h"

#include <signal.h>
#include <unistd.h>

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "common/int.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/fd.h"
#include "storage/lmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "access.h"
#include "jsonutil.h"
#include "metrics.h"
#include "outbox.h"
#include "plans.h"
#include "explain.h"
#include "framework.h"
#include "profile.h"
#include "schedule.h"
#include "subxact.h"
#include "scheduling_queue.h"


/*
 * The results are written every WRITE_CHUNK pods, or sooner when what the
 * chunk holds (diagnoses over every node, mostly) passes WRITE_CHUNK_BYTES
 */
#define WRITE_CHUNK 1024
#define WRITE_CHUNK_BYTES (8 * 1024 * 1024)

typedef struct Attempt
{
	PodInfo		pod;
	const char *node;			/* NULL when unschedulable */
	char	   *message;
	Jsonb	   *diagnosis;		/* NULL when scheduled, or when shared */
	int			diagnosis_of;	/* index of the attempt (same chunk) whose equal diagnosis
								 * this one shares; -1 none */
	Jsonb	   *rejected_by;	/* jsonb array of plugin names */
	bool		error;			/* a plugin failed: backoff, not unschedulable */
	bool		internal;		/* its cycle threw an ERROR (not a plugin's status) */
	bool		set_aside;		/* not tried again until it changes (its cycle crashed) */
	int64		cycle_us;		/* this pod's cycle */
	const char *nominated;		/* preemption made room there */
	bool		clear_nomination;	/* preemption failed: no nominated node */
	List	   *victims;		/* uids of the pods preemption deletes */
	List	   *prebind;		/* Reserve's PreBindRequest *, sent before the binding */
	List	   *wait_claims;	/* char *: the claims the binding waits for */
	int64		wait_seconds;
	const char *profile;		/* its schedulerName: the metrics' profile */
	int64		queued_attempts;	/* attempts before this one (scheduler.queue) */
	TimestampTz first_enqueued; /* when it entered the queue; -infinity unknown */
	TimestampTz queued_since;	/* since when it waited in active (read with it); 0: not read */
	TimestampTz ended;			/* when its cycle ended */
} Attempt;

static void
exec_args(const char *sql, int n, Oid *types, Datum *args, const char *nulls, int expect)
{
	int			rc = SPI_execute_with_args(sql, n, types, args, nulls, false, 0);

	if (rc != expect)
		elog(ERROR, "schedule_pending: statement failed (%s): %s", SPI_result_code_string(rc), sql);
}

/* The attempts that nominate (or clear a nomination): their uids and nodes, collected once */
typedef struct Nominations
{
	List	   *uids;
	List	   *nodes;			/* nomination_of() each: '' clears */
} Nominations;

static void write_preemptions(Attempt *attempts, int n, bool outbox, const Nominations *nom);

/* The rejecting plugins (d.rejected, a text[] literal: rejected_literal) as text[] */
#define REJECTED_BY "d.rejected::text[]"

/*
 * The history, before the queue rows change: how long each pod waited in
 * active, and its cycle (args: write_results' first 7).  Their ids first,
 * so that an attempt can name the one whose diagnosis it shares (pods that
 * failed alike, in this chunk, store it once).  (Only this statement reads
 * $4, the diagnoses: an unnest of them copies every one.)  The pods'
 * namespaces and names come as read with them, not looked up again.
 * Returns the ids.
 */
static Datum
write_history(Attempt *attempts, int n, Datum *args)
{
	int			dims[1] = {n};
	int			lbs[1] = {1};
	Datum		hargs[12];
	Oid			htypes[12] = {TEXTARRAYOID, TEXTARRAYOID, TEXTARRAYOID, JSONBARRAYOID, TEXTARRAYOID,
	BOOLARRAYOID, INT8ARRAYOID, INT8ARRAYOID, INT8ARRAYOID, TIMESTAMPTZARRAYOID, TEXTARRAYOID, TEXTARRAYOID};
	Datum	   *ids = palloc(sizeof(Datum) * n);
	Datum	   *nss = palloc(sizeof(Datum) * n);
	Datum	   *names = palloc(sizeof(Datum) * n);
	Datum	   *of = palloc(sizeof(Datum) * n);
	bool	   *of_nulls = palloc(sizeof(bool) * n);
	Datum	   *since = palloc(sizeof(Datum) * n);
	bool	   *since_nulls = palloc(sizeof(bool) * n);
	Oid			t = INT4OID;
	Datum		v = Int32GetDatum(n);

	/*
	 * n ids in a row: the next value, and the sequence set past the others
	 * (a nextval per id cost as much as an index insert).  schedule_pending()
	 * is the only writer of the history, and one call runs at a time (the
	 * cycle lock).  A sequence altered to step otherwise than by 1, or to
	 * cycle, gives the others one nextval each, as it would.
	 */
#define HISTORY_SEQUENCE \
	" (SELECT pg_catalog.pg_get_serial_sequence('scheduler.attempt_history', 'id')::regclass AS seq OFFSET 0) s"
	exec_args("SELECT f.first, CASE WHEN q.plain THEN pg_catalog.setval(s.seq, f.first + $1 - 1) END IS NOT NULL"
			  " FROM" HISTORY_SEQUENCE ","
			  " LATERAL (SELECT coalesce((SELECT q.seqincrement = 1 AND NOT q.seqcycle FROM pg_catalog.pg_sequence q"
			  "                           WHERE q.seqrelid = s.seq), false) AS plain) q,"
			  " LATERAL (SELECT pg_catalog.nextval(s.seq) AS first OFFSET 0) f", 1, &t, &v, NULL, SPI_OK_SELECT);
	{
		bool		isnull;
		int64		first = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
		bool		stepped = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));

		ids[0] = Int64GetDatum(first);
		if (stepped)
			for (int i = 1; i < n; i++)
				ids[i] = Int64GetDatum(first + i);
		else if (n > 1)
		{
			v = Int32GetDatum(n - 1);
			exec_args("SELECT pg_catalog.nextval(s.seq) FROM" HISTORY_SEQUENCE ", pg_catalog.generate_series(1, $1)",
					  1, &t, &v, NULL, SPI_OK_SELECT);
			for (int i = 1; i < n; i++)
				ids[i] = SPI_getbinval(SPI_tuptable->vals[i - 1], SPI_tuptable->tupdesc, 1, &isnull);
		}
#undef HISTORY_SEQUENCE
	}
	for (int i = 0; i < n; i++)
	{
		of_nulls[i] = (attempts[i].diagnosis_of < 0);
		of[i] = of_nulls[i] ? (Datum) 0 : ids[attempts[i].diagnosis_of];
		since_nulls[i] = (attempts[i].queued_since == 0);
		since[i] = TimestampTzGetDatum(attempts[i].queued_since);
		nss[i] = CStringGetTextDatum(attempts[i].pod.namespace);
		names[i] = CStringGetTextDatum(attempts[i].pod.name);
	}
	memcpy(hargs, args, sizeof(Datum) * 7);
	hargs[7] = PointerGetDatum(construct_array(ids, n, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	hargs[8] = PointerGetDatum(construct_md_array(of, of_nulls, 1, dims, lbs, INT8OID, 8,
												  FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	hargs[9] = PointerGetDatum(construct_md_array(since, since_nulls, 1, dims, lbs, TIMESTAMPTZOID, 8,
												  FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	hargs[10] = PointerGetDatum(construct_array(nss, n, TEXTOID, -1, false, TYPALIGN_INT));
	hargs[11] = PointerGetDatum(construct_array(names, n, TEXTOID, -1, false, TYPALIGN_INT));
	exec_args("INSERT INTO scheduler.attempt_history (id, pod_uid, namespace, name, attempted_at, result,"
			  " node, message, rejected_by, diagnosis, diagnosis_of, queue_wait, cycle_time)"
			  " OVERRIDING SYSTEM VALUE"
			  " SELECT d.id, d.uid, d.namespace, d.name, now(),"
			  " CASE WHEN d.node IS NULL THEN 'unschedulable' ELSE 'scheduled' END,"
			  " d.node, d.message, " REJECTED_BY ", d.diagnosis, d.diag_of,"
			  " CASE WHEN isfinite(q.since) THEN now() - q.since END, d.cycle_us * interval '1 microsecond'"
			  " FROM (SELECT unnest($1::text[]) AS uid, unnest($2::text[]) AS node, unnest($3::text[]) AS message,"
			  " unnest($4::jsonb[]) AS diagnosis, unnest($5::text[]) AS rejected, unnest($6::bool[]) AS error,"
			  " unnest($7::int8[]) AS cycle_us, unnest($8::int8[]) AS id, unnest($9::int8[]) AS diag_of,"
			  " unnest($10::timestamptz[]) AS since, unnest($11::text[]) AS namespace, unnest($12::text[]) AS name) d,"
			  /*
			   * as read with the pod (a popped pod's row does not move while
			   * it is tried), else looked up by key (a join was hashed over
			   * the whole queue per chunk)
			   */
			  " LATERAL (SELECT coalesce(d.since, (SELECT coalesce(q.moved_at, q.first_enqueued_at)"
			  "                                    FROM scheduler.queue q WHERE q.pod_uid = d.uid)) AS since) q",
			  12, htypes, hargs, NULL, SPI_OK_INSERT);
	return hargs[7];
}

/*
 * The latest attempt per pod, for why() (args and types: write_results',
 * $4 replaced by the history ids); and, when the outbox was written, the
 * PodScheduled message and the time of the event put in it.  A placement
 * forgets the message: the bind worker closes a condition not sent yet
 * when its pod is placed (it would overwrite PodScheduled=True), so the
 * pod, failing again once the placement comes undone, is told again.
 */
static void
write_latest(Datum *args, Oid *types, const char *nulls, Datum history_ids)
{
	args[3] = history_ids;
	types[3] = INT8ARRAYOID;
	exec_args("INSERT INTO scheduler.pod_attempts AS a (pod_uid, attempts, last_attempt_at, result,"
			  " node, message, rejected_by, history_id, posted_message, event_posted_at)"
			  " SELECT d.uid, 1, now(),"
			  " CASE WHEN d.node IS NULL THEN 'unschedulable' ELSE 'scheduled' END,"
			  " d.node, d.message,"
			  " " REJECTED_BY ", d.history_id,"
			  " CASE WHEN $9 AND d.node IS NULL THEN d.message END,"
			  " CASE WHEN $9 AND d.node IS NULL THEN now() END"
			  " FROM (SELECT unnest($1::text[]) AS uid, unnest($2::text[]) AS node, unnest($3::text[]) AS message,"
			  " unnest($4::int8[]) AS history_id, unnest($5::text[]) AS rejected) d"
			  " ON CONFLICT (pod_uid) DO UPDATE SET attempts = least(a.attempts, 2147483646) + 1,"
			  " last_attempt_at = EXCLUDED.last_attempt_at, result = EXCLUDED.result,"
			  " node = EXCLUDED.node, message = EXCLUDED.message,"
			  " rejected_by = EXCLUDED.rejected_by, history_id = EXCLUDED.history_id,"
			  " posted_message = CASE WHEN EXCLUDED.node IS NULL"
			  "   THEN coalesce(EXCLUDED.posted_message, a.posted_message) END,"
			  " event_posted_at = CASE WHEN EXCLUDED.event_posted_at IS NOT NULL"
			  "   AND (a.event_posted_at IS NULL OR a.event_posted_at <= now() - $8 * interval '1 millisecond')"
			  "   THEN EXCLUDED.event_posted_at ELSE a.event_posted_at END",
			  9, types, args, nulls, SPI_OK_INSERT);
}

/* The decisions, told to the API server (outbox.c), in their transaction */
static void
write_outbox(Attempt *attempts, int n)
{
	OutboxDecision *d = palloc(sizeof(OutboxDecision) * n);

	for (int i = 0; i < n; i++)
	{
		d[i].uid = attempts[i].pod.uid;
		d[i].node = attempts[i].node;
		d[i].message = attempts[i].message;
		d[i].error = attempts[i].error;
		d[i].prebind = attempts[i].prebind;
		d[i].wait_claims = attempts[i].wait_claims;
		d[i].wait_seconds = attempts[i].wait_seconds;
		d[i].cycle_started = attempts[i].ended - attempts[i].cycle_us;
		d[i].enqueued = attempts[i].first_enqueued;
		d[i].attempt = attempts[i].queued_attempts + 1;
	}
	OutboxWriteDecisions(d, n, scheduler_event_interval);
}

/*
 * With no API server, Reserve's PreBind requests are applied here, to the
 * mirror, as the API server would apply them (as a victim is deleted here):
 * a volume's claimRef and bound-by-controller annotation, a claim's
 * selected-node annotation (a merge of the patch's annotations).  Nothing
 * binds the claims then; the pod is assumed, as every pod is without an API
 * server.
 */
static void
prebind_here(Attempt *attempts, int n)
{
	List	   *kinds = NIL;
	List	   *nss = NIL;
	List	   *objects = NIL;
	List	   *patches = NIL;
	Datum		args[4];
	Oid			types[4] = {TEXTARRAYOID, TEXTARRAYOID, TEXTARRAYOID, TEXTARRAYOID};

	for (int i = 0; i < n; i++)
	{
		ListCell   *lc;

		if (attempts[i].node == NULL)
			continue;
		foreach(lc, attempts[i].prebind)
		{
			PreBindRequest *q = lfirst(lc);

			kinds = lappend(kinds, (void *) q->kind);
			nss = lappend(nss, (void *) attempts[i].pod.namespace);
			objects = lappend(objects, (void *) q->object);
			patches = lappend(patches, JsonbToCString(NULL, &q->patch->root, VARSIZE(q->patch)));
		}
	}
	if (kinds == NIL)
		return;
	args[0] = TextArrayFromList(kinds);
	args[1] = TextArrayFromList(nss);
	args[2] = TextArrayFromList(objects);
	args[3] = TextArrayFromList(patches);
#define MERGED_ANNOTATIONS(obj) \
	"CASE WHEN jsonb_typeof(" obj "->'metadata') = 'object' THEN jsonb_set(" obj ", '{metadata,annotations}'," \
	" CASE WHEN jsonb_typeof(" obj "->'metadata'->'annotations') = 'object'" \
	"  THEN " obj "->'metadata'->'annotations' ELSE '{}' END" \
	" || coalesce(d.patch->'metadata'->'annotations', '{}')) ELSE " obj " END"
	exec_args("UPDATE scheduler.persistent_volumes v SET object ="
			  " CASE WHEN jsonb_typeof(v.object->'spec') = 'object'"
			  " THEN jsonb_set(" MERGED_ANNOTATIONS("v.object") ", '{spec,claimRef}', d.patch->'spec'->'claimRef')"
			  " ELSE " MERGED_ANNOTATIONS("v.object") " END,"
			  " updated_at = now()"
			  " FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS r(kind, ns, object, patch),"
			  " LATERAL (SELECT r.patch::jsonb AS patch) d"
			  " WHERE r.kind = 'volume' AND v.name = r.object",
			  4, types, args, NULL, SPI_OK_UPDATE);
	exec_args("UPDATE scheduler.persistent_volume_claims c SET object = " MERGED_ANNOTATIONS("c.object") ","
			  " updated_at = now()"
			  " FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS r(kind, ns, object, patch),"
			  " LATERAL (SELECT r.patch::jsonb AS patch) d"
			  " WHERE r.kind = 'claim' AND c.namespace = r.ns AND c.name = r.object",
			  4, types, args, NULL, SPI_OK_UPDATE);
#undef MERGED_ANNOTATIONS
}

/*
 * The written attempts, tallied for kube-scheduler's metrics (metrics.c):
 * each by its result and cycle time, and each placed pod by the time since
 * it entered the queue (kube-scheduler's InitialAttemptTimestamp), labelled
 * with its attempts, this one included.  A placement with a binding to
 * send (outbox) is counted when the binding is done or fails, as
 * kube-scheduler counts it after its binding cycle (the outbox's trigger,
 * binding_metrics in metrics.c); without, the placement is the binding.
 */
static void
tally(Attempt *attempts, int n, bool outbox, CallMetrics *m)
{
	for (int i = 0; i < n; i++)
	{
		Attempt    *a = &attempts[i];
		int64		since;

		if (outbox && a->node && !a->error)
			continue;
		MetricsAttempt(m, a->profile,
					   a->error ? ATTEMPT_ERROR : a->node ? ATTEMPT_SCHEDULED : ATTEMPT_UNSCHEDULABLE,
					   a->cycle_us);
		if (a->node && !TIMESTAMP_NOT_FINITE(a->first_enqueued) &&
			!pg_sub_s64_overflow(a->ended, a->first_enqueued, &since))
			MetricsScheduled(m, a->queued_attempts + 1, since);
	}
}

/*
 * The pods' nominations (kube-scheduler's nominator), for their requeue:
 * text[] by attempt, the node preemption made room on, '' when it found
 * none (a nomination held goes), NULL when there was none to make.  The
 * lower-priority pods nominated where these go lose theirs first, and,
 * with an API server, their status.nominatedNodeName is cleared there
 * (kube-scheduler's prepareCandidate); a pod of these nominated anew is
 * written after, with its own.
 */
static const char *
nomination_of(const Attempt *a)
{
	return a->nominated ? a->nominated : a->clear_nomination ? "" : NULL;
}

static Nominations
collect_nominations(Attempt *attempts, int n)
{
	Nominations nom = {NIL, NIL};

	for (int i = 0; i < n; i++)
	{
		const char *node = nomination_of(&attempts[i]);

		if (node)
		{
			nom.uids = lappend(nom.uids, attempts[i].pod.uid);
			nom.nodes = lappend(nom.nodes, (void *) node);
		}
	}
	return nom;
}

static Datum
nominations(Attempt *attempts, int n, const Nominations *nom)
{
	Datum	   *d = palloc(sizeof(Datum) * Max(n, 1));
	bool	   *nulls = palloc(sizeof(bool) * Max(n, 1));
	int			dims[1] = {n};
	int			lbs[1] = {1};

	for (int i = 0; i < n; i++)
	{
		const char *node = nomination_of(&attempts[i]);

		nulls[i] = (node == NULL);
		d[i] = node ? CStringGetTextDatum(node) : (Datum) 0;
	}
	if (nom->uids != NIL)
	{
		List	   *outranked = SchedQueueOutrankNominations(TextArrayFromList(nom->uids),
															 TextArrayFromList(nom->nodes));

		if (outranked != NIL && OutboxEnabled())
		{
			List	   *none = NIL;

			for (int i = 0; i < list_length(outranked); i++)
				none = lappend(none, "");
			OutboxWriteNominations(outranked, none);
		}
	}
	return PointerGetDatum(construct_md_array(d, nulls, 1, dims, lbs, TEXTOID, -1, false, TYPALIGN_INT));
}

/*
 * The rejecting plugins (a jsonb array of their names) as a text[] literal,
 * each name quoted, for REJECTED_BY and the requeue to cast: an
 * ARRAY(SELECT jsonb_array_elements_text()) per row cost a subplan and a
 * set-returning scan, 6,500 instructions a pod.
 */
static Datum
rejected_literal(Jsonb *jb)
{
	StringInfoData buf;
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	bool		first = true;

	initStringInfo(&buf);
	appendStringInfoChar(&buf, '{');
	it = jb ? JsonbIteratorInit(&jb->root) : NULL;
	while (it && (tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok != WJB_ELEM || v.type != jbvString)
			continue;
		if (!first)
			appendStringInfoChar(&buf, ',');
		first = false;
		appendStringInfoChar(&buf, '"');
		for (int i = 0; i < v.val.string.len; i++)
		{
			char		c = v.val.string.val[i];

			if (c == '"' || c == '\\')
				appendStringInfoChar(&buf, '\\');
			appendStringInfoChar(&buf, c);
		}
		appendStringInfoChar(&buf, '"');
	}
	appendStringInfoChar(&buf, '}');
	{
		text	   *t = cstring_to_text_with_len(buf.data, buf.len);

		pfree(buf.data);
		return PointerGetDatum(t);
	}
}

static void
write_results(Attempt *attempts, int n, CallMetrics *m)
{
	Datum	   *uids = palloc(sizeof(Datum) * Max(n, 1));
	Datum	   *nodes = palloc(sizeof(Datum) * Max(n, 1));
	bool	   *node_nulls = palloc(sizeof(bool) * Max(n, 1));
	Datum	   *messages = palloc(sizeof(Datum) * Max(n, 1));
	Datum	   *diags = palloc(sizeof(Datum) * Max(n, 1));
	bool	   *diag_nulls = palloc(sizeof(bool) * Max(n, 1));
	Datum	   *rejected = palloc(sizeof(Datum) * Max(n, 1));
	Datum	   *errors = palloc(sizeof(Datum) * Max(n, 1));
	Datum	   *cycles = palloc(sizeof(Datum) * Max(n, 1));
	Datum	   *internals = palloc(sizeof(Datum) * Max(n, 1));
	Datum	   *asides = palloc(sizeof(Datum) * Max(n, 1));
	Datum		args[11];
	Oid			types[11] = {TEXTARRAYOID, TEXTARRAYOID, TEXTARRAYOID, JSONBARRAYOID, TEXTARRAYOID,
	BOOLARRAYOID, INT8ARRAYOID, INT4OID, BOOLOID, BOOLARRAYOID, BOOLARRAYOID};
	char		nulls[11] = "           ";
	bool		outbox = OutboxEnabled();
	int			dims[1] = {n};
	int			lbs[1] = {1};
	Datum		history_ids;
	Nominations nom;
	int			failed = 0;

	if (n == 0)
		return;
	for (int i = 0; i < n; i++)
	{
		Attempt    *a = &attempts[i];

		failed += (a->node == NULL);
		uids[i] = CStringGetTextDatum(a->pod.uid);
		node_nulls[i] = (a->node == NULL);
		nodes[i] = a->node ? CStringGetTextDatum(a->node) : (Datum) 0;
		messages[i] = CStringGetTextDatum(a->message);
		diag_nulls[i] = (a->diagnosis == NULL);
		diags[i] = a->diagnosis ? JsonbPGetDatum(a->diagnosis) : (Datum) 0;
		rejected[i] = rejected_literal(a->rejected_by);
		errors[i] = BoolGetDatum(a->error);
		cycles[i] = Int64GetDatum(a->cycle_us);
		internals[i] = BoolGetDatum(a->internal);
		asides[i] = BoolGetDatum(a->set_aside);
	}
	args[0] = PointerGetDatum(construct_array(uids, n, TEXTOID, -1, false, TYPALIGN_INT));
	args[1] = PointerGetDatum(construct_md_array(nodes, node_nulls, 1, dims, lbs, TEXTOID, -1, false, TYPALIGN_INT));
	args[2] = PointerGetDatum(construct_array(messages, n, TEXTOID, -1, false, TYPALIGN_INT));
	args[3] = PointerGetDatum(construct_md_array(diags, diag_nulls, 1, dims, lbs, JSONBOID, -1, false, TYPALIGN_INT));
	args[4] = PointerGetDatum(construct_array(rejected, n, TEXTOID, -1, false, TYPALIGN_INT));
	args[5] = PointerGetDatum(construct_array(errors, n, BOOLOID, 1, true, TYPALIGN_CHAR));
	args[6] = PointerGetDatum(construct_array(cycles, n, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	args[7] = Int32GetDatum(scheduler_event_interval);
	args[8] = BoolGetDatum(outbox);
	args[9] = PointerGetDatum(construct_array(internals, n, BOOLOID, 1, true, TYPALIGN_CHAR));
	args[10] = PointerGetDatum(construct_array(asides, n, BOOLOID, 1, true, TYPALIGN_CHAR));

	history_ids = write_history(attempts, n, args);

	/* the choices: the queue trigger takes these pods out of the queue */
	exec_args("UPDATE scheduler.pods p SET assumed_node = d.node"
			  " FROM (SELECT unnest($1::text[]) AS uid, unnest($2::text[]) AS node) d"
			  " WHERE d.node IS NOT NULL AND p.uid = d.uid"
			  " AND p.node_name IS NULL AND p.assumed_node IS NULL",
			  2, types, args, nulls, SPI_OK_UPDATE);

	/* the failures: back to the queue (backoff or unschedulable), nominated where preemption made room */
	nom = collect_nominations(attempts, n);
	if (failed > 0)
	{
		Datum		nominated = nominations(attempts, n, &nom);

		SchedQueueRequeue(args[0], args[1], args[4], args[5], args[9], args[10], nominated);
	}

	/* the outbox, when an API server is configured; else PreBind is done here */
	if (outbox)
		write_outbox(attempts, n);
	else
		prebind_here(attempts, n);

	/*
	 * before the victims go: a pod deleted here (an assumed pod of this
	 * chunk may be a victim) takes its latest attempt with it (the queue
	 * trigger, pods_changed), and every pod attempted is still there to
	 * have one (the cycle lock keeps other writers out)
	 */
	write_latest(args, types, nulls, history_ids);
	write_preemptions(attempts, n, outbox, &nom);
	tally(attempts, n, outbox, m);
}

/*
 * DefaultPreemption's outcome: the nominated node (kept in queue.nominated_node,
 * written by nominations() and the requeue, and sent with the PodScheduled
 * condition), and the victims are deleted: through the API server when
 * there is one (outbox 'delete', the victim's uid a precondition), else
 * here, as the API server would.
 */
static void
write_preemptions(Attempt *attempts, int n, bool outbox, const Nominations *nom)
{
	List	   *victims = NIL;
	List	   *victim_of = NIL;	/* the preemptor's uid, per victim */
	List	   *victim_on = NIL;	/* and the node */
	Oid			type = TEXTARRAYOID;
	Datum		arg;

	/* (victims come only with a nomination) */
	if (nom->uids == NIL)
		return;
	for (int i = 0; i < n; i++)
	{
		victims = list_concat(victims, attempts[i].victims);
		for (int v = 0; v < list_length(attempts[i].victims); v++)
		{
			victim_of = lappend(victim_of, attempts[i].pod.uid);
			victim_on = lappend(victim_on, (void *) attempts[i].nominated);
		}
	}

	/* status.nominatedNodeName, with the PodScheduled condition (outbox.c) */
	if (outbox)
		OutboxWriteNominations(nom->uids, nom->nodes);
	if (victims == NIL)
		return;
	if (outbox)
		OutboxWriteVictims(victims, victim_of, victim_on);
	else
	{
		arg = TextArrayFromList(victims);
		exec_args("DELETE FROM scheduler.pods WHERE uid = ANY($1::text[])", 1, &type, &arg, NULL, SPI_OK_DELETE);
	}
}

/* The queue's timers (scheduling_queue.c); the history and outbox kept for their retention. */
static void
queue_housekeeping(void)
{
	Oid			t = INT4OID;
	Datum		v;

	SchedQueueFlush();
	v = Int32GetDatum(scheduler_history_retention);
	/*
	 * but not a pod's latest attempt, nor the attempt whose diagnosis it
	 * shares: why() reads the diagnosis there
	 */
	exec_args("DELETE FROM scheduler.attempt_history"
			  " WHERE attempted_at < now() - $1 * interval '1 second'"
			  " AND id NOT IN (SELECT history_id FROM scheduler.pod_attempts WHERE history_id IS NOT NULL)"
			  " AND id NOT IN (SELECT h.diagnosis_of FROM scheduler.pod_attempts a"
			  "                JOIN scheduler.attempt_history h ON h.id = a.history_id"
			  "                WHERE h.diagnosis_of IS NOT NULL)",
			  1, &t, &v, NULL, SPI_OK_DELETE);
	/* what the API server has answered is kept as long as the history */
	OutboxPrune(scheduler_history_retention);
}

/* ------------------------------------------------------------------------
 * A crash while a pod is scheduled must not become a crash loop.  Before
 * each pod's cycle its uid is noted; while cycles run, a handler of the
 * signals a fault raises (SIGSEGV, SIGBUS, SIGILL, SIGABRT) writes it to a
 * small file in pg_stat_tmp, marked "crashed", and hands the signal back to
 * the handler it replaced, which ends the process as it would have.  The file
 * is emptied when the call ends, whether it commits or fails with an ERROR
 * (the caller may catch that and go on: the handler goes too).  A file marked crashed when the next call begins
 * (a crash restarts every session) names the pod whose cycle crashed: it is
 * set aside, with a WARNING naming it, until it changes.  A process killed
 * from outside (SIGKILL, an immediate shutdown) leaves no mark: its pod is
 * not to blame.  Between two pods' cycles the file names none.
 *
 * The file: empty, or, after a crash, a C then the uid and a NUL.  The uid
 * of the pod being tried is kept in memory (marker_buf) and written by the
 * handler, when a fault happens: no write(2) per pod.  (Not a mapping of
 * the file either: on a copy-on-write filesystem, or past a quota, a store
 * into a mapped page of a full disk raises SIGBUS.)
 * ------------------------------------------------------------------------
 */
#define MARKER_SIZE 1024

static volatile sig_atomic_t marker_fd = -1;	/* for the signal handler */
/* what the handler writes: C, the uid of marker_len bytes (-1: none) and a NUL */
static char marker_buf[MARKER_SIZE] = {'C'};
static volatile sig_atomic_t marker_len = -1;
static bool watching = false;	/* our handler is installed */

static const int fault_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGABRT};
static struct sigaction saved_actions[lengthof(fault_signals)];

static char *
marker_path(void)
{
	return psprintf("%s/scheduler.%u.cycle", PG_STAT_TMP_DIR, MyDatabaseId);
}

/*
 * The fault handler: mark the file and put the previous handler back.  A
 * fault (si_code > 0) then happens again as this returns, under that
 * handler, which sees it as it was (a sanitizer reports the right place).
 * A signal sent by kill() or raise() (abort(), after a failed assertion or
 * a sanitizer's report) is raised again under the default action: blocked
 * while this runs, it ends the process as this returns, with no handler's
 * report of a fault that is none (a sanitizer would report a kill -SEGV as
 * a SEGV).  Only async-signal-safe calls.
 */
static void
fault_handler(int signo, siginfo_t *info, void *context pg_attribute_unused())
{
	int			save_errno = errno;

	if (marker_fd >= 0 && marker_len >= 0)
		(void) pg_pwrite(marker_fd, marker_buf, marker_len + 2, 0);
	for (int i = 0; i < (int) lengthof(fault_signals); i++)
		if (fault_signals[i] == signo)
			(void) sigaction(signo, &saved_actions[i], NULL);
	if (info == NULL || info->si_code <= 0)
	{
		(void) signal(signo, SIG_DFL);
		(void) raise(signo);
	}
	errno = save_errno;
}

/*
 * Install or remove the handler.  Never twice: saving our own handler as
 * "the previous one" would make a fault loop forever.
 */
static void
faults_watched(bool on)
{
	if (on == watching)
		return;
	for (int i = 0; i < (int) lengthof(fault_signals); i++)
	{
		if (on)
		{
			struct sigaction act;

			memset(&act, 0, sizeof(act));
			act.sa_sigaction = fault_handler;
			act.sa_flags = SA_SIGINFO;
			sigemptyset(&act.sa_mask);
			(void) sigaction(fault_signals[i], &act, &saved_actions[i]);
		}
		else
			(void) sigaction(fault_signals[i], &saved_actions[i], NULL);
	}
	watching = on;
}

/*
 * Open the marker; *crashed is the uid a crash left in it, or NULL.  The
 * file is left as it is until marker_arm(): an ERROR before then (while the
 * pod is set aside) leaves the mark for the next call, and no handler
 * installed.
 */
static int
marker_open(char **crashed)
{
	int			fd;
	char		buf[MARKER_SIZE + 1];
	ssize_t		n;

	*crashed = NULL;
	fd = OpenTransientFile(marker_path(), O_RDWR | O_CREAT | PG_BINARY);
	if (fd < 0)
	{
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("scheduler: could not open \"%s\": %m", marker_path()),
				 errdetail("A crash while scheduling a pod will not be traced to it.")));
		return -1;
	}
	n = pg_pread(fd, buf, MARKER_SIZE, 0);
	if (n > 1 && buf[0] == 'C')
	{
		buf[n] = '\0';
		if (buf[1] != '\0')
			*crashed = pstrdup(buf + 1);
	}
	return fd;
}

/* Empty the marker and watch for faults: the cycles begin */
static void
marker_arm(int fd)
{
	if (fd < 0)
		return;
	if (ftruncate(fd, 0) != 0)
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("scheduler: could not empty \"%s\": %m", marker_path())));
	marker_len = -1;
	marker_fd = fd;
	faults_watched(true);
}

/*
 * The pod whose cycle runs now ("": none).  Its uid is complete in the
 * buffer before the length says so: a fault in between names no pod.
 */
static void
marker_set(int fd, const char *uid)
{
	size_t		len = Min(strlen(uid), MARKER_SIZE - 2);

	if (fd < 0)
		return;
	marker_len = -1;
	pg_compiler_barrier();
	memcpy(marker_buf + 1, uid, len);
	marker_buf[len + 1] = '\0';
	pg_compiler_barrier();
	marker_len = (sig_atomic_t) len;
}

/*
 * Empty and close the marker: the call ended, by returning or by an ERROR
 * (which is no crash: nobody is to blame).  On the way out of an ERROR
 * (quiet) nothing here may throw again.
 */
static void
marker_close(int fd, bool quiet)
{
	faults_watched(false);
	marker_fd = -1;
	marker_len = -1;
	if (fd < 0)
		return;
	if (ftruncate(fd, 0) != 0 && !quiet)
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("scheduler: could not empty \"%s\": %m", marker_path())));
	(void) CloseTransientFile(fd);
}

/* ------------------------------------------------------------------------
 * One call
 * ------------------------------------------------------------------------
 */
typedef struct Run
{
	ReturnSetInfo *rsinfo;		/* schedule_pending()'s rows, or NULL */
	ClusterSnapshot *snap;
	Profile    *profile;
	int			next_start;		/* where the next node search starts */
	Attempt    *attempts;
	int			npods;
	int			written;		/* attempts written so far */
	int			holder;			/* the attempt holding this chunk's last diagnosis */
	MemoryContext cycle_cxt;	/* one pod's cycle */
	MemoryContext results_cxt;	/* the attempts of the chunk being written */
	DiagnosisReuse diag_reuse;	/* the chunk's last diagnosis made (results_cxt) */
	bool		in_subxact;
	MemoryContext back;			/* the call's context, around subtransactions */
	ResourceOwner owner;
	int			marker;
	CallMetrics *metrics;		/* the call's attempts, tallied as written */
} Run;

/*
 * The cycles of a chunk of pods run in one subtransaction: a pod whose
 * cycle throws fails alone (the subtransaction is rolled back, the pods
 * before it keep their results, which live in memory until written).
 */
static void
subxact_begin(Run *r)
{
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(r->back);
	r->in_subxact = true;
}

static void
subxact_end(Run *r, bool commit)
{
	if (!r->in_subxact)
		return;
	if (commit)
		ReleaseCurrentSubTransaction();
	else
		RollbackAndReleaseCurrentSubTransaction();
	MemoryContextSwitchTo(r->back);
	CurrentResourceOwner = r->owner;
	r->in_subxact = false;
}

/*
 * Write the attempts [r->written, upto): their subtransaction ends first.
 * What the writing makes goes with the chunk: the arrays of every
 * diagnosis, in results_cxt; and what is made after a statement, in the
 * procedure context of an SPI connection of the chunk's own (SPI leaves its
 * procedure context current when a statement returns: the call's, which
 * lasts until the call ends, a chunk's worth at each chunk).
 */
static void
flush_attempts(Run *r, int upto)
{
	int			level;

	subxact_end(r, true);
	level = PlanByKeysBegin();
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "schedule_pending: SPI_connect failed");
	MemoryContextSwitchTo(r->results_cxt);
	write_results(r->attempts + r->written, upto - r->written, r->metrics);
	SPI_finish();				/* back in the context current at SPI_connect */
	PlanByKeysEnd(level);
	if (upto > r->written)
		elog(DEBUG1, "schedule_pending: wrote %d attempts", upto - r->written);
	r->written = upto;
	r->holder = -1;
	MemoryContextReset(r->results_cxt);
	DiagnosisReuseForget(&r->diag_reuse);
}

/* One pod's cycle; its outcome in *a (results_cxt).  May throw. */
static void
schedule_one(Run *r, int i)
{
	Attempt    *a = &r->attempts[i];
	CycleResult res;
	Jsonb	   *diagnosis;
	TimestampTz start = GetCurrentTimestamp();

	MemoryContextReset(r->cycle_cxt);
	MemoryContextSwitchTo(r->cycle_cxt);
	RunSchedulingCycle(r->snap, r->profile, &a->pod, &r->next_start, &res);
	if (res.chosen)
		(void) RunReservePlugins(&a->pod, &res);
	diagnosis = res.chosen ? NULL : DiagnosisToJsonbReusing(&res, &r->diag_reuse);
	MemoryContextSwitchTo(r->results_cxt);
	if (res.chosen)
	{
		ListCell   *lc;

		SnapshotAssume(r->snap, &a->pod, res.chosen);
		foreach(lc, res.prebind)
		{
			PreBindRequest *q = lfirst(lc);
			PreBindRequest *c = palloc(sizeof(PreBindRequest));

			c->kind = pstrdup(q->kind);
			c->object = pstrdup(q->object);
			c->patch = DatumGetJsonbPCopy(JsonbPGetDatum(q->patch));
			a->prebind = lappend(a->prebind, c);
		}
		foreach(lc, res.wait_claims)
			a->wait_claims = lappend(a->wait_claims, pstrdup(lfirst(lc)));
		a->wait_seconds = res.wait_seconds;
		a->node = res.chosen->name;
		a->message = psprintf("Successfully assigned %s/%s to %s",
							  a->pod.namespace, a->pod.name, a->node);
	}
	else
	{
		Jsonb	   *held = r->holder >= 0 ? r->attempts[r->holder].diagnosis : NULL;

		a->message = FitErrorMessage(&res);
		if (held && (held == diagnosis ||
					 (VARSIZE(held) == VARSIZE(diagnosis) && memcmp(held, diagnosis, VARSIZE(diagnosis)) == 0)))
			a->diagnosis_of = r->holder - r->written;
		else
		{
			/* a document the reuse kept is in results_cxt already */
			a->diagnosis = diagnosis == r->diag_reuse.doc ? diagnosis : DatumGetJsonbPCopy(JsonbPGetDatum(diagnosis));
			r->holder = i;
		}
		a->error = (res.error != NULL);
	}
	/*
	 * the same groups as the kept diagnosis's cycle (no PreFilter rejection,
	 * no node left out): the same plugins rejected the pod, not counted again
	 * over every node
	 */
	if (diagnosis && r->diag_reuse.matched && r->diag_reuse.rejected)
		a->rejected_by = r->diag_reuse.rejected;
	else
	{
		a->rejected_by = RejectingPlugins(&res);
		if (diagnosis && diagnosis == r->diag_reuse.doc)
			r->diag_reuse.rejected = a->rejected_by;
	}
	if (res.nominated)
	{
		ListCell   *lc;

		SnapshotNominate(r->snap, &a->pod, res.nominated);
		a->nominated = pstrdup(res.nominated);
		foreach(lc, res.victims)
			a->victims = lappend(a->victims, pstrdup(((PodRef *) lfirst(lc))->uid));
	}
	a->clear_nomination = res.clear_nomination && a->pod.nominated_node != NULL;
	a->ended = GetCurrentTimestamp();
	a->cycle_us = a->ended - start;
	MemoryContextSwitchTo(r->back);
}

/*
 * Errors that are not this pod's doing end the whole call: a cancel, a
 * shutdown, a deadlock or serialization failure (the transaction must be
 * retried whole).
 */
static bool
ends_the_call(const ErrorData *e)
{
	int			class = ERRCODE_TO_CATEGORY(e->sqlerrcode);

	return class == ERRCODE_TO_CATEGORY(ERRCODE_TRANSACTION_ROLLBACK) ||
		class == ERRCODE_TO_CATEGORY(ERRCODE_OPERATOR_INTERVENTION) ||
		e->sqlerrcode == ERRCODE_QUERY_CANCELED;
}

/*
 * An attempt that ended in an ERROR (kube-scheduler's cycle error: the pod
 * goes to backoff); a second one in a row sets it aside, and a crash does
 * at once (set_aside).
 */
static void
record_failure(Attempt *a, const char *why, bool crashed)
{
	a->node = NULL;
	a->diagnosis = NULL;
	a->diagnosis_of = -1;
	a->error = true;
	a->internal = true;
	a->set_aside = crashed;
	a->nominated = NULL;
	a->clear_nomination = false;
	a->victims = NIL;
	a->prebind = NIL;
	a->wait_claims = NIL;
	a->rejected_by = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum("[]")));
	a->message = pstrdup(why);
	ereport(WARNING,
			(errcode(ERRCODE_INTERNAL_ERROR),
			 errmsg("scheduler: pod %s/%s: %s", JShort(a->pod.namespace), JShort(a->pod.name), why),
			 errdetail(crashed ?
					   "It is set aside, not tried again until it changes." :
					   "It is tried again after a backoff; failing again, it is set aside until "
					   "scheduler.unschedulable_timeout or a change of its own.")));
}

static void emit_row(Run *r, const Attempt *a);

/*
 * Run pod i's cycle; an ERROR in it fails this pod alone.  Returns true when
 * it failed so: its row is then emitted and written already.
 */
static bool
try_one(Run *r, int i)
{
	Attempt    *a = &r->attempts[i];
	ErrorData  *volatile edata = NULL;
	TimestampTz start = GetCurrentTimestamp();

	if (!r->in_subxact)
		subxact_begin(r);
	marker_set(r->marker, a->pod.uid);
	PG_TRY();
	{
		schedule_one(r, i);
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(r->results_cxt);
		edata = CopyErrorData();
		FlushErrorState();
	}
	PG_END_TRY();
	marker_set(r->marker, "");	/* what follows is no pod's cycle */
	if (edata == NULL)
		return false;
	subxact_end(r, false);
	if (ends_the_call(edata))
		ReThrowError(edata);
	MemoryContextSwitchTo(r->results_cxt);
	record_failure(a, psprintf("running scheduling cycle: %s", JCut(edata->message, strlen(edata->message), 500)),
				   false);
	a->ended = GetCurrentTimestamp();
	a->cycle_us = a->ended - start; /* the cycle until it threw */
	MemoryContextSwitchTo(r->back);
	emit_row(r, a);

	/*
	 * The cycle may have left the snapshot half-changed (a dry run of
	 * preemption, counts being updated): write what was decided, then read
	 * the cluster afresh (the rollback made the cache rebuild).
	 */
	flush_attempts(r, i + 1);
	r->snap = SnapshotGet();
	return true;
}

static void
emit_row(Run *r, const Attempt *a)
{
	Datum		values[5];
	bool		nulls[5] = {false, false, false, false, false};

	if (r->rsinfo == NULL)
		return;
	values[0] = CStringGetTextDatum(a->pod.namespace);
	values[1] = CStringGetTextDatum(a->pod.name);
	if (a->node)
		values[2] = CStringGetTextDatum(a->node);
	else
		nulls[2] = true;
	values[3] = CStringGetTextDatum(a->node ? "scheduled" : "unschedulable");
	values[4] = CStringGetTextDatum(a->message);
	tuplestore_putvalues(r->rsinfo->setResult, r->rsinfo->setDesc, values, nulls);
}

/*
 * A pod whose cycle crashed the server last time: set aside, said once.  A
 * uid too long for the marker (only a row planted past apply() has one) was
 * cut: every pod whose uid begins so is set aside.  The crashed cycle counts
 * as an attempt of its pod's profile that failed with an error, of no
 * duration (its time went with the process).
 */
typedef struct SetAside
{
	const char *uid;
	CallMetrics *metrics;
} SetAside;

static void
set_aside_crashed(const char *uid, CallMetrics *m)
{
	Oid			t[2] = {TEXTOID, BOOLOID};
	Datum		v[2];
	int			n;
	Attempt    *a;

	v[0] = CStringGetTextDatum(uid);
	v[1] = BoolGetDatum(strlen(uid) >= MARKER_SIZE - 2);
	exec_args("SELECT uid, namespace, name, scheduler_name FROM scheduler.pods"
			  " WHERE uid = $1 OR ($2 AND pg_catalog.starts_with(uid, $1))", 2, t, v, NULL, SPI_OK_SELECT);
	n = (int) SPI_processed;
	if (n == 0)
		return;					/* gone since */
	a = palloc0(sizeof(Attempt) * n);
	for (int i = 0; i < n; i++)
	{
		a[i].pod.uid = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1);
		a[i].pod.namespace = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2);
		a[i].pod.name = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 3);
		a[i].profile = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 4);
		record_failure(&a[i], "a server process ended abnormally while scheduling this pod", true);
	}
	write_results(a, n, m);
}

/*
 * Set the crashed pod aside in a subtransaction.  An ERROR that may pass (a
 * cancel, a lock or statement timeout, a deadlock, a shortage) is thrown
 * on, and the mark stays for the next call; any other (a row that cannot
 * be written) is told in a WARNING and the mark is let go, so that the
 * calls go on: the pod is then scheduled as any other.
 */
static void
set_aside_cb(void *arg)
{
	SetAside   *s = (SetAside *) arg;

	set_aside_crashed(s->uid, s->metrics);
}

static void
set_aside_or_forget(const char *uid, CallMetrics *m)
{
	SetAside	s = {uid, m};
	ErrorData  *edata = RunInSubxact(set_aside_cb, (void *) &s);

	if (edata == NULL)
		return;
	switch (ERRCODE_TO_CATEGORY(edata->sqlerrcode))
	{
		case ERRCODE_OPERATOR_INTERVENTION:
		case ERRCODE_TRANSACTION_ROLLBACK:
		case ERRCODE_INSUFFICIENT_RESOURCES:
		case ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE:	/* 55P03 lock_not_available */
			ReThrowError(edata);
			break;
		default:
			ereport(WARNING,
					(errmsg("scheduler: could not set aside pod %s, whose cycle crashed a server process: %s",
							JShort(uid), edata->message),
					 errdetail("It is scheduled as any other pod.")));
	}
}

/*
 * The pods ready to try, highest priority first, then longest queued; with
 * their attempts so far and when they entered the queue, for the metrics
 */
static void
read_queue(Run *r, int64 max_pods)
{
	char	   *profile = pstrdup(scheduler_scheduler_name);

	/*
	 * the queue's columns before the pod's: read one by one, each read after
	 * the pod's walked the whole row again to find it
	 */
	SchedQueuePop(scheduler_scheduler_name, max_pods,
				  psprintf("q.attempts, q.first_enqueued_at, coalesce(q.moved_at, q.first_enqueued_at), %s",
						   PodInfoColumnsQualified));
	r->npods = (int) SPI_processed;
	r->attempts = palloc0(sizeof(Attempt) * Max(r->npods, 1));
	for (int i = 0; i < r->npods; i++)
	{
		Attempt    *a = &r->attempts[i];
		HeapTuple	tup = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		bool		isnull;
		Datum		d;

		d = SPI_getbinval(tup, desc, SCHED_QUEUE_POP_KEYS + 1, &isnull);
		a->queued_attempts = isnull ? 0 : DatumGetInt32(d);
		d = SPI_getbinval(tup, desc, SCHED_QUEUE_POP_KEYS + 2, &isnull);
		if (isnull)
			TIMESTAMP_NOBEGIN(a->first_enqueued);
		else
			a->first_enqueued = DatumGetTimestampTz(d);
		d = SPI_getbinval(tup, desc, SCHED_QUEUE_POP_KEYS + 3, &isnull);
		a->queued_since = isnull ? 0 : DatumGetTimestampTz(d);
		PodInfoFromTupleAt(&a->pod, tup, desc, SCHED_QUEUE_POP_KEYS + 4);
		a->diagnosis_of = -1;
		a->profile = profile;
	}
	SPI_freetuptable(SPI_tuptable);
}

/* Steps 3 to 5 of SchedulePending */
static void
run_pods(Run *r, int64 max_pods)
{
	/* 3. snapshot, profile and the pods ready to try */
	r->snap = SnapshotGet();
	r->profile = ProfileLoad(scheduler_scheduler_name);
	read_queue(r, max_pods);

	/*
	 * 4. one cycle per pod; the results are written by chunks (same
	 * transaction), so that what failing pods leave (a diagnosis over every
	 * node) does not pile up, and each statement writes many rows
	 */
	for (int i = 0; i < r->npods; i++)
	{
		CHECK_FOR_INTERRUPTS();
		if (try_one(r, i))
			continue;
		emit_row(r, &r->attempts[i]);
		if (i + 1 - r->written == WRITE_CHUNK ||
			MemoryContextMemAllocated(r->results_cxt, false) > WRITE_CHUNK_BYTES)
			flush_attempts(r, i + 1);
	}

	/* 5. write back, batched */
	flush_attempts(r, r->npods);
	{
		Oid			t = INT4OID;
		Datum		v = Int32GetDatum(r->next_start);

		exec_args("UPDATE scheduler.cycle_lock SET next_start_node_index = $1",
				  1, &t, &v, NULL, SPI_OK_UPDATE);
	}
}

/*
 * SchedulePending
 *		One call of schedule_pending() (rows into rsinfo when not NULL).
 *		Call inside SPI.  Returns how many pods were attempted.
 */
int
SchedulePending(int64 max_pods, ReturnSetInfo *rsinfo)
{
	Run			r;
	char	   *crashed;

	memset(&r, 0, sizeof(r));
	r.rsinfo = rsinfo;
	r.back = CurrentMemoryContext;
	r.owner = CurrentResourceOwner;
	r.holder = -1;
	r.cycle_cxt = AllocSetContextCreate(r.back, "scheduling cycle", ALLOCSET_DEFAULT_SIZES);
	r.metrics = MetricsBegin();
	r.results_cxt = AllocSetContextCreate(r.back, "scheduling results", ALLOCSET_DEFAULT_SIZES);
	r.diag_reuse.cxt = r.results_cxt;

	/* 1. one scheduler at a time, and no writer in between */
	LockRelationOid(SchedulerRelid("cycle_lock"), ExclusiveLock);
	if (SPI_execute("UPDATE scheduler.cycle_lock SET generation = generation + 1, last_cycle_at = now()"
					" RETURNING next_start_node_index",
					false, 0) != SPI_OK_UPDATE_RETURNING || SPI_processed != 1)
		elog(ERROR, "scheduler.cycle_lock must have exactly one row");
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);

		r.next_start = isnull ? 0 : Max(DatumGetInt32(d), 0);
	}

	/* 2. the queue's timers, and a pod whose cycle crashed the server */
	queue_housekeeping();
	r.marker = marker_open(&crashed);
	if (crashed)
		set_aside_or_forget(crashed, r.metrics);

	/*
	 * 3.-5. with the marker armed; an ERROR (which a caller may catch and go
	 * on) closes it and takes the fault handler down
	 */
	PG_TRY();
	{
		marker_arm(r.marker);
		run_pods(&r, max_pods);
	}
	PG_CATCH();
	{
		marker_close(r.marker, true);
		PG_RE_THROW();
	}
	PG_END_TRY();
	marker_close(r.marker, false);
	/* 6. the call's attempts added to the running totals, once */
	MetricsWrite(r.metrics);
	SnapshotPrune();
	MemoryContextDelete(r.cycle_cxt);
	MemoryContextDelete(r.results_cxt);
	return r.npods;
}

PG_FUNCTION_INFO_V1(schedule_pending);
/*
 * schedule_pending(max_pods integer DEFAULT NULL)
 *	RETURNS TABLE (namespace text, name text, node text, result text, message text)
 */
Datum
schedule_pending(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int64		max_pods = PG_ARGISNULL(0) ? -1 : PG_GETARG_INT32(0);
	MemoryContext work;
	MemoryContext old;
	AsOwner		as;

	if (!PG_ARGISNULL(0) && max_pods < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_pods must be at least 0, got %lld", (long long) max_pods)));

	AsOwnerBegin(&as, ROLE_ADMIN, "run schedule_pending()");
	InitMaterializedSRF(fcinfo, 0);
	work = AllocSetContextCreate(CurrentMemoryContext, "schedule_pending", ALLOCSET_DEFAULT_SIZES);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	old = MemoryContextSwitchTo(work);
	(void) SchedulePending(max_pods, rsinfo);
	MemoryContextSwitchTo(old);
	SPI_finish();
	MemoryContextDelete(work);
	AsOwnerEnd(&as);
	return (Datum) 0;
}
