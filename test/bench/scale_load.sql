-- The cluster of scale.sh: :nodes nodes (4 cpu, 32Gi, 110 pods), :placed
-- pods bound across them (100m, 500Mi, as SchedulingBasic's), :pending
-- pods pending, and one pod no node can hold (16 cpu): the one why(),
-- filter() and diagnosis() explain.
\set QUIET on
CREATE EXTENSION scheduler;
SET scheduler.random_seed = 1;
SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_agg(jsonb_build_object(
    'kind', 'Node',
    'metadata', jsonb_build_object('name', 'node-' || i, 'uid', 'node-' || i,
        'labels', jsonb_build_object('kubernetes.io/hostname', 'node-' || i,
                                     'topology.kubernetes.io/zone', 'zone-' || (i % 3))),
    'status', '{"allocatable": {"cpu": "4", "memory": "32Gi", "pods": "110"}}'::jsonb))))
FROM generate_series(0, :nodes - 1) i \gset loaded_
CREATE FUNCTION pg_temp.pods(prefix text, first int, n int, bound boolean, cpu text, nodes int) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_agg(jsonb_build_object(
        'kind', 'Pod',
        'metadata', jsonb_build_object('name', prefix || i, 'namespace', 'bench', 'uid', prefix || i,
            'labels', jsonb_build_object('app', 'app-' || (i % 100)),
            'creationTimestamp', to_char(timestamptz '2024-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')),
        'spec', jsonb_build_object('containers', jsonb_build_array(jsonb_build_object('name', 'pause',
                    'image', 'registry.k8s.io/pause:3.10',
                    'resources', jsonb_build_object('requests', jsonb_build_object('cpu', cpu, 'memory', '500Mi')))))
                || CASE WHEN bound THEN jsonb_build_object('nodeName', 'node-' || (i % nodes)) ELSE '{}' END,
        'status', jsonb_build_object('phase', CASE WHEN bound THEN 'Running' ELSE 'Pending' END)))))
    FROM generate_series(first, first + n - 1) i
$$;
-- in lists of 10000: one apply() per list
SELECT sum(pg_temp.pods('placed-', k, least(10000, :placed - k), true, '100m', :nodes))
FROM generate_series(0, :placed - 1, 10000) k \gset
SELECT pg_temp.pods('pending-', 0, :pending, false, '100m', :nodes) \gset
SELECT pg_temp.pods('huge-', 0, 1, false, '16', :nodes) \gset
VACUUM ANALYZE scheduler.nodes;
VACUUM ANALYZE scheduler.pods;
