-- The scheduling queue and QueueingHints, as kube-scheduler's
-- (backend/queue/scheduling_queue.go and the plugins' EventsToRegister):
-- an unschedulable pod is tried again only when an event one of the plugins
-- that rejected it registered for, and whose hint says Queue, happens; or
-- after scheduler.unschedulable_timeout.  Backoff is min(initial * 2^(n-1), max).
\set SHOW_CONTEXT never
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history;
-- backoff off for the hint tests, so a moved pod is active at once
SET scheduler.pod_initial_backoff = 0;
SET scheduler.pod_max_backoff = 0;

CREATE FUNCTION pg_temp.node(name text, cpu text, memory text, labels jsonb DEFAULT '{}', spec jsonb DEFAULT '{}')
RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Node',
        'metadata', jsonb_build_object('name', name, 'labels', labels), 'spec', spec,
        'status', jsonb_build_object('allocatable', jsonb_build_object('cpu', cpu, 'memory', memory, 'pods', '110'))))
$$;
CREATE FUNCTION pg_temp.pod(name text, cpu text, spec jsonb DEFAULT '{}')
RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Pod',
        'metadata', jsonb_build_object('name', name, 'namespace', 'default'),
        'spec', jsonb_build_object('containers', jsonb_build_array(jsonb_build_object('name', 'c',
                'resources', jsonb_build_object('requests', jsonb_build_object('cpu', cpu, 'memory', '100Mi'))))) || spec))
$$;
CREATE FUNCTION pg_temp.relabel(node_name text, new_labels jsonb) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_set(object, '{metadata,labels}', new_labels)) FROM scheduler.nodes WHERE name = node_name
$$;
CREATE VIEW pg_temp.q AS
    SELECT p.name, q.state, q.attempts, q.rejected_by, q.moved_by
    FROM scheduler.queue q JOIN scheduler.pods p ON p.uid = q.pod_uid ORDER BY p.name;

------------------------------------------------------------------------------
-- A new pending pod is active; a failed one is unschedulable, with the
-- plugins that rejected it (UnschedulablePlugins), and is not tried again
-- without cause.
------------------------------------------------------------------------------
SELECT pg_temp.node('small', '1', '4Gi');
SELECT pg_temp.pod('big', '2');
SELECT * FROM pg_temp.q;
SELECT name, result FROM schedule_pending();
SELECT * FROM pg_temp.q;
SELECT count(*) AS attempted FROM schedule_pending();
SELECT namespace, name, queue, attempts, rejected_by, message FROM scheduler.pending_pods;

