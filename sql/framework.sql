-- The framework: profiles and weights, each filter's reason strings through a
-- whole cycle, percentageOfNodesToScore sampling and where the search starts,
-- and the seeded tie-break.  Each block names the kube-scheduler behaviour.
\set SHOW_CONTEXT never
-- retries after an event come at once (the queue's backoff is queue.sql's subject)
SET scheduler.pod_initial_backoff = 0;
SET scheduler.pod_max_backoff = 0;
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts;

CREATE FUNCTION pg_temp.node(name text, cpu text, memory text, labels jsonb DEFAULT '{}',
                             spec jsonb DEFAULT '{}', images jsonb DEFAULT '[]')
RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Node',
        'metadata', jsonb_build_object('name', name, 'labels', labels),
        'spec', spec,
        'status', jsonb_build_object('allocatable',
            jsonb_build_object('cpu', cpu, 'memory', memory, 'pods', '110'), 'images', images)))
$$;
CREATE FUNCTION pg_temp.pod(name text, cpu text, memory text, created int, spec jsonb DEFAULT '{}')
RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Pod',
        'metadata', jsonb_build_object('name', name, 'namespace', 'default',
            'creationTimestamp', to_char(timestamptz '2024-01-01 00:00:00+00' + created * interval '1 second',
                                         'YYYY-MM-DD"T"HH24:MI:SS"Z"')),
        'spec', jsonb_build_object('containers', jsonb_build_array(jsonb_build_object('name', 'c',
                'resources', jsonb_build_object('requests',
                    jsonb_strip_nulls(jsonb_build_object('cpu', cpu, 'memory', memory)))))) || spec))
$$;
CREATE FUNCTION pg_temp.reset() RETURNS void LANGUAGE sql AS $$
    TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts
$$;

------------------------------------------------------------------------------
-- The default profile: kube-scheduler's default plugins, order and weights.
------------------------------------------------------------------------------
SELECT plugin, position, weight FROM scheduler.profile_plugins
WHERE scheduler_name = 'default-scheduler' ORDER BY position;

------------------------------------------------------------------------------
-- Score with weights (framework RunScorePlugins: normalized score x weight).
-- x (1 cpu, 10Gi) runs 5 best-effort pods; y (2 cpu, 10Gi) one 1-cpu/1Gi pod.
-- For a 100m/100Mi pod:
--   NodeResourcesFit (LeastAllocated, non-zero defaults): x 64, y 67
--   BalancedAllocation (requests as they are): x cpu 0.1, mem 0.0098 ->
--     int((1 - 0.0451) * 100) = 95; y cpu 0.55, mem 0.1098 -> 77
--   TaintToleration: no taints, 100 each, weight 3; NodeAffinity: no
--   preferred terms, 0 on each node (its PreScore succeeds, as in the
--   release of the conformance cases: TestNodeAffinityPriority's "all nodes
--   are same priority as NodeAffinity is nil"; later releases skip it,
--   and the totals are the same; an empty list of terms, not nil, is
--   scored in full, 0 on each node too: small-empty-pref);
--   ImageLocality: the pod names no image, 0.
-- Totals x 459, y 444: x.
------------------------------------------------------------------------------
SELECT pg_temp.node('x', '1', '10Gi');
SELECT pg_temp.node('y', '2', '10Gi');
SELECT pg_temp.pod('besteffort-' || i, NULL, NULL, i, '{"nodeName": "x"}') FROM generate_series(1, 5) i;
SELECT pg_temp.pod('one-cpu', '1', '1Gi', 6, '{"nodeName": "y"}');
SELECT pg_temp.pod('small', '100m', '100Mi', 7);
SELECT node, plugin, raw, normalized, weighted FROM scheduler.score('default', 'small') ORDER BY 1, 2;
SELECT node, sum(weighted) AS total FROM scheduler.score('default', 'small') GROUP BY 1 ORDER BY 1;
SELECT pg_temp.pod('small-empty-pref', '100m', '100Mi', 8,
    '{"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": []}}}');
