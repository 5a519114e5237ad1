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
-- scheduler_name says which.  The last column is scheduler.diagnosis() of
-- the pod: STABLE, so the view is pulled up into the query that reads it
-- and a query that does not select the column never calls it.
CREATE VIEW scheduler.pending_pods AS
SELECT p.namespace, p.name,
       CASE WHEN o.ours THEN q.state ELSE 'other-scheduler' END AS queue,
       q.attempts, q.rejected_by,
       CASE WHEN NOT o.ours
            THEN 'not ours: spec.schedulerName "' || p.scheduler_name
                 || '" is neither scheduler.scheduler_name nor a profile''s'
            WHEN q.state = 'gated'
            THEN 'waiting for scheduling gates: [' || array_to_string(p.scheduling_gates, ' ') || ']'
            WHEN v.terminating > 0
            THEN 'nominated to node "' || q.nominated_node || '" by preemption: waiting for ' || v.terminating
                 || CASE WHEN v.terminating = 1 THEN ' victim' ELSE ' victims' END || ' to terminate ('
                 || coalesce(a.message, 'not tried since') || ')'
            ELSE a.message END AS message,
       q.first_enqueued_at AS since,
       p.scheduler_name,
       scheduler.diagnosis(p.namespace, p.name) AS diagnosis
FROM scheduler.queue q
JOIN scheduler.pods p ON p.uid = q.pod_uid
CROSS JOIN LATERAL (
    SELECT p.scheduler_name = coalesce(current_setting('scheduler.scheduler_name', true), 'default-scheduler')
           OR EXISTS (SELECT FROM scheduler.profiles pr WHERE pr.scheduler_name = p.scheduler_name)
) AS o(ours)
LEFT JOIN scheduler.pod_attempts a ON a.pod_uid = q.pod_uid AND a.result = 'unschedulable'
-- a preemptor waits for its victims: the lower-priority pods terminating on its nominated node
-- (bound there: an assumed pod whose deletion starts is forgotten, as kube-scheduler's
-- handleAssumedPodDeletion forgets it, and frees its room at once)
CROSS JOIN LATERAL (
    SELECT count(*) AS terminating FROM scheduler.pods t
    WHERE q.nominated_node IS NOT NULL AND t.node_name = q.nominated_node
      AND t.deletion_timestamp IS NOT NULL AND NOT t.terminal AND t.priority < p.priority
) AS v
WHERE scheduler.require_role('scheduler_reader');
COMMENT ON VIEW scheduler.pending_pods IS 'Every pending pod: its queue (active, backoff, unschedulable, gated; other-scheduler when no profile and not scheduler.scheduler_name names its schedulerName), attempts, the plugins that rejected it, kube-scheduler''s message (or what it waits for: scheduling gates, its preemption victims to terminate), since when it is pending, its schedulerName, and scheduler.diagnosis() of it (called only when selected)';

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
COMMENT ON VIEW scheduler.metrics_schedule_attempts IS 'Attempts by result, over the retained history (fewer as it is pruned: the counter, scheduler_schedule_attempts_total, is scheduler.attempt_totals)';

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
-- The pods on nodes are summed in one pass (no index reads assumed_node).
CREATE VIEW scheduler.snapshot_from_tables AS
SELECT n.name AS node, n.unschedulable, n.allocatable,
       coalesce(r.requested, '{}') AS requested,
       coalesce(u.nonzero_cpu, 0) AS nonzero_cpu, coalesce(u.nonzero_memory, 0) AS nonzero_memory,
       coalesce(u.pods, 0)::integer AS pods
FROM scheduler.nodes n
LEFT JOIN (SELECT t.node, jsonb_object_agg(t.key, t.total) AS requested FROM (
                SELECT coalesce(p.node_name, p.assumed_node) AS node, r.key, sum(r.value::numeric) AS total
                FROM scheduler.pods p,
                     jsonb_each(CASE WHEN jsonb_typeof(p.requests) = 'object' THEN p.requests END) r
                WHERE coalesce(p.node_name, p.assumed_node) IS NOT NULL AND jsonb_typeof(r.value) = 'number'
                  AND NOT p.terminal
                GROUP BY 1, 2) t
           GROUP BY t.node) r ON r.node = n.name
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

