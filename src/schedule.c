/*
 * schedule.c
 *	  schedule_pending(max_pods): run scheduling cycles for pending pods and
 *	  write the results back.
 *
 * One call:
 *	 1. serialises with every other call: it updates the single row of
 *		scheduler.cycle_lock, which waits for a concurrent call to commit (and
 *		under REPEATABLE READ or SERIALIZABLE fails with a serialization error
 *		rather than read stale data), so two sessions never place against the
 *		same free room;
 *	 2. refreshes the snapshot (snapshot.c), loads the profile of
 *		scheduler.scheduler_name (profile.c), and reads the pending pods:
 *		unassigned, not being deleted, not terminated, with that
 *		spec.schedulerName, highest priority first, then oldest;
 *	 3. runs one cycle per pod (framework.c), starting each node search where
 *		the last one stopped (kept in scheduler.cycle_lock across calls), and
 *		reserving each choice on the snapshot so later pods see it (the
 *		assume cache);
 *	 4. writes the choices (pods.assumed_node) and every attempt
 *		(scheduler.pod_attempts) in two batched statements.
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
#include "utils/memutils.h"

#include "scheduler.h"

typedef struct Attempt
{
	PodInfo		pod;
	const char *node;			/* NULL when unschedulable */
	char	   *message;
	Jsonb	   *diagnosis;		/* NULL when scheduled */
	Jsonb	   *rejected_by;	/* jsonb array of plugin names */
} Attempt;

static Datum
text_array(Datum *elems, bool *nulls, int n)
{
	int			dims[1] = {n};
	int			lbs[1] = {1};

	return PointerGetDatum(construct_md_array(elems, nulls, 1, dims, lbs, TEXTOID, -1, false, TYPALIGN_INT));
}

