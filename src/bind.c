/*
 * bind.c
 *	  The bind worker: sends what schedule_pending() put in scheduler.outbox
 *	  to the API server, and reports the responses to outbox.c, a batch at
 *	  a time (OutboxRecordMany: scheduler.outbox_result()'s rules), which
 *	  claims the rows and records the answers; this file does the sending.
 *
 *	 binding    POST   namespaces/{ns}/pods/{name}/binding (the pod's uid is a
 *	                   precondition in the body)
 *	 condition  PATCH  namespaces/{ns}/pods/{name}/status (strategic merge:
 *	                   PodScheduled False, Unschedulable, the message)
 *	 event      POST   events.k8s.io/v1 namespaces/{ns}/events (FailedScheduling,
 *	                   Scheduled, Preempted); a repeat PATCHes the Event's
 *	                   series (strategic merge), and creates it, series and
 *	                   all, when the patch finds none (404), as client-go's
 *	                   event broadcaster does
 *	 delete     PATCH  namespaces/{ns}/pods/{name}/status (a preemption victim's
 *	                   DisruptionTarget condition, as kube-scheduler sets
 *	                   it first), then DELETE namespaces/{ns}/pods/{name}
 *	                   (its uid a precondition); a patch refused is the
 *	                   row's answer, and nothing is deleted
 *	 volume     PATCH  persistentvolumes/{object} (merge patch: VolumeBinding's
 *	                   PreBind of a static binding, spec.claimRef)
 *	 claim      PATCH  namespaces/{ns}/persistentvolumeclaims/{object} (merge
 *	                   patch: the selected-node annotation of a provisioning)
 * A binding that waits for its claims is due only once they are bound
 * (outbox.c).
 *
 * Bindings, deletions and PreBind patches go first and are never rate-limited; conditions and events share
 * a token bucket (scheduler.status_qps, burst twice that), so they can never
 * hold bindings or scheduling up: they take at most half of the requests in
 * flight, and a slow one (the API server's flow control queues it) does not
 * hold the next bindings back, which are claimed and sent beside it.  A
 * condition whose pod has been scheduled since is not sent: it would
 * overwrite PodScheduled=True.
 *
 * A 429 (API Priority and Fairness) or a 5xx with a Retry-After is honoured
 * as client-go honours it: the request is due again after that many
 * seconds, and no new request of its class (bindings, or status) is sent
 * before then; the other class goes on.
 *
 * Requests run concurrently (scheduler.bind_concurrency) on one curl multi,
 * whose connections are kept alive.  A response is recorded only after it
 * came; a worker killed in between sends the request again, and a binding
 * sent twice is answered 409 "already assigned" to the same node, which
 * the outbox's rules count as bound: a pod is bound exactly once.
 *
 * One such worker acts per database (a lock no SQL statement takes:
 * access.c), never on a standby.
 */
#include "postgres.h"

#include "access/xact.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "access.h"
#include "jsonutil.h"
#include "kube_client.h"
#include "outbox.h"
#include "bind.h"
#include "subxact.h"
#include "worker.h"

#define BATCH 1000

int			scheduler_bind_concurrency = 16;
int			scheduler_status_qps = 50;
int			scheduler_outbox_max_attempts = 10;

typedef struct OutboxItem
{
	MemoryContext cxt;			/* the item's, its request's and what built it */
	int64		id;
	KubeRequest *req;
	KubeRequest *then;			/* a victim's DELETE, after its DisruptionTarget patch (req);
								 * an Event's create, after its series patch */
	bool		then_if_missing;	/* then follows a 404 (else a 2xx) */
	bool		status_kind;	/* a condition or an event */
	bool		prebind;		/* a PreBind PATCH (volume, claim): no claim while it is out */
	bool		sent;			/* in the curl multi */
	bool		answered;
	long		status;			/* 0: no response */
	long		retry_after_ms; /* the response's Retry-After, -1: none */
	char	   *response;		/* body, when JSON-ish */
	size_t		response_len;
} OutboxItem;

