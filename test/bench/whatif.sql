-- The answers, timed at SchedulingBasic's size: 5000 nodes (4 cpu, 32Gi,
-- 110 pods), 1000 pods placed.  One pod that fits nowhere (8 cpu) has been
-- attempted, so that its diagnosis names every node; 1000 pending pods
-- (100m, 500Mi) wait.  Prints, per call, the median of 20 calls (5 for
-- simulate()) after one to warm up; for simulate(), also one call on a
-- warm snapshot: every simulate() leaves the backend's snapshot to be read
-- afresh by the next call, which pays for that:
--   why_5000, diagnosis_5000, fit_hints_5000: <ms> ms per call (target 10 ms)
--   simulate_1000_on_5000: <ms> ms per call (target 1000 ms)
\set QUIET on
\pset footer off
CREATE EXTENSION scheduler;
SET scheduler.random_seed = 1;

SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_agg(jsonb_build_object(
    'kind', 'Node',
    'metadata', jsonb_build_object('name', 'node-' || i, 'uid', 'node-' || i,
        'labels', jsonb_build_object('kubernetes.io/hostname', 'node-' || i, 'topology.kubernetes.io/zone', 'zone-' || (i % 10))),
    'status', '{"allocatable": {"cpu": "4", "memory": "32Gi", "pods": "110"}}'::jsonb))))
FROM generate_series(0, 4999) i \gset loaded_
CREATE FUNCTION pg_temp.pods(prefix text, n int, bound boolean, cpu text DEFAULT '100m') RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_agg(jsonb_build_object(
        'kind', 'Pod',
        'metadata', jsonb_build_object('name', prefix || i, 'namespace', 'bench', 'uid', prefix || i,
            'creationTimestamp', to_char(timestamptz '2024-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')),
        'spec', jsonb_build_object('containers', jsonb_build_array(jsonb_build_object('name', 'pause',
                    'image', 'registry.k8s.io/pause:3.10',
                    'resources', jsonb_build_object('requests', jsonb_build_object('cpu', cpu, 'memory', '500Mi')))))
                || CASE WHEN bound THEN jsonb_build_object('nodeName', 'node-' || (i % 5000)) ELSE '{}' END,
        'status', jsonb_build_object('phase', CASE WHEN bound THEN 'Running' ELSE 'Pending' END)))))
    FROM generate_series(1, n) i
$$;
SELECT pg_temp.pods('placed-', 1000, true) \gset
SELECT pg_temp.pods('stuck-', 1, false, '8') \gset
SELECT count(*) AS attempted FROM schedule_pending() \gset
SELECT pg_temp.pods('pending-', 1000, false) \gset
VACUUM ANALYZE scheduler.nodes;
VACUUM ANALYZE scheduler.pods;

-- the median of n calls of a query, after one call to warm up, in ms
CREATE FUNCTION pg_temp.median_ms(query text, n int) RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz;
    times float8[] := '{}';
BEGIN
    EXECUTE query;
    FOR i IN 1..n LOOP
        t0 := clock_timestamp();
        EXECUTE query;
        times := times || extract(epoch FROM clock_timestamp() - t0) * 1000;
    END LOOP;
    RETURN round((SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY t) FROM unnest(times) t)::numeric, 2);
END $$;
-- one call, in ms
CREATE FUNCTION pg_temp.once_ms(query text) RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz := clock_timestamp();
BEGIN
    EXECUTE query;
    RETURN round((extract(epoch FROM clock_timestamp() - t0) * 1000)::numeric, 2);
END $$;

-- what each answers, so that a figure is of a real answer
SELECT count(*) AS why_rows FROM scheduler.why('bench', 'stuck-1') \gset
SELECT count(*) AS hint_rows FROM scheduler.fit_hints('bench', 'stuck-1') \gset
SELECT jsonb_typeof(scheduler.diagnosis('bench', 'stuck-1')) AS diagnosis_type \gset
SELECT count(*) FILTER (WHERE result = 'scheduled') AS sim_placed, count(*) AS sim_pods
FROM scheduler.simulate() \gset
SELECT format('whatif: why() %s rows, fit_hints() %s, diagnosis() an %s, simulate() placed %s of %s pods (%s)',
              :why_rows, :hint_rows, :'diagnosis_type', :sim_placed, :sim_pods,
              CASE WHEN :why_rows = 5000 AND :hint_rows > 0 AND :'diagnosis_type' = 'object'
                        AND :sim_pods = 1001 AND :sim_placed = 1000
                   THEN 'the answers expected' ELSE 'WRONG ANSWERS' END) AS line \gset
\echo :line
SELECT format('why_5000: %s ms per call (target 10 ms)',
              pg_temp.median_ms($$SELECT count(*) FROM scheduler.why('bench', 'stuck-1')$$, 20)) AS line \gset
\echo :line
SELECT format('diagnosis_5000: %s ms per call (target 10 ms)',
              pg_temp.median_ms($$SELECT scheduler.diagnosis('bench', 'stuck-1')$$, 20)) AS line \gset
\echo :line
SELECT format('fit_hints_5000: %s ms per call (target 10 ms)',
              pg_temp.median_ms($$SELECT count(*) FROM scheduler.fit_hints('bench', 'stuck-1')$$, 20)) AS line \gset
\echo :line
SELECT pg_temp.once_ms($$SELECT count(*) FROM scheduler.simulate()$$) AS warm \gset
SELECT format('simulate_1000_on_5000: %s ms per call, reading the snapshot afresh as every call after a simulate() does; %s ms on a warm snapshot (target 1000 ms)',
              pg_temp.median_ms($$SELECT count(*) FROM scheduler.simulate()$$, 5), :warm) AS line \gset
\echo :line