SELECT node, plugin, raw, normalized, weighted FROM scheduler.score('default', 'small-empty-pref')
WHERE plugin = 'NodeAffinity' ORDER BY 1;
DELETE FROM scheduler.pods WHERE name = 'small-empty-pref';
-- A profile change takes effect on the next cycle: weight BalancedAllocation 1
-- -> NodeResourcesFit 10 makes y win (10*67 + 77 + 300 = 1047 > 10*64 + 95 + 300 = 1035).
UPDATE scheduler.profile_plugins SET weight = 10
WHERE scheduler_name = 'default-scheduler' AND plugin = 'NodeResourcesFit';
SELECT node, sum(weighted) AS total FROM scheduler.score('default', 'small') GROUP BY 1 ORDER BY 1;
SELECT name, node FROM schedule_pending();
-- The weights hold for a score kept for the pod's class too (the second of
-- two alike pods, on the node the first left unchanged).  twin-1 (100m,
-- 100Mi): x 10*64 + 95 + 300 = 1035, y (small on it: cpu 1200m of 2, 1224Mi)
-- 10*64 + 75 + 300 = 1015: x.  twin-2: x now 10*59 + 90 + 300 = 980, y as
-- it was (kept), 1015: y.  (Weight 1 for what was kept would make y 439.)
SELECT pg_temp.pod('twin-' || i, '100m', '100Mi', 8 + i) FROM generate_series(1, 2) i;
SELECT name, node FROM schedule_pending();
DELETE FROM scheduler.pods WHERE name LIKE 'twin-%';
UPDATE scheduler.profile_plugins SET weight = NULL
WHERE scheduler_name = 'default-scheduler' AND plugin = 'NodeResourcesFit';

-- A profile of its own: pods with that schedulerName run only its plugins.
INSERT INTO scheduler.profiles VALUES ('most-allocated', NULL);
INSERT INTO scheduler.profile_plugins (scheduler_name, plugin, position, args) VALUES
    ('most-allocated', 'NodeResourcesFit', 1,
     '{"scoringStrategy": {"type": "MostAllocated", "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}}');
-- MostAllocated, non-zero defaults: x cpu (500+200)/1000 = 70, memory
-- (1000+100)/10240 Mi = 10, so 40; y (small is on it now) cpu
-- (1000+100+200)/2000 = 65, memory (1024+100+100)/10240 = 11, so 38: the
-- fuller x.
SELECT pg_temp.pod('packer', '200m', '100Mi', 8, '{"schedulerName": "most-allocated"}');
SELECT node, plugin, raw, normalized, weighted FROM scheduler.score('default', 'packer') ORDER BY 1;
SET scheduler.scheduler_name = 'most-allocated';
SELECT name, node FROM schedule_pending();
RESET scheduler.scheduler_name;
-- bad profiles are refused when written, naming the field
\set VERBOSITY terse
INSERT INTO scheduler.profile_plugins (scheduler_name, plugin, position) VALUES ('most-allocated', 'NoSuchPlugin', 2);
INSERT INTO scheduler.profile_plugins (scheduler_name, plugin, position, args) VALUES
    ('most-allocated', 'NodeResourcesBalancedAllocation', 2, '{"resources": [{"name": "cpu", "weight": 2}]}');
UPDATE scheduler.profile_plugins SET args = '{"scoringStrategy": {"type": "Cheapest"}}'
WHERE scheduler_name = 'most-allocated';
INSERT INTO scheduler.profile_plugins (scheduler_name, plugin, position, args) VALUES
    ('most-allocated', 'NodeName', 3, '{"x": 1}');
