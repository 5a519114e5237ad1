-- schedule_pending(): one cycle per pending pod with NodeUnschedulable,
-- NodeName and NodeResourcesFit (LeastAllocated), scheduler.why() and
-- scheduler.node_usage.  Each block names the kube-scheduler behaviour it pins.
\set SHOW_CONTEXT never
-- retries after an event come at once (the queue's backoff is queue.sql's subject)
SET scheduler.pod_initial_backoff = 0;
SET scheduler.pod_max_backoff = 0;
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts;

CREATE FUNCTION pg_temp.node(name text, cpu text, memory text, pods int DEFAULT 110,
                             extra jsonb DEFAULT '{}', spec jsonb DEFAULT '{}')
RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Node',
        'metadata', jsonb_build_object('name', name),
        'spec', spec,
        'status', jsonb_build_object('allocatable',
            jsonb_build_object('cpu', cpu, 'memory', memory, 'pods', pods::text) || extra)))
$$;
-- created is seconds after a fixed epoch, so creation order is explicit
CREATE FUNCTION pg_temp.pod(name text, cpu text, memory text, created int,
                            priority int DEFAULT 0, spec jsonb DEFAULT '{}', extra jsonb DEFAULT '{}')
RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Pod',
        'metadata', jsonb_build_object('name', name, 'namespace', 'default',
            'creationTimestamp', to_char(timestamptz '2024-01-01 00:00:00+00' + created * interval '1 second',
                                         'YYYY-MM-DD"T"HH24:MI:SS"Z"')),
        'spec', jsonb_build_object('priority', priority,
            'containers', jsonb_build_array(jsonb_build_object('name', 'c',
                'resources', jsonb_build_object('requests',
                    jsonb_strip_nulls(jsonb_build_object('cpu', cpu, 'memory', memory)) || extra)))) || spec,
        'status', jsonb_build_object('phase', 'Pending')))
$$;
CREATE FUNCTION pg_temp.reset() RETURNS void LANGUAGE sql AS $$
    TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts
$$;

------------------------------------------------------------------------------
-- QueueSort (PrioritySort): higher priority first, then the older pod.
-- One node with room for one pod: the winner is the one sorted first.
------------------------------------------------------------------------------
SELECT pg_temp.node('only', '1', '1Gi');
SELECT pg_temp.pod('old-low', '1', '100Mi', 1, 0);
SELECT pg_temp.pod('new-high', '1', '100Mi', 2, 100);
SELECT pg_temp.pod('newer-high', '1', '100Mi', 3, 100);
SELECT * FROM schedule_pending();
-- a later call does not try them again: nothing changed, so they wait in the
-- unschedulable queue for an event that could help (queue.sql)
SELECT * FROM schedule_pending();
SELECT p.name, a.attempts, a.result, a.rejected_by FROM scheduler.pod_attempts a
JOIN scheduler.pods p ON p.uid = a.pod_uid ORDER BY p.name;

------------------------------------------------------------------------------
-- Which pods are pending: no spec.nodeName, not deleted, not terminated,
-- spec.schedulerName = scheduler.scheduler_name.
------------------------------------------------------------------------------
SELECT pg_temp.reset();
SELECT pg_temp.node('n1', '4', '4Gi');
SELECT pg_temp.pod('mine', '1', '1Gi', 1);
SELECT pg_temp.pod('theirs', '1', '1Gi', 2, 0, '{"schedulerName": "other-scheduler"}');
SELECT pg_temp.pod('bound', '1', '1Gi', 3, 0, '{"nodeName": "n1"}');
SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "deleting", "namespace": "default", "deletionTimestamp": "2024-01-01T00:00:00Z"}, "spec": {}}');
SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "done", "namespace": "default"}, "spec": {}, "status": {"phase": "Succeeded"}}');
SELECT * FROM schedule_pending();
SET scheduler.scheduler_name = 'other-scheduler';
SELECT * FROM schedule_pending();
RESET scheduler.scheduler_name;
-- bound and assumed pods both count against n1: 3 cpu of 4
SELECT node, resource, allocatable, requested FROM scheduler.node_usage
WHERE resource IN ('cpu', 'memory', 'pods') ORDER BY 1, 2;

