/*
 * watch.c
 *	  The watch worker: lists, then watches, every kind the mirror holds
 *	  (kinds.c: nodes, pods, namespaces, PodDisruptionBudgets and the
 *	  workloads that select pods) on the API server, and applies what comes
 *	  into the mirror tables.
 *
 * One watch per kind, at the path and with the query its entry says.  Per
 * resource, as client-go's reflector does:
 *	 - with no resourceVersion stored (scheduler.watch_state), or after a 410,
 *	   LIST, and apply the list as the whole truth (scheduler.relist: rows of
 *	   objects that vanished meanwhile are deleted);
 *	 - then WATCH from the stored resourceVersion, with bookmarks.  Events
 *	   are applied in batches, one transaction per batch, bounded by count
 *	   (scheduler.watch_batch_size) and by time (scheduler.watch_batch_delay);
 *	   the batch's last resourceVersion is stored in the same transaction, so
 *	   a restart resumes exactly after what was applied.
 *	   The pods of a batch are written in one statement (a MirrorBatch).
 *	 - A watch that ends cleanly (its timeoutSeconds) is reopened at once; a
 *	   dropped connection, a 5xx or a refused request is retried with
 *	   jittered backoff; a 410 (HTTP, or an ERROR event) relists; another
 *	   ERROR event or a line that is not JSON is logged (cut short, escaped)
 *	   and the watch reopened from the last applied resourceVersion, so
 *	   nothing after it is lost.
 *	 - An event or list item that cannot be applied (bad input) is skipped
 *	   with a WARNING; any other error rolls the transaction back and the
 *	   watches resume from what was committed.
 *
 * Pods are watched as kube-scheduler's informer watches them: all but the
 * terminal ones (their entry's field selector).  The list and watch apply
 * through the mirror's C entry points (mirror.h), not through SQL.
 *
 * One such worker acts per database (a lock no SQL statement takes:
 * access.c), never on a standby.
 */
#include "postgres.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "access/xact.h"
#include "common/pg_prng.h"
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
#include "kinds.h"
#include "kube_client.h"
#include "mirror.h"
#include "subxact.h"
#include "watch.h"
#include "worker.h"

#define MAX_LOGGED_LINE 200

int			scheduler_watch_batch_size = 1000;
int			scheduler_watch_batch_delay = 50;	/* ms */

typedef enum WatchState
{
	W_IDLE,						/* waiting to (re)start at next_try */
	W_LISTING,
	W_WATCHING
} WatchState;

typedef enum BatchOutcome
{
	B_CONTINUE,					/* keep watching */
	B_RELIST,					/* 410: list again */
	B_REWATCH					/* reopen the watch from the last version */
} BatchOutcome;

typedef struct Watch
{
	const MirrorKind *kind;		/* of the objects it carries */
	const char *resource;		/* watch_state key, and for messages */
	const char *path;			/* collection path */
	const char *query;			/* query parameters (field selector), or "" */
	WatchState	state;
	bool		need_relist;
	char	   *rv;				/* last applied resourceVersion, or NULL */
	KubeRequest *req;
	MemoryContext lines_cxt;	/* the lines of the batch being gathered */
	List	   *lines;
	TimestampTz first_line_at;
	int			failures;
	TimestampTz next_try;
	uint64		events;			/* applied, for pg_stat_activity */
	int			lines_seen;		/* by the current request */
	TimestampTz started_at;		/* the current request */
} Watch;

/* One watch per kind (kinds.c), made by make_watches() */
static Watch *watches;
static int	nwatches;

static KubeLoop loop;
static MemoryContext loop_cxt;	/* reset at each turn of the loop */
static KubeFailureLog failures = {.who = "scheduler watch"};

void		scheduler_watch_main(Datum arg);