------------------------------------------------------------------------------
-- NodeResourcesFit registers Node/Add and Node/UpdateNodeAllocatable (hint:
-- the pod fits the node's allocatable, and it grew), AssignedPod/Delete,
-- and UpdateNodeTaint (always Queue).  A label change is none of these.
------------------------------------------------------------------------------
SELECT pg_temp.relabel('small', '{"team": "a"}');
SELECT * FROM pg_temp.q;
-- a node added that is too small: the hint says Skip
SELECT pg_temp.node('tiny', '500m', '4Gi');
SELECT * FROM pg_temp.q;
-- grown memory does not help a pod short of cpu
SELECT scheduler.apply(jsonb_set(object, '{status,allocatable,memory}', '"8Gi"')) FROM scheduler.nodes WHERE name = 'small';
SELECT * FROM pg_temp.q;
-- grown cpu does
SELECT scheduler.apply(jsonb_set(object, '{status,allocatable,cpu}', '"3"')) FROM scheduler.nodes WHERE name = 'small';
SELECT * FROM pg_temp.q;
SELECT name, node, result FROM schedule_pending();

-- a pod deleted from a node frees room: AssignedPod/Delete
SELECT pg_temp.pod('second', '2');
SELECT name, result FROM schedule_pending();
SELECT scheduler.apply(jsonb_build_object('type', 'DELETED', 'object', object)) FROM scheduler.pods WHERE name = 'big';
SELECT * FROM pg_temp.q;
SELECT name, node, result FROM schedule_pending();

------------------------------------------------------------------------------
-- NodeAffinity registers Node/Add and Node/UpdateNodeLabel: Queue when the
-- node matches now and did not before.
------------------------------------------------------------------------------
TRUNCATE scheduler.nodes, scheduler.pods;
SELECT pg_temp.node('n1', '4', '4Gi', '{"disk": "hdd"}');
SELECT pg_temp.pod('wants-ssd', '100m', '{"nodeSelector": {"disk": "ssd"}}');
SELECT name, result, message FROM schedule_pending();
SELECT pg_temp.relabel('n1', '{"disk": "hdd", "rack": "r1"}');
SELECT * FROM pg_temp.q;
SELECT pg_temp.relabel('n1', '{"disk": "ssd", "rack": "r1"}');
SELECT * FROM pg_temp.q;
SELECT name, node, result FROM schedule_pending();

------------------------------------------------------------------------------
-- TaintToleration registers Node/Add and Node/UpdateNodeTaint: Queue when
-- the pod tolerates the node's taints now and did not before.
------------------------------------------------------------------------------
TRUNCATE scheduler.nodes, scheduler.pods;
SELECT pg_temp.node('t1', '4', '4Gi', '{}', '{"taints": [{"key": "gpu", "effect": "NoSchedule"}]}');
SELECT pg_temp.pod('plain', '100m');
SELECT name, result, message FROM schedule_pending();
-- another untolerated taint instead: still Skip
SELECT scheduler.apply(jsonb_set(object, '{spec,taints}', '[{"key": "spot", "effect": "NoExecute"}]')) FROM scheduler.nodes;
SELECT * FROM pg_temp.q;
-- taints gone: Queue
SELECT scheduler.apply(jsonb_set(object, '{spec,taints}', '[]')) FROM scheduler.nodes;
SELECT * FROM pg_temp.q;
SELECT name, node, result FROM schedule_pending();

------------------------------------------------------------------------------
-- NodeUnschedulable: cordoning makes no event; uncordoning is
-- UpdateNodeTaint, and the hint says Queue.
------------------------------------------------------------------------------
TRUNCATE scheduler.nodes, scheduler.pods;
SELECT pg_temp.node('c1', '4', '4Gi', '{}', '{"unschedulable": true}');
SELECT pg_temp.pod('waiter', '100m');
SELECT name, result, message FROM schedule_pending();
SELECT scheduler.apply(jsonb_set(object, '{spec,unschedulable}', 'false')) FROM scheduler.nodes;
SELECT * FROM pg_temp.q;
SELECT name, node, result FROM schedule_pending();

------------------------------------------------------------------------------
-- NodePorts registers AssignedPod/Delete: Queue when the deleted pod held a
-- port the pod wants; another pod's deletion is Skip.
------------------------------------------------------------------------------
TRUNCATE scheduler.nodes, scheduler.pods;
SELECT pg_temp.node('p1', '4', '4Gi');
SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "holder", "namespace": "default"},
  "spec": {"nodeName": "p1", "containers": [{"name": "c", "ports": [{"containerPort": 80, "hostPort": 8080}]}]}}');
SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "bystander", "namespace": "default"},
  "spec": {"nodeName": "p1", "containers": [{"name": "c"}]}}');
SELECT pg_temp.pod('web', '100m', '{"containers": [{"name": "c", "ports": [{"containerPort": 80, "hostPort": 8080}]}]}');
SELECT name, result, message FROM schedule_pending();
SELECT scheduler.apply(jsonb_build_object('type', 'DELETED', 'object', object)) FROM scheduler.pods WHERE name = 'bystander';
SELECT * FROM pg_temp.q;
SELECT scheduler.apply(jsonb_build_object('type', 'DELETED', 'object', object)) FROM scheduler.pods WHERE name = 'holder';
SELECT * FROM pg_temp.q;
SELECT name, node, result FROM schedule_pending();