------------------------------------------------------------------------------
-- Reserve (the assume cache): each choice counts against its node for the
-- pods after it in the same call, and in later calls.
------------------------------------------------------------------------------
SELECT pg_temp.reset();
SELECT pg_temp.node('a', '2', '8Gi');
SELECT pg_temp.node('b', '2', '8Gi');
SELECT pg_temp.pod('p' || i, '1', '1Gi', i) FROM generate_series(1, 5) i;
SELECT node, result, count(*) FROM schedule_pending() GROUP BY 1, 2 ORDER BY 1, 2;
SELECT node, requested FROM scheduler.node_usage WHERE resource = 'cpu' ORDER BY 1;
-- max_pods bounds the pods attempted, the first in QueueSort's order (q3,
-- queued first, not made first); NULL means all, in that order (here q2
-- then q1: p5 waits as unschedulable); negative is an error
SELECT pg_temp.pod('q' || i, '10m', '1Mi', 104 - i) FROM generate_series(1, 3) i;
SELECT name FROM schedule_pending(1);
SELECT count(*) FROM schedule_pending(0);
SELECT name FROM schedule_pending(NULL);
SELECT * FROM schedule_pending(-1);

------------------------------------------------------------------------------
-- LeastAllocated: the node with the most room left wins.
-- n-busy has 3 of 4 cpu requested; n-idle none; n-mem-busy 3 of 4Gi memory.
------------------------------------------------------------------------------
SELECT pg_temp.reset();
SELECT pg_temp.node('n-busy', '4', '4Gi');
SELECT pg_temp.node('n-idle', '4', '4Gi');
SELECT pg_temp.node('n-mem-busy', '4', '4Gi');
SELECT pg_temp.pod('cpu-hog', '3', '100Mi', 1, 0, '{"nodeName": "n-busy"}');
SELECT pg_temp.pod('mem-hog', '100m', '3Gi', 2, 0, '{"nodeName": "n-mem-busy"}');
SELECT pg_temp.pod('new', '500m', '500Mi', 3);
SELECT name, node, result FROM schedule_pending();
-- Non-zero requests in scoring (schedutil DefaultMilliCPURequest 100m,
-- DefaultMemoryRequest 200Mi): pods that request nothing still weigh on a
-- node's score, though not on its Filter.  x (1 cpu, 10Gi) runs 5 best-effort
-- pods: scored as 500m/1000Mi used.  y (2 cpu, 10Gi) runs one 1-cpu/1Gi pod.
-- For a 100m/100Mi pod, LeastAllocated gives
--   x: cpu (1000-500-100)*100/1000 = 40, memory (10240-1100)*100/10240 = 89, (40+89)/2 = 64
--   y: cpu (2000-1000-100)*100/2000 = 45, memory (10240-1124)*100/10240 = 89, (45+89)/2 = 67
-- so y wins; counting the best-effort pods as zero would give x 94 and pick x.
-- (LeastAllocated alone: the default profile's BalancedAllocation, which
-- counts requests as they are, would prefer x; framework.sql shows that.)
SELECT pg_temp.reset();
UPDATE scheduler.profile_plugins SET enabled = (plugin = 'NodeResourcesFit')
WHERE scheduler_name = 'default-scheduler';
SELECT pg_temp.node('x', '1', '10Gi');
SELECT pg_temp.node('y', '2', '10Gi');
SELECT pg_temp.pod('besteffort-' || i, NULL, NULL, i, 0, '{"nodeName": "x"}') FROM generate_series(1, 5) i;
SELECT pg_temp.pod('one-cpu', '1', '1Gi', 6, 0, '{"nodeName": "y"}');
SELECT pg_temp.pod('small', '100m', '100Mi', 7);
SELECT name, node FROM schedule_pending();
-- node_usage shows requests as they are: the best-effort pods request nothing
SELECT node, resource, requested FROM scheduler.node_usage
WHERE resource IN ('cpu', 'memory', 'pods') ORDER BY 1, 2;
UPDATE scheduler.profile_plugins SET enabled = true WHERE scheduler_name = 'default-scheduler';