void
WatchInitGucs(void)
{
	DefineCustomIntVariable("scheduler.watch_batch_size",
							"Most watch events applied in one transaction.",
							NULL,
							&scheduler_watch_batch_size,
							1000, 1, 1000000,
							PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("scheduler.watch_batch_delay",
							"Longest a watch event waits for its batch to be applied.",
							NULL,
							&scheduler_watch_batch_delay,
							50, 0, 60000,
							PGC_SIGHUP, GUC_UNIT_MS, NULL, NULL, NULL);
}

static void
begin(const char *activity)
{
	WorkerBegin(activity);
}

static void
commit(void)
{
	WorkerCommit(loop_cxt);
}

/*
 * The stored resourceVersion (caller is in a transaction, SPI connected).
 * Not read-only: that would read with the caller's snapshot, blind to what
 * relist() just stored in this transaction.
 */
static char *
stored_rv(const char *resource)
{
	Oid			argtypes[1] = {TEXTOID};
	Datum		args[1] = {CStringGetTextDatum(resource)};
	bool		isnull;
	Datum		d;

	if (SPI_execute_with_args("SELECT resource_version FROM scheduler.watch_state WHERE resource = $1",
							  1, argtypes, args, NULL, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "reading scheduler.watch_state failed");
	if (SPI_processed == 0)
		return NULL;
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	return isnull ? NULL : MemoryContextStrdup(TopMemoryContext, TextDatumGetCString(d));
}

static void
set_rv(Watch *w, char *rv)
{
	if (w->rv)
		pfree(w->rv);
	w->rv = rv ? MemoryContextStrdup(TopMemoryContext, rv) : NULL;
}

/* ------------------------------------------------------------------------
 * Requests
 * ------------------------------------------------------------------------
 */
static void
watch_line(KubeRequest *req, char *line, size_t len)
{
	Watch	   *w = (Watch *) req->arg;
	MemoryContext old = MemoryContextSwitchTo(w->lines_cxt);

	if (w->lines == NIL)
		w->first_line_at = GetCurrentTimestamp();
	w->lines_seen++;
	w->lines = lappend(w->lines, pnstrdup(line, len));
	MemoryContextSwitchTo(old);
}

static void
drop_request(Watch *w)
{
	if (w->req)
	{
		KubeLoopRemove(&loop, w->req);
		KubeRequestFree(w->req);
		w->req = NULL;
	}
	MemoryContextReset(w->lines_cxt);
	w->lines = NIL;
}

/* list again, at once */
static void
relist_now(Watch *w)
{
	w->need_relist = true;
	drop_request(w);
	w->state = W_IDLE;
	w->next_try = 0;
}

/*
 * Try again after a backoff, or after the Retry-After of a 429 (API
 * Priority and Fairness) or a 5xx that has one, as client-go does.
 */
static void
retry_later(Watch *w)
{
	long		after = w->req ? KubeRetryAfterMs(w->req) : -1;

	drop_request(w);
	w->failures++;
	w->state = W_IDLE;
	w->next_try = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
											  after >= 0 ? after : KubeJitteredBackoff(w->failures, 200, 30000));
}

static void
start(Watch *w)
{
	KubeConfig	cfg;
	char	   *error;
	char	   *path;
	long		timeout_ms = 300000L;
	MemoryContext old;

	if (!KubeConfigLoad(&cfg, &error))
	{
		KubeLogFailure(&failures, "cannot connect", error);
		retry_later(w);
		return;
	}
	/* a resourceVersion is the API server's, stored in a table: escaped like any other */
	if (w->rv == NULL || w->need_relist || KubePathSegment(w->rv) == NULL)
	{
		path = psprintf("%s%s%s", w->path, w->query[0] ? "?" : "", w->query);
		w->state = W_LISTING;
	}
	else
	{
		/* client-go's reflector: a random timeout in [5, 10) minutes */
		int			timeout = 300 + (int) (pg_prng_double(&pg_global_prng_state) * 300);

		path = psprintf("%s?watch=1&allowWatchBookmarks=true&resourceVersion=%s&timeoutSeconds=%d%s%s",
						w->path, KubePathSegment(w->rv), timeout, w->query[0] ? "&" : "", w->query);
		timeout_ms = (timeout + 60) * 1000L;
		w->state = W_WATCHING;
	}
	old = MemoryContextSwitchTo(TopMemoryContext);
	w->lines_seen = 0;
	w->started_at = GetCurrentTimestamp();
	w->req = KubeRequestNew(&cfg, "GET", path, NULL, NULL, timeout_ms);
	if (w->state == W_WATCHING)
		w->req->on_line = watch_line;
	w->req->arg = w;
	KubeLoopAdd(&loop, w->req);
	MemoryContextSwitchTo(old);
	KubeConfigFree(&cfg);
}

/* ------------------------------------------------------------------------
 * Applying what came
 * ------------------------------------------------------------------------
 */
static char *
object_rv(JsonbContainer *root)
{
	JsonbValue *obj = JGet(root, "object");
	JsonbValue *md;
	JsonbValue *rv;

	if (obj == NULL || obj->type != jbvBinary)
		return NULL;
	md = JGet(obj->val.binary.data, "metadata");
	if (md == NULL || md->type != jbvBinary)
		return NULL;
	rv = JGet(md->val.binary.data, "resourceVersion");
	if (rv == NULL || rv->type != jbvString)
		return NULL;
	/* outlives a subtransaction rolled back for this line */
	return MemoryContextStrdup(TopTransactionContext, pnstrdup(rv->val.string.val, rv->val.string.len));
}

/*
 * Is this error about the input (an object or line we cannot take: data
 * exceptions, nesting too deep), rather than the database (a deadlock, a
 * timeout, no memory)?  Only the first kind skips an event.
 */
static bool
bad_input(ErrorData *edata)
{
	return ERRCODE_TO_CATEGORY(edata->sqlerrcode) == ERRCODE_DATA_EXCEPTION ||
		ERRCODE_TO_CATEGORY(edata->sqlerrcode) == ERRCODE_PROGRAM_LIMIT_EXCEEDED;
}

/*
 * WatchReadLine
 *		What one line of the watch stream of resource (objects of kind
 *		kind) says: malformed, the watch expired (410), another ERROR
 *		event, a bookmark, or an event to apply (*event).  *rv is the
 *		line's object's resourceVersion, when it has one.  An event of
 *		another kind is an ERROR (22023).
 */
WatchLine
WatchReadLine(const char *resource, const char *kind, const char *line, size_t len, Jsonb **event, char **rv)
{
	Jsonb	   *j;
	char	   *type;

	*event = NULL;
	*rv = NULL;
	j = KubeParseJson(line, len);
	if (j == NULL || !JB_ROOT_IS_OBJECT(j))
		return WATCH_LINE_MALFORMED;
	type = JGetString(&j->root, "type", "watch event", NULL);
	if (type && strcmp(type, "ERROR") == 0)
	{
		JsonbValue *obj = JGet(&j->root, "object");
		JsonbValue *code = obj && obj->type == jbvBinary ? JGet(obj->val.binary.data, "code") : NULL;
		char	   *codetext = code ? JScalarText(code) : NULL;

		return codetext && strcmp(codetext, "410") == 0 ? WATCH_LINE_EXPIRED : WATCH_LINE_ERROR;
	}
	*rv = object_rv(&j->root);
	if (type && strcmp(type, "BOOKMARK") == 0)
		return WATCH_LINE_BOOKMARK;
	{
		JsonbValue *obj = JGet(&j->root, "object");
		char	   *k = obj && obj->type == jbvBinary ?
			JGetString(obj->val.binary.data, "kind", "watch event", "object") : NULL;

		if (k && strcmp(k, kind) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("watch event: object.kind: \"%s\" in the watch of %s", JShort(k), resource)));
	}
	*event = j;
	return WATCH_LINE_EVENT;
}

