------------------------------------------------------------------------------
-- The scheduling queue (kube-scheduler's activeQ, backoffQ, unschedulablePods
-- and gated pods), one row per pending pod, kept by triggers on pods:
--   active         ready to be tried, by priority, then enqueued_at;
--   backoff        tried and failed; tried again after backoff_until;
--   unschedulable  rejected; moves back only when a QueueingHint says an
--                  event could help it, or after scheduler.unschedulable_timeout;
--   gated          spec.schedulingGates not empty: never tried until cleared.
------------------------------------------------------------------------------
CREATE TABLE scheduler.queue (
    pod_uid             text PRIMARY KEY,
    state               text NOT NULL CHECK (state IN ('active', 'backoff', 'unschedulable', 'gated')),
    enqueued_at         timestamptz NOT NULL,   -- QueueSort's timestamp
    first_enqueued_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    attempts            integer NOT NULL DEFAULT 0,
    backoff_until       timestamptz,
    unschedulable_since timestamptz,
    rejected_by         text[] NOT NULL DEFAULT '{}',  -- kube-scheduler's UnschedulablePlugins
    internal_errors     integer NOT NULL DEFAULT 0,   -- cycles in a row that threw (twice: set aside)
    moved_at            timestamptz,            -- last moved back by an event
    moved_by            text,                   -- which event and plugin
    nominated_node      text                    -- where preemption made room for it (the nominator)
);
CREATE INDEX queue_state ON scheduler.queue (state, backoff_until);
CREATE INDEX queue_nominated ON scheduler.queue (nominated_node) WHERE nominated_node IS NOT NULL;
COMMENT ON TABLE scheduler.queue IS 'The scheduling queue: one row per pending pod, with its state (active, backoff, unschedulable, gated), attempts, backoff and the plugins that rejected it';

CREATE FUNCTION scheduler.truncate_queue() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
    DELETE FROM scheduler.queue;
    RETURN NULL;
END $$;
CREATE TRIGGER queue_truncate AFTER TRUNCATE ON scheduler.pods
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler.truncate_queue();

-- QueueingHints (queue.c): the rows a statement changed become cluster events.
CREATE FUNCTION scheduler.dispatch_events(kind text, old_rows jsonb, new_rows jsonb) RETURNS integer
    AS 'MODULE_PATHNAME', 'scheduler_dispatch_events' LANGUAGE C VOLATILE;
