-- kube-scheduler's counters and histograms of attempts (issue 15, the
-- metrics for Prometheus), kept as running totals that each
-- schedule_pending() call adds its attempts to (src/metrics.c):
--   scheduler.attempt_totals, per result (kube-scheduler's scheduled,
--     unschedulable, error) and profile (the pod's schedulerName):
--     scheduler_schedule_attempts_total and
--     scheduler_scheduling_attempt_duration_seconds, its buckets
--     ExponentialBuckets(0.001, 2, 15), stored cumulative;
--   scheduler.scheduling_sli_totals, per attempts ("1" .. "14", "15+", this
--     attempt included, kube-scheduler's getAttemptsLabel):
--     scheduler_pod_scheduling_sli_duration_seconds, from the pod's entering
--     the queue to its placement, ExponentialBuckets(0.01, 2, 20).
-- The issue's rule: a counter never goes down when attempt_history is pruned.
-- deploy/postgres_exporter_queries.yaml reads them; t/017 scrapes it.
\set SHOW_CONTEXT never
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history,
    scheduler.attempt_totals, scheduler.scheduling_sli_totals;
-- a moved pod is active at once
SET scheduler.pod_initial_backoff = 0;
SET scheduler.pod_max_backoff = 0;

CREATE FUNCTION pg_temp.node(name text, cpu text) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Node', 'metadata', jsonb_build_object('name', name),
        'status', jsonb_build_object('allocatable', jsonb_build_object('cpu', cpu, 'memory', '8Gi', 'pods', '110'))))
$$;
CREATE FUNCTION pg_temp.pod(name text, cpu text, spec jsonb DEFAULT '{}') RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Pod',
        'metadata', jsonb_build_object('name', name, 'namespace', 'default'),
        'spec', jsonb_build_object('containers', jsonb_build_array(jsonb_build_object('name', 'c',
                'resources', jsonb_build_object('requests', jsonb_build_object('cpu', cpu))))) || spec))
$$;
-- a pod as if it had entered the queue secs ago, after attempts attempts
CREATE FUNCTION pg_temp.queued(pod text, secs float8, attempts int DEFAULT 0) RETURNS void LANGUAGE sql AS $$
    UPDATE scheduler.queue q SET first_enqueued_at = now() - make_interval(secs => secs), attempts = queued.attempts
    FROM scheduler.pods p WHERE p.uid = q.pod_uid AND p.name = pod
$$;