/*
 * Apply one line, its pods gathered into batch.  Returns B_CONTINUE, or
 * what the stream must do now; *rv is set to the line's resourceVersion when
 * it has one (before it is applied: a line that fails to apply has still
 * been read).
 */
static BatchOutcome
apply_line(Watch *w, const char *line, MirrorBatch *batch, char **rv)
{
	Jsonb	   *event;
	WatchLine	what;

	*rv = NULL;
	what = WatchReadLine(w->resource, w->kind->kind, line, strlen(line), &event, rv);
	/* kept past this subtransaction: a line that fails to apply was read */
	if (*rv)
		*rv = MemoryContextStrdup(w->lines_cxt, *rv);
	switch (what)
	{
		case WATCH_LINE_MALFORMED:
			ereport(LOG,
					(errmsg("scheduler watch: malformed line in watch stream of %s: %s",
							w->resource, JCut(line, strlen(line), MAX_LOGGED_LINE)),
					 errdetail("The watch is reopened from resourceVersion %s.", w->rv ? w->rv : "(none)")));
			return B_REWATCH;
		case WATCH_LINE_EXPIRED:
			ereport(LOG,
					(errmsg("scheduler watch: the watch of %s expired (410 Gone) at resourceVersion %s; relisting",
							w->resource, w->rv ? w->rv : "(none)")));
			return B_RELIST;
		case WATCH_LINE_ERROR:
			KubeLogFailure(&failures, psprintf("watch of %s", w->resource),
						   psprintf("ERROR event: %s", JCut(line, strlen(line), MAX_LOGGED_LINE)));
			return B_REWATCH;
		case WATCH_LINE_BOOKMARK:
			return B_CONTINUE;
		case WATCH_LINE_EVENT:
			break;
	}
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	(void) MirrorApply(event, batch);
	SPI_finish();
	w->events++;
	return B_CONTINUE;
}

