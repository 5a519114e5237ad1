-- DefaultPreemption as PostFilter (kube-scheduler's defaultpreemption and
-- preemption packages): victims are the fewest lower-priority pods whose
-- going lets the pod in; the node has the fewest PodDisruptionBudget
-- violations, then the lowest highest-victim priority, the smallest sum of
-- priorities, the fewest victims, the latest start.  Without an API server
-- the victims' rows are deleted at once, as the API server would.
\set SHOW_CONTEXT never
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history, scheduler.pdbs;
SET scheduler.pod_initial_backoff = 0;
SET scheduler.pod_max_backoff = 0;
SET scheduler.random_seed = 1;

CREATE FUNCTION pg_temp.node(name text, cpu text, labels jsonb DEFAULT '{}') RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Node',
        'metadata', jsonb_build_object('name', name, 'labels', labels || jsonb_build_object('kubernetes.io/hostname', name)),
        'status', jsonb_build_object('allocatable', jsonb_build_object('cpu', cpu, 'memory', '16Gi', 'pods', '110'))))
$$;
-- a pod with cpu, priority, labels; on node when given; created at minute m
CREATE FUNCTION pg_temp.pod(name text, cpu text, priority int, node text DEFAULT NULL, labels jsonb DEFAULT '{}',
                            m int DEFAULT 0, extra jsonb DEFAULT '{}') RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Pod',
        'metadata', jsonb_build_object('name', name, 'namespace', 'default', 'uid', name, 'labels', labels,
            'creationTimestamp', to_char(timestamptz '2024-01-01' + m * interval '1 minute', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')),
        'spec', jsonb_strip_nulls(jsonb_build_object('nodeName', node, 'priority', priority,
            'containers', jsonb_build_array(jsonb_build_object('name', 'c',
                'resources', jsonb_build_object('requests', jsonb_build_object('cpu', cpu)))))) || extra,
        'status', jsonb_build_object('phase', CASE WHEN node IS NULL THEN 'Pending' ELSE 'Running' END)))
$$;
CREATE VIEW pg_temp.placed AS
    SELECT p.name, p.priority, coalesce(p.node_name, p.assumed_node) AS node, q.nominated_node
    FROM scheduler.pods p LEFT JOIN scheduler.queue q ON q.pod_uid = p.uid ORDER BY p.name;

------------------------------------------------------------------------------
-- n1 holds two priority-0 pods (1 cpu each), n2 a priority-100 pod (1.5)
-- and a priority-0 one (0.5); both have 2 cpu.  A priority-1000 pod of 1 cpu:
-- on n1 low-a (started first) is reprieved and low-b goes; on n2 mid goes
-- (reprieved first, it does not fit back) and low-c stays.  n1's highest
-- victim has the lower priority: n1 is nominated, low-b deleted.
------------------------------------------------------------------------------
SELECT pg_temp.node('n1', '2'), pg_temp.node('n2', '2');
SELECT pg_temp.pod('low-a', '1', 0, 'n1', m => 1), pg_temp.pod('low-b', '1', 0, 'n1', m => 2),
       pg_temp.pod('mid', '1500m', 100, 'n2', m => 3), pg_temp.pod('low-c', '500m', 0, 'n2', m => 4);
SELECT pg_temp.pod('high', '1', 1000);
SELECT name, result, message FROM schedule_pending();
SELECT * FROM pg_temp.placed;
-- the victim's deletion moved the pod back (AssignedPodDelete); it binds where room was made
SELECT p.name, q.state, q.moved_by FROM scheduler.queue q JOIN scheduler.pods p ON p.uid = q.pod_uid;
SELECT name, node, result FROM schedule_pending();

------------------------------------------------------------------------------
-- No lower-priority pods anywhere: "No preemption victims found".  A node
-- the pod can never use (UnschedulableAndUnresolvable) is not tried:
-- "Preemption is not helpful for scheduling".
------------------------------------------------------------------------------
SELECT pg_temp.pod('peer', '2', 0);
SELECT name, result, message FROM schedule_pending();
SELECT pg_temp.pod('picky', '1', 2000, extra => '{"nodeSelector": {"disk": "ssd"}}');
SELECT name, result, message FROM schedule_pending() WHERE name = 'picky';
-- preemptionPolicy Never: the pod does not preempt
SELECT pg_temp.pod('polite', '1', 2000, extra => '{"preemptionPolicy": "Never"}');
SELECT name, result, message FROM schedule_pending() WHERE name = 'polite';
SELECT q.nominated_node FROM scheduler.queue q JOIN scheduler.pods p ON p.uid = q.pod_uid WHERE p.name = 'polite';