static KubeLoop loop;
static MemoryContext loop_cxt;
static MemoryContext flight_cxt;	/* the flight's list (each item has a context of its own) */
static List *flight = NIL;		/* claimed, until recorded: to send, sent, answered */
static KubeFailureLog failures = {.who = "scheduler bind"};
/* conditions and events in flight at most: half of the requests */
#define STATUS_CAP Max(scheduler_bind_concurrency / 2, 1)
static double tokens = 0;
static TimestampTz tokens_at = 0;
/* a 429's Retry-After: no new request of the class before */
static TimestampTz bindings_resume_at = 0;
static TimestampTz status_resume_at = 0;
/* the events' series looked at this often */
#define SERIES_TICK_MS 10000
static TimestampTz series_tick_at = 0;

void		scheduler_bind_main(Datum arg);

void
BindInitGucs(void)
{
	DefineCustomIntVariable("scheduler.bind_concurrency",
							"Most requests the bind worker has in flight at once.",
							NULL,
							&scheduler_bind_concurrency,
							16, 1, 1024,
							PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("scheduler.status_qps",
							"Most PodScheduled conditions and FailedScheduling events sent per second (burst: twice as many).",
							NULL,
							&scheduler_status_qps,
							50, 1, 100000,
							PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("scheduler.outbox_max_attempts",
							"Attempts at an outbox request that gets no answer, or a 401, 403, 429 or 5xx, before it fails (a binding's reservation then is forgotten).",
							NULL,
							&scheduler_outbox_max_attempts,
							10, 1, 1000,
							PGC_SIGHUP, 0, NULL, NULL, NULL);
}

static void
begin(const char *activity)
{
	WorkerBegin(activity);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
}

static void
commit(void)
{
	SPI_finish();
	WorkerCommit(loop_cxt);
}

/*
 * The request for an outbox row: its path from the namespace and name, each
 * percent-encoded (a name from a stored row never reaches a path as it is);
 * NULL when one of them is no path segment at all.
 */
static KubeRequest *
build_request(KubeConfig *cfg, const OutboxRow *row)
{
	const char *kind = row->kind;
	const char *body = row->body;
	char	   *ens = KubePathSegment(row->namespace);
	char	   *ename = KubePathSegment(row->name);

	if (strcmp(kind, "volume") == 0 || strcmp(kind, "claim") == 0)
	{
		char	   *eobj = KubePathSegment(row->object);

		if (eobj == NULL || (ens == NULL && strcmp(kind, "claim") == 0))
			return NULL;
		if (strcmp(kind, "volume") == 0)
			return KubeRequestNew(cfg, "PATCH", psprintf("/api/v1/persistentvolumes/%s", eobj),
								  "application/merge-patch+json", body, 30000L);
		return KubeRequestNew(cfg, "PATCH", psprintf("/api/v1/namespaces/%s/persistentvolumeclaims/%s", ens, eobj),
							  "application/merge-patch+json", body, 30000L);
	}
	if ((strcmp(kind, "event") == 0 || strcmp(kind, "series") == 0) && row->object != NULL)
	{
		/* events.k8s.io/v1: the Event created, or its series patched (by its name) */
		char	   *eobj = KubePathSegment(row->object);

		if (ens == NULL || eobj == NULL)
			return NULL;
		if (strcmp(kind, "series") == 0)
			return KubeRequestNew(cfg, "PATCH", psprintf("/apis/events.k8s.io/v1/namespaces/%s/events/%s", ens, eobj),
								  "application/strategic-merge-patch+json", body, 30000L);
		return KubeRequestNew(cfg, "POST", psprintf("/apis/events.k8s.io/v1/namespaces/%s/events", ens),
							  "application/json", body, 30000L);
	}
	if (ens == NULL || ename == NULL)
		return NULL;
	if (strcmp(kind, "binding") == 0)
		return KubeRequestNew(cfg, "POST", psprintf("/api/v1/namespaces/%s/pods/%s/binding", ens, ename),
							  "application/json", body, 30000L);
	if (strcmp(kind, "delete") == 0)
		return KubeRequestNew(cfg, "DELETE", psprintf("/api/v1/namespaces/%s/pods/%s", ens, ename),
							  "application/json", body, 30000L);
	if (strcmp(kind, "disruption") == 0)
		return KubeRequestNew(cfg, "PATCH", psprintf("/api/v1/namespaces/%s/pods/%s/status", ens, ename),
							  "application/strategic-merge-patch+json", body, 30000L);
	if (strcmp(kind, "condition") == 0)
		return KubeRequestNew(cfg, "PATCH", psprintf("/api/v1/namespaces/%s/pods/%s/status", ens, ename),
							  "application/strategic-merge-patch+json", body, 30000L);
	return NULL;				/* an event without its Event's name */
}

/* A row no request can be built for, and why: added to list, in loop_cxt (recorded after the claim) */
typedef struct Unbuildable
{
	int64		id;
	char	   *msg;
} Unbuildable;

static List *
unbuildable(List *list, const OutboxRow *row)
{
	MemoryContext old = MemoryContextSwitchTo(loop_cxt);
	Unbuildable *u = palloc(sizeof(Unbuildable));
	const char *ns = row->namespace;
	const char *name = row->name;
	const char *object = row->object;

	u->id = row->id;
	u->msg = psprintf("no request can be built for %s %s/%s%s%s: not a path segment", row->kind,
					  ns ? JCut(ns, strlen(ns), 64) : "", name ? JCut(name, strlen(name), 64) : "",
					  object ? " " : "", object ? JCut(object, strlen(object), 64) : "");
	list = lappend(list, u);
	MemoryContextSwitchTo(old);
	return list;
}

/*
 * The rows no request can be built for fail for good (status -1): a
 * binding's reservation is forgotten, so the pod is back in the queue.  In
 * a transaction of their own, after the claim's: the claim holds the rows
 * it closed as stale, and a failed binding's forget waits for cycle_lock,
 * which a scheduling call holds while it may wait for those rows.
 */
static void
fail_unbuildable(List *rows)
{
	ListCell   *lc;

	if (rows == NIL)
		return;
	begin("scheduler bind: failing requests that cannot be built");
	foreach(lc, rows)
	{
		Unbuildable *u = lfirst(lc);
		JsonbParseState *st = NULL;

		pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
		JPushString(&st, WJB_KEY, "message");
		JPushString(&st, WJB_VALUE, u->msg);
		ereport(WARNING, (errmsg("scheduler bind: %s", u->msg)));
		(void) OutboxRecord(u->id, -1, JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_OBJECT, NULL)),
							scheduler_outbox_max_attempts, -1);
	}
	commit();
}

