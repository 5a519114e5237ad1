------------------------------------------------------------------------------
-- The outbox: what goes back to the API server, written by schedule_pending()
-- in the transaction that makes the decision (only when scheduler.kube_api_url
-- is set), and sent by the bind worker, which reports each response through
-- scheduler.outbox_result().
--   binding    POST pods/{name}/binding, carrying the pod's uid
--   condition  PATCH pods/{name}/status: PodScheduled False, Unschedulable
--   event      POST events: FailedScheduling
------------------------------------------------------------------------------
-- A time as the API server writes it: RFC 3339, UTC, whole seconds.
CREATE FUNCTION scheduler.k8s_time(t timestamptz) RETURNS text LANGUAGE sql IMMUTABLE
    AS $$ SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') $$;

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
 * Returns the row's new state.
 */
CREATE FUNCTION scheduler.outbox_result(request bigint, http_status integer, response jsonb DEFAULT NULL,
                                        max_attempts integer DEFAULT 10)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    o scheduler.outbox;
    msg text := coalesce(response->>'message', '');
    verdict text;
    tries integer;   -- this attempt's number (a planted count stops at the int4 maximum)
BEGIN
    SELECT * INTO o FROM scheduler.outbox WHERE id = request FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'outbox request % not found', request USING ERRCODE = 'undefined_object';
    END IF;
    IF o.state <> 'pending' THEN
        RETURN o.state;   -- a late duplicate report changes nothing
    END IF;
    tries := least(o.attempts, 2147483646) + 1;
    verdict := CASE
        WHEN http_status IN (200, 201) THEN 'done'
        -- a preemption victim: deleting (202), or already gone (404)
        WHEN o.kind = 'delete' AND http_status IN (202, 404) THEN 'done'
        WHEN o.kind = 'binding' AND http_status = 409
             AND strpos(msg, 'is already assigned to node "' || o.node || '"') > 0 THEN 'done'
        WHEN http_status IN (0, 401, 403, 429) OR http_status >= 500 THEN 'retry'
        ELSE 'failed' END;
    IF verdict = 'retry' AND tries >= max_attempts THEN
        verdict := 'failed';
        msg := 'gave up after ' || tries || ' attempts' || CASE WHEN msg <> '' THEN ': ' || msg ELSE '' END;
    END IF;
    IF verdict = 'retry' THEN
        UPDATE scheduler.outbox
        SET attempts = tries, last_status = http_status, last_error = nullif(msg, ''),
            next_attempt_at = now() + least(power(2::float8, least(attempts, 10)::float8), 60) * interval '1 second'
        WHERE id = request;
        RETURN 'pending';
    END IF;
    UPDATE scheduler.outbox
    SET state = verdict, attempts = tries, last_status = http_status,
        last_error = nullif(msg, ''), finished_at = now()
    WHERE id = request;
    IF verdict = 'failed' AND o.kind = 'binding' THEN
        -- forget the reservation: the pod is pending again (if it still exists)
        UPDATE scheduler.pods SET assumed_node = NULL
        WHERE uid = o.pod_uid AND assumed_node = o.node AND node_name IS NULL;
    END IF;
    RETURN verdict;
END $$;
COMMENT ON FUNCTION scheduler.outbox_result(bigint, integer, jsonb, integer) IS 'Apply the API server''s response to an outbox request: done, retry with backoff, or failed (a failed binding forgets its reservation)';