------------------------------------------------------------------------------
-- SchedulingGates: a gated pod is never tried; removing the gates makes it
-- active.
------------------------------------------------------------------------------
TRUNCATE scheduler.nodes, scheduler.pods;
SELECT pg_temp.node('g1', '4', '4Gi');
SELECT pg_temp.pod('gated', '100m', '{"schedulingGates": [{"name": "example.com/quota"}, {"name": "example.com/review"}]}');
SELECT count(*) AS attempted FROM schedule_pending();
SELECT namespace, name, queue, attempts, message FROM scheduler.pending_pods;
-- one gate removed: still gated
SELECT scheduler.apply(jsonb_set(object, '{spec,schedulingGates}', '[{"name": "example.com/review"}]')) FROM scheduler.pods;
SELECT count(*) AS attempted FROM schedule_pending();
SELECT scheduler.apply(jsonb_set(object, '{spec,schedulingGates}', '[]')) FROM scheduler.pods;
SELECT * FROM pg_temp.q;
SELECT name, node, result FROM schedule_pending();

------------------------------------------------------------------------------
-- Backoff: min(initial * 2^(attempts-1), max), 1 s and 10 s by default.
-- A pod moved back while its backoff runs goes to backoff, then active.
------------------------------------------------------------------------------
TRUNCATE scheduler.nodes, scheduler.pods;
RESET scheduler.pod_initial_backoff;
RESET scheduler.pod_max_backoff;
SELECT pg_temp.node('b1', '1', '4Gi');
SELECT pg_temp.pod('hopeless', '8');
CREATE TEMP TABLE backoffs (attempt int, backoff interval);
DO $$
BEGIN
    FOR i IN 1..6 LOOP
        PERFORM count(*) FROM schedule_pending();
        INSERT INTO backoffs SELECT q.attempts, q.backoff_until - a.last_attempt_at
        FROM scheduler.queue q JOIN scheduler.pod_attempts a USING (pod_uid);
        -- as if an event moved it and its backoff expired
        UPDATE scheduler.queue SET state = 'active';
    END LOOP;
END $$;
SELECT * FROM backoffs ORDER BY attempt;
-- moved by an event while backing off: to backoff, not active
SELECT count(*) FROM schedule_pending();
SELECT pg_temp.node('b2', '16', '4Gi');
SELECT name, state, moved_by FROM pg_temp.q;
SELECT count(*) AS attempted_while_backing_off FROM schedule_pending();
-- once it expires (here: made to), the next call promotes and tries it
UPDATE scheduler.queue SET backoff_until = now() - interval '1 second';
SELECT name, node, result FROM schedule_pending();

------------------------------------------------------------------------------
-- Unschedulable pods are flushed back after scheduler.unschedulable_timeout
-- (podMaxInUnschedulablePodsDuration, 5 minutes) even without an event.
------------------------------------------------------------------------------
TRUNCATE scheduler.nodes, scheduler.pods;
SET scheduler.pod_initial_backoff = 0;
SET scheduler.pod_max_backoff = 0;
SELECT pg_temp.node('f1', '1', '4Gi');
SELECT pg_temp.pod('stuck', '8');
SELECT count(*) FROM schedule_pending();
SELECT count(*) AS before_timeout FROM schedule_pending();
SET scheduler.unschedulable_timeout = 0;
SELECT name, result FROM schedule_pending();
SELECT name, state, attempts, moved_by FROM pg_temp.q;
RESET scheduler.unschedulable_timeout;

------------------------------------------------------------------------------
-- A plugin error sends the pod to backoff (no rejecting plugins), not to
-- unschedulable.
------------------------------------------------------------------------------
TRUNCATE scheduler.nodes, scheduler.pods;
INSERT INTO scheduler.profiles VALUES ('broken', NULL);
INSERT INTO scheduler.profile_plugins (scheduler_name, plugin, position, args) VALUES
    ('broken', 'NodeResourcesFit', 1, '{"scoringStrategy": {"type": "LeastAllocated", "resources": []}}');