/* A condition or an event: the status class (else the bindings' class) */
static bool
status_kind(const char *kind)
{
	return strcmp(kind, "condition") == 0 || strcmp(kind, "event") == 0;
}

/*
 * The flight's item for an outbox row, its requests built in a context of
 * its own (under flight_cxt); NULL when no request can be built for it.
 */
static OutboxItem *
make_item(KubeConfig *cfg, const OutboxRow *row)
{
	MemoryContext cxt = AllocSetContextCreate(flight_cxt, "scheduler bind request", ALLOCSET_SMALL_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	KubeRequest *req = build_request(cfg, row);
	OutboxItem *it;

	if (req == NULL)
	{
		MemoryContextSwitchTo(old);
		MemoryContextDelete(cxt);
		return NULL;
	}
	it = palloc0(sizeof(OutboxItem));
	it->cxt = cxt;
	it->id = row->id;
	it->req = req;
	if (strcmp(row->kind, "delete") == 0 && row->object != NULL)
	{
		/* kube-scheduler's order: the victim's DisruptionTarget, then its deletion */
		OutboxRow	patch = *row;

		patch.kind = "disruption";
		patch.body = OutboxDisruptionPatch(row->uid, row->object);
		it->then = req;
		it->req = build_request(cfg, &patch);
	}
	else if (strcmp(row->kind, "event") == 0 && row->object != NULL)
	{
		/*
		 * client-go's recordEvent: a series is patched onto the Event; when
		 * there is none (404: expired, or never made), the whole Event,
		 * series and all, is created.
		 */
		OutboxRow	patch = *row;

		patch.kind = "series";
		patch.body = OutboxSeriesPatch(row->body);
		if (patch.body != NULL)
		{
			it->then = req;
			it->then_if_missing = true;
			it->req = build_request(cfg, &patch);
		}
	}
	it->req->arg = it;
	it->status_kind = status_kind(row->kind);
	it->prebind = strcmp(row->kind, "volume") == 0 || strcmp(row->kind, "claim") == 0;
	it->retry_after_ms = -1;
	MemoryContextSwitchTo(old);
	return it;
}

/*
 * Take what is due and not in flight: bindings first, unless a Retry-After
 * holds them; status as the bucket allows.  Conditions made stale by a later
 * placement are closed without being sent.  Builds the requests, in
 * flight_cxt, and adds them to the flight.  *next_ms: when the next row falls
 * due (-1: none).
 */
static void
claim(KubeConfig *cfg, long *next_ms)
{
	TimestampTz now = GetCurrentTimestamp();
	int			nflight = list_length(flight);
	int64	   *ids = palloc(sizeof(int64) * Max(nflight, 1));
	int			flight_bindings = 0;
	int			flight_status = 0;
	int			status_room;
	int			n = 0;
	bool		bindings_held = now < bindings_resume_at;
	bool		status_held = now < status_resume_at;
	int			claimed_bindings;
	List	   *rows;
	List	   *failed = NIL;	/* rows no request can be built for */
	ListCell   *lc;

	tokens = Min(2.0 * scheduler_status_qps,
				 tokens + (now - tokens_at) / 1000000.0 * scheduler_status_qps);
	tokens_at = now;
	foreach(lc, flight)
	{
		OutboxItem *it = lfirst(lc);

		ids[n++] = it->id;
		flight_bindings += !it->status_kind;
		flight_status += it->status_kind;
	}
	/*
	 * No more status than can go out at once: a claimed condition waits for
	 * no later round, where a binding could have made it stale.
	 */
	status_room = status_held ? 0 : Min((int) tokens, STATUS_CAP - flight_status);

	/*
	 * the events' series: written again, or ended, as client-go's timers do;
	 * in a transaction of its own, so that its row locks are not held while
	 * the claim waits for a scheduling call (a deadlock that would fail the
	 * call), and an error in it holds no claim back (nor is retried before
	 * the next tick)
	 */
	if (TimestampDifferenceExceeds(series_tick_at, now, SERIES_TICK_MS))
	{
		series_tick_at = now;
		begin("scheduler bind: the events' series");
		OutboxEventSeriesTick();
		commit();
	}
	begin("scheduler bind: reading the outbox");
	rows = OutboxClaim(bindings_held ? 0 : BATCH - flight_bindings, Max(status_room, 0), ids, n);
	claimed_bindings = 0;
	foreach(lc, rows)
	{
		OutboxRow  *row = lfirst(lc);
		OutboxItem *it = make_item(cfg, row);
		MemoryContext old;

		if (!status_kind(row->kind))
			claimed_bindings++;	/* (one that cannot be built too: it took room) */
		if (it == NULL)
		{
			failed = unbuildable(failed, row);
			continue;
		}
		if (it->status_kind)
			tokens -= 1;
		old = MemoryContextSwitchTo(flight_cxt);
		flight = lappend(flight, it);
		MemoryContextSwitchTo(old);
	}
	/* when the next row of a class not held falls due; a held one, at its resume */
	*next_ms = OutboxNextDue(!bindings_held, !status_held);
	if (bindings_held || status_held)
	{
		TimestampTz until = !status_held ? bindings_resume_at : !bindings_held ? status_resume_at
			: Min(bindings_resume_at, status_resume_at);
		long		resume = (until - now) / 1000 + 1;

		*next_ms = *next_ms < 0 ? resume : Min(*next_ms, resume);
	}
	commit();
	fail_unbuildable(failed);
	/* as many bindings as there was room for: more may be due, claimed once these are out */
	if (!bindings_held && flight_bindings < BATCH && claimed_bindings == BATCH - flight_bindings)
		SetLatch(MyLatch);
}

/*
 * A response's body as jsonb, or NULL when it is none: not JSON, or JSON
 * that jsonb cannot hold (nested past max_stack_depth, past jsonb's size
 * limits), which throws: caught in a subtransaction, so that the status is
 * recorded all the same and the request's attempts count towards the cap.
 * Any other ERROR (a cancel, out of memory) is thrown on.
 */
typedef struct Parse
{
	const OutboxItem *it;
	Jsonb	   *resp;
} Parse;

static void
parse_response(void *arg)
{
	Parse	   *p = (Parse *) arg;

	p->resp = KubeParseJson(p->it->response, p->it->response_len);
}

static Jsonb *
response_json(const OutboxItem *it)
{
	Parse		p = {it, NULL};
	ErrorData  *edata = RunInSubxact(parse_response, &p);

	if (edata != NULL)
	{
		int			class = ERRCODE_TO_CATEGORY(edata->sqlerrcode);

		if (class != ERRCODE_DATA_EXCEPTION && class != ERRCODE_PROGRAM_LIMIT_EXCEEDED)
			ReThrowError(edata);
		ereport(WARNING,
				(errmsg("scheduler bind: the response to outbox request %lld (HTTP %ld) is no JSON object we can hold: %s",
						(long long) it->id, it->status, edata->message)));
		return NULL;
	}
	return p.resp;
}

/* An item's requests and memory go (it is in no curl multi) */
static void
free_item(OutboxItem *it)
{
	KubeRequestFree(it->req);
	if (it->then)
		KubeRequestFree(it->then);
	MemoryContextDelete(it->cxt);
}

/* An item leaves the flight */
static void
drop_item(OutboxItem *it)
{
	flight = list_delete_ptr(flight, it);
	free_item(it);
	if (flight == NIL)
		MemoryContextReset(flight_cxt);
}

/*
 * A Retry-After holds a class: what of it waits unsent leaves the flight
 * (its rows stay pending, claimed again once the hold is over).
 */
static void
drop_unsent(bool status_kind)
{
	List	   *drop = NIL;
	ListCell   *lc;

	foreach(lc, flight)
	{
		OutboxItem *it = lfirst(lc);

		if (!it->sent && it->status_kind == status_kind)
			drop = lappend(drop, it);
	}
	foreach(lc, drop)
		drop_item(lfirst(lc));
	list_free(drop);
}

/* Record these responses in one transaction, and let them go */
static void
record(List *items)
{
	OutboxResponse *resps;
	int			n = 0;
	ListCell   *lc;

	begin(psprintf("scheduler bind: recording %d responses", list_length(items)));
	resps = palloc(sizeof(OutboxResponse) * Max(list_length(items), 1));
	foreach(lc, items)
	{
		OutboxItem *it = lfirst(lc);
		OutboxResponse *r = &resps[n++];

		r->id = it->id;
		r->http_status = (int32) it->status;
		r->response = it->response_len > 0 ? response_json(it) : NULL;
		if (r->response && !JB_ROOT_IS_OBJECT(r->response))
			r->response = NULL;
		r->retry_after_ms = it->retry_after_ms;
	}
	OutboxRecordMany(resps, n, scheduler_outbox_max_attempts);
	commit();
	foreach(lc, items)
	{
		OutboxItem *it = lfirst(lc);

		drop_item(it);
	}
}

/*
 * Start what waits, while there is room: bindings first; conditions and
 * events take at most half of scheduler.bind_concurrency.
 */
static void
start_some(int *inflight, int *status_inflight)
{
	int			status_cap = STATUS_CAP;
	ListCell   *lc;

	foreach(lc, flight)
	{
		OutboxItem *it = lfirst(lc);

		if (*inflight >= scheduler_bind_concurrency)
			break;
		if (it->sent || (it->status_kind && *status_inflight >= status_cap))
			continue;
		KubeLoopAdd(&loop, it->req);
		it->sent = true;
		(*inflight)++;
		*status_inflight += it->status_kind;
	}
}

/* A response came: keep it for recording; a 429's Retry-After pauses its class */
static bool
answered(OutboxItem *it, KubeRequest *req, CURLcode result)
{
	bool		trouble = false;

	it->answered = true;
	it->status = result == CURLE_OK ? KubeRequestStatus(req) : 0;
	it->retry_after_ms = result == CURLE_OK ? KubeRetryAfterMs(req) : -1;
	if (it->status == 0 || it->status >= 500 || it->status == 401 || it->status == 403 ||
		it->status == 429)
	{
		KubeLogFailure(&failures, psprintf("%s %s", req->method, req->path), KubeRequestError(req, result));
		trouble = true;
	}
	if (it->retry_after_ms >= 0)
	{
		TimestampTz resume = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), it->retry_after_ms);
		TimestampTz *at = it->status_kind ? &status_resume_at : &bindings_resume_at;

		*at = Max(*at, resume);
		drop_unsent(it->status_kind);
	}
	it->response = req->response.data;
	it->response_len = req->response.len;
	return trouble;
}