------------------------------------------------------------------------------
-- NodeResourcesFit reasons, in kube-scheduler's order: Too many pods, cpu,
-- memory, ephemeral-storage, then scalar resources (extended, hugepages).
------------------------------------------------------------------------------
SELECT pg_temp.reset();
SELECT pg_temp.node('full', '1', '1Gi', 1, '{"ephemeral-storage": "1Gi", "example.com/foo": "1", "hugepages-2Mi": "4Mi"}');
SELECT pg_temp.pod('occupant', '100m', '100Mi', 1, 0, '{"nodeName": "full"}');
SELECT pg_temp.pod('greedy', '2', '2Gi', 2, 0, '{}',
    '{"ephemeral-storage": "2Gi", "example.com/foo": "2", "hugepages-2Mi": "6Mi"}');
SELECT name, result, message FROM schedule_pending();
SELECT * FROM scheduler.why('default', 'greedy');
-- A pod that requests nothing is checked for the pod count only
-- ("Too many pods"), not for resources.
SELECT pg_temp.pod('tiny', NULL, NULL, 3);
SELECT name, result, message FROM schedule_pending() WHERE name = 'tiny';
-- An extended resource the node does not have at all is insufficient.
SELECT pg_temp.reset();
SELECT pg_temp.node('cpu-only', '8', '8Gi');
SELECT pg_temp.pod('wants-gpu', '1', '1Gi', 1, 0, '{}', '{"nvidia.com/gpu": "1"}');
SELECT name, result, message FROM schedule_pending();

------------------------------------------------------------------------------
-- NodeUnschedulable: a cordoned node rejects a pod unless it tolerates the
-- node.kubernetes.io/unschedulable:NoSchedule taint.  Its status is
-- UnschedulableAndUnresolvable, so filtering stops there.
------------------------------------------------------------------------------
SELECT pg_temp.reset();
SELECT pg_temp.node('cordoned', '8', '8Gi', 110, '{}', '{"unschedulable": true}');
SELECT pg_temp.node('small', '1', '1Gi');
SELECT pg_temp.pod('plain', '2', '1Gi', 1);
SELECT pg_temp.pod('tolerant', '2', '1Gi', 2, 0,
    '{"tolerations": [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}]}');
SELECT pg_temp.pod('tolerates-all', '2', '1Gi', 3, 0, '{"tolerations": [{"operator": "Exists"}]}');
SELECT pg_temp.pod('wrong-effect', '2', '1Gi', 4, 0,
    '{"tolerations": [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoExecute"}]}');
SELECT name, node, result, message FROM schedule_pending();
SELECT * FROM scheduler.why('default', 'plain');
SELECT * FROM scheduler.why('default', 'tolerant');

------------------------------------------------------------------------------
-- The FailedScheduling message (FitError.Error()): "<count> <reason>" sorted
-- as strings, so "10 node(s) were unschedulable" sorts before "2 Insufficient
-- cpu"; a node with two reasons counts for both.
------------------------------------------------------------------------------
SELECT pg_temp.reset();
SELECT pg_temp.node('c' || lpad(i::text, 2, '0'), '8', '8Gi', 110, '{}', '{"unschedulable": true}')
FROM generate_series(1, 10) i;
SELECT pg_temp.node('tight-1', '1', '1Gi');
SELECT pg_temp.node('tight-2', '1', '8Gi');
SELECT pg_temp.pod('big', '2', '2Gi', 1);
SELECT message FROM schedule_pending();
SELECT plugin, reason, count(*) FROM scheduler.why('default', 'big') GROUP BY 1, 2 ORDER BY 1, 2;
-- with no nodes at all: kube-scheduler's ErrNoNodesAvailable (for a new pod;
-- 'big' stays unschedulable, since no plugin that rejected it registers
-- node deletion)
TRUNCATE scheduler.nodes;
SELECT pg_temp.pod('lonely', '100m', '100Mi', 2);
SELECT name, message FROM schedule_pending();
SELECT * FROM scheduler.why('default', 'lonely');