/*
 * Run fn(arg) in a subtransaction.  Returns NULL when it succeeded, or the
 * error when it failed on bad input (data exceptions, nesting too deep), the
 * subtransaction rolled back.  Any other error (a deadlock, a timeout, no
 * memory) is thrown on: the caller's whole transaction is retried.
 */
static ErrorData *
in_subxact(void (*fn) (void *arg), void *arg)
{
	ErrorData  *edata = RunInSubxact(fn, arg);

	if (edata && !bad_input(edata))
		ReThrowError(edata);
	return edata;
}

/* What flush() hands to in_subxact() */
typedef struct Lines
{
	Watch	   *w;
	List	   *lines;			/* to apply, in order */
	MirrorBatch *batch;			/* their pods, gathered; or NULL */
	BatchOutcome outcome;
	char	   *line_rv;		/* of the line being applied (read, if it failed) */
	char	   *last_rv;		/* of the last line applied */
} Lines;

static void
apply_lines(void *arg)
{
	Lines	   *l = (Lines *) arg;
	ListCell   *lc;

	foreach(lc, l->lines)
	{
		l->outcome = apply_line(l->w, lfirst(lc), l->batch, &l->line_rv);
		if (l->line_rv)
			l->last_rv = l->line_rv;
		if (l->outcome != B_CONTINUE)
			break;
	}
}

/*
 * apply_lines, the pods of all the lines written in one batch.  After an
 * error the batch is dropped with the subtransaction's memory.
 */
static void
apply_lines_batched(void *arg)
{
	Lines	   *l = (Lines *) arg;

	l->batch = MirrorBatchBegin();
	apply_lines(l);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	(void) MirrorBatchEnd(l->batch);
	SPI_finish();
	l->batch = NULL;
}

/*
 * Apply the gathered lines in one transaction; the last resourceVersion is
 * stored with them.  All at once in a subtransaction first, the pods written
 * in one batch; if that fails on bad input, line by line, each in its own, and a line that cannot be
 * applied is logged and skipped (its resourceVersion passed).
 */
