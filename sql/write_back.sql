-- schedule_pending()'s write-back: the results are written in chunks,
-- in the call's transaction (the history, the latest attempt, the assumed
-- node, and the queue rows the triggers take out).
--
-- A chunk is 1024 pods, or fewer when what it holds (distinct diagnoses,
-- each over every node) passes 8 MB; a DEBUG1 line gives each chunk's size.
--
-- Each statement of a chunk names its rows by key, and is planned to look
-- them up by key (enable_seqscan off while a chunk is written): a pass
-- over pods, queue or pod_attempts per chunk made a call's writing grow
-- with the square of its pods (issue 15's basic_5000 spent a tenth of its
-- write-back so).  The passes are counted in the call's transaction
-- (pg_stat_xact_user_tables): the snapshot and the queue are read whole
-- once per call, whatever the number of chunks.
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

-- 1000 pods bound, then 1100 pending: 1000 fill the nodes' 2000 places,
-- 100 are unschedulable (their requeue is written too)
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

-- ... then two (the other 1080: 1024 and 56)
\connect
SET scheduler.random_seed = 1;
BEGIN;
SET LOCAL client_min_messages = debug1;
SET LOCAL log_temp_files = -1;  -- (LOG lines reach the client too)
SELECT result, count(*) FROM schedule_pending() GROUP BY result ORDER BY result;
RESET client_min_messages;
INSERT INTO passes SELECT 2, * FROM passes_now;
COMMIT;

-- no table is passed over more often for writing two chunks than one
SELECT o.relname, f.seq_scan <= o.seq_scan AS no_more_passes
FROM passes o JOIN passes f ON f.relname = o.relname AND f.chunks = 2
WHERE o.chunks = 1 ORDER BY o.relname;

DROP VIEW passes_now;
DROP TABLE passes;

------------------------------------------------------------------------------
-- Chunks bounded by what they hold: 300 nodes with long names, each with a
-- taint of its own; 200 pods, each tolerating one node's taint and asking
-- more cpu than any node has.  Each pod's diagnosis differs (its node is
-- the one rejected for cpu), so none is stored once for several, and each
-- lists 300 nodes (64 kB as held): 125 make a chunk.
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history;
SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_agg(jsonb_build_object('kind', 'Node',
    'metadata', jsonb_build_object('name', 'n' || i || '-' || repeat('x', 201),
                                   'labels', jsonb_build_object('kubernetes.io/hostname', 'n' || i)),
    'spec', jsonb_build_object('taints', jsonb_build_array(
        jsonb_build_object('key', 't', 'value', 'v' || i, 'effect', 'NoSchedule'))),
    'status', jsonb_build_object('allocatable', jsonb_build_object('cpu', '4', 'memory', '16Gi', 'pods', '100'))))))
FROM generate_series(1, 300) i;
SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_agg(jsonb_build_object('kind', 'Pod',
    'metadata', jsonb_build_object('name', 'q' || i, 'namespace', 'default', 'uid', 'q' || i),
    'spec', jsonb_build_object('tolerations', jsonb_build_array(
            jsonb_build_object('key', 't', 'operator', 'Equal', 'value', 'v' || i, 'effect', 'NoSchedule')),
        'containers', jsonb_build_array(jsonb_build_object('name', 'c',
            'resources', jsonb_build_object('requests', jsonb_build_object('cpu', '8')))))))))
FROM generate_series(1, 200) i;
-- (a call for no pod first: what a call looks up in the catalogs is cached
-- before DEBUG is shown, and no cache's rehashing is told among the chunks)
SELECT count(*) FROM schedule_pending(0);
BEGIN;
SET LOCAL client_min_messages = debug1;
SET LOCAL log_temp_files = -1;  -- (a chunk's diagnoses pass work_mem as they are written)
SELECT result, count(*) FROM schedule_pending() GROUP BY result;
COMMIT;
-- every attempt written, each with its own diagnosis
SELECT count(*) AS attempts, count(diagnosis) AS diagnoses, count(DISTINCT diagnosis) AS distinct_diagnoses
FROM scheduler.attempt_history;
SELECT message FROM scheduler.pod_attempts WHERE pod_uid = 'q7';
-- an id per attempt, in a row over the chunks: a chunk takes its ids in one
-- step (the next value, and the sequence set past the others), and the
-- sequence goes on after them
SELECT count(DISTINCT id) = 200 AS distinct_ids, max(id) - min(id) = 199 AS in_a_row,
       nextval(pg_get_serial_sequence('scheduler.attempt_history', 'id')) = max(id) + 1 AS sequence_after
FROM scheduler.attempt_history;
-- a sequence altered to step by 2: each id its own nextval, as the sequence
-- gives them (the step taken in one go is for a sequence that steps by 1)
ALTER TABLE scheduler.attempt_history ALTER COLUMN id SET INCREMENT BY 2;
SELECT max(id) AS last_id FROM scheduler.attempt_history \gset
SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_agg(jsonb_build_object('kind', 'Pod',
    'metadata', jsonb_build_object('name', 'r' || i, 'namespace', 'default', 'uid', 'r' || i),
    'spec', jsonb_build_object('containers', jsonb_build_array(jsonb_build_object('name', 'c',
            'resources', jsonb_build_object('requests', jsonb_build_object('cpu', '8')))))))))