------------------------------------------------------------------------------
-- Room that frees up is used by the next call: a pod deleted (watch event),
-- or a pod that finished (phase Succeeded).
------------------------------------------------------------------------------
-- n1 has 2 cpu, both taken by pods bound to it.
SELECT pg_temp.reset();
SELECT pg_temp.node('n1', '2', '1Gi');
SELECT pg_temp.pod('running', '1', '100Mi', 1, 0, '{"nodeName": "n1"}');
SELECT pg_temp.pod('finisher', '1', '100Mi', 2, 0, '{"nodeName": "n1"}');
SELECT pg_temp.pod('waiting-1', '1', '100Mi', 3);
SELECT pg_temp.pod('waiting-2', '1', '100Mi', 4);
SELECT name, result, message FROM schedule_pending();
SELECT scheduler.apply(jsonb_build_object('type', 'DELETED', 'object', object))
FROM scheduler.pods WHERE name = 'running';
SELECT name, node, result FROM schedule_pending();
SELECT scheduler.apply(jsonb_build_object('type', 'MODIFIED', 'object',
    jsonb_set(object, '{status,phase}', '"Succeeded"')))
FROM scheduler.pods WHERE name = 'finisher';
SELECT name, node, result FROM schedule_pending();
-- a deleted pod's attempts go with it
SELECT count(*) FROM scheduler.pod_attempts a
WHERE NOT EXISTS (SELECT 1 FROM scheduler.pods p WHERE p.uid = a.pod_uid);

------------------------------------------------------------------------------
-- The assumed node survives re-applied objects until the API server binds
-- the pod (spec.nodeName set), so a pod is never placed twice.
------------------------------------------------------------------------------
SELECT pg_temp.reset();
SELECT pg_temp.node('n1', '2', '2Gi');
SELECT pg_temp.pod('web', '1', '1Gi', 1);
SELECT name, node FROM schedule_pending();
-- a status update from the API server, still without nodeName
SELECT scheduler.apply(jsonb_set(object, '{metadata,labels}', '{"touched": "yes"}'))
FROM scheduler.pods WHERE name = 'web';
SELECT name, node_name, assumed_node FROM scheduler.pods;
SELECT count(*) AS attempted FROM schedule_pending();
-- the binding arrives: nodeName set, the assumption is no longer needed
SELECT scheduler.apply(jsonb_set(object, '{spec,nodeName}', '"n1"'))
FROM scheduler.pods WHERE name = 'web';
SELECT name, node_name, assumed_node FROM scheduler.pods;
SELECT node, requested FROM scheduler.node_usage WHERE resource = 'cpu';

------------------------------------------------------------------------------
-- scheduler.why() on pods it cannot explain
------------------------------------------------------------------------------
SELECT * FROM scheduler.why('default', 'web');
SELECT * FROM scheduler.why('default', 'no-such-pod');

------------------------------------------------------------------------------
-- Pods that fail alike in one call share one stored diagnosis: the later
-- attempts name the first (attempt_history.diagnosis_of), and why() reads
-- it for each of them.  The nodes of a diagnosis are in the snapshot's
-- order, not the order a search started at, so the diagnoses are equal.
-- History retention keeps a latest attempt and the one it shares with.
------------------------------------------------------------------------------
SELECT pg_temp.reset();
SELECT pg_temp.node('a1', '1', '1Gi'), pg_temp.node('a2', '1', '1Gi'), pg_temp.node('a3', '1', '1Gi');
SELECT pg_temp.pod('twin-' || i, '2', '100Mi', i) FROM generate_series(1, 3) i;
SELECT count(*) AS unschedulable FROM schedule_pending() WHERE result = 'unschedulable';
SELECT name, diagnosis IS NOT NULL AS holds, diagnosis_of IS NOT NULL AS shares
FROM scheduler.attempt_history WHERE name LIKE 'twin-%' ORDER BY id;
SELECT count(DISTINCT h.diagnosis_of) AS holders_named,
       bool_and(s.name = 'twin-1') AS all_name_the_first