SELECT pg_temp.node('e' || i, '4', '4Gi') FROM generate_series(1, 2) i;
SELECT pg_temp.pod('victim', '100m', '{"schedulerName": "broken"}');
SET scheduler.scheduler_name = 'broken';
SELECT count(*) FROM schedule_pending();
RESET scheduler.scheduler_name;
SELECT name, state, attempts, rejected_by FROM pg_temp.q;
DELETE FROM scheduler.profiles WHERE scheduler_name = 'broken';

------------------------------------------------------------------------------
-- History: every attempt, kept for scheduler.history_retention; metrics.
------------------------------------------------------------------------------
SELECT name, result, node, rejected_by FROM scheduler.attempt_history
WHERE name IN ('big', 'wants-ssd') ORDER BY id;
SELECT result, attempts > 0 AS some FROM scheduler.metrics_schedule_attempts ORDER BY 1;
-- every attempt, scheduled or not, has its queue wait and cycle time
SELECT result, count(*) FILTER (WHERE queue_wait IS NULL OR cycle_time IS NULL) AS missing_times
FROM scheduler.attempt_history GROUP BY 1 ORDER BY 1;
SELECT * FROM scheduler.metrics_pending_pods ORDER BY queue;
SELECT metric, samples > 0 AS sampled, p50_ms >= 0 AS p50_ok FROM scheduler.metrics_latency ORDER BY 1;
-- the queue wait is from when the pod was last moved to active, else from
-- when it entered the queue, to the attempt (now(): the call's transaction),
-- one pod that fits and one that does not
BEGIN;
SELECT pg_temp.pod('waited-moved', '100m'), pg_temp.pod('waited-entered', '64');
UPDATE scheduler.queue q SET first_enqueued_at = now() - interval '7 minutes',
    moved_at = CASE WHEN p.name = 'waited-moved' THEN now() - interval '3 minutes' END
FROM scheduler.pods p WHERE p.uid = q.pod_uid AND p.name LIKE 'waited-%';
SELECT count(*) FROM schedule_pending();
SELECT name, result, queue_wait FROM scheduler.attempt_history WHERE name LIKE 'waited-%' ORDER BY name;
ROLLBACK;
SET scheduler.history_retention = 0;
SELECT count(*) FROM schedule_pending();
-- what is left is each pod's latest attempt, which why() reads
SELECT count(*) AS history_left,
       count(*) = (SELECT count(*) FROM scheduler.pod_attempts WHERE history_id IS NOT NULL) AS one_per_pod,
       bool_and(id IN (SELECT history_id FROM scheduler.pod_attempts)) AS all_latest
FROM scheduler.attempt_history WHERE attempted_at < now();
-- A pod's history is found through the index of its name (the namespace
-- left out of it: each attempt's entry compares one text at each level),
-- in time order; the pruning through that of the time.  Seq scans off: the
-- tables are small here.
CREATE FUNCTION pg_temp.plan_uses(query text, index text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
        IF line LIKE '%' || index || '%' THEN
            RETURN true;
        END IF;
    END LOOP;
    RETURN false;
END $$;
ANALYZE scheduler.attempt_history;
SET enable_seqscan = off;
SELECT pg_temp.plan_uses($$SELECT * FROM scheduler.attempt_history WHERE namespace = 'default' AND name = 'big'
                           ORDER BY attempted_at DESC LIMIT 5$$, 'attempt_history_pod') AS by_name,
       pg_temp.plan_uses($$SELECT id FROM scheduler.attempt_history WHERE attempted_at < now() - interval '1 day'$$,
                         'attempt_history_time') AS by_time;
RESET enable_seqscan;

------------------------------------------------------------------------------
-- One statement, many rows (a watch batch, a relist): the triggers read the
-- statement's transition tables, and the queue holds exactly the pods that
-- scheduler.pods.pending names (not on a node, not being deleted, not
-- terminal), whatever each row became.  The changelog has every row that is
-- or was on a node: the snapshot cache holds only those.
------------------------------------------------------------------------------
TRUNCATE scheduler.nodes, scheduler.pods;
SELECT pg_temp.node('m1', '4', '4Gi');
SELECT sum(pg_temp.pod('batch-' || i, '10m',
           CASE WHEN i % 5 = 0 THEN '{"schedulingGates": [{"name": "g"}]}'::jsonb ELSE '{}' END))
FROM generate_series(1, 12) i;
SELECT state, count(*) FROM scheduler.queue GROUP BY 1 ORDER BY 1;
BEGIN;
UPDATE scheduler.pods SET
    node_name = CASE WHEN name IN ('batch-1', 'batch-2') THEN 'm1' END,
    phase = CASE name WHEN 'batch-3' THEN 'Succeeded' WHEN 'batch-4' THEN 'Failed' ELSE 'Pending' END,
    deletion_timestamp = CASE WHEN name = 'batch-6' THEN now() END,
    scheduling_gates = CASE WHEN name = 'batch-10' THEN scheduling_gates ELSE '{}' END;
SELECT array_agg(n ORDER BY n) AS logged FROM scheduler.changes c, unnest(c.names) n WHERE c.xid = pg_current_xact_id() AND c.kind = 'p';
-- off its node again (an assumption forgotten looks the same): logged, by
-- its new row, though that row is on no node
UPDATE scheduler.pods SET node_name = NULL WHERE name = 'batch-2';
SELECT array_agg(n ORDER BY n) AS logged FROM scheduler.changes c, unnest(c.names) n WHERE c.xid = pg_current_xact_id() AND c.kind = 'p';
UPDATE scheduler.pods SET node_name = 'm1' WHERE name = 'batch-2';
COMMIT;
SELECT name, pending, terminal FROM scheduler.pods WHERE NOT pending OR terminal ORDER BY name;
SELECT state, count(*) FROM scheduler.queue GROUP BY 1 ORDER BY 1;
SELECT count(*) AS mismatched FROM scheduler.pods p FULL JOIN scheduler.queue q ON q.pod_uid = p.uid
WHERE p.pending IS DISTINCT FROM (q.pod_uid IS NOT NULL);
-- back from Succeeded (only a row written by hand does that): pending again
UPDATE scheduler.pods SET phase = NULL WHERE name = 'batch-3';
-- a deleted pod's latest attempt goes with it, whether it was pending
-- (batch-7) or on a node (batch-1, deleted alone: no queue row to look for)
INSERT INTO scheduler.pod_attempts (pod_uid, attempts, last_attempt_at, result, message)
SELECT uid, 1, now(), 'unschedulable', 'put here' FROM scheduler.pods WHERE name IN ('batch-1', 'batch-7', 'batch-9');
DELETE FROM scheduler.pods WHERE name = 'batch-1';
DELETE FROM scheduler.pods WHERE name IN ('batch-7', 'batch-8');
SELECT state, count(*) FROM scheduler.queue GROUP BY 1 ORDER BY 1;
SELECT count(*) AS mismatched FROM scheduler.pods p FULL JOIN scheduler.queue q ON q.pod_uid = p.uid
WHERE p.pending IS DISTINCT FROM (q.pod_uid IS NOT NULL);
SELECT array_agg(coalesce(p.name, a.pod_uid) ORDER BY 1) AS attempts_left
FROM scheduler.pod_attempts a LEFT JOIN scheduler.pods p ON p.uid = a.pod_uid WHERE a.message = 'put here';
DELETE FROM scheduler.pod_attempts WHERE message = 'put here';
-- the trigger functions read the statement's transition tables: a trigger
-- made without them is refused when it fires
CREATE TABLE pg_temp.podcopy (LIKE scheduler.pods);
CREATE TRIGGER podcopy AFTER INSERT ON pg_temp.podcopy FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.pods_changed();
INSERT INTO pg_temp.podcopy SELECT * FROM scheduler.pods LIMIT 1;
