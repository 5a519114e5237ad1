-- Wake-up latency: from the commit that frees room for an unschedulable pod
-- to its placement by the background worker (QueueingHint at the commit,
-- latch, schedule_pending()).  100 nodes, each full with a filler pod.  Each
-- round: a waiting pod that needs a whole node is parked as unschedulable,
-- and its backoff expires (as for a pod that waited a while); then a filler
-- is deleted and the clock runs until the waiting pod is placed there (where
-- it stays, so the node is full again).  Runs in the worker's database.
\set QUIET on
\pset footer off
CREATE EXTENSION scheduler;
SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_agg(jsonb_build_object(
    'kind', 'Node', 'metadata', jsonb_build_object('name', 'node-' || i),
    'status', '{"allocatable": {"cpu": "4", "memory": "32Gi", "pods": "110"}}'::jsonb))))
FROM generate_series(1, 100) i \gset
-- every node full
SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_agg(jsonb_build_object(
    'kind', 'Pod', 'metadata', jsonb_build_object('name', 'filler-' || i, 'namespace', 'bench'),
    'spec', jsonb_build_object('nodeName', 'node-' || i, 'containers',
        '[{"name": "c", "resources": {"requests": {"cpu": "4"}}}]'::jsonb)))))
FROM generate_series(1, 100) i \gset
CREATE TABLE latency (round int, ms float8);

CREATE PROCEDURE measure(rounds int) LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz;
    deadline timestamptz;
BEGIN
    FOR r IN 1..rounds LOOP
        PERFORM scheduler.apply(jsonb_build_object('kind', 'Pod',
            'metadata', jsonb_build_object('name', 'waiter-' || r, 'namespace', 'bench'),
            'spec', '{"containers": [{"name": "c", "resources": {"requests": {"cpu": "4"}}}]}'::jsonb));
        COMMIT;
        -- the worker tries it, parks it; wait out its backoff
        deadline := clock_timestamp() + interval '30 seconds';
        LOOP
            IF clock_timestamp() > deadline THEN
                RAISE EXCEPTION 'round %: the waiting pod was not parked as unschedulable', r;
            END IF;
            EXIT WHEN EXISTS (SELECT 1 FROM scheduler.queue q JOIN scheduler.pods p ON p.uid = q.pod_uid
                              WHERE p.name = 'waiter-' || r AND q.state = 'unschedulable'
                                AND q.backoff_until < clock_timestamp());
            PERFORM pg_sleep(0.01);
        END LOOP;
        t0 := clock_timestamp();
        deadline := t0 + interval '30 seconds';
        PERFORM scheduler.apply(jsonb_build_object('type', 'DELETED', 'object', object))
        FROM scheduler.pods WHERE name = 'filler-' || r;
        COMMIT;
        LOOP
            IF clock_timestamp() > deadline THEN
                RAISE EXCEPTION 'round %: the waiting pod was not placed', r;
            END IF;
            EXIT WHEN EXISTS (SELECT 1 FROM scheduler.pods WHERE name = 'waiter-' || r AND assumed_node IS NOT NULL);
            PERFORM pg_sleep(0.0005);
        END LOOP;
        INSERT INTO latency VALUES (r, 1000 * extract(epoch FROM clock_timestamp() - t0));
        COMMIT;
    END LOOP;
END $$;
CALL measure(20);
SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 1) AS p50,
       round(percentile_cont(0.9) WITHIN GROUP (ORDER BY ms)::numeric, 1) AS p90,
       round(max(ms)::numeric, 1) AS max FROM latency \gset
\echo 'wakeup: room freed -> pod placed by the worker, 20 rounds: p50' :p50 'ms, p90' :p90 'ms, max' :max 'ms'
