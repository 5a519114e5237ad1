-- PreemptionBasic, shaped like kube-scheduler's scheduler_perf workload at
-- 5000 nodes (4 cpu, 32Gi, 110 pods): 20000 low-priority pods of 900m
-- fill every node to 3.6 cpu, then 5000 high-priority pods of 3 cpu each
-- preempt three of a node's four.  Timed: schedule_pending() until every
-- high-priority pod is bound (the first calls preempt and nominate; with no
-- API server the victims' rows are deleted in the same transaction, which
-- requeues the preemptors; the next call binds them).  That needs no API
-- server: with one configured (scheduler.kube_api_url, or in-cluster), the
-- victims' deletions go to the outbox, which no worker sends from this
-- database, so no preemptor is ever bound.  The bench refuses a set
-- kube_api_url, and an ERROR fails it unless every high-priority pod is bound
-- and no node is over-committed.
\set QUIET on
\pset footer off
CREATE EXTENSION scheduler;
-- ERROR (failing the bench) unless ok
CREATE FUNCTION public.bench_check(ok boolean, what text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF ok IS NOT TRUE THEN
        RAISE EXCEPTION 'preemption bench: %', what;
    END IF;
END $$;
SELECT public.bench_check(current_setting('scheduler.kube_api_url') = '',
    'scheduler.kube_api_url is set (' || current_setting('scheduler.kube_api_url') ||
    '): the victims would wait in the outbox for an API server; reset it') \gset
SET scheduler.pod_initial_backoff = 0;
SET scheduler.pod_max_backoff = 0;

SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_agg(jsonb_build_object(
    'kind', 'Node',
    'metadata', jsonb_build_object('name', 'node-' || i, 'uid', 'node-' || i,
        'labels', jsonb_build_object('kubernetes.io/hostname', 'node-' || i)),
    'status', '{"allocatable": {"cpu": "4", "memory": "32Gi", "pods": "110"}}'::jsonb))))
FROM generate_series(0, 4999) i \gset loaded_

CREATE FUNCTION public.bench_pods(prefix text, n int, placed boolean, priority int, cpu text) RETURNS int
LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_agg(jsonb_build_object(
        'kind', 'Pod',
        'metadata', jsonb_build_object('name', prefix || i, 'namespace', 'sched-0', 'uid', prefix || i,
            'creationTimestamp', to_char(timestamptz '2024-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')),
        'spec', jsonb_build_object('priority', priority, 'containers', jsonb_build_array(jsonb_build_object('name', 'pause',
                    'image', 'registry.k8s.io/pause:3.10',
                    'resources', jsonb_build_object('requests', jsonb_build_object('cpu', cpu, 'memory', '500Mi')))))
                || CASE WHEN placed THEN jsonb_build_object('nodeName', 'node-' || (i % 5000)) ELSE '{}' END,
        'status', jsonb_build_object('phase', CASE WHEN placed THEN 'Running' ELSE 'Pending' END)))))
    FROM generate_series(1, n) i
$$;
SELECT public.bench_pods('low-', 20000, true, 0, '900m') \gset
SELECT public.bench_pods('high-', 5000, false, 10, '3') \gset
VACUUM ANALYZE scheduler.pods;
\connect
SET scheduler.random_seed = 1;
SET scheduler.pod_initial_backoff = 0;
SET scheduler.pod_max_backoff = 0;
SELECT clock_timestamp() AS t0 \gset
SELECT count(*) FILTER (WHERE result = 'scheduled') AS first_bound, count(*) AS first_tried FROM schedule_pending() \gset
SELECT count(*) FILTER (WHERE result = 'scheduled') AS second_bound FROM schedule_pending() \gset
SELECT round(5000 / extract(epoch FROM clock_timestamp() - :'t0'::timestamptz)) AS rate \gset
SELECT count(*) AS bound FROM scheduler.pods WHERE name LIKE 'high-%' AND assumed_node IS NOT NULL \gset
SELECT count(*) AS low_left FROM scheduler.pods WHERE name LIKE 'low-%' \gset
SELECT count(*) AS overcommitted FROM scheduler.node_usage WHERE requested > allocatable \gset
\echo 'preemption: ' :bound 'of 5000 high-priority pods bound (' :first_tried 'tried, then' :second_bound 'bound);' :low_left 'low-priority pods left; over-committed:' :overcommitted
SELECT count(*) AS victims_unsent FROM scheduler.outbox WHERE kind = 'delete' AND state = 'pending' \gset
SELECT public.bench_check(:bound = 5000 AND :overcommitted = 0,
    :bound || ' of 5000 high-priority pods bound, ' || :overcommitted || ' nodes over-committed, ' ||
    :victims_unsent || ' victims'' deletions waiting in the outbox (an API server configured?)') \gset
\echo 'preemption_5000: ' :rate 'pods/s'
