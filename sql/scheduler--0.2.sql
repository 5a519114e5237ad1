\echo Use "CREATE EXTENSION scheduler" to load this file. \quit

-- This script runs as a superuser with search_path = <target schema>,
-- pg_temp: an operator or function planted there that matches one of its
-- expressions better than pg_catalog's (oid = regnamespace) would run as
-- that superuser.  So every name below is resolved in pg_catalog alone (the
-- objects made are all schema-qualified); CREATE EXTENSION puts the path
-- back after the script.
SELECT pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);

-- Everything lives in schema scheduler, so inventory tables named nodes or
-- pods elsewhere never clash.  schedule_pending() alone goes in the schema
-- CREATE EXTENSION targets (public by default), so it works on the default
-- search_path.
CREATE SCHEMA scheduler;
COMMENT ON SCHEMA scheduler IS 'Kubernetes scheduler: mirror tables, attempts and functions';

-- The trigger functions and helpers nobody calls by hand live aside, so that
-- \df scheduler.* lists what a user may call.  No role but the owner has
-- USAGE on it: a trigger's function is called by its OID (no schema lookup,
-- no EXECUTE check when it fires), and the internal SQL that names one runs
-- as the owner.  A member of the extension: DROP EXTENSION drops it.
CREATE SCHEMA scheduler_internal;
COMMENT ON SCHEMA scheduler_internal IS 'Kubernetes scheduler: trigger functions and helpers, not for calling (no role but the owner may use it)';

