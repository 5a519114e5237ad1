------------------------------------------------------------------------------
-- The outbox: what goes back to the API server, written by schedule_pending()
-- in the transaction that makes the decision (only when scheduler.kube_api_url
-- is set), and sent by the bind worker, which reports each response through
-- scheduler.outbox_result()'s rules.  src/outbox.c builds every row and is
-- the one file that reads and writes the table.
--   binding    POST pods/{name}/binding, carrying the pod's uid
--   condition  PATCH pods/{name}/status: PodScheduled False, Unschedulable
--   event      POST events: FailedScheduling (Preempted on a victim)
--   delete     DELETE pods/{name}: a preemption victim, its uid a precondition
------------------------------------------------------------------------------
CREATE TABLE scheduler.outbox (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind            text NOT NULL CHECK (kind IN ('binding', 'condition', 'event', 'delete')),
    pod_uid         text NOT NULL,
    namespace       text NOT NULL,
    name            text NOT NULL,
    node            text,                 -- binding target
    body            jsonb NOT NULL,       -- the request body
    state           text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done', 'failed')),
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    created_at      timestamptz NOT NULL DEFAULT now(),
    finished_at     timestamptz,
    last_status     integer,              -- HTTP status of the last response, 0 = no response, -1 = not sent
    last_error      text
);
CREATE INDEX outbox_pending ON scheduler.outbox (next_attempt_at) WHERE state = 'pending';
COMMENT ON TABLE scheduler.outbox IS 'Bindings, PodScheduled conditions and FailedScheduling events for the API server, sent by the bind worker';

/*
 * A response to an outbox request (the bind worker calls this):
 *   201 (200 for a status patch or event): done.
 *   A victim's delete: 200, 202 or 404 (gone already) is done; a 409 (its
 *     uid precondition: another pod of that name now) failed.
 *   409 to a binding whose pod is already assigned to the same node: done.
 *   Any other 409, or a 404, to a binding: failed, and the reservation is
 *     forgotten: the pod goes back to the queue (or stays gone).
 *   0 (no response), 401, 403, 429 or 5xx: retried with backoff, the
 *     reservation kept (credentials can be fixed; the pod's place holds),
 *     up to max_attempts in all (scheduler.outbox_max_attempts): then
 *     failed, and a binding's reservation forgotten.
 *   -1 (the request could not be built: a name no API server accepts in a
 *     path), and anything else: failed (a binding's reservation is
 *     forgotten).
 * A NULL status fails the request; a NULL max_attempts retries without end.
 * Returns the row's new state.  The rules live in C (src/outbox.c), where
 * the bind worker applies them; this function is for tests and clients.
 */
CREATE FUNCTION scheduler.outbox_result(request bigint, http_status integer, response jsonb DEFAULT NULL,
                                        max_attempts integer DEFAULT 10)
RETURNS text AS 'MODULE_PATHNAME', 'scheduler_outbox_result' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION scheduler.outbox_result(bigint, integer, jsonb, integer) IS 'Apply the API server''s response to an outbox request: done, retry with backoff, or failed (a failed binding forgets its reservation)';

