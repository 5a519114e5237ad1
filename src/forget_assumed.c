/*
 * forget_assumed.c
 *	  A node deleted under an assumed pod: the assumption is forgotten, so
 *	  the pod is pending again and goes back to the queue.
 *
 * schedule_pending() records its choice in scheduler.pods.assumed_node
 * (kube-scheduler's assume cache) until the API server reports the pod
 * bound.  kube-scheduler forgets an assumed pod whose binding cannot
 * complete (Cache.ForgetPod) and hands it back to the scheduling queue.
 * A binding to a node that no longer exists cannot complete, so when nodes
 * are deleted (or truncated), the pods assumed on them and not bound are
 * forgotten: the pods' triggers then admit them to the queue in backoff,
 * as a pod whose binding failed (scheduling_queue.c), and wake the
 * scheduler to time it.  The bindings to those nodes
 * still waiting in the outbox are closed unsent (failed), so that a pod
 * placed anew is never bound to the vanished node first.  A pod the API
 * server has bound stays: bound in the mirror (spec.nodeName), or its
 * binding answered (done) and the watch not yet caught up; such pods are
 * the API server's (kube leaves them to the pod garbage collector).
 *
 * This is a statement trigger of its own on scheduler.nodes (after DELETE,
 * with the deleted rows, and after TRUNCATE), apart from nodes_changed.
 *
 * IDENTIFICATION
 *	  src/forget_assumed.c
 */
#include "postgres.h"

#include "commands/trigger.h"
#include "executor/spi.h"
#include "fmgr.h"

#include "outbox.h"

/*
 * The deleted nodes' names, through a subquery kept apart by OFFSET 0 so
 * that the UPDATEs do not copy the transition table's whole rows (toasted
 * objects included) for EvalPlanQual.  No index reads assumed_node (the
 * assume is a HOT update that way: 01_mirror.sql), so the pods are found
 * by one scan, hashed against the names.
 */
static const char *const forget_deleted =
"UPDATE scheduler.pods p SET assumed_node = NULL"
" FROM (SELECT name FROM old_rows OFFSET 0) g"
" WHERE p.assumed_node = g.name AND p.node_name IS NULL"
" AND NOT EXISTS (SELECT FROM scheduler.outbox o WHERE o.pod_uid = p.uid AND o.kind = 'binding'"
"                 AND o.node = g.name AND o.state = 'done')";

/* TRUNCATE: every node is gone */
static const char *const forget_all =
"UPDATE scheduler.pods p SET assumed_node = NULL"
" WHERE p.assumed_node IS NOT NULL AND p.node_name IS NULL"
" AND NOT EXISTS (SELECT FROM scheduler.outbox o WHERE o.pod_uid = p.uid AND o.kind = 'binding'"
"                 AND o.node = p.assumed_node AND o.state = 'done')";

PG_FUNCTION_INFO_V1(scheduler_forget_assumed);
/*
 * scheduler_internal.forget_assumed() RETURNS trigger
 *		AFTER DELETE (REFERENCING OLD TABLE AS old_rows) or AFTER TRUNCATE
 *		on scheduler.nodes, FOR EACH STATEMENT.
 */
Datum
scheduler_forget_assumed(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;
	bool		truncated;

	if (!CALLED_AS_TRIGGER(fcinfo) ||
		!TRIGGER_FIRED_AFTER(trigdata->tg_event) ||
		!TRIGGER_FIRED_FOR_STATEMENT(trigdata->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("scheduler_internal.forget_assumed() is an AFTER statement trigger function")));
	truncated = TRIGGER_FIRED_BY_TRUNCATE(trigdata->tg_event);
	if (!truncated &&
		(!TRIGGER_FIRED_BY_DELETE(trigdata->tg_event) || trigdata->tg_oldtable == NULL))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("scheduler_internal.forget_assumed() fires after DELETE, with REFERENCING OLD TABLE AS old_rows, or after TRUNCATE")));

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (!truncated && SPI_register_trigger_data(trigdata) != SPI_OK_TD_REGISTER)
		elog(ERROR, "SPI_register_trigger_data failed");
	if (SPI_execute(truncated ? forget_all : forget_deleted, false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "could not forget the pods assumed on deleted nodes");
	OutboxCloseBindingsToDeleted(truncated);
	SPI_finish();
	return PointerGetDatum(NULL);
}