/*
 * Send what is in flight, at most scheduler.bind_concurrency at a time,
 * recording the responses as they come, a transaction per RECORD_EVERY of
 * them (or RECORD_DELAY ms): a worker killed mid-batch sends again only
 * what it had not recorded.  Returns once every binding-class request is
 * answered: conditions and events still in flight stay there (they are
 * sent on beside the next claim), after at most a second's wait for them,
 * or at once when the latch says that more is due.  When the latch says so
 * while the last claimed bindings are still out (each sent, some not yet
 * answered), it returns then, with those in flight: the next claim is made
 * beside them; not when claiming is false (nothing will be claimed next:
 * the connection settings failed to load), when it waits for them all.
 */
#define RECORD_EVERY 64
#define RECORD_DELAY 50

static void
send_flight(bool claiming)
{
	int			inflight = 0;
	int			status_inflight = 0;
	bool		trouble = false;
	List	   *done = NIL;
	TimestampTz first_done = 0;
	TimestampTz started = GetCurrentTimestamp();
	bool		woken = false;
	bool		heard = false;	/* a response came (not only timeouts) */
	ListCell   *lc;

	foreach(lc, flight)
	{
		OutboxItem *it = lfirst(lc);

		inflight += it->sent && !it->answered;
		status_inflight += it->sent && !it->answered && it->status_kind;
	}
	for (;;)
	{
		KubeRequest *req;
		CURLcode	result;
		bool		bindings_left = false;
		bool		bindings_unsent = false;
		bool		prebind_out = false;

		start_some(&inflight, &status_inflight);
		KubeLoopWait(&loop, done != NIL ? RECORD_DELAY : 1000, PG_WAIT_EXTENSION);
		woken |= MyLatch->is_set != 0;
		ResetLatch(MyLatch);	/* the outbox is read again after this */
		CHECK_FOR_INTERRUPTS();
		while ((req = KubeLoopNextDone(&loop, &result)) != NULL)
		{
			OutboxItem *it = (OutboxItem *) req->arg;
			long		code = result == CURLE_OK ? KubeRequestStatus(req) : 0;

			inflight--;
			status_inflight -= it->status_kind;
			if (it->then != NULL &&
				(it->then_if_missing ? code == 404 : (code >= 200 && code < 300)))
			{
				/* the victim is marked: now its deletion; or no Event to patch: made */
				KubeRequestFree(req);
				it->req = it->then;
				it->req->arg = it;
				it->then = NULL;
				it->sent = false;
				/* unless a Retry-After holds its class: pending, claimed again after it */
				if (GetCurrentTimestamp() < (it->status_kind ? status_resume_at : bindings_resume_at))
					drop_item(it);
				continue;
			}
			trouble |= answered(it, req, result);
			heard |= it->status > 0;
			if (done == NIL)
				first_done = GetCurrentTimestamp();
			done = lappend(done, it);
		}
		foreach(lc, flight)
		{
			OutboxItem *it = lfirst(lc);

			bindings_left |= !it->status_kind && !it->answered;
			bindings_unsent |= !it->status_kind && !it->sent;
			prebind_out |= it->prebind && !it->answered;
		}
		/*
		 * More is due and every claimed binding is out: the next claim is
		 * made while these are answered, so that the API server never waits
		 * on a batch's last answers, its recording and the next claim.  Not
		 * while a PreBind PATCH is out: the claim settles the bindings that
		 * wait for claims, and one that fails takes its pod's PreBind
		 * requests still pending with it (outbox.c), which a PATCH sent and
		 * not yet answered must not be.
		 */
		if (claiming && woken && bindings_left && !bindings_unsent && !prebind_out &&
			inflight < scheduler_bind_concurrency && GetCurrentTimestamp() >= bindings_resume_at)
		{
			if (done != NIL)
				record(done);
			list_free(done);
			done = NIL;
			break;
		}
		if (done != NIL &&
			(list_length(done) >= RECORD_EVERY || inflight == 0 || !bindings_left ||
			 TimestampDifferenceExceeds(first_done, GetCurrentTimestamp(), RECORD_DELAY)))
		{
			record(done);
			list_free(done);
			done = NIL;
		}
		if (flight == NIL ||
			(!bindings_left && done == NIL &&
			 (woken || TimestampDifferenceExceeds(started, GetCurrentTimestamp(), 1000))))
			break;
	}
	if (heard && !trouble && claiming)
		KubeLogRecovery(&failures);
}