-- true, or an ERROR naming the scheduler_* role the caller lacks (access.c);
-- the views and the plpgsql entry points begin with it.
CREATE FUNCTION scheduler.require_role(role text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'scheduler_require_role' LANGUAGE C STRICT STABLE PARALLEL SAFE;
COMMENT ON FUNCTION scheduler.require_role(text) IS 'true when the caller has the privileges of the role (scheduler_reader, scheduler_writer or scheduler_admin), else an ERROR naming it';

------------------------------------------------------------------------------
-- Mirror tables.  Written by scheduler.apply(); one row per object, keyed by
-- metadata.uid, with typed columns for what scheduling reads and the object
-- itself.  Resources are normalized: cpu in millicores; memory,
-- ephemeral-storage and hugepages-* in bytes; pods as a count; extended
-- resources (nvidia.com/gpu) by name in their own units.
------------------------------------------------------------------------------
CREATE TABLE scheduler.nodes (
    uid              text PRIMARY KEY,
    name             text NOT NULL UNIQUE,
    resource_version text,
    created_at       timestamptz NOT NULL,
    labels           jsonb NOT NULL DEFAULT '{}',
    taints           jsonb NOT NULL DEFAULT '[]',
    unschedulable    boolean NOT NULL DEFAULT false,
    allocatable      jsonb NOT NULL DEFAULT '{}',
    images           jsonb NOT NULL DEFAULT '[]',
    object           jsonb NOT NULL,
    updated_at       timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE scheduler.nodes IS 'Mirror of Kubernetes Nodes, written by scheduler.apply()';
COMMENT ON COLUMN scheduler.nodes.allocatable IS 'status.allocatable (or capacity), normalized: cpu in millicores, memory/ephemeral-storage/hugepages-* in bytes, pods as a count';

CREATE TABLE scheduler.pods (
    uid                text PRIMARY KEY,
    namespace          text NOT NULL,
    name               text NOT NULL,
    resource_version   text,
    created_at         timestamptz NOT NULL,
    node_name          text,          -- spec.nodeName: bound, as the API server says
    assumed_node       text,          -- chosen by schedule_pending(), not yet confirmed
    scheduler_name     text NOT NULL,
    priority           integer NOT NULL DEFAULT 0,
    phase              text,
    deletion_timestamp timestamptz,
    labels             jsonb NOT NULL DEFAULT '{}',
    node_selector      jsonb,          -- NULL when the pod has none
    tolerations        jsonb NOT NULL DEFAULT '[]',
    affinity           jsonb NOT NULL DEFAULT '{}',
    requests           jsonb NOT NULL DEFAULT '{}',
    nonzero_cpu        bigint NOT NULL DEFAULT 0,
    nonzero_memory     bigint NOT NULL DEFAULT 0,
    host_ports         jsonb NOT NULL DEFAULT '[]',  -- [{"hostIP", "protocol", "hostPort"}]
    images             jsonb NOT NULL DEFAULT '[]',  -- container images, init containers first
    has_sidecar        boolean NOT NULL DEFAULT false,
    scheduling_gates   text[] NOT NULL DEFAULT '{}', -- spec.schedulingGates names
    object             jsonb NOT NULL,
    updated_at         timestamptz NOT NULL DEFAULT now(),
    -- The two states everything else reads, defined here once.  Terminal: a
    -- finished pod (phase Succeeded or Failed) takes no room on its node.
    terminal           boolean NOT NULL GENERATED ALWAYS AS
                           (phase IS NOT NULL AND phase IN ('Succeeded', 'Failed')) STORED,
    -- Pending: in the scheduling queue (scheduling_queue.c): not on a node
    -- (bound or assumed), not being deleted, not terminal.
    pending            boolean NOT NULL GENERATED ALWAYS AS
                           (node_name IS NULL AND assumed_node IS NULL AND deletion_timestamp IS NULL
                            AND (phase IS NULL OR phase NOT IN ('Succeeded', 'Failed'))) STORED,
    UNIQUE (namespace, name)
);
COMMENT ON TABLE scheduler.pods IS 'Mirror of Kubernetes Pods, written by scheduler.apply(); assumed_node by schedule_pending()';
COMMENT ON COLUMN scheduler.pods.requests IS 'effective request as kube-scheduler computes it (containers summed, max with init containers, sidecars added, overhead added), normalized';
COMMENT ON COLUMN scheduler.pods.nonzero_cpu IS 'effective cpu request in millicores with the 100m default for containers that set none (used for scoring)';
COMMENT ON COLUMN scheduler.pods.terminal IS 'phase Succeeded or Failed: the pod takes no room on its node';
COMMENT ON COLUMN scheduler.pods.pending IS 'waits for a node: not bound or assumed, not being deleted, not terminal (the scheduling queue holds exactly these pods)';
COMMENT ON COLUMN scheduler.pods.nonzero_memory IS 'effective memory request in bytes with the 200Mi default for containers that set none (used for scoring)';

CREATE INDEX pods_on_node ON scheduler.pods ((coalesce(node_name, assumed_node)));
-- No index of pending pods by schedulerName: the queue (scheduler.queue)
-- holds them, and the pop reads it.  (0.1's, a hash index on one key that
-- every pending pod shares, cost each write a walk of one long chain.)

-- Writers of nodes and pods hold scheduler.cycle_lock in SHARE mode,
-- schedule_pending() holds it EXCLUSIVE: a change either commits before a
-- cycle reads the cluster, or waits for the cycle to commit and then sees its
-- unschedulable pods (so its QueueingHints can move them).  No event is lost
-- to a cycle in flight.  Only the owner can take a conflicting lock on the
-- table (nobody is granted one): no stranger can hold scheduling up.
CREATE FUNCTION scheduler_internal.writer_lock() RETURNS trigger
    AS 'MODULE_PATHNAME', 'scheduler_writer_lock' LANGUAGE C;
CREATE TRIGGER writer_lock BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON scheduler.nodes
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.writer_lock();
CREATE TRIGGER writer_lock BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON scheduler.pods
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.writer_lock();

-- Namespaces: what InterPodAffinity's namespaceSelector reads (issue #6).
CREATE TABLE scheduler.namespaces (
    uid              text PRIMARY KEY,
    name             text NOT NULL UNIQUE,
    resource_version text,
    labels           jsonb NOT NULL DEFAULT '{}',
    object           jsonb NOT NULL,
    updated_at       timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE scheduler.namespaces IS 'Mirror of Kubernetes Namespaces, written by scheduler.apply()';
CREATE TRIGGER writer_lock BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON scheduler.namespaces
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.writer_lock();

-- PodDisruptionBudgets (policy/v1): what DefaultPreemption respects.  The
-- disruption controller's status says how many pods may go.
CREATE TABLE scheduler.pdbs (
    uid                 text PRIMARY KEY,
    namespace           text NOT NULL,
    name                text NOT NULL,
    resource_version    text,
    selector            jsonb,                 -- spec.selector; NULL selects no pod
    disruptions_allowed integer NOT NULL DEFAULT 0,  -- status.disruptionsAllowed
    disrupted_pods      jsonb NOT NULL DEFAULT '{}', -- status.disruptedPods: pod name -> time
    object              jsonb NOT NULL,
    updated_at          timestamptz NOT NULL DEFAULT now(),
    UNIQUE (namespace, name)
);
COMMENT ON TABLE scheduler.pdbs IS 'Mirror of PodDisruptionBudgets, written by scheduler.apply(); read by DefaultPreemption';
CREATE TRIGGER writer_lock BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON scheduler.pdbs
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.writer_lock();

-- The workloads whose selectors make PodTopologySpread's system default
-- constraints (DefaultSelector): Services and ReplicationControllers (a
-- label map), ReplicaSets and StatefulSets (a LabelSelector).
CREATE TABLE scheduler.workloads (
    uid              text PRIMARY KEY,
    kind             text NOT NULL CHECK (kind IN ('Service', 'ReplicationController', 'ReplicaSet', 'StatefulSet')),
    namespace        text NOT NULL,
    name             text NOT NULL,
    resource_version text,
    selector         jsonb,          -- spec.selector as the object has it; NULL when it has none
    object           jsonb NOT NULL,
    updated_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (kind, namespace, name)
);
COMMENT ON TABLE scheduler.workloads IS 'Mirror of Services, ReplicationControllers, ReplicaSets and StatefulSets (their selectors), written by scheduler.apply(); read by PodTopologySpread''s system default constraints';
CREATE TRIGGER writer_lock BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON scheduler.workloads
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.writer_lock();
------------------------------------------------------------------------------
-- Scheduling state
------------------------------------------------------------------------------

-- One row; schedule_pending() updates it first, so calls run one at a time.
CREATE TABLE scheduler.cycle_lock (
    id            boolean PRIMARY KEY DEFAULT true CHECK (id),
    generation    bigint NOT NULL DEFAULT 0,
    last_cycle_at timestamptz,
    next_start_node_index integer NOT NULL DEFAULT 0  -- where the next node search starts
);
INSERT INTO scheduler.cycle_lock DEFAULT VALUES;
COMMENT ON TABLE scheduler.cycle_lock IS 'One row, updated first by each schedule_pending() call, so calls run one at a time (writers of the mirror hold the table in SHARE mode): the cycle generation, when the last cycle ran, and where the next node search starts';

-- The latest attempt for each pod.
CREATE TABLE scheduler.pod_attempts (
    pod_uid         text PRIMARY KEY,
    attempts        integer NOT NULL,
    last_attempt_at timestamptz NOT NULL,
    result          text NOT NULL CHECK (result IN ('scheduled', 'unschedulable')),
    node            text,
    message         text NOT NULL,
    rejected_by     text[] NOT NULL DEFAULT '{}',
    history_id      bigint,      -- its row in attempt_history, which holds the per-node diagnosis
    posted_message  text,        -- the PodScheduled message last put in the outbox
    event_posted_at timestamptz  -- the FailedScheduling event last put in the outbox
);
COMMENT ON TABLE scheduler.pod_attempts IS 'The latest scheduling attempt of each pod: result, kube-scheduler''s message, and which plugin rejected which node';

-- Every attempt, for "why was this pod pending an hour ago"; kept for
-- scheduler.history_retention.
CREATE TABLE scheduler.attempt_history (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    pod_uid      text NOT NULL,
    namespace    text NOT NULL,
    name         text NOT NULL,
    attempted_at timestamptz NOT NULL,
    result       text NOT NULL,
    node         text,
    message      text NOT NULL,
    rejected_by  text[] NOT NULL DEFAULT '{}',
    diagnosis    jsonb COMPRESSION lz4,  -- [{"plugin", "code", "reason", "nodes": [...]}]
    diagnosis_of bigint,           -- or: the attempt (of the same call) whose equal diagnosis it shares
    queue_wait   interval,         -- from entering active to this attempt
    cycle_time   interval          -- this pod's scheduling cycle
);
COMMENT ON TABLE scheduler.attempt_history IS 'Every scheduling attempt, kept for scheduler.history_retention: when, result, node, kube-scheduler''s message, the plugins that rejected it, the per-node diagnosis (or diagnosis_of, the attempt whose equal diagnosis it shares), the time waited in the active queue and the cycle time';
CREATE INDEX attempt_history_pod ON scheduler.attempt_history (namespace, name, attempted_at);
CREATE INDEX attempt_history_time ON scheduler.attempt_history (attempted_at);


-- Every change to nodes and pods, for the snapshot cache in each backend
-- (snapshot.c): a cache re-reads the objects changed by transactions it may
-- not have seen, those with xid at or above the xmin of its last refresh.
CREATE TABLE scheduler.changes (
    xid  xid8 NOT NULL DEFAULT pg_current_xact_id(),
    kind "char" NOT NULL CHECK (kind IN ('n', 'p', 't')),  -- node, pod, truncate
    uid  text NOT NULL,
    name text NOT NULL
);
CREATE INDEX changes_xid ON scheduler.changes (xid);
COMMENT ON TABLE scheduler.changes IS 'Every changed node and pod by transaction id (n node, p pod, t truncate), for the snapshot cache in each backend; pruned by schedule_pending()';
-- Changes below this xid have been pruned; a cache older than it rebuilds.
CREATE TABLE scheduler.changes_horizon (
    id      boolean PRIMARY KEY DEFAULT true CHECK (id),
    horizon xid8 NOT NULL DEFAULT '0'
);
INSERT INTO scheduler.changes_horizon DEFAULT VALUES;
COMMENT ON TABLE scheduler.changes_horizon IS 'One row: the changes below this xid have been pruned; a snapshot cache older than it rebuilds';

-- TRUNCATE cannot be logged row by row: it makes every cache rebuild.
CREATE FUNCTION scheduler_internal.log_truncate() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
    INSERT INTO scheduler.changes (kind, uid, name) VALUES ('t', '', '');
    RETURN NULL;
END $$;
CREATE TRIGGER log_truncate AFTER TRUNCATE ON scheduler.nodes
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.log_truncate();
CREATE TRIGGER log_truncate AFTER TRUNCATE ON scheduler.pods
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.log_truncate();

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

CREATE FUNCTION scheduler_internal.truncate_queue() RETURNS trigger
    AS 'MODULE_PATHNAME', 'scheduler_truncate_queue' LANGUAGE C SECURITY DEFINER;
CREATE TRIGGER queue_truncate AFTER TRUNCATE ON scheduler.pods
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.truncate_queue();

-- QueueingHints (queue.c): the rows a statement changed become cluster events.
CREATE FUNCTION scheduler_internal.dispatch_events(kind text, old_rows jsonb, new_rows jsonb) RETURNS integer
    AS 'MODULE_PATHNAME', 'scheduler_dispatch_events' LANGUAGE C VOLATILE;
------------------------------------------------------------------------------
-- What every write to nodes and pods sets off, in order, from one statement
-- trigger per table and operation (scheduling_queue.c, reading the
-- statement's transition tables): (1) the changelog the snapshot cache
-- reads; (2) for pods, the queue (pending pods in, gone pods out, spec
-- changes retried; a deleted pod's latest attempt goes with it); (3) the
-- QueueingHints (queue.c) for the unschedulable pods the change could help.
-- A pod is pending while scheduler.pods.pending says so.
------------------------------------------------------------------------------
CREATE FUNCTION scheduler_internal.wakeup() RETURNS void
    AS 'MODULE_PATHNAME', 'scheduler_wakeup' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION scheduler_internal.wakeup() IS 'At commit: NOTIFY scheduler_wakeup and wake the background worker';

CREATE FUNCTION scheduler_internal.nodes_changed() RETURNS trigger
    AS 'MODULE_PATHNAME', 'scheduler_nodes_changed' LANGUAGE C SECURITY DEFINER;

-- A pod object without what changes by itself (kube-scheduler's isPodUpdated
-- strips status, resourceVersion, generation, managedFields, finalizers)
CREATE FUNCTION scheduler_internal.pod_sans_status(o jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN jsonb_typeof(o) = 'object'
                THEN (o - 'status') #- '{metadata,resourceVersion}' #- '{metadata,generation}'
                     #- '{metadata,managedFields}' #- '{metadata,finalizers}'
                ELSE o END
$$;

CREATE FUNCTION scheduler_internal.pods_changed() RETURNS trigger
    AS 'MODULE_PATHNAME', 'scheduler_pods_changed' LANGUAGE C SECURITY DEFINER;

CREATE TRIGGER changed_insert AFTER INSERT ON scheduler.nodes REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.nodes_changed();
CREATE TRIGGER changed_update AFTER UPDATE ON scheduler.nodes REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.nodes_changed();
CREATE TRIGGER changed_delete AFTER DELETE ON scheduler.nodes REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.nodes_changed();
CREATE TRIGGER changed_insert AFTER INSERT ON scheduler.pods REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.pods_changed();
CREATE TRIGGER changed_update AFTER UPDATE ON scheduler.pods REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.pods_changed();
CREATE TRIGGER changed_delete AFTER DELETE ON scheduler.pods REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.pods_changed();

-- A node deleted (or truncated) under a pod assumed on it and not bound:
-- the assumption is forgotten (kube-scheduler's Cache.ForgetPod of a
-- binding that cannot complete), so the pod is pending again and the
-- triggers above put it back in the queue; its binding still in the outbox
-- is closed unsent (forget_assumed.c).
CREATE FUNCTION scheduler_internal.forget_assumed() RETURNS trigger
    AS 'MODULE_PATHNAME', 'scheduler_forget_assumed' LANGUAGE C;
CREATE TRIGGER forget_assumed AFTER DELETE ON scheduler.nodes REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.forget_assumed();
CREATE TRIGGER forget_assumed_truncate AFTER TRUNCATE ON scheduler.nodes
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.forget_assumed();
------------------------------------------------------------------------------
-- Profiles: which plugins a schedulerName runs, in which order, with which
-- weights and args (kube-scheduler's KubeSchedulerProfile).  A change takes
-- effect on the next cycle.  A schedulerName without rows runs the default
-- profile, the rows of 'default-scheduler' as installed.
------------------------------------------------------------------------------
CREATE TABLE scheduler.profiles (
    scheduler_name text PRIMARY KEY,
    percentage_of_nodes_to_score integer CHECK (percentage_of_nodes_to_score BETWEEN 0 AND 100)
);
COMMENT ON TABLE scheduler.profiles IS 'Scheduling profiles (kube-scheduler''s KubeSchedulerProfile), one per schedulerName; a schedulerName without one runs the plugins of default-scheduler';
COMMENT ON COLUMN scheduler.profiles.percentage_of_nodes_to_score IS 'NULL: the GUC scheduler.percentage_of_nodes_to_score';

CREATE TABLE scheduler.profile_plugins (
    scheduler_name text NOT NULL REFERENCES scheduler.profiles ON UPDATE CASCADE ON DELETE CASCADE,
    plugin         text NOT NULL,
    position       integer NOT NULL,
    enabled        boolean NOT NULL DEFAULT true,
    weight         integer CHECK (weight >= 0),  -- score weight; NULL: the plugin's default
    args           jsonb NOT NULL DEFAULT '{}',
    PRIMARY KEY (scheduler_name, plugin)
);
COMMENT ON TABLE scheduler.profile_plugins IS 'Plugins of each profile in order, with score weight and plugin args (kube-scheduler pluginConfig field names)';

-- The plugin registry (profile.c, made from src/plugins/plugins.def, the one
-- list of plugins): every plugin with its default weight, its place in the
-- default profile and its extension points.
CREATE FUNCTION scheduler.plugins()
    RETURNS TABLE (plugin text, default_weight integer, default_position integer, extension_points text[])
    AS 'MODULE_PATHNAME', 'scheduler_plugins' LANGUAGE C STRICT STABLE PARALLEL SAFE;
COMMENT ON FUNCTION scheduler.plugins() IS 'The plugins this build knows (src/plugins/plugins.def): default score weight (NULL: does not score), position in the default profile (NULL: not in it), extension points';

-- The default profile, kube-scheduler's, as plugins.def lists it
INSERT INTO scheduler.profiles VALUES ('default-scheduler', NULL);
INSERT INTO scheduler.profile_plugins (scheduler_name, plugin, position, weight)
    SELECT 'default-scheduler', p.plugin, p.default_position, p.default_weight
    FROM scheduler.plugins() p
    WHERE p.default_position IS NOT NULL
    ORDER BY p.default_position;

------------------------------------------------------------------------------
-- Functions
------------------------------------------------------------------------------
CREATE FUNCTION scheduler.check_plugin(plugin text, args jsonb) RETURNS void
    AS 'MODULE_PATHNAME', 'scheduler_check_plugin' LANGUAGE C STRICT STABLE;
COMMENT ON FUNCTION scheduler.check_plugin(text, jsonb) IS 'Error unless plugin is known and args are valid for it (kube-scheduler''s args validation)';
CREATE FUNCTION scheduler_internal.check_profile_plugin() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
    PERFORM scheduler.check_plugin(NEW.plugin, NEW.args);
    RETURN NEW;
END $$;
CREATE TRIGGER check_plugin BEFORE INSERT OR UPDATE ON scheduler.profile_plugins
    FOR EACH ROW EXECUTE FUNCTION scheduler_internal.check_profile_plugin();

CREATE FUNCTION scheduler.apply(doc jsonb) RETURNS integer
    AS 'MODULE_PATHNAME', 'scheduler_apply' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION scheduler.apply(jsonb) IS 'Apply an object of a kind scheduler.kinds() lists (a Node, a Pod, ...), a List of them (kubectl get -o json), or a watch event; returns how many objects changed';
CREATE FUNCTION scheduler.apply_events(events jsonb[]) RETURNS integer
    AS 'MODULE_PATHNAME', 'scheduler_apply_events' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION scheduler.apply_events(jsonb[]) IS 'Apply watch events (or objects) in order as one batch, as the watch worker does: the pods written in one statement, the last event per pod winning; returns how many objects changed';

-- The kinds the mirror holds and the watch worker watches (kinds.c): one row each.
CREATE FUNCTION scheduler.kinds(OUT kind text, OUT list_kind text, OUT api_version text, OUT resource text,
                                OUT path text, OUT query text, OUT table_name text, OUT namespaced boolean,
                                OUT events text)
    RETURNS SETOF record
    AS 'MODULE_PATHNAME', 'scheduler_kinds' LANGUAGE C STRICT STABLE;
COMMENT ON FUNCTION scheduler.kinds() IS 'The Kubernetes kinds the scheduler mirrors and watches: kind, list kind, apiVersion, resource, the collection path and query the watch worker lists and watches, the mirror table, whether namespaced, and the cluster events its changes raise for the QueueingHints (Node, AssignedPod) or NULL';

CREATE FUNCTION scheduler.quantity_milli(quantity text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'quantity_milli' LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION scheduler.quantity_milli(text) IS 'A Kubernetes quantity times 1000, rounded up (Quantity.MilliValue)';

CREATE FUNCTION scheduler.quantity_value(quantity text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'quantity_value' LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION scheduler.quantity_value(text) IS 'A Kubernetes quantity rounded up to an integer (Quantity.Value)';

CREATE FUNCTION @extschema@.schedule_pending(max_pods integer DEFAULT NULL)
    RETURNS TABLE (namespace text, name text, node text, result text, message text)
    AS 'MODULE_PATHNAME', 'schedule_pending' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION @extschema@.schedule_pending(integer) IS 'Run scheduling cycles for up to max_pods pending pods; one row per pod attempted';

CREATE FUNCTION scheduler.filter(namespace text, name text)
    RETURNS TABLE (node text, plugin text, code text, reason text)
    AS 'MODULE_PATHNAME', 'scheduler_filter' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION scheduler.filter(text, text) IS 'PreFilter (node NULL) and Filter verdicts of every plugin of the pod''s profile on every node, on the current snapshot';

CREATE FUNCTION scheduler.score(namespace text, name text, feasible_only boolean DEFAULT true)
    RETURNS TABLE (node text, plugin text, raw bigint, normalized bigint, weighted bigint)
    AS 'MODULE_PATHNAME', 'scheduler_score' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION scheduler.score(text, text, boolean) IS 'Score, normalized score and weighted score of every scoring plugin on every feasible node (or every node)';

CREATE FUNCTION scheduler.fit_error_message(num_all_nodes integer, node_reasons jsonb,
                                            prefilter_msg text DEFAULT NULL, postfilter_msg text DEFAULT NULL)
    RETURNS text AS 'MODULE_PATHNAME', 'scheduler_fit_error_message' LANGUAGE C IMMUTABLE;
COMMENT ON FUNCTION scheduler.fit_error_message(integer, jsonb, text, text) IS 'kube-scheduler''s FitError.Error() message for node -> [reasons] (the FailedScheduling text)';

CREATE FUNCTION scheduler.num_feasible_nodes_to_find(percentage integer, nodes integer) RETURNS integer
    AS 'MODULE_PATHNAME', 'num_feasible_nodes_to_find' LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION scheduler.num_feasible_nodes_to_find(integer, integer) IS 'How many feasible nodes a cycle looks for before scoring (kube-scheduler numFeasibleNodesToFind; 0 = adaptive)';

CREATE FUNCTION scheduler.snapshot()
    RETURNS TABLE (node text, "position" integer, unschedulable boolean, allocatable jsonb,
                   requested jsonb, nonzero_cpu bigint, nonzero_memory bigint, pods integer)
    AS 'MODULE_PATHNAME', 'scheduler_snapshot' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION scheduler.snapshot() IS 'The nodes as the scheduler sees them (this backend''s cache, refreshed): search order, allocatable, requested, non-zero requests, pod count';

CREATE FUNCTION scheduler.why(namespace text, name text)
    RETURNS TABLE (node text, plugin text, reason text)
LANGUAGE plpgsql STABLE AS $$
DECLARE
    target text;
BEGIN
    PERFORM scheduler.require_role('scheduler_reader');
    SELECT p.uid INTO target FROM scheduler.pods p WHERE p.namespace = $1 AND p.name = $2;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'pod %/% not found', $1, $2
            USING ERRCODE = 'undefined_object',
                  HINT = 'Load it with scheduler.apply().';
    END IF;
    RETURN QUERY
        SELECT n.node, d.plugin, d.reason
        FROM scheduler.pod_attempts a
             JOIN scheduler.attempt_history h ON h.id = a.history_id
             LEFT JOIN scheduler.attempt_history s ON s.id = h.diagnosis_of,
             jsonb_to_recordset(coalesce(h.diagnosis, s.diagnosis)) AS d(plugin text, reason text, nodes jsonb),
             jsonb_array_elements_text(d.nodes) AS n(node)
        WHERE a.pod_uid = target AND a.result = 'unschedulable'
        ORDER BY n.node;
END $$;
COMMENT ON FUNCTION scheduler.why(text, text) IS 'Why the pod''s latest attempt failed: one row per node, the plugin that rejected it and kube-scheduler''s reason';

------------------------------------------------------------------------------
-- Views.  Made by a function whose search_path is pinned, so that every name
-- in them is bound to pg_catalog's: an object planted in the target schema
-- (public) could otherwise be a better match than a built-in and be bound
-- into a view for good.  (A SET here would outlive CREATE EXTENSION.)
------------------------------------------------------------------------------
CREATE FUNCTION scheduler.install_views() RETURNS void LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp AS $install$
BEGIN

-- kubectl describe node's "Allocated resources": per node and resource, what
-- the node offers and what the pods on it (bound or assumed, not terminated)
-- request.  For "pods", requested is the number of such pods.  A row the
-- mirror did not write (anything but an object of numbers) counts as empty,
-- as the snapshot's loaders take it: the view never fails on it.
CREATE VIEW scheduler.node_usage AS
WITH on_node AS (
    SELECT coalesce(p.node_name, p.assumed_node) AS node,
           CASE WHEN jsonb_typeof(p.requests) = 'object' THEN p.requests END AS requests
    FROM scheduler.pods p
    WHERE coalesce(p.node_name, p.assumed_node) IS NOT NULL
      AND NOT p.terminal
), requested AS (
    SELECT o.node, r.key AS resource, sum(r.value::numeric) AS requested
    FROM on_node o, jsonb_each(o.requests) r
    WHERE r.key <> 'pods' AND jsonb_typeof(r.value) = 'number'
    GROUP BY 1, 2
    UNION ALL
    SELECT o.node, 'pods', count(*) FROM on_node o GROUP BY 1
)
SELECT n.name AS node,
       k.resource,
       coalesce(CASE WHEN jsonb_typeof(n.allocatable -> k.resource) = 'number'
                     THEN (n.allocatable -> k.resource)::numeric END, 0) AS allocatable,
       coalesce(r.requested, 0) AS requested
FROM scheduler.nodes n
CROSS JOIN LATERAL (
    SELECT jsonb_object_keys(CASE WHEN jsonb_typeof(n.allocatable) = 'object' THEN n.allocatable END)
    UNION
    SELECT r2.resource FROM requested r2 WHERE r2.node = n.name
) AS k(resource)
LEFT JOIN requested r ON r.node = n.name AND r.resource = k.resource
WHERE scheduler.require_role('scheduler_reader');
COMMENT ON VIEW scheduler.node_usage IS 'Per node and resource: allocatable and requested by the pods on it (cpu in millicores, memory in bytes)';

-- Why is it pending: every pod in the queue, where it is, and kube-scheduler's
-- FailedScheduling message for its latest attempt (for a gated pod, the
-- SchedulingGates PreEnqueue message).  A pod whose spec.schedulerName is
-- not ours (neither scheduler.scheduler_name nor a profile's) is left to the
-- scheduler of that name, as kube-scheduler leaves it (its queue only takes
-- pods one of its profiles names): it shows as other-scheduler, and its
-- scheduler_name says which.
CREATE VIEW scheduler.pending_pods AS
SELECT p.namespace, p.name,
       CASE WHEN o.ours THEN q.state ELSE 'other-scheduler' END AS queue,
       q.attempts, q.rejected_by,
       CASE WHEN NOT o.ours
            THEN 'not ours: spec.schedulerName "' || p.scheduler_name
                 || '" is neither scheduler.scheduler_name nor a profile''s'
            WHEN q.state = 'gated'
            THEN 'waiting for scheduling gates: [' || array_to_string(p.scheduling_gates, ' ') || ']'
            ELSE a.message END AS message,
       q.first_enqueued_at AS since,
       p.scheduler_name
FROM scheduler.queue q
JOIN scheduler.pods p ON p.uid = q.pod_uid
CROSS JOIN LATERAL (
    SELECT p.scheduler_name = coalesce(current_setting('scheduler.scheduler_name', true), 'default-scheduler')
           OR EXISTS (SELECT FROM scheduler.profiles pr WHERE pr.scheduler_name = p.scheduler_name)
) AS o(ours)
LEFT JOIN scheduler.pod_attempts a ON a.pod_uid = q.pod_uid AND a.result = 'unschedulable'
WHERE scheduler.require_role('scheduler_reader');
COMMENT ON VIEW scheduler.pending_pods IS 'Every pending pod: its queue (active, backoff, unschedulable, gated; other-scheduler when no profile and not scheduler.scheduler_name names its schedulerName), attempts, the plugins that rejected it, kube-scheduler''s message, since when it is pending, and its schedulerName';

-- Metrics, as kube-scheduler's /metrics names them: scheduler_pending_pods
-- counts the pods of our schedulers only (ours as in pending_pods).
CREATE VIEW scheduler.metrics_pending_pods AS
SELECT s.queue, count(q.pod_uid) AS pods
FROM (VALUES ('active'), ('backoff'), ('unschedulable'), ('gated')) s(queue)
LEFT JOIN (scheduler.queue q JOIN scheduler.pods p
           ON p.uid = q.pod_uid
          AND (p.scheduler_name = coalesce(current_setting('scheduler.scheduler_name', true), 'default-scheduler')
               OR EXISTS (SELECT FROM scheduler.profiles pr WHERE pr.scheduler_name = p.scheduler_name)))
       ON q.state = s.queue
WHERE scheduler.require_role('scheduler_reader')
GROUP BY s.queue;
COMMENT ON VIEW scheduler.metrics_pending_pods IS 'scheduler_pending_pods: pods per queue, of the schedulerNames that are ours (scheduler.scheduler_name or a profile''s)';

CREATE VIEW scheduler.metrics_schedule_attempts AS
SELECT result, count(*) AS attempts
FROM scheduler.attempt_history WHERE scheduler.require_role('scheduler_reader') GROUP BY result;
COMMENT ON VIEW scheduler.metrics_schedule_attempts IS 'scheduler_schedule_attempts_total by result, over the retained history';

CREATE VIEW scheduler.metrics_latency AS
SELECT 'queue_wait' AS metric, count(*) AS samples,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM queue_wait)) * 1000 AS p50_ms,
       percentile_cont(0.9) WITHIN GROUP (ORDER BY extract(epoch FROM queue_wait)) * 1000 AS p90_ms,
       percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM queue_wait)) * 1000 AS p99_ms
FROM scheduler.attempt_history WHERE queue_wait IS NOT NULL
HAVING scheduler.require_role('scheduler_reader')  -- not WHERE: the row is there whatever it filters
UNION ALL
SELECT 'cycle_time', count(*),
       percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM cycle_time)) * 1000,
       percentile_cont(0.9) WITHIN GROUP (ORDER BY extract(epoch FROM cycle_time)) * 1000,
       percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM cycle_time)) * 1000
FROM scheduler.attempt_history WHERE cycle_time IS NOT NULL
HAVING scheduler.require_role('scheduler_reader');
COMMENT ON VIEW scheduler.metrics_latency IS 'Latency percentiles over the retained history, in ms: time in the active queue before an attempt (queue_wait), and the scheduling cycle (cycle_time)';

-- The same, computed from the tables from scratch: for checking the cache.
CREATE VIEW scheduler.snapshot_from_tables AS
SELECT n.name AS node, n.unschedulable, n.allocatable,
       coalesce((SELECT jsonb_object_agg(key, total) FROM (
            SELECT r.key, sum(r.value::numeric) AS total
            FROM scheduler.pods p,
                 jsonb_each(CASE WHEN jsonb_typeof(p.requests) = 'object' THEN p.requests END) r
            WHERE coalesce(p.node_name, p.assumed_node) = n.name AND jsonb_typeof(r.value) = 'number'
              AND NOT p.terminal
            GROUP BY r.key) t), '{}') AS requested,
       coalesce(u.nonzero_cpu, 0) AS nonzero_cpu, coalesce(u.nonzero_memory, 0) AS nonzero_memory,
       coalesce(u.pods, 0)::integer AS pods
FROM scheduler.nodes n
LEFT JOIN (SELECT coalesce(node_name, assumed_node) AS node, sum(nonzero_cpu) AS nonzero_cpu,
                  sum(nonzero_memory) AS nonzero_memory, count(*) AS pods
           FROM scheduler.pods
           WHERE coalesce(node_name, assumed_node) IS NOT NULL
             AND NOT terminal
           GROUP BY 1) u ON u.node = n.name
WHERE scheduler.require_role('scheduler_reader');
COMMENT ON VIEW scheduler.snapshot_from_tables IS 'The nodes as scheduler.snapshot() shows them, computed from the tables from scratch: for checking the snapshot cache';
END $install$;
SELECT scheduler.install_views();
DROP FUNCTION scheduler.install_views();

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

------------------------------------------------------------------------------
-- Watching: where each watch resumes, and relisting.
------------------------------------------------------------------------------
CREATE TABLE scheduler.watch_state (
    resource         text PRIMARY KEY,     -- 'nodes', 'pods'
    resource_version text NOT NULL,
    updated_at       timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE scheduler.watch_state IS 'The resourceVersion each watch resumes from; a restart resumes, a 410 relists';

/*
 * A full list of one kind (what GET /api/v1/nodes or /api/v1/pods returns, or kubectl
 * get -o json): apply every item, delete the rows of that kind the list no
 * longer has (objects that vanished while the watch was down), and record
 * the list's resourceVersion for the watch.  The rows of the uids in keep
 * stay (the watch worker keeps those of items it had to leave out of the
 * list: refused, they keep what was last mirrored, as on the watch).
 * Returns how many objects changed, the deleted ones included.  (mirror.c)
 */
CREATE FUNCTION scheduler.relist(doc jsonb, keep text[] DEFAULT '{}') RETURNS integer
    AS 'MODULE_PATHNAME', 'scheduler_relist' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION scheduler.relist(jsonb, text[]) IS 'Apply a list of one kind scheduler.kinds() lists (a NodeList, a PodList, ...) as the whole truth: apply its items, delete what it no longer has (but the uids in keep), record its resourceVersion';

------------------------------------------------------------------------------
-- Leadership of the watch and bind workers, for maintenance and tests
-- (superusers only): the worker stands by while a session holds its lead.
------------------------------------------------------------------------------
CREATE FUNCTION scheduler.hold_lead(worker text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'scheduler_hold_lead' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION scheduler.hold_lead(text) IS 'Take the ''watch'' or ''bind'' worker''s lead in this session (superusers only): the worker stands by until the session ends or release_lead()';
CREATE FUNCTION scheduler.release_lead(worker text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'scheduler_release_lead' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION scheduler.release_lead(text) IS 'Give back a lead taken with hold_lead()';

------------------------------------------------------------------------------
-- Who may do what (access.c).  Three roles, as PostgreSQL's predefined ones:
--   scheduler_reader  why(), filter(), score(), the views and the tables;
--   scheduler_writer  and apply(), apply_events(), relist();
--   scheduler_admin   and the profiles, and schedule_pending().
-- The entry points are executable by everyone and check the caller's role
-- first (one error naming the role to ask for), then work as the extension's
-- owner.  The tables and every internal function (schema scheduler_internal)
-- are the owner's, granted to nobody: no role can write the mirror past
-- apply()'s validation, call an internal function, or take a lock the
-- scheduler waits for.  Roles are
-- cluster-wide: they outlive DROP EXTENSION, and a second database's
-- CREATE EXTENSION finds them made.
------------------------------------------------------------------------------
DO $$
DECLARE
    r record;
BEGIN
    -- a role of these names made before (by an earlier install, which left
    -- it, or by hand) is taken as it is, with its members; but one that can
    -- log in, or bypasses checks, is no group role: whoever holds its
    -- password would get what the role may do here
    FOR r IN SELECT rolname FROM pg_catalog.pg_roles
             WHERE rolname OPERATOR(pg_catalog.=) ANY ('{scheduler_reader,scheduler_writer,scheduler_admin}'::pg_catalog.name[])
               AND (rolcanlogin OR rolsuper OR rolbypassrls OR rolcreaterole OR rolcreatedb OR rolreplication)
    LOOP
        RAISE EXCEPTION 'role "%" exists and can log in or holds an attribute', r.rolname
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'The extension''s roles are group roles: NOLOGIN, with no attribute.',
                  HINT = pg_catalog.format('ALTER ROLE %I NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS; or drop it first.', r.rolname);
    END LOOP;
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'scheduler_reader') THEN
        CREATE ROLE scheduler_reader NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'scheduler_writer') THEN
        CREATE ROLE scheduler_writer NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'scheduler_admin') THEN
        CREATE ROLE scheduler_admin NOLOGIN;
    END IF;
    IF NOT pg_catalog.pg_has_role('scheduler_writer', 'scheduler_reader', 'MEMBER') THEN
        GRANT scheduler_reader TO scheduler_writer;
    END IF;
    IF NOT pg_catalog.pg_has_role('scheduler_admin', 'scheduler_writer', 'MEMBER') THEN
        GRANT scheduler_writer TO scheduler_admin;
    END IF;
END $$;

GRANT USAGE ON SCHEMA scheduler TO PUBLIC;
GRANT SELECT ON ALL TABLES IN SCHEMA scheduler TO scheduler_reader;
GRANT INSERT, UPDATE, DELETE ON scheduler.profiles, scheduler.profile_plugins TO scheduler_admin;
-- the views check the role themselves (require_role), so that a stranger is told which
GRANT SELECT ON scheduler.node_usage, scheduler.pending_pods, scheduler.metrics_pending_pods,
    scheduler.metrics_schedule_attempts, scheduler.metrics_latency, scheduler.snapshot_from_tables TO PUBLIC;

REVOKE ALL ON ALL FUNCTIONS IN SCHEMA scheduler FROM PUBLIC;
-- the internal schema: no USAGE for anyone but its owner, and its functions
-- executable by nobody else either (a trigger's function is called by OID)
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA scheduler_internal FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.schedule_pending(integer) FROM PUBLIC;
-- the entry points: each checks its caller's role first
GRANT EXECUTE ON FUNCTION
    @extschema@.schedule_pending(integer),
    scheduler.require_role(text),
    scheduler.apply(jsonb), scheduler.apply_events(jsonb[]), scheduler.relist(jsonb, text[]),
    scheduler.filter(text, text), scheduler.score(text, text, boolean), scheduler.why(text, text),
    scheduler.snapshot(), scheduler.quantity_milli(text), scheduler.quantity_value(text), scheduler.plugins(),
    scheduler.fit_error_message(integer, jsonb, text, text), scheduler.num_feasible_nodes_to_find(integer, integer)
    TO PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler.check_plugin(text, jsonb) TO scheduler_admin;
GRANT EXECUTE ON FUNCTION scheduler.kinds() TO scheduler_reader;

-- Every function runs with search_path pinned: a function or operator planted
-- in a schema the caller's path names first is never called instead of a
-- built-in (the workers and triggers run as a superuser).
DO $$
DECLARE
    f regprocedure;
BEGIN
    FOR f IN SELECT p.oid FROM pg_catalog.pg_proc p
             WHERE p.pronamespace = 'scheduler'::regnamespace
                OR p.pronamespace = 'scheduler_internal'::regnamespace
                OR p.oid = '@extschema@.schedule_pending(integer)'::regprocedure
    LOOP
        EXECUTE pg_catalog.format('ALTER FUNCTION %s SET search_path = pg_catalog, pg_temp', f);
    END LOOP;
END $$;