static BatchOutcome
flush(Watch *w)
{
	Lines		all = {.w = w,.lines = w->lines,.outcome = B_CONTINUE};
	char	   *last_rv;

	if (w->lines == NIL)
		return B_CONTINUE;
	KubeLogRecovery(&failures);			/* the stream flows */
	begin(psprintf("scheduler watch: applying %d %s events", list_length(w->lines), w->resource));

	if (in_subxact(apply_lines_batched, &all) != NULL)
	{
		ListCell   *lc;

		all.outcome = B_CONTINUE;
		all.last_rv = NULL;
		all.batch = NULL;
		foreach(lc, w->lines)
		{
			Lines		one = {.w = w,.lines = list_make1(lfirst(lc)),.outcome = B_CONTINUE};
			ErrorData  *edata = in_subxact(apply_lines, &one);

			if (edata)
			{
				char	   *line = lfirst(lc);

				ereport(WARNING,
						(errmsg("scheduler watch: skipped a %s event that cannot be applied: %s",
								w->resource, edata->message),
						 errdetail("The event: %s", JCut(line, strlen(line), MAX_LOGGED_LINE))));
				FreeErrorData(edata);
				one.outcome = B_CONTINUE;
				one.last_rv = one.line_rv;	/* read before it failed: passed */
			}
			if (one.last_rv)
				all.last_rv = one.last_rv;
			all.outcome = one.outcome;
			if (one.outcome != B_CONTINUE)
				break;
		}
	}

	last_rv = all.last_rv;
	if (last_rv)
	{
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		MirrorStoreResourceVersion(w->resource, last_rv);
		SPI_finish();
		last_rv = MemoryContextStrdup(loop_cxt, last_rv);
	}
	commit();
	if (last_rv)
	{
		set_rv(w, last_rv);		/* only once committed */
		w->failures = 0;		/* the stream made progress */
	}
	MemoryContextReset(w->lines_cxt);
	w->lines = NIL;
	return all.outcome;
}

/* What relist() hands to in_subxact() */
typedef struct ListCall
{
	Jsonb	   *doc;			/* the list */
	int			item;			/* the item to apply alone, or -1: relist */
	Datum		keep;			/* relist: the uids of rows to keep (text[]) */
	Bitmapset  *left_out;		/* relist: the items left out */
} ListCall;

static void
apply_list(void *arg)
{
	ListCall   *c = (ListCall *) arg;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (c->item >= 0)
		(void) MirrorApplyListItem(c->doc, c->item);
	else
		(void) MirrorRelist(c->doc, c->keep, c->left_out);
	SPI_finish();
}

/*
 * Apply a list as the whole truth (MirrorRelist).  If it cannot be applied
 * whole (an item our parser refuses, where the API server's accepted it),
 * the items are tried one by one, each in a subtransaction; those that fail
 * are logged with a WARNING and left out, their rows kept, and the rest is
 * applied as the truth.  So one bad object never stops the mirror.  Returns
 * the stored resourceVersion.
 */
static char *
relist(Watch *w, Jsonb *doc)
{
	ListCall	whole = {.doc = doc,.item = -1};
	ErrorData  *edata;
	char	   *rv;

	whole.keep = PointerGetDatum(construct_empty_array(TEXTOID));
	edata = in_subxact(apply_list, &whole);
	if (edata)
	{
		/* one by one: which fail? */
		JsonbContainer *items = JGetArray(&doc->root, "items", "list", NULL);
		int			nitems = items ? (int) JsonContainerSize(items) : 0;
		Datum	   *keep = palloc(sizeof(Datum) * Max(nitems, 1));	/* their uids */
		int			nkeep = 0;

		ereport(WARNING,
				(errmsg("scheduler watch: the list of %s cannot be applied whole: %s", w->resource, edata->message),
				 errdetail("Its items are applied one by one; those that fail are left out.")));
		for (int i = 0; i < nitems; i++)
		{
			ListCall	one = {.doc = doc,.item = i};

			edata = in_subxact(apply_list, &one);
			if (edata)
			{
				JsonbValue *item = getIthJsonbValueFromContainer(items, i);
				JsonbValue *md = item->type == jbvBinary ? JGet(item->val.binary.data, "metadata") : NULL;
				JsonbValue *uid = md && md->type == jbvBinary ? JGet(md->val.binary.data, "uid") : NULL;

				ereport(WARNING,
						(errmsg("scheduler watch: left out of the list of %s: %s", w->resource, edata->message),
						 errdetail("What was mirrored of it is kept.")));
				whole.left_out = bms_add_member(whole.left_out, i);
				if (uid && uid->type == jbvString)
					keep[nkeep++] = PointerGetDatum(cstring_to_text_with_len(uid->val.string.val,
																			 uid->val.string.len));
			}
		}
		whole.keep = PointerGetDatum(construct_array(keep, nkeep, TEXTOID, -1, false, TYPALIGN_INT));
		apply_list(&whole);
	}
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	rv = stored_rv(w->resource);
	SPI_finish();
	return rv;
}