/*
 * One turn: become the leader, take what is due and send it.  Returns how
 * long to sleep (0: go on at once).
 */
static long
bind_round(void)
{
	static bool leader = false;
	KubeConfig	cfg;
	char	   *error;
	long		next_ms;

	if (ConfigReloadPending)
	{
		ConfigReloadPending = false;
		ProcessConfigFile(PGC_SIGHUP);
	}
	if (!leader)
	{
		if (!KubeApiConfigured() || !(leader = WorkerTakeLead(LEADER_BIND, "scheduler bind")))
			return 1000;
		elog(LOG, "scheduler bind: started in database \"%s\"", scheduler_database);
	}
	if (!KubeConfigLoad(&cfg, &error))
	{
		KubeLogFailure(&failures, "cannot connect", error);
		/* what is already out is still answered and recorded; nothing new is claimed */
		if (flight != NIL)
			send_flight(false);
		return 5000;
	}
	claim(&cfg, &next_ms);
	KubeConfigFree(&cfg);
	if (flight != NIL)
	{
		send_flight(true);
		return 0;
	}
	/* nothing due: wait for schedule_pending's wake-up or the next due row */
	if (next_ms < 0 || next_ms > scheduler_worker_interval)
		next_ms = scheduler_worker_interval;
	if (next_ms == 0)			/* due, but the status bucket is empty */
		next_ms = 1000 / scheduler_status_qps;
	return Max(next_ms, 10);
}

