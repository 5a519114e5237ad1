-- The demo: load a sample cluster as Kubernetes JSON, schedule, explain.
\pset footer off
\set QUIET on
CREATE EXTENSION scheduler;

\echo
\echo '== 1. Load the cluster: SELECT scheduler.apply(<kubectl-style List of Nodes and Pods>)'
SELECT scheduler.apply(:'cluster') AS objects_applied;

\echo '== Nodes (scheduler.nodes)'
SELECT name, CASE WHEN unschedulable THEN 'cordoned' ELSE '' END AS state,
       (allocatable->>'cpu')::bigint AS cpu_millicores,
       pg_size_pretty((allocatable->>'memory')::bigint) AS memory,
       coalesce(allocatable->>'nvidia.com/gpu', '') AS gpus,
       (SELECT count(*) FROM scheduler.pods p WHERE p.node_name = n.name AND p.phase = 'Running') AS running_pods
FROM scheduler.nodes n ORDER BY name;

\echo '== 2. Schedule: SELECT * FROM schedule_pending()'
\echo '   (pending pods of schedulerName default-scheduler, highest priority first, then oldest)'
SELECT namespace || '/' || name AS pod, coalesce(node, '-') AS node, result, message
FROM schedule_pending();

\echo '== 3. Node usage afterwards (scheduler.node_usage; cpu in millicores)'
SELECT node,
       max(requested) FILTER (WHERE resource = 'cpu') || ' / ' || max(allocatable) FILTER (WHERE resource = 'cpu') AS cpu,
       pg_size_pretty(max(requested) FILTER (WHERE resource = 'memory')) || ' / ' ||
           pg_size_pretty(max(allocatable) FILTER (WHERE resource = 'memory')) AS memory,
       coalesce(max(requested) FILTER (WHERE resource = 'nvidia.com/gpu') || ' / ' ||
           max(allocatable) FILTER (WHERE resource = 'nvidia.com/gpu'), '') AS gpus,
       max(requested) FILTER (WHERE resource = 'pods') || ' / ' || max(allocatable) FILTER (WHERE resource = 'pods') AS pods
FROM scheduler.node_usage GROUP BY node ORDER BY node;

\echo '== 4. Why are these pods still pending? SELECT ... FROM scheduler.pending_pods'
\echo '   (each waits in the unschedulable queue until an event could help it)'
SELECT namespace || '/' || name AS pod, queue, rejected_by, message
FROM scheduler.pending_pods WHERE message IS NOT NULL ORDER BY 1;

\echo '== ... and node by node: SELECT * FROM scheduler.why(namespace, name)'
SELECT p.namespace || '/' || p.name AS pod, w.node, w.plugin, w.reason
FROM scheduler.pods p JOIN scheduler.pod_attempts a ON a.pod_uid = p.uid,
     LATERAL scheduler.why(p.namespace, p.name) w
WHERE a.result = 'unschedulable' ORDER BY 1, 2;

\echo '== Pods left for another scheduler (spec.schedulerName)'
SELECT namespace || '/' || name AS pod, scheduler_name FROM scheduler.pods
WHERE scheduler_name <> 'default-scheduler' ORDER BY 1;

\echo '== 5. What would make them fit? SELECT * FROM scheduler.fit_hints(namespace, name)'
\echo '   (node by node, the smallest changes, each checked against the real plugins; the best two per pod)'
SELECT p.namespace || '/' || p.name AS pod, h.rank, h.node, h.kind, h.detail
FROM scheduler.pods p JOIN scheduler.pod_attempts a ON a.pod_uid = p.uid,
     LATERAL scheduler.fit_hints(p.namespace, p.name, 2) h
WHERE a.result = 'unschedulable' ORDER BY 1, 2, 4;

\echo '== ... and each best one tried: SELECT * FROM scheduler.simulate(<its change>)'
\echo '   (a what-if that writes nothing and blocks nobody: where the pod would go with that change made)'
SELECT p.namespace || '/' || p.name AS pod, h.node AS hint_node, h.kind, s.result, coalesce(s.node, '-') AS node
FROM scheduler.pods p JOIN scheduler.pod_attempts a ON a.pod_uid = p.uid,
     LATERAL (SELECT DISTINCT ON (rank) * FROM scheduler.fit_hints(p.namespace, p.name, 1) ORDER BY rank, kind) h,
     LATERAL scheduler.simulate(h.change) s
WHERE a.result = 'unschedulable' AND s.namespace = p.namespace AND s.name = p.name ORDER BY 1;

\echo '== 6. What if we added a node with 4 GPUs? SELECT * FROM scheduler.simulate(<a Node>)'
SELECT namespace || '/' || name AS pod, coalesce(node, '-') AS node, result
FROM scheduler.simulate('[{"kind": "Node", "metadata": {"name": "g5.12xlarge-1"},
                           "status": {"allocatable": {"cpu": "48", "memory": "192Gi", "nvidia.com/gpu": "4", "pods": "110"}}}]')
ORDER BY 1;

\echo '== 7. What would place them? SELECT * FROM scheduler.plan_capacity(<node templates>)'
\echo '   (templates in order of preference, each a Node object; the row whose template is NULL'
\echo '   counts the pods no template can hold)'
\set templates '[{"kind": "Node", "metadata": {"name": "m6i.8xlarge", "labels": {"node.kubernetes.io/instance-type": "m6i.8xlarge"}}, "status": {"allocatable": {"cpu": "32", "memory": "128Gi", "pods": "110"}}}, {"kind": "Node", "metadata": {"name": "g5.2xlarge", "labels": {"node.kubernetes.io/instance-type": "g5.2xlarge"}}, "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "nvidia.com/gpu": "1", "pods": "110"}}}]'
SELECT * FROM scheduler.plan_capacity(:'templates');

\echo '== ... pod by pod: SELECT * FROM scheduler.plan_capacity_pods(<node templates>)'
SELECT namespace || '/' || name AS pod, coalesce(template, '-') AS template, coalesce(node, '-') AS node, message
FROM scheduler.plan_capacity_pods(:'templates');
