-- scheduler.simulate(changes, scheduler_name): what schedule_pending() would
-- do now with the changes made (Node and Pod objects and watch events, in
-- order, as apply() takes them), computed on the backend's snapshot changed
-- in memory only.  Every pending pod of the schedulerName that is not
-- gated, and every pending pod the changes add, is tried once, in QueueSort
-- order (priority, then the time queued: a pod the changes add is queued
-- now), through the real framework: a pod placed counts against its node
-- for the pods after it (kube-scheduler's assume cache), a pod that
-- preempts is nominated there.  Nothing is written and no lock is taken.
\set SHOW_CONTEXT never
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history, scheduler.outbox;
SET scheduler.random_seed = 1;

CREATE FUNCTION pg_temp.node(name text, cpu text, extra jsonb DEFAULT '{}') RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_build_object('kind', 'Node',
        'metadata', jsonb_build_object('name', name, 'labels', jsonb_build_object('kubernetes.io/hostname', name)),
        'status', jsonb_build_object('allocatable', jsonb_build_object('cpu', cpu, 'memory', '16Gi', 'pods', '110'))) || extra
$$;
-- a pod of cpu and priority, on node when given, created at minute m
CREATE FUNCTION pg_temp.pod(name text, cpu text, priority int DEFAULT 0, node text DEFAULT NULL, m int DEFAULT 0)
RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_build_object('kind', 'Pod',
        'metadata', jsonb_build_object('name', name, 'namespace', 'default', 'uid', 'u-' || name,
            'creationTimestamp', to_char(timestamptz '2024-01-01' + m * interval '1 minute', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')),
        'spec', jsonb_strip_nulls(jsonb_build_object('nodeName', node, 'priority', priority,
            'containers', jsonb_build_array(jsonb_build_object('name', 'c',
                'resources', jsonb_build_object('requests', jsonb_build_object('cpu', cpu)))))),
        'status', jsonb_build_object('phase', CASE WHEN node IS NULL THEN 'Pending' ELSE 'Running' END))
$$;
-- everything a call could write, as one row to compare
CREATE VIEW pg_temp.written AS
    SELECT (SELECT count(*) FROM scheduler.nodes) AS nodes,
           (SELECT string_agg(name || '@' || coalesce(node_name, assumed_node, '-'), ' ' ORDER BY name) FROM scheduler.pods) AS pods,
           (SELECT string_agg(q.state || ':' || q.attempts, ' ' ORDER BY q.pod_uid) FROM scheduler.queue q) AS queue,
           (SELECT count(*) FROM scheduler.pod_attempts) AS attempts, (SELECT count(*) FROM scheduler.attempt_history) AS history,
           (SELECT count(*) FROM scheduler.outbox) AS outbox;

-- n1 (4 cpu) runs run-a (2 cpu); big (3 cpu) and small (1 cpu) wait
SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_build_array(
    pg_temp.node('n1', '4'), pg_temp.pod('run-a', '2', 0, 'n1'),
    pg_temp.pod('big', '3', 0, NULL, 1), pg_temp.pod('small', '1', 0, NULL, 2))));
SELECT * FROM pg_temp.written;

-- no changes: what schedule_pending() would do now (small fits, big does not)
SELECT * FROM scheduler.simulate();
-- a node added: big goes there; small still to n1 (its order: big first)
SELECT * FROM scheduler.simulate(jsonb_build_array(pg_temp.node('n2', '4')));
-- the same as a List, and as a watch event
SELECT name, node, result FROM scheduler.simulate(jsonb_build_object('kind', 'List', 'items', jsonb_build_array(pg_temp.node('n2', '4'))));
SELECT name, node, result FROM scheduler.simulate(jsonb_build_object('type', 'ADDED', 'object', pg_temp.node('n2', '4')));
-- n1 cordoned (a Node object of that name: it replaces n1 in the view)
SELECT name, node, result, message FROM scheduler.simulate(
    jsonb_build_array(pg_temp.node('n1', '4', '{"spec": {"unschedulable": true}}')));
-- n1 deleted (by name: the event names no uid); nothing to run on
SELECT name, node, result, message FROM scheduler.simulate('[{"type": "DELETED", "object": {"kind": "Node", "metadata": {"name": "n1"}}}]');
-- run-a deleted frees its 2 cpu: big (3) and small (1) both fit on n1
SELECT name, node, result FROM scheduler.simulate('[{"type": "DELETED", "object": {"kind": "Pod", "metadata": {"name": "run-a", "namespace": "default"}}}]');
-- a pod added on n1 (nodeName: the API server's) takes the room small had
SELECT name, node, result FROM scheduler.simulate(jsonb_build_array(pg_temp.pod('sneak', '2', 0, 'n1')));
-- a pending pod added: queued now, so tried after those already waiting
SELECT name, node, result FROM scheduler.simulate(jsonb_build_array(pg_temp.pod('new', '1', 0, NULL, 0)));
-- ... unless its priority is higher: QueueSort puts it first
SELECT name, node, result FROM scheduler.simulate(jsonb_build_array(pg_temp.pod('urgent', '2', 10)));
-- a waiting pod changed (named by uid, or by namespace and name): its new
-- spec replaces the queued one, in its place in the queue (as the queue
-- updates a pod it holds)
SELECT name, node, result FROM scheduler.simulate(jsonb_build_array(pg_temp.pod('big', '1', 0, NULL, 1)));
SELECT name, node, result FROM scheduler.simulate(jsonb_build_array(
    jsonb_set(pg_temp.pod('big', '1', 0, NULL, 1), '{metadata,uid}', '"another-uid"')));
-- a waiting pod deleted: not tried
SELECT name, node, result FROM scheduler.simulate('[{"type": "DELETED", "object": {"kind": "Pod", "metadata": {"name": "small", "namespace": "default", "uid": "u-small"}}}]');
-- changes apply in order, the last of an object winning: n2 added, then deleted
SELECT name, node, result FROM scheduler.simulate(jsonb_build_array(pg_temp.node('n2', '4'),
    jsonb_build_object('type', 'DELETED', 'object', pg_temp.node('n2', '4'))));

-- preemption: urgent (priority 10, 4 cpu) preempts run-a and is nominated
-- to n1; small, of lower priority, does not take the room nominated to it
SELECT name, node, result, message FROM scheduler.simulate(jsonb_build_array(pg_temp.pod('urgent', '4', 10)));

-- another schedulerName: its pending pods, and only those, with its profile
INSERT INTO scheduler.profiles VALUES ('packer', NULL);
INSERT INTO scheduler.profile_plugins (scheduler_name, plugin, position)
SELECT 'packer', plugin, position FROM scheduler.profile_plugins WHERE scheduler_name = 'default-scheduler';
SELECT name, node, result FROM scheduler.simulate(jsonb_build_array(
    jsonb_set(pg_temp.pod('packed', '1'), '{spec,schedulerName}', '"packer"')), 'packer');
SELECT name, node, result FROM scheduler.simulate('[]', 'nobody-scheduler');
DELETE FROM scheduler.profile_plugins WHERE scheduler_name = 'packer';
DELETE FROM scheduler.profiles WHERE scheduler_name = 'packer';

-- a gated pod is not tried, as the queue does not try it
SELECT name, node, result FROM scheduler.simulate(jsonb_build_array(
    jsonb_set(pg_temp.pod('gated', '1'), '{spec,schedulingGates}', '[{"name": "wait"}]')));

-- nothing was written by any of these; the backend's next call reads the
-- cluster afresh and decides as the first simulation said
SELECT * FROM pg_temp.written;
SELECT * FROM schedule_pending();

-- in a read-only transaction too (a standby's, or a reader's)
BEGIN TRANSACTION READ ONLY;
SELECT name, node, result FROM scheduler.simulate(jsonb_build_array(pg_temp.node('n2', '4')));
COMMIT;

-- what apply() refuses, simulate() refuses, naming the object and field; a
-- kind other than Node and Pod is not simulated (nothing is written)
SELECT * FROM scheduler.simulate('[5]');
SELECT * FROM scheduler.simulate('"x"');
SELECT * FROM scheduler.simulate(jsonb_build_array(pg_temp.node('bad', '4x')));
SELECT * FROM scheduler.simulate('[{"kind": "PodDisruptionBudget", "apiVersion": "policy/v1",
    "metadata": {"name": "pdb", "namespace": "default"}, "spec": {"minAvailable": 1}}]');
SELECT * FROM scheduler.simulate('[{"kind": "Namespace", "metadata": {"name": "ns"}}]');
SELECT count(*) AS namespaces FROM scheduler.namespaces WHERE name = 'ns';
SELECT * FROM pg_temp.written;
