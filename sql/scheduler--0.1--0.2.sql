\echo Use "ALTER EXTENSION scheduler UPDATE TO '0.2'" to load this file. \quit

-- From 0.1 to 0.2.  As the install script, this runs as a superuser with
-- the caller's search_path: every name is resolved in pg_catalog alone, and
-- every object is schema-qualified.
SELECT pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);

-- The plugin registry as a table (src/plugins/plugins.def)
CREATE FUNCTION scheduler.plugins()
    RETURNS TABLE (plugin text, default_weight integer, default_position integer, extension_points text[])
    AS 'MODULE_PATHNAME', 'scheduler_plugins' LANGUAGE C STRICT STABLE PARALLEL SAFE;
COMMENT ON FUNCTION scheduler.plugins() IS 'The plugins this build knows (src/plugins/plugins.def): default score weight (NULL: does not score), position in the default profile (NULL: not in it), extension points';
ALTER FUNCTION scheduler.plugins() SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION scheduler.plugins() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler.plugins() TO PUBLIC;

-- Comments on every table and view
COMMENT ON TABLE scheduler.cycle_lock IS 'One row, updated first by each schedule_pending() call, so calls run one at a time (writers of the mirror hold the table in SHARE mode): the cycle generation, when the last cycle ran, and where the next node search starts';
COMMENT ON TABLE scheduler.attempt_history IS 'Every scheduling attempt, kept for scheduler.history_retention: when, result, node, kube-scheduler''s message, the plugins that rejected it, the per-node diagnosis (or diagnosis_of, the attempt whose equal diagnosis it shares), the time waited in the active queue and the cycle time';
COMMENT ON TABLE scheduler.changes IS 'Every changed node and pod by transaction id (n node, p pod, t truncate), for the snapshot cache in each backend; pruned by schedule_pending()';
COMMENT ON TABLE scheduler.changes_horizon IS 'One row: the changes below this xid have been pruned; a snapshot cache older than it rebuilds';
COMMENT ON TABLE scheduler.profiles IS 'Scheduling profiles (kube-scheduler''s KubeSchedulerProfile), one per schedulerName; a schedulerName without one runs the plugins of default-scheduler';
COMMENT ON VIEW scheduler.snapshot_from_tables IS 'The nodes as scheduler.snapshot() shows them, computed from the tables from scratch: for checking the snapshot cache';

-- A node deleted under a pod assumed on it: the assumption is forgotten
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
ALTER FUNCTION scheduler.forget_assumed() SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION scheduler.forget_assumed() FROM PUBLIC;

-- pending_pods and metrics_pending_pods: another scheduler's pods are not ours
CREATE OR REPLACE VIEW scheduler.pending_pods AS
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

CREATE OR REPLACE VIEW scheduler.metrics_pending_pods AS
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

-- outbox_result's rules in C (outbox.c)
CREATE OR REPLACE FUNCTION scheduler.outbox_result(request bigint, http_status integer, response jsonb DEFAULT NULL,
                                                   max_attempts integer DEFAULT 10)
RETURNS text AS 'MODULE_PATHNAME', 'scheduler_outbox_result' LANGUAGE C VOLATILE;
ALTER FUNCTION scheduler.outbox_result(bigint, integer, jsonb, integer) SET search_path = pg_catalog, pg_temp;

-- The table of kinds (kinds.c), as SQL sees it
CREATE FUNCTION scheduler.kinds(OUT kind text, OUT list_kind text, OUT api_version text, OUT resource text,
                                OUT path text, OUT query text, OUT table_name text, OUT namespaced boolean,
                                OUT events text)
    RETURNS SETOF record
    AS 'MODULE_PATHNAME', 'scheduler_kinds' LANGUAGE C STRICT STABLE;
COMMENT ON FUNCTION scheduler.kinds() IS 'The Kubernetes kinds the scheduler mirrors and watches: kind, list kind, apiVersion, resource, the collection path and query the watch worker lists and watches, the mirror table, whether namespaced, and the cluster events its changes raise for the QueueingHints (Node, AssignedPod) or NULL';
ALTER FUNCTION scheduler.kinds() SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION scheduler.kinds() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler.kinds() TO scheduler_reader;
COMMENT ON FUNCTION scheduler.apply(jsonb) IS 'Apply an object of a kind scheduler.kinds() lists (a Node, a Pod, ...), a List of them (kubectl get -o json), or a watch event; returns how many objects changed';
COMMENT ON FUNCTION scheduler.relist(jsonb, text[]) IS 'Apply a list of one kind scheduler.kinds() lists (a NodeList, a PodList, ...) as the whole truth: apply its items, delete what it no longer has (but the uids in keep), record its resourceVersion';