\set VERBOSITY default
DELETE FROM scheduler.profiles WHERE scheduler_name = 'most-allocated';
-- A plugin that fails (Score Error: a strategy with no resources, "resources
-- not found") fails that pod's cycle only, as in kube-scheduler: the call
-- goes on and reports the error as the pod's message.
INSERT INTO scheduler.profiles VALUES ('broken', NULL);
INSERT INTO scheduler.profile_plugins (scheduler_name, plugin, position, args) VALUES
    ('broken', 'NodeResourcesFit', 1, '{"scoringStrategy": {"type": "LeastAllocated", "resources": []}}');
SELECT pg_temp.pod('victim-' || i, '100m', '100Mi', 9 + i, '{"schedulerName": "broken"}') FROM generate_series(1, 2) i;
SET scheduler.scheduler_name = 'broken';
SELECT name, node, result, message FROM schedule_pending();
-- PreScore runs for every plugin before any plugin's Score (kube-scheduler's
-- RunPreScorePlugins, then RunScorePlugins): a later plugin's PreScore
-- error is the one told, not the earlier plugin's Score error.  victim-3's
-- preferred term was planted past apply() (a weight over 32 bits).
INSERT INTO scheduler.profile_plugins (scheduler_name, plugin, position) VALUES ('broken', 'NodeAffinity', 2);
SELECT pg_temp.pod('victim-3', '100m', '100Mi', 12, '{"schedulerName": "broken"}');
UPDATE scheduler.pods SET affinity = '{"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    {"weight": 1e19, "preference": {"matchExpressions": [{"key": "zone", "operator": "Exists"}]}}]}}'
WHERE name = 'victim-3';
SELECT name, node, result, message FROM schedule_pending() WHERE name = 'victim-3';
RESET scheduler.scheduler_name;
SELECT * FROM scheduler.score('default', 'victim-1');
DELETE FROM scheduler.profiles WHERE scheduler_name = 'broken';

------------------------------------------------------------------------------
-- Every filter's reason string, through a whole cycle (FitError message and
-- why()).  One node per plugin, each failing only that plugin.
------------------------------------------------------------------------------
SELECT pg_temp.reset();
SELECT pg_temp.node('a-cordoned', '8', '8Gi', '{"disk": "ssd"}', '{"unschedulable": true}');
SELECT pg_temp.node('b-tainted', '8', '8Gi', '{"disk": "ssd"}',
    '{"taints": [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]}');
SELECT pg_temp.node('c-hdd', '8', '8Gi', '{"disk": "hdd"}');
SELECT pg_temp.node('d-port-taken', '8', '8Gi', '{"disk": "ssd"}');
SELECT pg_temp.node('e-small', '1', '1Gi', '{"disk": "ssd"}');
SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "holder", "namespace": "default"},
  "spec": {"nodeName": "d-port-taken", "containers": [{"name": "c", "ports": [{"containerPort": 80, "hostPort": 8080}]}]}}');
SELECT pg_temp.pod('picky', '2', '2Gi', 1,
    '{"nodeSelector": {"disk": "ssd"},
      "containers": [{"name": "c", "resources": {"requests": {"cpu": "2", "memory": "2Gi"}},
                      "ports": [{"containerPort": 80, "hostPort": 8080}]}]}');
SELECT name, result, message FROM schedule_pending();
SELECT * FROM scheduler.why('default', 'picky');
-- scheduler.filter(): every plugin on every node, not only the first rejection
SELECT * FROM scheduler.filter('default', 'picky') WHERE code <> 'Success' ORDER BY node NULLS FIRST, plugin;
-- NodeName: a pod bound elsewhere fails it everywhere but its node
SELECT pg_temp.pod('named', '100m', '100Mi', 2, '{"nodeName": "c-hdd"}');
SELECT node, code, reason FROM scheduler.filter('default', 'named') WHERE plugin = 'NodeName' ORDER BY 1;
-- A PreFilter that restricts nodes (NodeAffinity matchFields metadata.name):
-- the nodes left out report "node(s) didn't satisfy plugin(s) [NodeAffinity]".
SELECT pg_temp.pod('pinned', '2', '2Gi', 3,
    '{"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms":
        [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["e-small"]}]}]}}}}');
SELECT name, result, message FROM schedule_pending() WHERE name = 'pinned';
SELECT * FROM scheduler.why('default', 'pinned');
-- and one that rejects the pod outright: every node gets its status
SELECT pg_temp.pod('conflicted', '100m', '100Mi', 4,
    '{"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms":
        [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["x"]},
                          {"key": "metadata.name", "operator": "In", "values": ["y"]}]}]}}}}');
