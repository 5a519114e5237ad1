/*
 * metrics.c
 *	  kube-scheduler's counters and histograms of scheduling attempts, kept
 *	  as running totals so that they never go down when
 *	  scheduler.attempt_history is pruned:
 *	   - scheduler.attempt_totals, per result and profile: the attempts
 *		 (scheduler_schedule_attempts_total) and the histogram of their times
 *		 (scheduler_scheduling_attempt_duration_seconds, kube-scheduler's
 *		 buckets ExponentialBuckets(0.001, 2, 15)): the cycle, and for a
 *		 placement with an API server until its binding is done or fails;
 *	   - scheduler.scheduling_sli_totals, per attempts label ("1" .. "14",
 *		 "15+"): the histogram of the time from a pod's entering the queue to
 *		 its binding, or its placement without an API server
 *		 (scheduler_pod_scheduling_sli_duration_seconds,
 *		 ExponentialBuckets(0.01, 2, 20)).
 *	  A schedule_pending() call tallies its attempts in memory as it writes
 *	  them (schedule.c) and adds the tally in one statement at its end, in
 *	  its transaction: nothing per pod, nothing when it attempted none.
 *	  A placement whose binding goes to the API server (the outbox) counts
 *	  when the binding is done (scheduled) or fails (error), as
 *	  kube-scheduler counts it after its binding cycle, its time since its
 *	  cycle began: the outbox's trigger tallies each statement's such
 *	  bindings and adds them alike (binding_metrics).
 *	  The rows are written in key order, so that two writers that do not
 *	  exclude each other (a recorder and a node's deletion, both holding
 *	  cycle_lock SHARE) lock the rows they share in the same order.
 *	  The buckets are stored cumulative, as Prometheus exposes them (bucket
 *	  i counts the observations of at most its bound), so that adding two
 *	  tallies is adding them element by element.
 *
 * IDENTIFICATION
 *	  src/metrics.c
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "common/int.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "storage/lmgr.h"
#include "nodes/pg_list.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "access.h"
#include "metrics.h"
#include "plans.h"

/* scheduling_attempt_duration_seconds: bucket i's bound is 0.001 s * 2^i */
#define DURATION_BUCKETS 15
#define DURATION_FIRST_US INT64CONST(1000)
/* pod_scheduling_sli_duration_seconds: 0.01 s * 2^i */
#define SLI_BUCKETS 20
#define SLI_FIRST_US INT64CONST(10000)
/* its attempts label: "1" .. "14", then "15+" (kube-scheduler's getAttemptsLabel) */
#define SLI_LABELS 15

typedef struct Histogram
{
	int64		count;
	double		sum;			/* seconds */
	int64		buckets[SLI_BUCKETS];	/* cumulative; the first nbuckets used */
} Histogram;

typedef struct AttemptTally
{
	char	   *profile;
	AttemptResult result;
	Histogram	h;
} AttemptTally;

struct CallMetrics
{
	MemoryContext cxt;
	List	   *tallies;		/* AttemptTally *, one per result and profile */
	Histogram	sli[SLI_LABELS];
	bool		any_sli;
};

static const char *const result_names[] = {"scheduled", "unschedulable", "error"};

CallMetrics *
MetricsBegin(void)
{
	CallMetrics *m = palloc0(sizeof(CallMetrics));

	m->cxt = CurrentMemoryContext;
	return m;
}

/*
 * One observation of us microseconds: bucket i counts it when us <= its
 * bound (first_us * 2^i), as a Prometheus histogram's "le" says.  In whole
 * microseconds the comparison is exact: first_us * 2^i us is the bound in
 * seconds (0.001 * 2^i, 0.01 * 2^i) as the double kube-scheduler computes.
 */
static void
observe(Histogram *h, int nbuckets, int64 first_us, int64 us)
{
	if (us < 0)
		us = 0;					/* a clock stepped back */
	h->count++;
	h->sum += (double) us / 1000000.0;
	for (int i = 0; i < nbuckets; i++)
		if (us <= (first_us << i))
			h->buckets[i]++;
}

void
MetricsAttempt(CallMetrics *m, const char *profile, AttemptResult result, int64 cycle_us)
{
	ListCell   *lc;
	AttemptTally *t = NULL;

	if (profile == NULL)
		profile = "";			/* scheduler_name is NOT NULL: not seen */
	foreach(lc, m->tallies)
	{
		AttemptTally *x = lfirst(lc);

		if (x->result == result && strcmp(x->profile, profile) == 0)
		{
			t = x;
			break;
		}
	}
	if (t == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(m->cxt);

		t = palloc0(sizeof(AttemptTally));
		t->profile = pstrdup(profile);
		t->result = result;
		m->tallies = lappend(m->tallies, t);
		MemoryContextSwitchTo(old);
	}
	observe(&t->h, DURATION_BUCKETS, DURATION_FIRST_US, cycle_us);
}

