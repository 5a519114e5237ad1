-- The inter-pod workloads of kube-scheduler's scheduler_perf, at 5000 nodes
-- (4 cpu, 32Gi, 110 pods; three zones): each places 1000 pods first, then
-- times schedule_pending() over the pending ones in a fresh backend (the
-- snapshot and its counts are built inside the timed call) and checks the
-- outcome.  One line each: <name>_5000: <pods/s> pods/s.
--   anti_affinity       2000 pods, required anti-affinity on hostname
--   affinity            5000 pods, required affinity on zone
--   spread              5000 pods, DoNotSchedule spread over zones (maxSkew 5)
--   preferred_affinity  5000 pods, preferred affinity on hostname
\set QUIET on
\pset footer off
CREATE EXTENSION scheduler;

SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_agg(jsonb_build_object(
    'kind', 'Node',
    'metadata', jsonb_build_object('name', 'node-' || i, 'uid', 'node-' || i,
        'labels', jsonb_build_object('kubernetes.io/hostname', 'node-' || i,
                                     'topology.kubernetes.io/zone', 'moon-' || (i % 3))),
    'status', '{"allocatable": {"cpu": "4", "memory": "32Gi", "pods": "110"}}'::jsonb))))
FROM generate_series(0, 4999) i \gset loaded_

-- n pods named prefix-i with labels and spec extra, placed round the nodes when placed
CREATE FUNCTION public.bench_pods(prefix text, n int, placed boolean, labels jsonb, extra jsonb) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_agg(jsonb_build_object(
        'kind', 'Pod',
        'metadata', jsonb_build_object('name', prefix || i, 'namespace', 'sched-0', 'uid', prefix || i,
            'labels', labels,
            'creationTimestamp', to_char(timestamptz '2024-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')),
        'spec', jsonb_build_object('containers', jsonb_build_array(jsonb_build_object('name', 'pause',
                    'image', 'registry.k8s.io/pause:3.10',
                    'resources', jsonb_build_object('requests', '{"cpu": "100m", "memory": "500Mi"}'::jsonb))))
                || extra
                || CASE WHEN placed THEN jsonb_build_object('nodeName', 'node-' || (i % 5000)) ELSE '{}' END,
        'status', jsonb_build_object('phase', CASE WHEN placed THEN 'Running' ELSE 'Pending' END)))))
    FROM generate_series(1, n) i
$$;


------------------------------------------------------------------------------
-- anti_affinity: pod-with-pod-anti-affinity.yaml
------------------------------------------------------------------------------
SELECT public.bench_pods('init-', 1000, true, '{"color": "green", "name": "test"}',
    '{"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {"matchLabels": {"color": "green"}}, "topologyKey": "kubernetes.io/hostname", "namespaces": ["sched-1", "sched-0"]}]}}}') \gset
SELECT public.bench_pods('anti-', 2000, false, '{"color": "green", "name": "test"}',
    '{"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {"matchLabels": {"color": "green"}}, "topologyKey": "kubernetes.io/hostname", "namespaces": ["sched-1", "sched-0"]}]}}}') \gset
VACUUM ANALYZE scheduler.pods;
\ir timed_pending.psql
SELECT count(*) AS shared FROM (SELECT coalesce(node_name, assumed_node) FROM scheduler.pods
    GROUP BY 1 HAVING count(*) > 1) s \gset
\echo 'anti_affinity: ' :done 'of' :pods 'scheduled; nodes with two green pods:' :shared
\echo 'anti_affinity_5000: ' :rate 'pods/s'
TRUNCATE scheduler.pods;

------------------------------------------------------------------------------
-- affinity: pod-with-pod-affinity.yaml (required affinity on zone to foo)
------------------------------------------------------------------------------
SELECT public.bench_pods('init-', 1000, true, '{"foo": ""}', '{}') \gset
SELECT public.bench_pods('aff-', 5000, false, '{"foo": ""}',
    '{"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {"matchLabels": {"foo": ""}}, "topologyKey": "topology.kubernetes.io/zone", "namespaces": ["sched-1", "sched-0"]}]}}}') \gset
VACUUM ANALYZE scheduler.pods;
\ir timed_pending.psql
\echo 'affinity: ' :done 'of' :pods 'scheduled'
\echo 'affinity_5000: ' :rate 'pods/s'
TRUNCATE scheduler.pods;

------------------------------------------------------------------------------
-- spread: pod-with-topology-spreading.yaml
------------------------------------------------------------------------------
SELECT public.bench_pods('init-', 1000, true, '{"color": "blue"}', '{}') \gset
SELECT public.bench_pods('spread-', 5000, false, '{"color": "blue"}',
    '{"topologySpreadConstraints": [{"maxSkew": 5, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"color": "blue"}}}]}') \gset
VACUUM ANALYZE scheduler.pods;
\ir timed_pending.psql
SELECT max(c) - min(c) AS skew FROM (SELECT n.labels->>'topology.kubernetes.io/zone', count(*) AS c
    FROM scheduler.pods p JOIN scheduler.nodes n ON n.name = coalesce(p.node_name, p.assumed_node) GROUP BY 1) z \gset
\echo 'spread: ' :done 'of' :pods 'scheduled; zone skew' :skew
\echo 'spread_5000: ' :rate 'pods/s'
TRUNCATE scheduler.pods;

------------------------------------------------------------------------------
-- preferred_affinity: pod-with-preferred-pod-affinity.yaml
------------------------------------------------------------------------------
SELECT public.bench_pods('init-', 1000, true, '{"foo": ""}', '{}') \gset
SELECT public.bench_pods('pref-', 5000, false, '{"foo": ""}',
    '{"affinity": {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "podAffinityTerm": {"labelSelector": {"matchLabels": {"foo": ""}}, "topologyKey": "kubernetes.io/hostname", "namespaces": ["sched-1", "sched-0"]}}]}}}') \gset
VACUUM ANALYZE scheduler.pods;
\ir timed_pending.psql
\echo 'preferred_affinity: ' :done 'of' :pods 'scheduled'
\echo 'preferred_affinity_5000: ' :rate 'pods/s'
