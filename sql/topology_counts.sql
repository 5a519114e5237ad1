-- topology.c's counts by domain (the arrays InterPodAffinity reads a node's
-- pair count from, and PodTopologySpread's per-domain sums) kept current
-- across calls in one session: more pods coming and going between two uses
-- than the changes an array holds (64), after which it is made afresh from
-- the table; pods deleted; a node relabelled (a new column).  Each verdict
-- is the one kube-scheduler gives on the pods as they are.
\set SHOW_CONTEXT never
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history, scheduler.namespaces;
SET scheduler.pod_initial_backoff = 0;
SET scheduler.pod_max_backoff = 0;
-- (a seed under which ties fall as the outputs below show; a change to how
-- ties are drawn may need another)
SET scheduler.random_seed = 5;

CREATE FUNCTION pg_temp.node(name text, zone text) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Node',
        'metadata', jsonb_build_object('name', name, 'labels',
            jsonb_build_object('kubernetes.io/hostname', name, 'topology.kubernetes.io/zone', zone)),
        'status', jsonb_build_object('allocatable', jsonb_build_object('cpu', '100', 'memory', '100Gi', 'pods', '500'))))
$$;
-- a pod with labels and spec extra; on node when given
CREATE FUNCTION pg_temp.pod(name text, labels jsonb, extra jsonb DEFAULT '{}', node text DEFAULT NULL) RETURNS jsonb
LANGUAGE sql AS $$
    SELECT jsonb_build_object('kind', 'Pod',
        'metadata', jsonb_build_object('name', name, 'namespace', 'default', 'uid', name, 'labels', labels),
        'spec', jsonb_strip_nulls(jsonb_build_object('nodeName', node,
            'containers', jsonb_build_array(jsonb_build_object('name', 'c',
                'resources', jsonb_build_object('requests', jsonb_build_object('cpu', '10m')))))) || extra)
$$;
-- n placed pods labelled app=x, named prefix-i, round nodes m1..mk
CREATE FUNCTION pg_temp.placed_pods(prefix text, n int, k int) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items',
        jsonb_agg(pg_temp.pod(prefix || i, '{"app": "x"}', '{}', 'm' || (1 + i % k)))))
    FROM generate_series(1, n) i
$$;
SELECT count(*) FROM (SELECT pg_temp.node('m' || i, CASE WHEN i <= 5 THEN 'a' ELSE 'b' END)
                      FROM generate_series(0, 9) i) s;

------------------------------------------------------------------------------
-- Required anti-affinity on hostname to app=x.  a goes first (its counts
-- are made); then 100 pods of app=x land on m1..m8 between two calls (more
-- changes than the arrays hold), and b and c find only m0 and m9 free (a
-- is on m3); after m5's pods are deleted, d takes m5 and e fits nowhere.  When b is deleted and its node relabelled (new
-- columns), e, waiting, takes b's node, and f fits nowhere.
------------------------------------------------------------------------------
CREATE FUNCTION pg_temp.anti(name text) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(pg_temp.pod(name, '{"app": "x"}', '{"affinity": {"podAntiAffinity":
        {"requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {"matchLabels": {"app": "x"}},
         "topologyKey": "kubernetes.io/hostname"}]}}}'))
$$;
SELECT pg_temp.anti('a');
SELECT name, result, node FROM schedule_pending() ORDER BY name;
SELECT pg_temp.placed_pods('p-', 100, 8);
SELECT pg_temp.anti('b'), pg_temp.anti('c');
SELECT name, result, node FROM schedule_pending() ORDER BY name;
SELECT count(*) FROM (SELECT scheduler.apply(jsonb_build_object('type', 'DELETED', 'object', object))
                      FROM scheduler.pods WHERE node_name = 'm5' AND name LIKE 'p-%') s;
SELECT pg_temp.anti('d'), pg_temp.anti('e');
SELECT name, result, node FROM schedule_pending() ORDER BY name;
SELECT scheduler.apply(jsonb_build_object('type', 'DELETED', 'object', object)) FROM scheduler.pods WHERE name = 'b';
SELECT pg_temp.node('m9', 'c');
SELECT pg_temp.anti('f');
SELECT name, result, node FROM schedule_pending() ORDER BY name;

------------------------------------------------------------------------------
-- DoNotSchedule spread over zones (a: m0..m5, b: m6..m8, c: m9 now), maxSkew
-- 1, on pods labelled app=s.  g-0 goes first (its sums are made); then 70
-- pods of app=s land in zone a between two calls, more changes than the
-- sums hold: g-1 and g-2 may only go to b and c (a's 71 against 0).  Then
-- the 70 and g-0 go: a has none, b and c one each, so g-3 may only go to a.
------------------------------------------------------------------------------
CREATE FUNCTION pg_temp.spread(name text) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(pg_temp.pod(name, '{"app": "s"}', '{"topologySpreadConstraints": [{"maxSkew": 1,
        "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": {"app": "s"}}}]}'))
$$;
CREATE VIEW pg_temp.zones AS
    SELECT n.labels->>'topology.kubernetes.io/zone' AS zone, count(*) AS app_s
    FROM scheduler.pods p JOIN scheduler.nodes n ON n.name = coalesce(p.node_name, p.assumed_node)
    WHERE p.labels->>'app' = 's' GROUP BY 1 ORDER BY 1;
SELECT pg_temp.spread('g-0');
SELECT name, result FROM schedule_pending() ORDER BY name;
SELECT * FROM pg_temp.zones;
SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items',
    jsonb_agg(pg_temp.pod('s-' || i, '{"app": "s"}', '{}', 'm' || (i % 5)))))
FROM generate_series(1, 70) i;
SELECT pg_temp.spread('g-1'), pg_temp.spread('g-2');
SELECT name, result FROM schedule_pending() ORDER BY name;
SELECT * FROM pg_temp.zones;
SELECT count(*) FROM (SELECT scheduler.apply(jsonb_build_object('type', 'DELETED', 'object', object))
                      FROM scheduler.pods WHERE name LIKE 's-%' OR name = 'g-0') s;
SELECT pg_temp.spread('g-3');
SELECT name, result FROM schedule_pending() ORDER BY name;
SELECT * FROM pg_temp.zones;

-- A pod with more preferred terms than the sets kept (64): each term's set
-- of counts is asked for in PreScore and read in Score, so the sets the
-- cycle asked for stay through it (TopologyCycleBegin).  Forgetting the
-- oldest ones under it made Score read freed memory.  90 anti-affinity
-- terms, each matching the app=x pods (m1 holds 8 of them, m2..m9 9, m0
-- none): kube-scheduler's raw score is -(weight 100) per term per matching
-- pod on the node.
TRUNCATE scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history;
SELECT pg_temp.placed_pods('x-', 80, 9);
SELECT scheduler.apply(pg_temp.pod('many-terms', '{"app": "z"}', jsonb_build_object('affinity',
    jsonb_build_object('podAntiAffinity', jsonb_build_object('preferredDuringSchedulingIgnoredDuringExecution',
        (SELECT jsonb_agg(jsonb_build_object('weight', 100, 'podAffinityTerm', jsonb_build_object(
            'labelSelector', jsonb_build_object('matchExpressions', jsonb_build_array(jsonb_build_object(
                'key', 'app', 'operator', 'In', 'values', jsonb_build_array('x', 'y' || t)))),
            'topologyKey', 'kubernetes.io/hostname'))) FROM generate_series(1, 90) t))))));
SELECT node, raw FROM scheduler.score('default', 'many-terms', false)
WHERE plugin = 'InterPodAffinity' ORDER BY node;