SELECT name, result, message FROM schedule_pending() WHERE name = 'conflicted';
SELECT count(*), min(plugin), min(reason) FROM scheduler.why('default', 'conflicted');
-- scheduler.filter() after that rejection: NodeAffinity's PreFilter row, and
-- still every plugin's Filter on every node, NodeAffinity's too, as
-- kube-scheduler's plugin tests call Filter whatever PreFilter returned
-- (TestNodeAffinity "Pod with two conflicting mach field requirements").  The
-- PreFilters after NodeAffinity, which the cycle did not reach, have no row.
SELECT * FROM scheduler.filter('default', 'conflicted') WHERE node IS NULL OR code <> 'Success'
ORDER BY node NULLS FIRST, plugin;
SELECT plugin, count(*) AS nodes FROM scheduler.filter('default', 'conflicted') WHERE node IS NOT NULL
GROUP BY 1 ORDER BY 1;
-- the same PreFilter without a rejection shows every PreFilter
SELECT plugin, code, reason FROM scheduler.filter('default', 'pinned') WHERE node IS NULL ORDER BY 1;

------------------------------------------------------------------------------
-- percentageOfNodesToScore (numFeasibleNodesToFind) and where the search
-- starts.  Below 100 nodes every node is searched.  At 200 nodes and 10%
-- the search stops at max(100, 20) = 100 feasible nodes, and the next cycle
-- starts where it stopped.  Adaptive (0): max(5, 50 - N/125) percent.
------------------------------------------------------------------------------
SELECT pg_temp.reset();
SELECT count(pg_temp.node('n' || lpad(i::text, 3, '0'), '4', '4Gi')) FROM generate_series(1, 200) i;
UPDATE scheduler.cycle_lock SET next_start_node_index = 0;
SET scheduler.percentage_of_nodes_to_score = 10;
SELECT pg_temp.pod('p1', '100m', '100Mi', 1);
-- every node scores the same, so p1 goes to one of the first 100 searched
SELECT name, node <= 'n100' AS among_first_100 FROM schedule_pending();
SELECT next_start_node_index FROM scheduler.cycle_lock;
SELECT pg_temp.pod('p2', '100m', '100Mi', 2);
-- the next search starts at node 101 and takes 101..200: p2 lands there
SELECT name, node > 'n100' AS among_next_100 FROM schedule_pending();
SELECT next_start_node_index FROM scheduler.cycle_lock;
-- a rejected node counts as searched too: with n001..n150 too small for p3
-- the search from 0 passes 150 rejected nodes, then finds 50 feasible of the
-- 100 it wants and wraps round to 0 again
SELECT count(scheduler.apply(jsonb_set(object, '{status,allocatable,cpu}', '"10m"')))
FROM scheduler.nodes WHERE name <= 'n150';
UPDATE scheduler.cycle_lock SET next_start_node_index = 0;
SELECT pg_temp.pod('p3', '100m', '100Mi', 3);
SELECT name, node > 'n150' AS on_a_big_node FROM schedule_pending();
SELECT next_start_node_index FROM scheduler.cycle_lock;
-- from 180 the search wraps past the last node: n181..n200, then n001..n180
-- (50 feasible of the 100 wanted); having examined the 200, the next starts
-- at 180 again
UPDATE scheduler.cycle_lock SET next_start_node_index = 180;
SELECT pg_temp.pod('p4', '100m', '100Mi', 4);
SELECT name, node > 'n150' AS on_a_big_node FROM schedule_pending();
SELECT next_start_node_index FROM scheduler.cycle_lock;
RESET scheduler.percentage_of_nodes_to_score;
-- the adaptive numbers, kube-scheduler's: all below 100 nodes, floor 100
SELECT n, scheduler.num_feasible_nodes_to_find(0, n) AS adaptive, scheduler.num_feasible_nodes_to_find(50, n) AS fifty
FROM (VALUES (50), (100), (150), (1000), (5000), (6000), (10000)) t(n);