static void
write_results(Attempt *attempts, int n)
{
	Datum	   *uids = palloc(sizeof(Datum) * Max(n, 1));
	Datum	   *nodes = palloc(sizeof(Datum) * Max(n, 1));
	bool	   *node_nulls = palloc(sizeof(bool) * Max(n, 1));
	Datum	   *messages = palloc(sizeof(Datum) * Max(n, 1));
	Datum	   *diags = palloc(sizeof(Datum) * Max(n, 1));
	bool	   *diag_nulls = palloc(sizeof(bool) * Max(n, 1));
	Datum	   *rejected = palloc(sizeof(Datum) * Max(n, 1));
	Datum		args[5];
	Oid			types[5] = {TEXTARRAYOID, TEXTARRAYOID, TEXTARRAYOID, JSONBARRAYOID, JSONBARRAYOID};
	int			dims[1] = {n};
	int			lbs[1] = {1};

	if (n == 0)
		return;
	for (int i = 0; i < n; i++)
	{
		Attempt    *a = &attempts[i];

		uids[i] = CStringGetTextDatum(a->pod.uid);
		node_nulls[i] = (a->node == NULL);
		nodes[i] = a->node ? CStringGetTextDatum(a->node) : (Datum) 0;
		messages[i] = CStringGetTextDatum(a->message);
		diag_nulls[i] = (a->diagnosis == NULL);
		diags[i] = a->diagnosis ? JsonbPGetDatum(a->diagnosis) : (Datum) 0;
		rejected[i] = JsonbPGetDatum(a->rejected_by);
	}
	args[0] = text_array(uids, NULL, n);
	args[1] = text_array(nodes, node_nulls, n);
	args[2] = text_array(messages, NULL, n);
	args[3] = PointerGetDatum(construct_md_array(diags, diag_nulls, 1, dims, lbs, JSONBOID, -1, false, TYPALIGN_INT));
	args[4] = PointerGetDatum(construct_md_array(rejected, NULL, 1, dims, lbs, JSONBOID, -1, false, TYPALIGN_INT));

	if (SPI_execute_with_args(
							  "UPDATE scheduler.pods p SET assumed_node = d.node"
							  " FROM unnest($1::text[], $2::text[]) AS d(uid, node)"
							  " WHERE d.node IS NOT NULL AND p.uid = d.uid"
							  " AND p.node_name IS NULL AND p.assumed_node IS NULL",
							  2, types, args, NULL, false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "could not record scheduling decisions");

	if (SPI_execute_with_args(
							  "INSERT INTO scheduler.pod_attempts AS a (pod_uid, attempts, last_attempt_at, result,"
							  " node, message, rejected_by, diagnosis)"
							  " SELECT d.uid, 1, now(),"
							  " CASE WHEN d.node IS NULL THEN 'unschedulable' ELSE 'scheduled' END,"
							  " d.node, d.message,"
							  " ARRAY(SELECT jsonb_array_elements_text(d.rejected)), d.diagnosis"
							  " FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::jsonb[])"
							  "   AS d(uid, node, message, diagnosis, rejected)"
							  " WHERE EXISTS (SELECT 1 FROM scheduler.pods p WHERE p.uid = d.uid)"
							  " ON CONFLICT (pod_uid) DO UPDATE SET attempts = a.attempts + 1,"
							  " last_attempt_at = EXCLUDED.last_attempt_at, result = EXCLUDED.result,"
							  " node = EXCLUDED.node, message = EXCLUDED.message,"
							  " rejected_by = EXCLUDED.rejected_by, diagnosis = EXCLUDED.diagnosis",
							  5, types, args, NULL, false, 0) != SPI_OK_INSERT)
		elog(ERROR, "could not record scheduling attempts");
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
	MemoryContext cycle_cxt;
	MemoryContext oldcxt;
	ClusterSnapshot *snap;
	Profile    *profile;
	int			next_start = 0;
	Attempt    *attempts;
	int			npods;
	Datum		qargs[2];
	Oid			qtypes[2] = {TEXTOID, INT8OID};
	char		qnulls[2] = {' ', ' '};

	if (!PG_ARGISNULL(0) && max_pods < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_pods must be at least 0, got %lld", (long long) max_pods)));

	InitMaterializedSRF(fcinfo, 0);

	work = AllocSetContextCreate(CurrentMemoryContext, "schedule_pending", ALLOCSET_DEFAULT_SIZES);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	old = MemoryContextSwitchTo(work);
	cycle_cxt = AllocSetContextCreate(work, "scheduling cycle", ALLOCSET_DEFAULT_SIZES);

	/* 1. one scheduler at a time */
	if (SPI_execute("UPDATE scheduler.cycle_lock SET generation = generation + 1, last_cycle_at = now()"
					" RETURNING next_start_node_index",
					false, 0) != SPI_OK_UPDATE_RETURNING || SPI_processed != 1)
		elog(ERROR, "scheduler.cycle_lock must have exactly one row");
	{
		bool		isnull;

		next_start = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	}

	/* 2. snapshot, profile and pending pods */
	snap = SnapshotGet();
	profile = ProfileLoad(scheduler_scheduler_name);

	qargs[0] = CStringGetTextDatum(scheduler_scheduler_name);
	qargs[1] = Int64GetDatum(max_pods);
	qnulls[1] = max_pods < 0 ? 'n' : ' ';
	if (SPI_execute_with_args(psprintf("SELECT %s FROM scheduler.pods"
									   " WHERE node_name IS NULL AND assumed_node IS NULL"
									   " AND deletion_timestamp IS NULL"
									   " AND (phase IS NULL OR phase NOT IN ('Succeeded', 'Failed'))"
									   " AND scheduler_name = $1"
									   " ORDER BY priority DESC, created_at, namespace, name"
									   " LIMIT $2", PodInfoColumns),
							  2, qtypes, qargs, qnulls, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read pending pods");
	npods = (int) SPI_processed;
	attempts = palloc0(sizeof(Attempt) * Max(npods, 1));
	for (int i = 0; i < npods; i++)
		PodInfoFromTuple(&attempts[i].pod, SPI_tuptable->vals[i], SPI_tuptable->tupdesc);
	SPI_freetuptable(SPI_tuptable);

	/* 3. one cycle per pod */
	for (int i = 0; i < npods; i++)
	{
		Attempt    *a = &attempts[i];
		CycleResult res;
		Datum		values[5];
		bool		nulls[5] = {false, false, false, false, false};

		CHECK_FOR_INTERRUPTS();
		MemoryContextReset(cycle_cxt);
		oldcxt = MemoryContextSwitchTo(cycle_cxt);
		RunSchedulingCycle(snap, profile, &a->pod, &next_start, &res);
		MemoryContextSwitchTo(oldcxt);
		if (res.chosen)
		{
			SnapshotAssume(snap, &a->pod, res.chosen);
			a->node = res.chosen->name;
			a->message = psprintf("Successfully assigned %s/%s to %s",
								  a->pod.namespace, a->pod.name, a->node);
		}
		else
		{
			a->message = FitErrorMessage(&res);
			a->diagnosis = DiagnosisToJsonb(&res);
		}
		a->rejected_by = RejectingPlugins(&res);

		values[0] = CStringGetTextDatum(a->pod.namespace);
		values[1] = CStringGetTextDatum(a->pod.name);
		if (a->node)
			values[2] = CStringGetTextDatum(a->node);
		else
			nulls[2] = true;
		values[3] = CStringGetTextDatum(a->node ? "scheduled" : "unschedulable");
		values[4] = CStringGetTextDatum(a->message);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}

	/* 4. write back, batched */
	write_results(attempts, npods);
	{
		Oid			t = INT4OID;
		Datum		v = Int32GetDatum(next_start);

		if (SPI_execute_with_args("UPDATE scheduler.cycle_lock SET next_start_node_index = $1",
								  1, &t, &v, NULL, false, 0) != SPI_OK_UPDATE)
			elog(ERROR, "could not update scheduler.cycle_lock");
	}
	SnapshotPrune();

	MemoryContextSwitchTo(old);
	SPI_finish();
	MemoryContextDelete(work);
	return (Datum) 0;
}