FROM generate_series(1, 3) i;
SELECT count(*) FROM schedule_pending();
SELECT array_agg(id - :last_id ORDER BY id) AS after_the_last FROM scheduler.attempt_history WHERE id > :last_id;
ALTER TABLE scheduler.attempt_history ALTER COLUMN id SET INCREMENT BY 1;

------------------------------------------------------------------------------
-- What a chunk's writing makes goes with the chunk: a call's memory does not
-- grow by a chunk's diagnoses, nor by what is made after each of its
-- statements (the outbox's decisions and facts: an API server is
-- configured, which no worker here reaches), at every chunk.  The peak of
-- the backend's own memory (Linux's /proc: VmHWM less the shared memory it
-- has touched, RssShmem) over a call of 250 such pods (2 chunks) and over
-- one of 4000 (32 chunks), each from a fresh backend: the second peaks
-- less than 20 MB higher (each chunk's 8 MB stayed in the call's context
-- until the call ended: over 100 MB higher; what was made after its
-- statements, in SPI's procedure context: about 50 MB).  Where /proc does
-- not tell, the check is not made and reads the same.
TRUNCATE scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history;
CREATE FUNCTION peak_kb() RETURNS bigint LANGUAGE sql AS $$
    SELECT substring(s FROM 'VmHWM:\s+(\d+) kB')::bigint - substring(s FROM 'RssShmem:\s+(\d+) kB')::bigint
    FROM pg_read_file('/proc/self/status') s
$$;
CREATE FUNCTION big_diagnosis_pods(first int, last int) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_agg(jsonb_build_object('kind', 'Pod',
        'metadata', jsonb_build_object('name', 'r' || i, 'namespace', 'default', 'uid', 'r' || i),
        'spec', jsonb_build_object('tolerations', jsonb_build_array(
                jsonb_build_object('key', 't', 'operator', 'Equal', 'value', 'v' || (1 + i % 300), 'effect', 'NoSchedule')),
            'containers', jsonb_build_array(jsonb_build_object('name', 'c',
                'resources', jsonb_build_object('requests', jsonb_build_object('cpu', '8')))))))))
    FROM generate_series(first, last) i
$$;
SELECT coalesce(pg_read_file('/proc/self/status', 0, 100000, true) ~ 'VmHWM:.*RssShmem:', false) AS have_proc \gset
\set grew_small 0
\set grew_big 0
SELECT big_diagnosis_pods(1, 250);
\connect
SET log_temp_files = -1;
SET scheduler.kube_api_url = 'https://127.0.0.1:6443';
\if :have_proc
SELECT peak_kb() AS before_kb \gset
\endif
SELECT count(*) FROM schedule_pending();
\if :have_proc
SELECT (peak_kb() - :before_kb) / 1024 AS grew_small \gset
\endif
SELECT big_diagnosis_pods(251, 4250);
\connect
SET log_temp_files = -1;
SET scheduler.kube_api_url = 'https://127.0.0.1:6443';
\if :have_proc
SELECT peak_kb() AS before_kb \gset
\endif
SELECT count(*) FROM schedule_pending();
\if :have_proc
SELECT (peak_kb() - :before_kb) / 1024 AS grew_big \gset
\endif
SELECT :grew_big - :grew_small < 20 AS bounded;
DROP FUNCTION peak_kb();
DROP FUNCTION big_diagnosis_pods(int, int);
