/*
 * outbox.h
 *	  The outbox (outbox.c): the one file that reads and writes
 *	  scheduler.outbox.  It builds every request the API server is sent
 *	  (binding, PodScheduled condition, events, a victim's deletion), hands
 *	  the bind worker what is due, and applies the API server's responses.
 */
#ifndef SCHEDULER_OUTBOX_H
#define SCHEDULER_OUTBOX_H

#include "postgres.h"

#include "nodes/pg_list.h"
#include "utils/jsonb.h"

/* One scheduling decision, as the API server is told it */
typedef struct OutboxDecision
{
	const char *uid;
	const char *node;			/* the binding's target; NULL: not scheduled */
	const char *message;		/* the PodScheduled message when not scheduled */
	bool		error;			/* SchedulerError, not Unschedulable */
	List	   *prebind;		/* PreBindRequest * (plugin.h), sent before the binding */
	List	   *wait_claims;	/* char *: the binding waits until these claims are bound */
	int64		wait_seconds;	/* for at most this long */
	/* a binding's, for the metrics counted once it is bound or fails (metrics.c) */
	TimestampTz cycle_started;	/* when its scheduling cycle began */
	TimestampTz enqueued;		/* when the pod entered the queue; -infinity unknown */
	int64		attempt;		/* its attempts, this one included */
} OutboxDecision;

/* A row claimed for sending */
typedef struct OutboxRow
{
	int64		id;
	char	   *kind;			/* binding, condition, event, delete, volume, claim */
	char	   *namespace;
	char	   *name;
	char	   *object;			/* volume, claim: the object's name; delete: the
								 * preemptor's schedulerName; event: the
								 * Event's name (NULL: a core/v1 event) */
	char	   *body;			/* the request body, JSON text */
	char	   *uid;			/* the pod's */
} OutboxRow;

extern char *OutboxTime(TimestampTz t);
extern char *OutboxDisruptionPatch(const char *uid, const char *scheduler);
extern char *OutboxSeriesPatch(const char *body);

/* Is there an API server to tell (scheduler.kube_api_url)? */
extern bool OutboxEnabled(void);

/*
 * Writing, in the transaction of the decision (inside SPI).  Decisions: a
 * binding per choice; per failure the PodScheduled condition when its
 * message changed (superseding one not sent yet) and a FailedScheduling
 * event: a repeat counts in its series, a new one is made at most every
 * event_interval_ms.  Nominations: status.nominatedNodeName
 * ("" clears it) with the pending condition, or alone.  Victims: a delete
 * (uid precondition) and a Preempted event, per victim uid, naming the
 * preemptor's uid and node.
 */
extern void OutboxWriteDecisions(const OutboxDecision *d, int n, int event_interval_ms);
extern void OutboxWriteNominations(List *uids, List *nodes);
extern void OutboxWriteVictims(List *victims, List *preemptors, List *nodes);

/*
 * Reading, for scheduler.diagnosis() (inside SPI, read-only): the victims
 * of a preemptor's preemption on node, from their Preempted events, with
 * the state of each one's deletion (NULL: none).
 */
extern void OutboxVictims(const char *preemptor_uid, const char *node,
						  void (*fn) (void *arg, const char *ns, const char *name, const char *uid,
									  const char *deletion),
						  void *arg);

/* Forget answered requests finished more than retention_s ago */
extern void OutboxPrune(int retention_s);

/* bindings to deleted nodes closed unsent (forget_assumed.c's trigger) */
extern void OutboxCloseBindingsToDeleted(bool all);

/*
 * The bind worker's side (inside SPI).  OutboxClaim closes conditions made
 * stale by a later placement and returns the due rows (OutboxRow *):
 * bindings and deletions first (at most max_bindings), then conditions and
 * events (at most max_status), none of the nexclude ids in exclude (those in
 * flight).  OutboxNextDue: in how many ms the next
 * pending row of the classes asked for (bindings, deletions and PreBind
 * requests; conditions and events) falls due (-1: none).  OutboxRecord
 * applies a response (http_status 0: none, -1: not sent; retry_after_ms:
 * the response's Retry-After, -1 none) and returns the row's new state;
 * OutboxRecordMany applies a batch of them (below).
 */
extern List *OutboxClaim(int max_bindings, int max_status, const int64 *exclude, int nexclude);
extern long OutboxNextDue(bool bindings, bool status);

/*
 * The events' series (scheduler.event_series), as client-go's broadcaster
 * times them: written again every 30 minutes, a last time 6 minutes after
 * the last occurrence, then forgotten.  The bind worker calls it.
 */
extern void OutboxEventSeriesTick(void);

/*
 * The PreBind requests of pods assumed and not bound yet, and not failed:
 * what the volume catalog assumes (volumes.c), as kube-scheduler's assume
 * caches keep a PV's claimRef and a claim's selected-node until the
 * informers show them.  fn is called per request: kind ("volume" or
 * "claim"), namespace (the pod's), object, and the patch.
 */
extern void OutboxPreBindAssumed(void (*fn) (void *arg, const char *kind, const char *ns,
											 const char *object, Jsonb *patch),
								 void *arg);
extern const char *OutboxRecord(int64 id, int32 http_status, Jsonb *response, int32 max_attempts,
								long retry_after_ms);

/* A response to record: OutboxRecordMany records a batch, as OutboxRecord does one */
typedef struct OutboxResponse
{
	int64		id;
	int32		http_status;	/* 0: none came; -1: not sent */
	Jsonb	   *response;		/* its body, or NULL */
	long		retry_after_ms; /* its Retry-After, -1: none */
} OutboxResponse;

extern void OutboxRecordMany(const OutboxResponse *responses, int n, int32 max_attempts);

#endif