/* A LIST came back: apply it as the whole truth, then watch from it */
static void
list_done(Watch *w, CURLcode result)
{
	long		status = KubeRequestStatus(w->req);
	char	   *rv;
	Jsonb	   *doc;

	if (result != CURLE_OK || status != 200)
	{
		KubeLogFailure(&failures, psprintf("cannot list %s", w->resource), KubeRequestError(w->req, result));
		retry_later(w);
		return;
	}
	begin(psprintf("scheduler watch: relisting %s", w->resource));
	doc = KubeParseJson(w->req->response.data, w->req->response.len);
	if (doc == NULL || !JB_ROOT_IS_OBJECT(doc))
	{
		KubeLogFailure(&failures, psprintf("cannot list %s", w->resource),
					   psprintf("the list is not a JSON object: %s",
								JCut(w->req->response.data, w->req->response.len, MAX_LOGGED_LINE)));
		commit();
		retry_later(w);
		return;
	}
	rv = relist(w, doc);
	WorkerWakeAtCommit(WORKER_SCHEDULE);		/* the scheduler waits for the first lists */
	commit();
	KubeLogRecovery(&failures);
	ereport(DEBUG1, (errmsg("scheduler watch: listed %s at resourceVersion %s", w->resource, rv)));
	drop_request(w);
	set_rv(w, rv);
	if (rv)
		pfree(rv);
	w->need_relist = false;
	w->failures = 0;
	w->state = W_IDLE;
	w->next_try = 0;
}

/* A watch ended: apply what it brought, then reopen, relist or back off */
static void
watch_done(Watch *w, CURLcode result)
{
	long		status = KubeRequestStatus(w->req);
	BatchOutcome outcome = flush(w);

	if (outcome == B_RELIST || status == 410)
		relist_now(w);
	else if (outcome == B_REWATCH)
		retry_later(w);
	else if (result == CURLE_OK && status == 200 && w->lines_seen == 0 &&
			 !TimestampDifferenceExceeds(w->started_at, GetCurrentTimestamp(), 1000))
		retry_later(w);			/* ended at once, empty: a proxy? not in a hot loop */
	else if (result == CURLE_OK && status == 200)
	{
		/* ended by its timeout: reopen at once */
		KubeLogRecovery(&failures);
		drop_request(w);
		w->failures = 0;
		w->state = W_IDLE;
		w->next_try = 0;
	}
	else
	{
		KubeLogFailure(&failures, psprintf("watch of %s failed", w->resource), KubeRequestError(w->req, result));
		retry_later(w);
	}
}

static void
restart_all(void)
{
	for (int i = 0; i < nwatches; i++)
	{
		drop_request(&watches[i]);
		watches[i].state = W_IDLE;
		watches[i].next_try = 0;
	}
}

/*
 * One turn of the loop: become the leader, take finished requests, apply
 * batches that are due, start what waits.  Returns how long to wait.
 */