------------------------------------------------------------------------------
-- PodDisruptionBudgets: the guarded pod on n3 may not go (0 disruptions
-- allowed), so n4 is picked although its victim has the higher priority.
------------------------------------------------------------------------------
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history;
SELECT pg_temp.node('n3', '1'), pg_temp.node('n4', '1');
SELECT pg_temp.pod('guarded', '1', 0, 'n3', '{"app": "db"}'), pg_temp.pod('other', '1', 10, 'n4', '{"app": "web"}');
SELECT scheduler.apply('{"kind": "PodDisruptionBudget", "apiVersion": "policy/v1",
    "metadata": {"name": "db", "namespace": "default", "uid": "pdb-db"},
    "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "db"}}},
    "status": {"disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1}}');
SELECT pg_temp.pod('vip', '1', 1000);
SELECT name, result FROM schedule_pending();
SELECT * FROM pg_temp.placed;

------------------------------------------------------------------------------
-- The room is kept for the nominated pod (RunFilterPluginsWithNominatedPods):
-- a pod of lower priority does not fit n4 with vip counted in; one of
-- higher priority does.
------------------------------------------------------------------------------
SELECT pg_temp.pod('sneaky', '1', 500, m => 10), pg_temp.pod('boss', '1', 5000, m => 11);
SELECT node, plugin, code, reason FROM scheduler.filter('default', 'sneaky') WHERE code <> 'Success' ORDER BY node NULLS FIRST, plugin;
SELECT node, plugin, code, reason FROM scheduler.filter('default', 'boss') WHERE code <> 'Success' ORDER BY node NULLS FIRST, plugin;
DELETE FROM scheduler.pods WHERE name = 'boss';
-- vip binds there; sneaky, with no other node, preempts the guarded pod
-- after all: a candidate that violates a budget is still a candidate
SELECT name, node, result FROM schedule_pending() ORDER BY name;
SELECT * FROM pg_temp.placed;

-- a budget that does not parse is refused, naming the field
SELECT scheduler.apply('{"kind": "PodDisruptionBudget", "metadata": {"name": "bad", "namespace": "default"},
    "spec": {"selector": "app=db"}}');
SELECT scheduler.apply('{"kind": "PodDisruptionBudget", "metadata": {"name": "bad", "namespace": "default"},
    "status": {"disruptionsAllowed": "one"}}');
-- relist: a budget gone from the list is gone
SELECT scheduler.relist('{"kind": "PodDisruptionBudgetList", "metadata": {"resourceVersion": "7"}, "items": []}');
SELECT count(*) AS budgets FROM scheduler.pdbs;
SELECT resource, resource_version FROM scheduler.watch_state WHERE resource = 'poddisruptionbudgets';
DELETE FROM scheduler.watch_state WHERE resource = 'poddisruptionbudgets';

------------------------------------------------------------------------------
-- A nomination outranked (kube-scheduler's prepareCandidate: the lower
-- priority pods nominated to the chosen node may no longer fit there, and
-- lose their nomination).  With an API server the victims stay until it
-- deletes them, so the nominations stay too: mid is nominated to n5 for
-- one of its two low pods; then top, needing the whole node, is nominated
-- there, and mid's nomination goes.
------------------------------------------------------------------------------
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history, scheduler.pdbs;
SET scheduler.kube_api_url = 'https://127.0.0.1:6443';
SELECT pg_temp.node('n5', '2');
SELECT pg_temp.pod('low-d', '1', 0, 'n5', m => 1), pg_temp.pod('low-e', '1', 0, 'n5', m => 2);
SELECT pg_temp.pod('mid-f', '1', 100, m => 3);
SELECT name, result FROM schedule_pending();
SELECT name, nominated_node FROM pg_temp.placed WHERE name LIKE 'mid%' OR name LIKE 'top%';
SELECT pg_temp.pod('top-g', '2', 1000, m => 4);
SELECT name, result FROM schedule_pending() WHERE name = 'top-g';
SELECT name, nominated_node FROM pg_temp.placed WHERE name LIKE 'mid%' OR name LIKE 'top%';
-- and the API server is told: mid-f's pending PodScheduled patch now
-- clears its status.nominatedNodeName; top-g's names n5
SELECT name, body -> 'status' -> 'nominatedNodeName' AS nominated_node_name
FROM scheduler.outbox WHERE kind = 'condition' AND state = 'pending' ORDER BY name;
RESET scheduler.kube_api_url;
DELETE FROM scheduler.outbox;
