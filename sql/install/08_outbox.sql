------------------------------------------------------------------------------
-- The outbox: what goes back to the API server, written by schedule_pending()
-- in the transaction that makes the decision (only when scheduler.kube_api_url
-- is set), and sent by the bind worker, which reports each response through
-- scheduler.outbox_result()'s rules.  src/outbox.c builds every row and is
-- the one file that writes the table (src/metrics.c's trigger reads the
-- bindings a statement finishes).
--   binding    POST pods/{name}/binding, carrying the pod's uid
--   condition  PATCH pods/{name}/status: PodScheduled False, Unschedulable
--   event      POST events.k8s.io/v1 events: FailedScheduling, Scheduled, Preempted
--              (a repeat: PATCH of the Event's series)
--   delete     DELETE pods/{name}: a preemption victim, its uid a precondition
--   volume     PATCH persistentvolumes/{object}: VolumeBinding's PreBind of a
--              static binding (spec.claimRef), before the pod's binding
--   claim      PATCH namespaces/{ns}/persistentvolumeclaims/{object}:
--              VolumeBinding's PreBind of a provisioning (the
--              volume.kubernetes.io/selected-node annotation)
-- A binding with claims waits (kube-scheduler's PreBind, BindPodVolumes):
-- it is sent once its PreBind requests (waits_for) are done and every claim
-- is bound; a failed PreBind request, a provisioner that removed
-- selected-node, or VolumeBinding's bindTimeoutSeconds (wait_until) fail it, and the pod is forgotten.
------------------------------------------------------------------------------
CREATE TABLE scheduler.outbox (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind            text NOT NULL CHECK (kind IN ('binding', 'condition', 'event', 'delete', 'volume', 'claim')),
    pod_uid         text COLLATE "C" NOT NULL,
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
    last_error      text,
    object          text,                 -- volume, claim: the PersistentVolume's or claim's name; binding, delete: the scheduler's name; event: the Event's name
    waits_for       bigint[],             -- binding: its PreBind requests (volume, claim rows)
    claims          text[],               -- binding: the pod's claims, all bound before it is sent
    wait_until      timestamptz,          -- binding waiting for claims: failed when they are not bound by then (NULL once due)
    -- binding: what kube-scheduler's metrics read once it is done or fails
    -- (src/metrics.c): its scheduling cycle's start, when the pod entered
    -- the queue, and its attempts, this one included
    cycle_started_at timestamptz,
    enqueued_at     timestamptz,
    pod_attempts    integer
);
CREATE INDEX outbox_pending ON scheduler.outbox (next_attempt_at) WHERE state = 'pending';
CREATE INDEX outbox_waiting ON scheduler.outbox (id) WHERE state = 'pending' AND wait_until IS NOT NULL;
CREATE INDEX outbox_prebind ON scheduler.outbox (pod_uid) WHERE kind IN ('volume', 'claim') AND state <> 'failed';
-- diagnosis()'s preemption victims: a preemptor's Preempted events, and each victim's deletion
CREATE INDEX outbox_preempted ON scheduler.outbox ((body ->> 'note')) WHERE kind = 'event' AND body ->> 'reason' = 'Preempted';
CREATE INDEX outbox_deletes ON scheduler.outbox (pod_uid) WHERE kind = 'delete';
-- the events waiting (a Scheduled event is not written when 1000 do)
CREATE INDEX outbox_pending_events ON scheduler.outbox (id) WHERE state = 'pending' AND kind = 'event';
COMMENT ON TABLE scheduler.outbox IS 'Bindings, PodScheduled conditions and FailedScheduling events for the API server, sent by the bind worker';
COMMENT ON COLUMN scheduler.outbox.claims IS 'A binding''s claims: it waits until each is bound (spec.volumeName and pv.kubernetes.io/bind-completed), as VolumeBinding''s PreBind does';
COMMENT ON COLUMN scheduler.outbox.cycle_started_at IS 'A binding''s scheduling cycle''s start: scheduler_scheduling_attempt_duration_seconds runs from it to the binding''s end, when the attempt is counted (scheduled when done, error when failed), as kube-scheduler counts it after its binding cycle';
COMMENT ON COLUMN scheduler.outbox.enqueued_at IS 'When a binding''s pod entered the queue: scheduler_pod_scheduling_sli_duration_seconds runs from it to the binding''s end';
COMMENT ON COLUMN scheduler.outbox.pod_attempts IS 'A binding''s pod''s attempts, this one included: the SLI histogram''s attempts label';

-- A binding done or failed counts in the metrics' running totals then
-- (src/metrics.c), once per statement
CREATE FUNCTION scheduler_internal.binding_metrics() RETURNS trigger
    AS 'MODULE_PATHNAME', 'scheduler_binding_metrics' LANGUAGE C SECURITY DEFINER;
CREATE TRIGGER binding_metrics AFTER UPDATE ON scheduler.outbox REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.binding_metrics();

-- The events' series, as client-go's event broadcaster keeps them (its
-- cache): one row per Event object written through events.k8s.io/v1, by its
-- key (the pod it regards, reason, action, type, reporting scheduler, the
-- related pod, and its note, which stands for the pod's resourceVersion in
-- client-go's key: a new PodScheduled message is a new version).  A repeat
-- counts here (count, last_observed); the second occurrence patches the
-- Event's series at once, later ones are written every 30 minutes
-- (refreshed_at) and when the series ends, 6 minutes after its last
-- occurrence, when the row goes.  An Event seen once leaves 6 minutes after
-- it was made.  src/outbox.c reads and writes it.
CREATE TABLE scheduler.event_series (
    namespace            text NOT NULL,
    name                 text NOT NULL,        -- the Event's name: <pod>.<hex nanoseconds>
    regarding_uid        text NOT NULL,
    related_uid          text NOT NULL DEFAULT '',
    type                 text NOT NULL,
    action               text NOT NULL,
    reason               text NOT NULL,
    reporting_controller text NOT NULL,
    note                 text NOT NULL,
    event_time           timestamptz NOT NULL,
    count                integer NOT NULL DEFAULT 1,  -- 1: no series yet
    last_observed        timestamptz,          -- series.lastObservedTime
    refreshed_at         timestamptz,          -- the series last put in the outbox
    body                 jsonb NOT NULL,       -- the Event as created
    PRIMARY KEY (namespace, name)
);
CREATE UNIQUE INDEX event_series_key ON scheduler.event_series
    (regarding_uid, reason, action, type, reporting_controller, related_uid, note);
COMMENT ON TABLE scheduler.event_series IS 'The events written through events.k8s.io/v1 and their series (count, last observed), as client-go''s event broadcaster folds repeats: kept 6 minutes past the last occurrence';

/*
 * A response to an outbox request (the bind worker calls this):
 *   201 (200 for a status patch, an event, or a PreBind patch of a volume
 *     or claim): done.
 *   A victim's delete: 200, 202 or 404 (gone already) is done; a 409 (its
 *     uid precondition: another pod of that name now) failed.
 *   409 to a binding whose pod is already assigned to the same node: done.
 *   Any other 409, or a 404, to a binding: failed, and the reservation is
 *     forgotten: the pod goes back to the queue (or stays gone).
 *   0 (no response), 401, 403, 429 or 5xx: retried with backoff, the
 *     reservation kept (credentials can be fixed; the pod's place holds),
 *     up to max_attempts in all (scheduler.outbox_max_attempts): then
 *     failed, and a binding's reservation forgotten.
 *   A PreBind patch's 409 (the volume or claim changed since it was read),
 *     404 or 422: failed, and so is the binding that waits for it; but a
 *     409 whose change the mirror already shows (sent before) is done.
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