static long
watch_round(void)
{
	static bool leader = false;
	long		timeout = 1000;
	TimestampTz now;

	if (ConfigReloadPending)
	{
		ConfigReloadPending = false;
		ProcessConfigFile(PGC_SIGHUP);
		restart_all();		/* the connection settings may have changed */
	}

	if (!leader)
	{
		if (!KubeApiConfigured() || !(leader = WorkerTakeLead(LEADER_WATCH, "scheduler watch")))
			return -1000;		/* a second on the latch alone */
		elog(LOG, "scheduler watch: started in database \"%s\"", scheduler_database);
		begin("scheduler watch: reading resourceVersions");
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		for (int i = 0; i < nwatches; i++)
		{
			char	   *rv = stored_rv(watches[i].resource);

			set_rv(&watches[i], rv);
			if (rv)
				pfree(rv);
		}
		SPI_finish();
		commit();
	}
	if (!KubeApiConfigured())
	{
		restart_all();
		return -1000;
	}

	/* finished requests */
	for (;;)
	{
		CURLcode	result;
		KubeRequest *req = KubeLoopNextDone(&loop, &result);
		Watch	   *w;

		if (req == NULL)
			break;
		w = (Watch *) req->arg;
		if (w->state == W_LISTING)
			list_done(w, result);
		else
			watch_done(w, result);
	}

	/* batches due, requests to start */
	now = GetCurrentTimestamp();
	for (int i = 0; i < nwatches; i++)
	{
		Watch	   *w = &watches[i];

		if (w->state == W_WATCHING && w->lines != NIL)
		{
			long		age = (now - w->first_line_at) / 1000;

			if (list_length(w->lines) >= scheduler_watch_batch_size ||
				age >= scheduler_watch_batch_delay)
			{
				BatchOutcome outcome = flush(w);

				if (outcome == B_RELIST)
					relist_now(w);
				else if (outcome == B_REWATCH)
					retry_later(w);
			}
			else
				timeout = Min(timeout, scheduler_watch_batch_delay - age);
		}
		if (w->state == W_IDLE)
		{
			now = GetCurrentTimestamp();
			if (w->next_try <= now)
				start(w);
			else
				timeout = Min(timeout, (w->next_try - now) / 1000 + 1);
		}
	}

	return Max(timeout, 0);
}

/* One watch per kind the mirror holds, at its entry's path and query */
static void
make_watches(void)
{
	nwatches = NumMirrorKinds;
	watches = MemoryContextAllocZero(TopMemoryContext, sizeof(Watch) * nwatches);
	for (int i = 0; i < nwatches; i++)
	{
		const MirrorKind *k = &MirrorKinds[i];
		Watch	   *w = &watches[i];

		w->kind = k;
		w->resource = k->resource;
		w->path = MemoryContextStrdup(TopMemoryContext, KindPath(k));
		w->query = k->query ? k->query : "";
		w->lines_cxt = AllocSetContextCreate(TopMemoryContext, "scheduler watch lines", ALLOCSET_DEFAULT_SIZES);
	}
}

void
scheduler_watch_main(Datum arg pg_attribute_unused())
{
	WorkerConnect(NWORKER_ROLES);	/* nobody wakes the watch worker */
	/*
	 * A batch (up to scheduler.watch_batch_size objects, their rows, the
	 * statements' transition tables) takes tens of MB and gives them back at
	 * its end.  Kept by malloc rather than returned to the system and
	 * faulted in again page by page at the next batch: that cost the
	 * mirror a quarter of its time.  The transition tables stay in memory.
	 */
#if defined(__GLIBC__) && defined(M_TRIM_THRESHOLD)
	mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
	mallopt(M_TRIM_THRESHOLD, 128 * 1024 * 1024);
#endif
	/* raised only (a DBA's larger setting stands), as a session's SET would */
	if (work_mem < 64 * 1024)
		SetConfigOption("work_mem", "64MB", PGC_USERSET, PGC_S_SESSION);
	KubeLoopInit(&loop);
	loop_cxt = AllocSetContextCreate(TopMemoryContext, "scheduler watch loop", ALLOCSET_DEFAULT_SIZES);
	make_watches();

	for (;;)
	{
		volatile long timeout = 1000;

		MemoryContextSwitchTo(loop_cxt);
		MemoryContextReset(loop_cxt);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();

		/*
		 * An error (the database refusing what was read, say) is logged, its
		 * transaction rolled back, and every watch retried with backoff from
		 * what was committed: the worker goes on, without a restart.
		 */
		PG_TRY();
		{
			timeout = watch_round();
		}
		PG_CATCH();
		{
			WorkerRecover(loop_cxt);
			for (int i = 0; i < nwatches; i++)
				retry_later(&watches[i]);
			timeout = 1000;
		}
		PG_END_TRY();

		if (timeout < 0)
			(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
							 -timeout, PG_WAIT_EXTENSION);
		else
			KubeLoopWait(&loop, timeout, PG_WAIT_EXTENSION);
	}
}
