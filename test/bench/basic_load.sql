-- SchedulingBasic's cluster (basic.sql, and test/bench/instructions): 5000
-- nodes (4 cpu, 32Gi, 110 pods), 1000 pods placed, 10000 pending pods (100m,
-- 500Mi), loaded through apply() into a database of their own.
\set QUIET on
\pset footer off
CREATE EXTENSION scheduler;
SET scheduler.random_seed = 1;

CREATE FUNCTION pg_temp.pods(prefix text, n int, bound boolean) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_agg(jsonb_build_object(
        'kind', 'Pod',
        'metadata', jsonb_build_object('name', prefix || i, 'namespace', 'bench', 'uid', prefix || i,
            'creationTimestamp', to_char(timestamptz '2024-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')),
        'spec', jsonb_build_object('containers', jsonb_build_array(jsonb_build_object('name', 'pause',
                    'image', 'registry.k8s.io/pause:3.10',
                    'resources', jsonb_build_object('requests', '{"cpu": "100m", "memory": "500Mi"}'::jsonb))))
                || CASE WHEN bound THEN jsonb_build_object('nodeName', 'node-' || (i % 5000)) ELSE '{}' END,
        'status', jsonb_build_object('phase', CASE WHEN bound THEN 'Running' ELSE 'Pending' END)))))
    FROM generate_series(1, n) i
$$;

SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_agg(jsonb_build_object(
    'kind', 'Node',
    'metadata', jsonb_build_object('name', 'node-' || i, 'uid', 'node-' || i,
        'labels', jsonb_build_object('kubernetes.io/hostname', 'node-' || i)),
    'status', '{"allocatable": {"cpu": "4", "memory": "32Gi", "pods": "110"}}'::jsonb))))
FROM generate_series(0, 4999) i \gset loaded_
SELECT pg_temp.pods('placed-', 1000, true) \gset
SELECT pg_temp.pods('pending-', 10000, false) \gset
VACUUM ANALYZE scheduler.nodes;
VACUUM ANALYZE scheduler.pods;

