-- The snapshot cache (snapshot.c) against the tables: after every step of a
-- random churn -- nodes added, removed, resized, cordoned, moved between
-- zones; pods bound, deleted, finished; schedule_pending() committed or
-- rolled back; the odd TRUNCATE -- scheduler.snapshot() must equal the same
-- figures computed from the tables from scratch.  Each step is its own
-- transaction (\gexec), so the cache is refreshed incrementally from
-- scheduler.changes, as in production.
\set SHOW_CONTEXT never
-- retries after an event come at once (the queue's backoff is queue.sql's subject)
SET scheduler.pod_initial_backoff = 0;
SET scheduler.pod_max_backoff = 0;
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts;
SELECT setseed(0.5);

CREATE FUNCTION pg_temp.nz(j jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(jsonb_object_agg(key, value), '{}') FROM jsonb_each(j) WHERE value::numeric <> 0
$$;
-- cached vs. computed: rows that differ, and whether the order is a permutation
CREATE FUNCTION pg_temp.mismatches() RETURNS int LANGUAGE sql AS $$
    SELECT (SELECT count(*) FROM scheduler.snapshot() c
            FULL JOIN scheduler.snapshot_from_tables t USING (node)
            WHERE c.node IS NULL OR t.node IS NULL
               OR c.unschedulable <> t.unschedulable
               OR c.allocatable <> t.allocatable
               OR pg_temp.nz(c.requested) <> pg_temp.nz(t.requested)
               OR c.nonzero_cpu <> t.nonzero_cpu OR c.nonzero_memory <> t.nonzero_memory
               OR c.pods <> t.pods)::int
         + (SELECT count(*) FROM (SELECT "position", row_number() OVER (ORDER BY "position") AS k
                                  FROM scheduler.snapshot()) p WHERE "position" <> k)::int
$$;
CREATE TABLE pg_temp.log (step int, op text, mismatches int);

CREATE FUNCTION pg_temp.node(i int, cpu int) RETURNS void LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Node',
        'metadata', jsonb_build_object('name', 'n' || i, 'uid', 'n' || i || '-' || floor(random() * 3)::int,
            'labels', jsonb_build_object('topology.kubernetes.io/zone', 'z' || floor(random() * 3)::int)),
        'spec', jsonb_build_object('unschedulable', random() < 0.1),
        'status', jsonb_build_object('allocatable', jsonb_build_object(
            'cpu', cpu::text, 'memory', '8Gi', 'pods', '20', 'example.com/gpu', '2'))))
$$;
CREATE FUNCTION pg_temp.pod(i int, node text) RETURNS void LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Pod',
        'metadata', jsonb_build_object('name', 'p' || i, 'namespace', 'churn'),
        'spec', jsonb_build_object('containers', jsonb_build_array(jsonb_build_object('name', 'c',
                'resources', jsonb_build_object('requests',
                    CASE WHEN random() < 0.2 THEN '{}'::jsonb
                         ELSE jsonb_build_object('cpu', (100 * (1 + floor(random() * 10)))::text || 'm', 'memory', '256Mi')
                              || CASE WHEN random() < 0.2 THEN '{"example.com/gpu": "1"}'::jsonb ELSE '{}' END END),
                'ports', CASE WHEN random() < 0.1 THEN '[{"containerPort": 80, "hostPort": 8080}]'::jsonb ELSE '[]' END)))
            || CASE WHEN node IS NULL THEN '{}' ELSE jsonb_build_object('nodeName', node) END,
        'status', jsonb_build_object('phase', 'Running')))
$$;

CREATE FUNCTION pg_temp.step(k int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    r float8 := random();
    op text;
BEGIN
    IF r < 0.15 THEN
        op := 'node added or replaced';
        PERFORM pg_temp.node(floor(random() * 30)::int, 2 + floor(random() * 6)::int);
    ELSIF r < 0.22 THEN
        op := 'node deleted';
        PERFORM scheduler.apply(jsonb_build_object('type', 'DELETED', 'object', object))
        FROM scheduler.nodes ORDER BY random() LIMIT 1;
    ELSIF r < 0.40 THEN
        op := 'bound pod added';
        PERFORM pg_temp.pod(floor(random() * 400)::int, 'n' || floor(random() * 30)::int);
    ELSIF r < 0.55 THEN
        op := 'pending pod added';
        PERFORM pg_temp.pod(floor(random() * 400)::int, NULL);
    ELSIF r < 0.65 THEN
        op := 'pod deleted';
        PERFORM scheduler.apply(jsonb_build_object('type', 'DELETED', 'object', object))
        FROM scheduler.pods ORDER BY random() LIMIT 1;
    ELSIF r < 0.72 THEN
        op := 'pod finished';
        PERFORM scheduler.apply(jsonb_set(object, '{status,phase}', '"Succeeded"'))
        FROM scheduler.pods ORDER BY random() LIMIT 1;
    ELSIF r < 0.88 THEN
        op := 'scheduled';
        PERFORM count(*) FROM schedule_pending(5);
    ELSIF r < 0.97 THEN
        op := 'scheduled, rolled back';
        BEGIN
            PERFORM count(*) FROM schedule_pending(5);
            RAISE EXCEPTION 'roll back';
        EXCEPTION WHEN raise_exception THEN
            NULL;
        END;
    ELSE
        op := 'truncated';
        TRUNCATE scheduler.pods;
    END IF;
    INSERT INTO pg_temp.log VALUES (k, op, pg_temp.mismatches());
END $$;

SELECT pg_temp.node(i, 4) FROM generate_series(0, 19) i;
SELECT count(*) FROM schedule_pending();
SELECT format('SELECT pg_temp.step(%s)', k) FROM generate_series(1, 300) k \gexec
SELECT op, count(*) > 0 AS happened, sum(mismatches) AS mismatches FROM pg_temp.log GROUP BY op ORDER BY op;
-- and the cache saw real work: nodes, bound and assumed pods
SELECT count(*) > 0 AS nodes, sum(pods) > 0 AS pods FROM scheduler.snapshot();