------------------------------------------------------------------------------
-- Equal top scores are broken at random (selectHost), each tied node equally
-- likely; scheduler.random_seed makes the choice repeatable.
------------------------------------------------------------------------------
SELECT pg_temp.reset();
SELECT pg_temp.node('t' || i, '100', '100Gi') FROM generate_series(1, 4) i;
CREATE TEMP TABLE picks (round int, pod int, node text);
SET scheduler.random_seed = 42;
DO $$
BEGIN
    FOR r IN 1..2 LOOP
        PERFORM pg_temp.reset();
        PERFORM pg_temp.node('t' || i, '100', '100Gi') FROM generate_series(1, 4) i;
        PERFORM pg_temp.pod('tie-' || i, NULL, NULL, i) FROM generate_series(1, 40) i;
        PERFORM set_config('scheduler.random_seed', '42', false);
        INSERT INTO picks SELECT r, substr(name, 5)::int, node FROM schedule_pending();
    END LOOP;
END $$;
-- the same seed, the same choices
SELECT count(*) AS pods, count(*) FILTER (WHERE a.node = b.node) AS same
FROM picks a JOIN picks b ON a.pod = b.pod AND a.round = 1 AND b.round = 2;
-- best-effort pods leave the score equal everywhere: every node gets some
SELECT count(DISTINCT node) AS nodes_used FROM picks WHERE round = 1;
-- Each tied node as likely (selectHost replaces its candidate by the n-th
-- tie with probability 1/n).  A profile with no score plugin ties every
-- node for every pod: 400 pods over 4 nodes, each node's share binomial
-- (mean 100, sd 8.7), within 100 +/- 30 for this seed; a tie never drawn
-- (the first or the last) or drawn twice as often is far outside.
SELECT pg_temp.reset();
INSERT INTO scheduler.profiles VALUES ('ties', NULL);
INSERT INTO scheduler.profile_plugins (scheduler_name, plugin, position) VALUES ('ties', 'NodeUnschedulable', 1);
SELECT count(*) AS nodes FROM (SELECT scheduler.apply(jsonb_build_object('kind', 'Node',
    'metadata', jsonb_build_object('name', 't' || i),
    'status', '{"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "1000"}}'::jsonb)) FROM generate_series(1, 4) i) n;
SELECT count(*) AS pods FROM (SELECT pg_temp.pod('even-' || i, NULL, NULL, i, '{"schedulerName": "ties"}')
                              FROM generate_series(1, 400) i) p;
SET scheduler.scheduler_name = 'ties';
SET scheduler.random_seed = 42;
CREATE TEMP TABLE even AS SELECT node FROM schedule_pending();
SELECT node, count(*) BETWEEN 70 AND 130 AS near_a_quarter FROM even GROUP BY node ORDER BY node;
-- Ties apart: scored by NodeAffinity alone, a preferred term that t1 and t3
-- match ties them at 100 over t2 and t4 at 0, a node between them in the
-- search's order.  Only t1 and t3 take pods, about half each (100 pods:
-- mean 50, sd 5).
SELECT pg_temp.reset();
UPDATE scheduler.profile_plugins SET plugin = 'NodeAffinity' WHERE scheduler_name = 'ties';
SELECT count(*) AS nodes FROM (SELECT scheduler.apply(jsonb_build_object('kind', 'Node',
    'metadata', jsonb_build_object('name', 't' || i, 'labels', jsonb_build_object('odd', (i % 2 = 1)::text)),
    'status', '{"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "1000"}}'::jsonb)) FROM generate_series(1, 4) i) n;
SELECT count(*) AS pods FROM (SELECT pg_temp.pod('odd-' || i, NULL, NULL, i, '{"schedulerName": "ties",
    "affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1,
        "preference": {"matchExpressions": [{"key": "odd", "operator": "In", "values": ["true"]}]}}]}}}')
                              FROM generate_series(1, 100) i) p;
CREATE TEMP TABLE apart AS SELECT node FROM schedule_pending();
SELECT node, count(*) BETWEEN 35 AND 65 AS near_half FROM apart GROUP BY node ORDER BY node;
RESET scheduler.scheduler_name;
DELETE FROM scheduler.profiles WHERE scheduler_name = 'ties';
RESET scheduler.random_seed;