FROM scheduler.attempt_history h JOIN scheduler.attempt_history s ON s.id = h.diagnosis_of
WHERE h.name LIKE 'twin-%';
SELECT name, string_agg(node || ':' || reason, ' ' ORDER BY node) AS why
FROM (SELECT 'twin-' || i AS name, w.* FROM generate_series(1, 3) i, scheduler.why('default', 'twin-' || i) w) x
GROUP BY 1 ORDER BY 1;
-- the holder's pod goes; retention 0 keeps what the others' latest attempts read
SELECT scheduler.apply(jsonb_build_object('type', 'DELETED', 'object', object)) FROM scheduler.pods WHERE name = 'twin-1';
SET scheduler.history_retention = 0;
SELECT count(*) FROM schedule_pending();
RESET scheduler.history_retention;
SELECT name, count(*) AS nodes_explained FROM
    (SELECT 'twin-' || i AS name, w.* FROM generate_series(2, 3) i, scheduler.why('default', 'twin-' || i) w) x
GROUP BY 1 ORDER BY 1;
-- Only a pod that failed alike shares: pods that fail on every node for
-- one reason each, taken in turn, each hold their own diagnosis (the one
-- kept is the last pod's, and each differs from the one before it).
SELECT pg_temp.reset();
SELECT pg_temp.node('a1', '1', '1Gi'), pg_temp.node('a2', '1', '1Gi');
SELECT pg_temp.pod('cpu-1', '2', '100Mi', 1), pg_temp.pod('mem-2', '100m', '2Gi', 2),
       pg_temp.pod('cpu-3', '2', '100Mi', 3), pg_temp.pod('cpu-4', '2', '100Mi', 4), pg_temp.pod('mem-5', '100m', '2Gi', 5);
SELECT count(*) AS unschedulable FROM schedule_pending() WHERE result = 'unschedulable';
SELECT h.name, h.diagnosis IS NOT NULL AS holds, s.name AS shares_with,
       (SELECT string_agg(g->>'reason' || ' on ' || jsonb_array_length(g->'nodes'), '; ')
        FROM jsonb_array_elements(coalesce(h.diagnosis, s.diagnosis)) g) AS diagnosis
FROM scheduler.attempt_history h LEFT JOIN scheduler.attempt_history s ON s.id = h.diagnosis_of
WHERE h.name ~ '^(cpu|mem)-' ORDER BY h.id;
-- A pod that fails for two reasons on two nodes, then one that fails on
-- both for the first of them alone: not the same diagnosis, and the first
-- pod's kept one is not taken for the second's.
SELECT pg_temp.reset();
SELECT pg_temp.node('c1', '4', '1Gi'), pg_temp.node('m1', '1', '4Gi');
SELECT pg_temp.pod('both-1', '2', '2Gi', 1), pg_temp.pod('cpu-2', '8', '100Mi', 2);
SELECT count(*) AS unschedulable FROM schedule_pending() WHERE result = 'unschedulable';
SELECT h.name, h.diagnosis IS NOT NULL AS holds, s.name AS shares_with,
       (SELECT string_agg(g->>'reason' || ' on ' || (g->'nodes')::text, '; ' ORDER BY g->>'reason')
        FROM jsonb_array_elements(coalesce(h.diagnosis, s.diagnosis)) g) AS diagnosis
FROM scheduler.attempt_history h LEFT JOIN scheduler.attempt_history s ON s.id = h.diagnosis_of
WHERE h.name IN ('both-1', 'cpu-2') ORDER BY h.id;

------------------------------------------------------------------------------
-- Our storage, not a kube-scheduler behaviour: the assume writes no index
-- entry.  No index reads pods.assumed_node and pods' pages keep half their
-- room, so a burst of pods assumed in one call is HOT-updated in place.
------------------------------------------------------------------------------
SELECT pg_temp.reset();
SELECT pg_temp.node('hot-a', '64', '64Gi');
SELECT count(*) FROM (SELECT pg_temp.pod('hot-' || i, '10m', '10Mi', i) FROM generate_series(1, 40) i) s;
-- (the counts flushed before and after: pg_stat_force_next_flush())
SELECT pg_stat_force_next_flush();
CREATE TEMP TABLE hot_before AS
    SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relid = 'scheduler.pods'::regclass;
SELECT node, count(*) FROM schedule_pending() GROUP BY node;
SELECT pg_stat_force_next_flush();
SELECT s.n_tup_upd - b.n_tup_upd AS updated, s.n_tup_hot_upd - b.n_tup_hot_upd AS hot_updated
FROM pg_stat_user_tables s, hot_before b WHERE s.relid = 'scheduler.pods'::regclass;

------------------------------------------------------------------------------
-- kube-scheduler's handleAssumedPodDeletion: an assumed pod whose deletion
-- starts before it is bound (a finalizer holds it) is forgotten at once.
-- Its room is free, and a pod that failed for want of it moves as for an
-- assigned pod's deletion and lands there.  Nothing waits for it as a
-- terminating victim (why(), pending_pods count bound pods only).
------------------------------------------------------------------------------
SELECT pg_temp.reset();
SELECT pg_temp.node('vic-a', '1', '1Gi');
SELECT pg_temp.pod('low', '500m', '100Mi', 1);
SELECT pg_temp.pod('next', '800m', '100Mi', 2);
SELECT name, node, result FROM schedule_pending() ORDER BY name;
SELECT p.name, q.state FROM scheduler.queue q JOIN scheduler.pods p ON p.uid = q.pod_uid;
-- the API server's word on low now: being deleted, held by a finalizer, no nodeName
SELECT scheduler.apply(object || jsonb_build_object('metadata', object->'metadata'
    || '{"deletionTimestamp": "2024-01-01T00:10:00Z", "finalizers": ["example.com/hold"]}'))
FROM scheduler.pods WHERE name = 'low';
SELECT name, node_name, assumed_node, pending FROM scheduler.pods ORDER BY name;
SELECT p.name, q.state, q.moved_by FROM scheduler.queue q JOIN scheduler.pods p ON p.uid = q.pod_uid;
SELECT name, node, result FROM schedule_pending();
-- nominated there, as a preemption would have left it: low is no victim to wait for
SELECT pg_temp.pod('high', '900m', '100Mi', 3, 100);
UPDATE scheduler.queue SET nominated_node = 'vic-a'
WHERE pod_uid = (SELECT uid FROM scheduler.pods WHERE name = 'high');
SELECT * FROM scheduler.why('default', 'high');
SELECT name, queue, message FROM scheduler.pending_pods WHERE name = 'high';
-- a bound lower-priority pod being deleted there is one
SELECT scheduler.apply(jsonb_build_object('kind', 'Pod',
    'metadata', jsonb_build_object('name', 'bound-low', 'namespace', 'default',
        'creationTimestamp', '2024-01-01T00:00:04Z', 'deletionTimestamp', '2024-01-01T00:10:00Z',
        'finalizers', '["example.com/hold"]'::jsonb),
    'spec', jsonb_build_object('nodeName', 'vic-a', 'containers', '[{"name": "c"}]'::jsonb),
    'status', jsonb_build_object('phase', 'Running')));
SELECT * FROM scheduler.why('default', 'high');
SELECT name, queue, message FROM scheduler.pending_pods WHERE name = 'high';
