-- schedule_pending() writes its results every 256 pods (a chunk): the
-- history, the latest attempt, the assumed node, and the queue rows the
-- triggers take out.  Each of those statements names its rows by key, and
-- is planned to look them up by key (enable_seqscan off while a chunk is
-- written): a pass over pods, queue or pod_attempts per chunk made a
-- call's writing grow with the square of its pods (issue 15's
-- basic_5000 spent a tenth of its write-back so).  The passes are counted
-- in the call's transaction (pg_stat_xact_user_tables): the snapshot and
-- the queue are read whole once per call, whatever the number of chunks.
\set SHOW_CONTEXT never
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history, scheduler.namespaces;
SET scheduler.random_seed = 1;

SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_agg(jsonb_build_object('kind', 'Node',
    'metadata', jsonb_build_object('name', 'n' || i, 'labels', jsonb_build_object('kubernetes.io/hostname', 'n' || i)),
    'status', jsonb_build_object('allocatable', jsonb_build_object('cpu', '64', 'memory', '256Gi', 'pods', '100'))))))
FROM generate_series(1, 20) i;

-- a pending pod named p<i>; bound to a node when given
CREATE FUNCTION pg_temp.pod(i int, node text DEFAULT NULL) RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_build_object('kind', 'Pod',
        'metadata', jsonb_build_object('name', 'p' || i, 'namespace', 'default', 'uid', 'u' || i),
        'spec', jsonb_strip_nulls(jsonb_build_object('nodeName', node, 'containers', jsonb_build_array(
            jsonb_build_object('name', 'c', 'resources', jsonb_build_object('requests',
                jsonb_build_object('cpu', '10m', 'memory', '10Mi')))))))
$$;

-- 1000 pods bound, then 1100 pending (five chunks): 1000 fill the nodes'
-- 2000 places, 100 are unschedulable (their requeue is written too)
SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_agg(pg_temp.pod(i, 'n' || (1 + i % 20)))))
FROM generate_series(1, 1000) i;
SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_agg(pg_temp.pod(i))))
FROM generate_series(1001, 2100) i;
ANALYZE scheduler.pods;
ANALYZE scheduler.queue;

-- The passes over each table in a call's transaction, kept across
-- backends; each call from a fresh backend (its snapshot built inside)
CREATE TABLE passes (chunks int, relname name, seq_scan bigint);
CREATE VIEW passes_now AS
SELECT relname, seq_scan FROM pg_stat_xact_user_tables
WHERE schemaname = 'scheduler' AND relname IN ('pods', 'queue', 'pod_attempts', 'attempt_history');

-- a first call, not counted: the housekeeping after it reads the history
-- and the latest attempts, which it skips while they are empty
SELECT result, count(*) FROM schedule_pending(10) GROUP BY result ORDER BY result;

-- one chunk (10 pods) ...
\connect
SET scheduler.random_seed = 1;
BEGIN;
SELECT result, count(*) FROM schedule_pending(10) GROUP BY result ORDER BY result;
INSERT INTO passes SELECT 1, * FROM passes_now;
COMMIT;

-- ... then five (the other 1080)
\connect
SET scheduler.random_seed = 1;
BEGIN;
SELECT result, count(*) FROM schedule_pending() GROUP BY result ORDER BY result;
INSERT INTO passes SELECT 5, * FROM passes_now;
COMMIT;

-- no table is passed over more often for writing five chunks than one
SELECT o.relname, f.seq_scan <= o.seq_scan AS no_more_passes
FROM passes o JOIN passes f ON f.relname = o.relname AND f.chunks = 5
WHERE o.chunks = 1 ORDER BY o.relname;

DROP VIEW passes_now;
DROP TABLE passes;