-- What a call adds: the totals and the history's last id, kept by mark();
-- gained() gives, per result and profile, the attempts the totals gained
-- since, and whether that is what the history gained: as many attempts of
-- pods of that schedulerName, their cycle times summed, and each bucket
-- counting those of at most its bound, 0.001 s * 2^i (the history's result
-- of an error is unschedulable: as_error reads the call's failures so).
CREATE TEMP TABLE marked AS SELECT * FROM scheduler.attempt_totals WITH NO DATA;
CREATE TEMP TABLE marked_history (id bigint);
CREATE FUNCTION pg_temp.mark() RETURNS void LANGUAGE sql AS $$
    DELETE FROM marked;
    INSERT INTO marked SELECT * FROM scheduler.attempt_totals;
    DELETE FROM marked_history;
    INSERT INTO marked_history SELECT coalesce(max(id), 0) FROM scheduler.attempt_history;
$$;
CREATE FUNCTION pg_temp.gained(as_error boolean DEFAULT false)
RETURNS TABLE (result text, profile text, attempts bigint, as_history boolean) LANGUAGE sql AS $$
    WITH g AS (
        SELECT t.result, t.profile, t.attempts - coalesce(m.attempts, 0) AS attempts,
               t.duration_sum - coalesce(m.duration_sum, 0) AS sum,
               ARRAY(SELECT x - coalesce(y, 0) FROM unnest(t.duration_buckets, m.duration_buckets)
                     WITH ORDINALITY AS u(x, y, k) ORDER BY k) AS buckets
        FROM scheduler.attempt_totals t LEFT JOIN marked m USING (result, profile)
    ), h AS (
        SELECT CASE WHEN h.result = 'unschedulable' AND as_error THEN 'error' ELSE h.result END AS result,
               p.scheduler_name AS profile, h.cycle_time
        FROM scheduler.attempt_history h JOIN scheduler.pods p ON p.uid = h.pod_uid
        WHERE h.id > (SELECT id FROM marked_history)
    ), hb AS (
        SELECT h.result, h.profile, i,
               count(*) FILTER (WHERE h.cycle_time <= make_interval(secs => 0.001 * 2 ^ i)) AS n
        FROM h, generate_series(0, 14) i GROUP BY 1, 2, 3
    ), hs AS (
        SELECT h.result, h.profile, count(*) AS attempts, sum(extract(epoch FROM h.cycle_time)) AS sum
        FROM h GROUP BY 1, 2
    )
    SELECT g.result, g.profile, g.attempts,
           g.attempts = hs.attempts AND abs(g.sum - hs.sum::float8) < 1e-9
           AND g.buckets = (SELECT array_agg(hb.n ORDER BY hb.i) FROM hb
                            WHERE hb.result = g.result AND hb.profile = g.profile)
    FROM g LEFT JOIN hs USING (result, profile)
    WHERE g.attempts <> 0 ORDER BY 1, 2
$$;

------------------------------------------------------------------------------
-- A call: two pods placed, two that do not fit; a gated pod is never
-- attempted, so never counted.
------------------------------------------------------------------------------
SELECT pg_temp.node('n1', '2');
SELECT pg_temp.pod('a', '500m'), pg_temp.pod('b', '500m'), pg_temp.pod('big', '16'), pg_temp.pod('retry', '3'),
       pg_temp.pod('gated', '1', '{"schedulingGates": [{"name": "wait"}]}');
-- a entered the queue 1.5 s ago, b 12 s ago: their SLI buckets are known
-- (1.5 s is counted from le 2.56 on, 12 s from le 20.48 on), as long as
-- the call takes less than a second
SELECT pg_temp.queued('a', 1.5), pg_temp.queued('b', 12);
SELECT pg_temp.mark();
SELECT name, node, result FROM schedule_pending() ORDER BY name;
SELECT * FROM pg_temp.gained();
SELECT attempts, pods, duration_buckets, duration_sum BETWEEN 13.5 AND 15.5 AS sum_ok
FROM scheduler.scheduling_sli_totals ORDER BY attempts;

------------------------------------------------------------------------------
-- A pod placed at its second attempt is labelled "2"; from the 15th, "15+"
-- (a queue row saying 14 attempts so far: this one is the 15th).  A call
-- adds to the rows there are.
------------------------------------------------------------------------------
SELECT pg_temp.node('n2', '8');
SELECT p.name, q.state, q.attempts FROM scheduler.queue q JOIN scheduler.pods p ON p.uid = q.pod_uid
WHERE p.name = 'retry';
SELECT pg_temp.pod('many', '100m'), pg_temp.pod('c', '100m');
SELECT pg_temp.queued('retry', 100, 1), pg_temp.queued('many', 3.5, 14), pg_temp.queued('c', 1.5);
SELECT pg_temp.mark();
SELECT name, node, result FROM schedule_pending() ORDER BY name;
SELECT * FROM pg_temp.gained();
SELECT attempts, pods, duration_buckets,
       duration_sum BETWEEN (CASE attempts WHEN '1' THEN 15 WHEN '2' THEN 100 ELSE 3.5 END)
                        AND (CASE attempts WHEN '1' THEN 18 WHEN '2' THEN 101 ELSE 4.5 END) AS sum_ok
FROM scheduler.scheduling_sli_totals ORDER BY attempts;

------------------------------------------------------------------------------
-- A plugin's error (Score Error: a strategy with no resources) is result
-- "error", under the profile that ran: the pod's schedulerName.
------------------------------------------------------------------------------
INSERT INTO scheduler.profiles VALUES ('broken', NULL);
INSERT INTO scheduler.profile_plugins (scheduler_name, plugin, position, args) VALUES
    ('broken', 'NodeResourcesFit', 1, '{"scoringStrategy": {"type": "LeastAllocated", "resources": []}}');
SELECT pg_temp.pod('victim', '100m', '{"schedulerName": "broken"}');
SET scheduler.scheduler_name = 'broken';
SELECT pg_temp.mark();
SELECT name, node, result FROM schedule_pending();
SELECT * FROM pg_temp.gained(as_error => true);
RESET scheduler.scheduler_name;

------------------------------------------------------------------------------
-- The history is pruned (history_retention 0: all but each pod's latest
-- attempt): what is counted over it goes down, the totals do not.  A call
-- that attempts no pod writes nothing to them.
------------------------------------------------------------------------------
SELECT result, profile, attempts FROM scheduler.attempt_totals ORDER BY 1, 2;
SELECT (SELECT count(*) FROM scheduler.attempt_history) AS history,
       (SELECT attempts FROM scheduler.metrics_schedule_attempts WHERE result = 'unschedulable') AS unschedulable_in_history;
SET scheduler.history_retention = 0;
SELECT pg_temp.mark();
SELECT count(*) FROM schedule_pending();
RESET scheduler.history_retention;
SELECT (SELECT count(*) FROM scheduler.attempt_history) AS history,
       (SELECT attempts FROM scheduler.metrics_schedule_attempts WHERE result = 'unschedulable') AS unschedulable_in_history;
SELECT count(*) AS totals_changed FROM scheduler.attempt_totals t FULL JOIN marked m USING (result, profile)
WHERE (t.*) IS DISTINCT FROM (m.*);
SELECT result, profile, attempts FROM scheduler.attempt_totals ORDER BY 1, 2;
DELETE FROM scheduler.profiles WHERE scheduler_name = 'broken';

------------------------------------------------------------------------------
-- The age of the last list (scheduler_watch_list_age_seconds): a list
-- applied sets watch_state.listed_at, beside its resourceVersion.
------------------------------------------------------------------------------
BEGIN;
SELECT scheduler.relist('{"kind": "NodeList", "metadata": {"resourceVersion": "42"}, "items": []}');
SELECT resource, resource_version, listed_at = now() AS listed_now, updated_at = now() AS updated_now
FROM scheduler.watch_state WHERE resource = 'nodes';
ROLLBACK;

------------------------------------------------------------------------------
-- With an API server (scheduler.kube_api_url set, the outbox written): a
-- placement counts when its binding is done, as kube-scheduler counts a pod
-- after its binding cycle (bindingCycle: metrics.PodScheduled and
-- PodSchedulingSLIDuration), and a binding that fails counts as an error
-- (handleBindingCycleError: PodScheduleError).  The attempt's time runs
-- from its cycle's start to the binding's end (SinceInSeconds(start)), the
-- SLI's from the pod's entering the queue.  An attempt that places nothing
-- counts when made, as without an API server.
------------------------------------------------------------------------------
SET scheduler.kube_api_url = 'https://127.0.0.1:6443';
SELECT pg_temp.pod('bound-ok', '100m', '{"nodeSelector": {"kubernetes.io/hostname": "x"}}');
-- (placed on n2 only: a label it has)
SELECT scheduler.apply('{"kind": "Node", "metadata": {"name": "n2", "labels": {"kubernetes.io/hostname": "x"}},
    "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}');
SELECT pg_temp.pod('bound-lost', '100m', '{"nodeSelector": {"kubernetes.io/hostname": "x"}}'),
       pg_temp.pod('never', '64');
-- bound-ok entered the queue 3 s ago, and this is its second attempt
SELECT pg_temp.queued('bound-ok', 3, 1);
SELECT pg_temp.mark();
CREATE TEMP TABLE sli_marked AS SELECT * FROM scheduler.scheduling_sli_totals;
SELECT name, node, result FROM schedule_pending() WHERE name IN ('bound-ok', 'bound-lost', 'never') ORDER BY name;
-- the call counts the pod that does not fit, not the placements
SELECT * FROM pg_temp.gained();
SELECT count(*) AS sli_changed FROM scheduler.scheduling_sli_totals t FULL JOIN sli_marked m USING (attempts)
WHERE (t.*) IS DISTINCT FROM (m.*);
-- the bind worker's answers: 201 (bound), 404 (the pod is gone)
SELECT pg_temp.mark();
SELECT name, scheduler.outbox_result(id, CASE name WHEN 'bound-ok' THEN 201 ELSE 404 END)
FROM scheduler.outbox WHERE kind = 'binding' AND state = 'pending' AND name IN ('bound-ok', 'bound-lost') ORDER BY name;
-- what the totals gained: one scheduled, one error, each its binding's
-- time since its cycle began, summed and bucketed
CREATE FUNCTION pg_temp.binding_gains()
RETURNS TABLE (result text, profile text, attempts bigint, sum_ok boolean, buckets_ok boolean) LANGUAGE sql AS $$
    WITH o AS (
        SELECT CASE o.state WHEN 'done' THEN 'scheduled' ELSE 'error' END AS result, o.object AS profile,
               o.finished_at - o.cycle_started_at AS t
        FROM scheduler.outbox o WHERE o.kind = 'binding' AND o.name IN ('bound-ok', 'bound-lost') AND o.state <> 'pending'
    )
    SELECT t.result, t.profile, t.attempts - coalesce(m.attempts, 0),
           abs((t.duration_sum - coalesce(m.duration_sum, 0))
               - (SELECT sum(extract(epoch FROM o.t))::float8 FROM o WHERE o.result = t.result)) < 1e-6,
           ARRAY(SELECT x - coalesce(y, 0) FROM unnest(t.duration_buckets, m.duration_buckets)
                 WITH ORDINALITY AS u(x, y, k) ORDER BY k)
           = ARRAY(SELECT count(o.t) FILTER (WHERE o.t <= make_interval(secs => 0.001 * 2 ^ i))
                   FROM generate_series(0, 14) i LEFT JOIN o ON o.result = t.result GROUP BY i ORDER BY i)
    FROM scheduler.attempt_totals t LEFT JOIN marked m USING (result, profile)
    WHERE t.attempts <> coalesce(m.attempts, 0) ORDER BY 1, 2
$$;
SELECT * FROM pg_temp.binding_gains();
-- the SLI: bound-ok, at its second attempt, 3 s and the call after it
-- entered the queue (from le 5.12 on); the lost binding adds none
SELECT t.attempts, t.pods - coalesce(m.pods, 0) AS pods,
       ARRAY(SELECT x - coalesce(y, 0) FROM unnest(t.duration_buckets, m.duration_buckets)
             WITH ORDINALITY AS u(x, y, k) ORDER BY k) AS buckets,
       t.duration_sum - coalesce(m.duration_sum, 0) BETWEEN 3 AND 4 AS sum_ok
FROM scheduler.scheduling_sli_totals t LEFT JOIN sli_marked m USING (attempts)
WHERE (t.*) IS DISTINCT FROM (m.*);
-- a finished binding written again counts no more
SELECT pg_temp.mark();
UPDATE scheduler.outbox SET last_error = 'again' WHERE kind = 'binding' AND name IN ('bound-ok', 'bound-lost');
SELECT count(*) AS totals_changed FROM scheduler.attempt_totals t FULL JOIN marked m USING (result, profile)
WHERE (t.*) IS DISTINCT FROM (m.*);
-- A failed binding's count takes cycle_lock (SHARE) before it writes the
-- row (error, profile), which schedule_pending() writes at its end holding
-- cycle_lock: the settle of waiting bindings fails a binding, then forgets
-- its pod (a write that waits for cycle_lock), and would otherwise hold
-- that row while waiting for a call that waits for the row.  A binding done
-- takes no lock (with an API server a call counts no placement).
SELECT pg_temp.pod('lock-a', '100m', '{"nodeSelector": {"kubernetes.io/hostname": "x"}}'),
       pg_temp.pod('lock-b', '100m', '{"nodeSelector": {"kubernetes.io/hostname": "x"}}');
SELECT name, node, result FROM schedule_pending() WHERE name LIKE 'lock-%' ORDER BY name;
BEGIN;
UPDATE scheduler.outbox SET state = 'done', finished_at = now() WHERE kind = 'binding' AND state = 'pending' AND name = 'lock-a';
SELECT count(*) AS cycle_lock_held FROM pg_locks
WHERE locktype = 'relation' AND relation = 'scheduler.cycle_lock'::regclass AND pid = pg_backend_pid();
UPDATE scheduler.outbox SET state = 'failed', finished_at = now() WHERE kind = 'binding' AND state = 'pending' AND name = 'lock-b';
SELECT mode, granted FROM pg_locks
WHERE locktype = 'relation' AND relation = 'scheduler.cycle_lock'::regclass AND pid = pg_backend_pid();
ROLLBACK;
RESET scheduler.kube_api_url;
