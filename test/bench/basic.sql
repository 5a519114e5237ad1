-- SchedulingBasic, shaped like kube-scheduler's scheduler_perf workload:
-- 5000 nodes (4 cpu, 32Gi, 110 pods), 1000 pods already placed, then 10000
-- pending pods (100m, 500Mi) scheduled.  Prints pods/s for schedule_pending()
-- and for a plain-SQL scheduler doing the same filter and score, written the
-- way a user would write it: one query per pod.
\set QUIET on
\pset footer off
\ir basic_load.sql

-- The plain-SQL scheduler: for each pending pod, one query finds the node
-- where it fits (NodeUnschedulable, NodeResourcesFit) with the best
-- LeastAllocated score, then the pod is placed there.
CREATE FUNCTION pg_temp.plain_schedule(max_pods int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    p record;
    chosen text;
    k int := 0;
BEGIN
    FOR p IN SELECT uid, (requests->>'cpu')::bigint AS cpu, (requests->>'memory')::bigint AS memory,
                    coalesce(pending_nonzero_cpu, nonzero_cpu) AS nonzero_cpu,
                    coalesce(pending_nonzero_memory, nonzero_memory) AS nonzero_memory
             FROM scheduler.pods
             WHERE node_name IS NULL AND assumed_node IS NULL
             ORDER BY priority DESC, created_at LIMIT max_pods
    LOOP
        SELECT n.name INTO chosen
        FROM scheduler.nodes n,
             LATERAL (SELECT coalesce(sum((q.requests->>'cpu')::bigint), 0) AS cpu,
                             coalesce(sum((q.requests->>'memory')::bigint), 0) AS memory,
                             coalesce(sum(q.nonzero_cpu), 0) AS nz_cpu,
                             coalesce(sum(q.nonzero_memory), 0) AS nz_memory,
                             count(*) AS pods
                      FROM scheduler.pods q
                      WHERE coalesce(q.node_name, q.assumed_node) = n.name) u
        WHERE NOT n.unschedulable
          AND u.pods + 1 <= (n.allocatable->>'pods')::bigint
          AND p.cpu <= (n.allocatable->>'cpu')::bigint - u.cpu
          AND p.memory <= (n.allocatable->>'memory')::bigint - u.memory
        ORDER BY ((greatest((n.allocatable->>'cpu')::bigint - u.nz_cpu - p.nonzero_cpu, 0) * 100 / (n.allocatable->>'cpu')::bigint)
                + (greatest((n.allocatable->>'memory')::bigint - u.nz_memory - p.nonzero_memory, 0) * 100 / (n.allocatable->>'memory')::bigint)) / 2 DESC
        LIMIT 1;
        UPDATE scheduler.pods SET assumed_node = chosen WHERE uid = p.uid;
        k := k + 1;
    END LOOP;
    RETURN k;
END $$;

-- Its user indexes what its query reads, the pods on a node, bound or
-- assumed: the extension indexes only the bound ones (so that its own
-- assume is a HOT update).  Made when missing (a build before 476d476 has
-- it), dropped after; without it each pod's query scans every pod for
-- every node.
SELECT NOT EXISTS (SELECT FROM pg_catalog.pg_indexes WHERE schemaname = 'scheduler' AND tablename = 'pods'
                   AND indexdef LIKE '%(COALESCE(node_name, assumed_node))%') AS plain_index \gset
\if :plain_index
CREATE INDEX plain_pods_on_node ON scheduler.pods ((coalesce(node_name, assumed_node)));
-- (the expression's statistics, as autovacuum would gather them)
ANALYZE scheduler.pods;
\endif

-- plain SQL on the first 200 pending pods, then undone
SELECT clock_timestamp() AS t0 \gset
SELECT pg_temp.plain_schedule(200) AS plain_pods \gset
SELECT extract(epoch FROM clock_timestamp() - :'t0'::timestamptz) AS plain_secs \gset
UPDATE scheduler.pods SET assumed_node = NULL WHERE assumed_node IS NOT NULL;
\if :plain_index
DROP INDEX scheduler.plain_pods_on_node;
\endif

-- schedule_pending() on all 10000 (a fresh backend: the snapshot is built
-- inside the timed call)
\connect
SET scheduler.random_seed = 1;
SELECT clock_timestamp() AS t0 \gset
SELECT count(*) FILTER (WHERE result = 'scheduled') AS ours_scheduled, count(*) AS ours_pods
FROM schedule_pending() \gset
SELECT extract(epoch FROM clock_timestamp() - :'t0'::timestamptz) AS ours_secs \gset

-- nothing over-committed
SELECT count(*) AS overcommitted FROM scheduler.node_usage WHERE requested > allocatable \gset

SELECT round(:ours_pods / :ours_secs) AS ours_rate, round(:plain_pods / :plain_secs, 1) AS plain_rate \gset
\echo 'schedule_pending(): ' :ours_scheduled 'of' :ours_pods 'pods scheduled in' :ours_secs 's'
\echo 'plain SQL, one query per pod: ' :plain_pods 'pods in' :plain_secs 's (' :plain_rate 'pods/s)'
\echo 'over-committed resources:' :overcommitted
SELECT 'basic_5000: ' || :ours_rate || ' pods/s, ' || round(:ours_rate / :plain_rate) || 'x plain SQL' AS line \gset
\echo :line