------------------------------------------------------------------------------
-- What every write to nodes and pods sets off, in order, from one statement
-- trigger per table and operation: (1) the changelog the snapshot cache
-- reads; (2) for pods, the queue (pending pods in, gone pods out, spec
-- changes retried; a deleted pod's latest attempt goes with it); (3) the
-- QueueingHints (queue.c) for the unschedulable pods the change could help.
-- A pod is pending while unassigned, not being deleted and not terminated.
------------------------------------------------------------------------------
CREATE FUNCTION scheduler.wakeup() RETURNS void
    AS 'MODULE_PATHNAME', 'scheduler_wakeup' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION scheduler.wakeup() IS 'At commit: NOTIFY scheduler_wakeup and wake the background worker';

CREATE FUNCTION scheduler.nodes_changed() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    olds jsonb;
    news jsonb;
BEGIN
    -- (1) the changelog
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO scheduler.changes (kind, uid, name) SELECT 'n', uid, name FROM new_rows;
    END IF;
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        INSERT INTO scheduler.changes (kind, uid, name) SELECT 'n', uid, name FROM old_rows;
    END IF;
    -- (3) QueueingHints
    IF EXISTS (SELECT 1 FROM scheduler.queue WHERE state = 'unschedulable') THEN
        IF TG_OP IN ('UPDATE', 'DELETE') THEN
            SELECT jsonb_agg(jsonb_build_object('uid', uid, 'name', name, 'labels', labels, 'taints', taints,
                                                'allocatable', allocatable, 'unschedulable', unschedulable))
            INTO olds FROM old_rows;
        END IF;
        IF TG_OP IN ('UPDATE', 'INSERT') THEN
            SELECT jsonb_agg(jsonb_build_object('uid', uid, 'name', name, 'labels', labels, 'taints', taints,
                                                'allocatable', allocatable, 'unschedulable', unschedulable))
            INTO news FROM new_rows;
        END IF;
        PERFORM scheduler.dispatch_events('node', olds, news);
    END IF;
    RETURN NULL;
END $$;

-- A pod object without what changes by itself (kube-scheduler's isPodUpdated
-- strips status, resourceVersion, generation, managedFields, finalizers)
CREATE FUNCTION scheduler.pod_sans_status(o jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN jsonb_typeof(o) = 'object'
                THEN (o - 'status') #- '{metadata,resourceVersion}' #- '{metadata,generation}'
                     #- '{metadata,managedFields}' #- '{metadata,finalizers}'
                ELSE o END
$$;

CREATE FUNCTION scheduler.pods_changed() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    woke bigint;
    olds jsonb;
    news jsonb;
BEGIN
    -- (1) the changelog
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO scheduler.changes (kind, uid, name) SELECT 'p', uid, namespace || '/' || name FROM new_rows;
    ELSE
        INSERT INTO scheduler.changes (kind, uid, name) SELECT 'p', uid, namespace || '/' || name FROM old_rows;
    END IF;
    -- (2) the queue
    -- (the transition tables are joined through subqueries of the columns
    -- needed, kept apart by OFFSET 0: joined whole, an UPDATE or DELETE
    -- copies their whole rows, toasted objects included, for EvalPlanQual.
    -- A join, not uid = ANY(ARRAY(...)): that was planned as a scan of the
    -- whole queue per statement, and relists write pods one by one.)
    IF TG_OP = 'DELETE' THEN
        DELETE FROM scheduler.queue q USING (SELECT uid FROM old_rows OFFSET 0) o WHERE q.pod_uid = o.uid;
        DELETE FROM scheduler.pod_attempts a USING (SELECT uid FROM old_rows OFFSET 0) o WHERE a.pod_uid = o.uid;
    ELSE
        -- gone from pending: bound, assumed, deleting or finished
        DELETE FROM scheduler.queue q
        USING (SELECT uid FROM new_rows n
               WHERE NOT (n.node_name IS NULL AND n.assumed_node IS NULL AND n.deletion_timestamp IS NULL
                          AND (n.phase IS NULL OR n.phase NOT IN ('Succeeded', 'Failed'))) OFFSET 0) n
        WHERE q.pod_uid = n.uid;
        -- new pending pods, gates set or cleared; newly active pods wake the scheduler
        WITH entered AS (
        INSERT INTO scheduler.queue AS q (pod_uid, state, enqueued_at)
        SELECT n.uid, CASE WHEN cardinality(n.scheduling_gates) > 0 THEN 'gated' ELSE 'active' END, n.created_at
        FROM new_rows n
        WHERE n.node_name IS NULL AND n.assumed_node IS NULL AND n.deletion_timestamp IS NULL
          AND (n.phase IS NULL OR n.phase NOT IN ('Succeeded', 'Failed'))
        ON CONFLICT (pod_uid) DO UPDATE SET
            state = CASE WHEN EXCLUDED.state = 'gated' THEN 'gated'
                         WHEN q.state = 'gated' THEN 'active'
                         ELSE q.state END,
            enqueued_at = CASE WHEN q.state = 'gated' AND EXCLUDED.state = 'active'
                               THEN clock_timestamp() ELSE q.enqueued_at END
        WHERE (EXCLUDED.state = 'gated') <> (q.state = 'gated')
        RETURNING q.state)
        SELECT count(*) FILTER (WHERE state = 'active') INTO woke FROM entered;
        IF woke > 0 THEN
            PERFORM scheduler.wakeup();
        END IF;
        IF TG_OP = 'UPDATE' THEN
            -- an unschedulable pod whose spec changed is worth another try
            -- (kube-scheduler's queue Update of an unschedulable pod); one
            -- set aside (its cycle crashed a server process) comes back on
            -- any change but its status and bookkeeping (isPodUpdated's)
            UPDATE scheduler.queue q
            SET state = CASE WHEN q.backoff_until > clock_timestamp() THEN 'backoff' ELSE 'active' END,
                moved_at = clock_timestamp(), moved_by = 'pod updated'
            FROM (SELECT n.uid,
                         (n.requests, n.tolerations, n.affinity, n.node_selector, n.host_ports, n.priority)
                         IS DISTINCT FROM (o.requests, o.tolerations, o.affinity, o.node_selector, o.host_ports, o.priority)
                         AS spec_changed,
                         scheduler.pod_sans_status(n.object) IS DISTINCT FROM scheduler.pod_sans_status(o.object)
                         AS changed
                  FROM new_rows n JOIN old_rows o ON o.uid = n.uid
                  OFFSET 0) n
            WHERE q.pod_uid = n.uid AND q.state = 'unschedulable'
              AND (n.spec_changed OR (n.changed AND q.unschedulable_since = 'infinity'));
            IF FOUND THEN
                PERFORM scheduler.wakeup();
            END IF;
        END IF;
    END IF;
    -- (3) QueueingHints
    IF EXISTS (SELECT 1 FROM scheduler.queue WHERE state = 'unschedulable') THEN
        -- only pods that are or were on a node make assigned-pod events
        IF TG_OP IN ('UPDATE', 'DELETE') THEN
            SELECT jsonb_agg(jsonb_build_object('uid', uid, 'node', coalesce(node_name, assumed_node),
                       'requests', requests, 'host_ports', host_ports, 'labels', labels,
                       'namespace', namespace, 'affinity', affinity, 'terminating', deletion_timestamp IS NOT NULL,
                       'counts', phase IS NULL OR phase NOT IN ('Succeeded', 'Failed')))
            INTO olds FROM old_rows WHERE coalesce(node_name, assumed_node) IS NOT NULL;
        END IF;
        IF TG_OP IN ('UPDATE', 'INSERT') THEN
            SELECT jsonb_agg(jsonb_build_object('uid', uid, 'node', coalesce(node_name, assumed_node),
                       'requests', requests, 'host_ports', host_ports, 'labels', labels,
                       'namespace', namespace, 'affinity', affinity, 'terminating', deletion_timestamp IS NOT NULL,
                       'counts', phase IS NULL OR phase NOT IN ('Succeeded', 'Failed')))
            INTO news FROM new_rows WHERE coalesce(node_name, assumed_node) IS NOT NULL;
        END IF;
        IF olds IS NOT NULL OR news IS NOT NULL THEN
            PERFORM scheduler.dispatch_events('pod', olds, news);
        END IF;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER changed_insert AFTER INSERT ON scheduler.nodes REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler.nodes_changed();
CREATE TRIGGER changed_update AFTER UPDATE ON scheduler.nodes REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler.nodes_changed();
CREATE TRIGGER changed_delete AFTER DELETE ON scheduler.nodes REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler.nodes_changed();
CREATE TRIGGER changed_insert AFTER INSERT ON scheduler.pods REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler.pods_changed();
CREATE TRIGGER changed_update AFTER UPDATE ON scheduler.pods REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler.pods_changed();
CREATE TRIGGER changed_delete AFTER DELETE ON scheduler.pods REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler.pods_changed();

-- A node deleted (or truncated) under a pod assumed on it and not bound:
-- the assumption is forgotten (kube-scheduler's Cache.ForgetPod of a
-- binding that cannot complete), so the pod is pending again and the
-- triggers above put it back in the queue; its binding still in the outbox
-- is closed unsent (forget_assumed.c).
CREATE FUNCTION scheduler.forget_assumed() RETURNS trigger
    AS 'MODULE_PATHNAME', 'scheduler_forget_assumed' LANGUAGE C;
CREATE TRIGGER forget_assumed AFTER DELETE ON scheduler.nodes REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler.forget_assumed();
CREATE TRIGGER forget_assumed_truncate AFTER TRUNCATE ON scheduler.nodes
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler.forget_assumed();