void
scheduler_bind_main(Datum arg pg_attribute_unused())
{
	WorkerConnect(WORKER_BIND);
	KubeLoopInit(&loop);
	loop_cxt = AllocSetContextCreate(TopMemoryContext, "scheduler bind loop", ALLOCSET_DEFAULT_SIZES);
	flight_cxt = AllocSetContextCreate(TopMemoryContext, "scheduler bind flight", ALLOCSET_DEFAULT_SIZES);
	tokens_at = GetCurrentTimestamp();
	tokens = 2.0 * scheduler_status_qps;

	for (;;)
	{
		volatile long sleep_ms = 0;

		MemoryContextSwitchTo(loop_cxt);
		MemoryContextReset(loop_cxt);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();

		/*
		 * An error (a deadlock recording responses, say) is logged and rolled
		 * back; what was in flight is dropped and sent again from the outbox,
		 * where it is still pending: the worker goes on, without a restart.
		 */
		PG_TRY();
		{
			sleep_ms = bind_round();
		}
		PG_CATCH();
		{
			ListCell   *lc;

			WorkerRecover(loop_cxt);
			foreach(lc, flight)
			{
				OutboxItem *it = lfirst(lc);

				if (it->sent && !it->answered)
					KubeLoopRemove(&loop, it->req);
				free_item(it);
			}
			flight = NIL;
			MemoryContextReset(flight_cxt);
			sleep_ms = 1000;
		}
		PG_END_TRY();

		if (sleep_ms > 0)
			(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
							 sleep_ms, PG_WAIT_EXTENSION);
	}
}