-- "Pending" and "terminal" defined once, as generated columns (the table is
-- rewritten), and what reads them
ALTER TABLE scheduler.pods
    ADD COLUMN terminal           boolean NOT NULL GENERATED ALWAYS AS
                           (phase IS NOT NULL AND phase IN ('Succeeded', 'Failed')) STORED,
    ADD COLUMN pending            boolean NOT NULL GENERATED ALWAYS AS
                           (node_name IS NULL AND assumed_node IS NULL AND deletion_timestamp IS NULL
                            AND (phase IS NULL OR phase NOT IN ('Succeeded', 'Failed'))) STORED;
COMMENT ON COLUMN scheduler.pods.terminal IS 'phase Succeeded or Failed: the pod takes no room on its node';
COMMENT ON COLUMN scheduler.pods.pending IS 'waits for a node: not bound or assumed, not being deleted, not terminal (the scheduling queue holds exactly these pods)';
-- the queue holds the pending pods: no index of them by schedulerName
DROP INDEX scheduler.pods_pending;

-- The queue's triggers in C (scheduling_queue.c)
CREATE OR REPLACE FUNCTION scheduler.truncate_queue() RETURNS trigger
    AS 'MODULE_PATHNAME', 'scheduler_truncate_queue' LANGUAGE C SECURITY DEFINER;
ALTER FUNCTION scheduler.truncate_queue() SET search_path = pg_catalog, pg_temp;
CREATE OR REPLACE FUNCTION scheduler.nodes_changed() RETURNS trigger
    AS 'MODULE_PATHNAME', 'scheduler_nodes_changed' LANGUAGE C SECURITY DEFINER;
ALTER FUNCTION scheduler.nodes_changed() SET search_path = pg_catalog, pg_temp;
CREATE OR REPLACE FUNCTION scheduler.pods_changed() RETURNS trigger
    AS 'MODULE_PATHNAME', 'scheduler_pods_changed' LANGUAGE C SECURITY DEFINER;
ALTER FUNCTION scheduler.pods_changed() SET search_path = pg_catalog, pg_temp;

CREATE OR REPLACE VIEW scheduler.node_usage AS
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

CREATE OR REPLACE VIEW scheduler.snapshot_from_tables AS
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

-- The trigger functions and helpers nobody calls by hand, moved aside to
-- schema scheduler_internal (\df scheduler.* lists what a user may call).
-- USAGE on it is the owner's alone: a trigger names its function by OID
-- (it follows the function), and the internal SQL that names one runs as
-- the owner.  Made here, the schema is a member of the extension.
CREATE SCHEMA scheduler_internal;
COMMENT ON SCHEMA scheduler_internal IS 'Kubernetes scheduler: trigger functions and helpers, not for calling (no role but the owner may use it)';
ALTER FUNCTION scheduler.log_truncate() SET SCHEMA scheduler_internal;
ALTER FUNCTION scheduler.truncate_queue() SET SCHEMA scheduler_internal;
ALTER FUNCTION scheduler.writer_lock() SET SCHEMA scheduler_internal;
ALTER FUNCTION scheduler.dispatch_events(text, jsonb, jsonb) SET SCHEMA scheduler_internal;
ALTER FUNCTION scheduler.nodes_changed() SET SCHEMA scheduler_internal;
ALTER FUNCTION scheduler.pods_changed() SET SCHEMA scheduler_internal;
ALTER FUNCTION scheduler.pod_sans_status(jsonb) SET SCHEMA scheduler_internal;
ALTER FUNCTION scheduler.check_profile_plugin() SET SCHEMA scheduler_internal;
ALTER FUNCTION scheduler.forget_assumed() SET SCHEMA scheduler_internal;
ALTER FUNCTION scheduler.wakeup() SET SCHEMA scheduler_internal;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA scheduler_internal FROM PUBLIC;
-- k8s_time(): the outbox's bodies are built in C (outbox.c); nothing calls it
DROP FUNCTION scheduler.k8s_time(timestamptz);

-- What 0.1 left behind that 0.2's rules do not allow: pods assumed on nodes
-- deleted since (0.2 forgets them as the node goes, forget_assumed.c).  The
-- pods go back to the queue (the UPDATE fires the queue's trigger), and
-- their bindings not yet sent are closed.
UPDATE scheduler.pods p SET assumed_node = NULL
 WHERE p.node_name IS NULL AND p.assumed_node IS NOT NULL
   AND NOT EXISTS (SELECT FROM scheduler.nodes n WHERE n.name = p.assumed_node)
   AND NOT EXISTS (SELECT FROM scheduler.outbox o
                   WHERE o.pod_uid = p.uid AND o.kind = 'binding' AND o.node = p.assumed_node
                     AND o.state = 'done');
UPDATE scheduler.outbox o SET state = 'failed', finished_at = now(),
       last_error = 'not sent: node "' || o.node || '" was deleted'
 WHERE o.state = 'pending' AND o.kind = 'binding'
   AND NOT EXISTS (SELECT FROM scheduler.nodes n WHERE n.name = o.node);