void
MetricsScheduled(CallMetrics *m, int64 attempts, int64 since_us)
{
	int			label = (int) Min(Max(attempts, 1), SLI_LABELS) - 1;

	observe(&m->sli[label], SLI_BUCKETS, SLI_FIRST_US, since_us);
	m->any_sli = true;
}

static Datum
int8_array(Datum *d, int n)
{
	return PointerGetDatum(construct_array(d, n, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

static Datum
float8_array(Datum *d, int n)
{
	return PointerGetDatum(construct_array(d, n, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

static Datum
text_array(Datum *d, int n)
{
	return PointerGetDatum(construct_array(d, n, TEXTOID, -1, false, TYPALIGN_INT));
}

/*
 * The tally's rows: per result and profile ($1 to $5), per attempts label
 * ($6 to $9), each row's buckets a slice of one flat array.  An existing
 * row gains them; the totals only grow.  One plan, kept: a call that
 * places one pod (the worker woken by an event) pays no planning (planned
 * at each call, the statement made such a call about a quarter slower).
 */
void
MetricsWrite(CallMetrics *m)
{
	static SPIPlanPtr plan = NULL;
	int			nt = list_length(m->tallies);
	int			ns = 0;
	Datum		args[9];
	Oid			types[9] = {TEXTARRAYOID, TEXTARRAYOID, INT8ARRAYOID, FLOAT8ARRAYOID, INT8ARRAYOID,
	TEXTARRAYOID, INT8ARRAYOID, FLOAT8ARRAYOID, INT8ARRAYOID};
	Datum	   *results = palloc(sizeof(Datum) * Max(nt, 1));
	Datum	   *profiles = palloc(sizeof(Datum) * Max(nt, 1));
	Datum	   *counts = palloc(sizeof(Datum) * Max(nt, SLI_LABELS));
	Datum	   *sums = palloc(sizeof(Datum) * Max(nt, SLI_LABELS));
	Datum	   *buckets = palloc(sizeof(Datum) * Max(nt * DURATION_BUCKETS, SLI_LABELS * SLI_BUCKETS));
	Datum	   *labels = palloc(sizeof(Datum) * SLI_LABELS);
	int			i = 0;
	ListCell   *lc;

	if (nt == 0 && !m->any_sli)
		return;
	foreach(lc, m->tallies)
	{
		AttemptTally *t = lfirst(lc);

		results[i] = CStringGetTextDatum(result_names[t->result]);
		profiles[i] = CStringGetTextDatum(t->profile);
		counts[i] = Int64GetDatum(t->h.count);
		sums[i] = Float8GetDatum(t->h.sum);
		for (int b = 0; b < DURATION_BUCKETS; b++)
			buckets[i * DURATION_BUCKETS + b] = Int64GetDatum(t->h.buckets[b]);
		i++;
	}
	args[0] = text_array(results, nt);
	args[1] = text_array(profiles, nt);
	args[2] = int8_array(counts, nt);
	args[3] = float8_array(sums, nt);
	args[4] = int8_array(buckets, nt * DURATION_BUCKETS);
	for (int l = 0; l < SLI_LABELS; l++)
	{
		if (m->sli[l].count == 0)
			continue;
		labels[ns] = CStringGetTextDatum(l + 1 < SLI_LABELS ? psprintf("%d", l + 1) : psprintf("%d+", SLI_LABELS));
		counts[ns] = Int64GetDatum(m->sli[l].count);
		sums[ns] = Float8GetDatum(m->sli[l].sum);
		for (int b = 0; b < SLI_BUCKETS; b++)
			buckets[ns * SLI_BUCKETS + b] = Int64GetDatum(m->sli[l].buckets[b]);
		ns++;
	}
	args[5] = text_array(labels, ns);
	args[6] = int8_array(counts, ns);
	args[7] = float8_array(sums, ns);
	args[8] = int8_array(buckets, ns * SLI_BUCKETS);

#define ADD_BUCKETS \
	"ARRAY(SELECT x + y FROM unnest(t.duration_buckets, EXCLUDED.duration_buckets) WITH ORDINALITY AS u(x, y, k)" \
	" ORDER BY k)"
	if (SPI_execute_plan(PlanKeptGeneric(&plan, "WITH attempts AS ("
							  " INSERT INTO scheduler.attempt_totals AS t"
							  "  (result, profile, attempts, duration_sum, duration_buckets)"
							  " SELECT d.result, d.profile, d.n, d.total,"
							  "  ($5::int8[])[(d.i - 1) * " CppAsString2(DURATION_BUCKETS) " + 1"
							  "               : d.i * " CppAsString2(DURATION_BUCKETS) "]"
							  " FROM unnest($1::text[], $2::text[], $3::int8[], $4::float8[])"
							  "  WITH ORDINALITY AS d(result, profile, n, total, i)"
							  " ORDER BY d.result, d.profile"
							  " ON CONFLICT (result, profile) DO UPDATE SET attempts = t.attempts + EXCLUDED.attempts,"
							  "  duration_sum = t.duration_sum + EXCLUDED.duration_sum,"
							  "  duration_buckets = " ADD_BUCKETS ")"
							  " INSERT INTO scheduler.scheduling_sli_totals AS t"
							  "  (attempts, pods, duration_sum, duration_buckets)"
							  " SELECT d.label, d.n, d.total,"
							  "  ($9::int8[])[(d.i - 1) * " CppAsString2(SLI_BUCKETS) " + 1"
							  "               : d.i * " CppAsString2(SLI_BUCKETS) "]"
							  " FROM unnest($6::text[], $7::int8[], $8::float8[])"
							  "  WITH ORDINALITY AS d(label, n, total, i)"
							  " ORDER BY d.label"
							  " ON CONFLICT (attempts) DO UPDATE SET pods = t.pods + EXCLUDED.pods,"
							  "  duration_sum = t.duration_sum + EXCLUDED.duration_sum,"
							  "  duration_buckets = " ADD_BUCKETS, 9, types),
						 args, NULL, false, 0) != SPI_OK_INSERT)
		elog(ERROR, "could not add the attempts to scheduler.attempt_totals");
#undef ADD_BUCKETS
}

/* ------------------------------------------------------------------------
 * The bindings' outcomes
 * ------------------------------------------------------------------------
 */
static int
column_of(TupleDesc desc, const char *name)
{
	int			a = SPI_fnumber(desc, name);

	if (a <= 0)
		elog(ERROR, "scheduler.outbox has no column \"%s\"", name);
	return a;
}

/* a text column's value, or NULL */
static char *
slot_text(TupleTableSlot *slot, int att)
{
	bool		isnull;
	Datum		d = slot_getattr(slot, att, &isnull);

	return isnull ? NULL : TextDatumGetCString(d);
}

static int
cmp_int64(const void *a, const void *b)
{
	int64		x = *(const int64 *) a;
	int64		y = *(const int64 *) b;

	return x < y ? -1 : x > y;
}

/* a read pointer of our own on a transition table, rewound */
static void
rewind_table(Tuplestorestate *ts)
{
	tuplestore_select_read_pointer(ts, tuplestore_alloc_read_pointer(ts, EXEC_FLAG_REWIND));
	tuplestore_rescan(ts);
}

/*
 * The ids of the bindings a transition table holds pending, sorted (for
 * bsearch); *n of them
 */
static int64 *
pending_bindings(Tuplestorestate *ts, TupleTableSlot *slot, int a_id, int a_kind, int a_state, int *n)
{
	int64	   *ids = NULL;
	int			cap = 0;

	*n = 0;
	rewind_table(ts);
	while (tuplestore_gettupleslot(ts, true, false, slot))
	{
		char	   *kind = slot_text(slot, a_kind);
		char	   *state = slot_text(slot, a_state);
		bool		isnull;
		Datum		id = slot_getattr(slot, a_id, &isnull);

		if (isnull || kind == NULL || strcmp(kind, "binding") != 0 || state == NULL || strcmp(state, "pending") != 0)
			continue;
		if (*n == cap)
		{
			cap = Max(16, cap * 2);
			ids = ids ? repalloc(ids, sizeof(int64) * cap) : palloc(sizeof(int64) * cap);
		}
		ids[(*n)++] = DatumGetInt64(id);
	}
	if (*n > 1)
		qsort(ids, *n, sizeof(int64), cmp_int64);
	return ids;
}

PG_FUNCTION_INFO_V1(scheduler_binding_metrics);
/*
 * scheduler_internal.binding_metrics(): after each UPDATE statement on
 * scheduler.outbox, the bindings it took from pending to done or failed,
 * counted as kube-scheduler counts a pod after its binding cycle: done,
 * an attempt scheduled (PodScheduled) and the pod's time since it entered
 * the queue (PodSchedulingSLIDuration); failed, an attempt in error
 * (handleBindingCycleError); each attempt's time from its cycle's start to
 * the binding's end.  Bindings written before 0.3 (no cycle_started_at)
 * were counted when placed.
 */
Datum
scheduler_binding_metrics(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	TupleDesc	desc;
	TupleTableSlot *slot;
	int			a_id,
				a_kind,
				a_state,
				a_object,
				a_finished,
				a_started,
				a_enqueued,
				a_attempts;
	int64	   *pending;
	int			npending;
	CallMetrics *m = NULL;
	bool		any_error = false;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_AFTER(td->tg_event) ||
		!TRIGGER_FIRED_FOR_STATEMENT(td->tg_event) || !TRIGGER_FIRED_BY_UPDATE(td->tg_event) ||
		td->tg_oldtable == NULL || td->tg_newtable == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("scheduler_internal.binding_metrics() is an AFTER UPDATE ... FOR EACH STATEMENT trigger function with both transition tables")));
	desc = RelationGetDescr(td->tg_relation);
	a_id = column_of(desc, "id");
	a_kind = column_of(desc, "kind");
	a_state = column_of(desc, "state");
	a_object = column_of(desc, "object");
	a_finished = column_of(desc, "finished_at");
	a_started = column_of(desc, "cycle_started_at");
	a_enqueued = column_of(desc, "enqueued_at");
	a_attempts = column_of(desc, "pod_attempts");
	slot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);

	/* the bindings the statement found pending */
	pending = pending_bindings(td->tg_oldtable, slot, a_id, a_kind, a_state, &npending);
	if (npending > 0)
	{
		rewind_table(td->tg_newtable);
		while (tuplestore_gettupleslot(td->tg_newtable, true, false, slot))
		{
			char	   *kind = slot_text(slot, a_kind);
			char	   *state = slot_text(slot, a_state);
			bool		isnull;
			Datum		d;
			int64		id;
			TimestampTz started;
			TimestampTz finished;
			int64		us;
			bool		done;

			if (kind == NULL || strcmp(kind, "binding") != 0 || state == NULL || strcmp(state, "pending") == 0)
				continue;
			d = slot_getattr(slot, a_id, &isnull);
			if (isnull)
				continue;
			id = DatumGetInt64(d);
			if (bsearch(&id, pending, npending, sizeof(int64), cmp_int64) == NULL)
				continue;
			d = slot_getattr(slot, a_started, &isnull);
			if (isnull || TIMESTAMP_NOT_FINITE(DatumGetTimestampTz(d)))
				continue;
			started = DatumGetTimestampTz(d);
			d = slot_getattr(slot, a_finished, &isnull);
			finished = isnull || TIMESTAMP_NOT_FINITE(DatumGetTimestampTz(d)) ?
				GetCurrentTransactionStartTimestamp() : DatumGetTimestampTz(d);
			done = strcmp(state, "done") == 0;
			any_error |= !done;
			if (m == NULL)
				m = MetricsBegin();
			if (pg_sub_s64_overflow(finished, started, &us))
				us = 0;
			MetricsAttempt(m, slot_text(slot, a_object), done ? ATTEMPT_SCHEDULED : ATTEMPT_ERROR, us);
			d = slot_getattr(slot, a_enqueued, &isnull);
			if (done && !isnull && !TIMESTAMP_NOT_FINITE(DatumGetTimestampTz(d)) &&
				!pg_sub_s64_overflow(finished, DatumGetTimestampTz(d), &us))
			{
				Datum		attempts = slot_getattr(slot, a_attempts, &isnull);

				MetricsScheduled(m, isnull ? 1 : DatumGetInt32(attempts), us);
			}
		}
	}
	ExecDropSingleTupleTableSlot(slot);
	if (m != NULL)
	{
		/*
		 * A failed binding counts where schedule_pending() counts its
		 * errors, the row (error, profile) of attempt_totals, which a call
		 * writes at its end holding cycle_lock: take cycle_lock (SHARE)
		 * first, as the mirror's writers do, rather than hold that row
		 * while the statements after this one wait for the lock (the
		 * settle of waiting bindings forgets the pods next, and its write
		 * of scheduler.pods waits for cycle_lock): a call would then wait
		 * for the row, a deadlock.  The writers that fail bindings hold it
		 * already, but the settle.  A binding done waits for nothing: with
		 * an API server a call counts no placement.  (A session that runs
		 * schedule_pending() with scheduler.kube_api_url unset, while
		 * others set it, counts its placements; a client transaction that
		 * records a done binding and then waits for cycle_lock could then
		 * deadlock with it.  The setting is the server's, as the README
		 * says.)
		 */
		if (any_error)
			LockRelationOid(SchedulerRelid("cycle_lock"), ShareLock);
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "binding_metrics: SPI_connect failed");
		MetricsWrite(m);
		SPI_finish();
	}
	return PointerGetDatum(NULL);
}
