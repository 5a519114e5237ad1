-- A node deleted under a pod assumed on it (kube-scheduler's assume cache):
-- a binding to a node that is gone cannot complete, and kube-scheduler
-- forgets an assumed pod whose binding cannot complete (Cache.ForgetPod)
-- and hands it back to the scheduling queue, in backoff as a pod whose
-- binding cycle failed (handleBindingCycleError; its attempts so far kept).
-- So the pod is pending again: in backoff in the queue (no backoff here),
-- in pending_pods, and scheduled anew on the next cycle; its binding still
-- in the outbox is closed unsent.  A pod bound
-- (spec.nodeName) to the deleted node is the API server's, and stays.
\set SHOW_CONTEXT never
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.outbox;
SET scheduler.pod_initial_backoff = 0;
SET scheduler.pod_max_backoff = 0;

CREATE FUNCTION pg_temp.node(name text) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Node', 'metadata', jsonb_build_object('name', name),
        'status', jsonb_build_object('allocatable', jsonb_build_object('cpu', '2', 'memory', '4Gi', 'pods', '10'))))
$$;
CREATE FUNCTION pg_temp.pod(name text, node text DEFAULT NULL) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Pod',
        'metadata', jsonb_build_object('name', name, 'namespace', 'default', 'uid', 'u-' || name),
        'spec', jsonb_strip_nulls(jsonb_build_object('nodeName', node, 'containers', jsonb_build_array(jsonb_build_object('name', 'c',
            'resources', jsonb_build_object('requests', jsonb_build_object('cpu', '1'))))))))
$$;
CREATE VIEW pg_temp.state AS
    SELECT p.name, p.node_name, p.assumed_node, q.state AS queue
    FROM scheduler.pods p LEFT JOIN scheduler.queue q ON q.pod_uid = p.uid ORDER BY p.name;

------------------------------------------------------------------------------
-- Without an API server: the choice is only assumed.  The node goes (a
-- watch DELETED event); the pod is pending again and placed elsewhere.
------------------------------------------------------------------------------
SELECT pg_temp.node('n1');
SELECT pg_temp.pod('web');
SELECT pg_temp.pod('bound', 'n1');
SELECT name, node, result FROM schedule_pending();
SELECT * FROM pg_temp.state;
SELECT scheduler.apply('{"type": "DELETED", "object": {"kind": "Node", "metadata": {"name": "n1"}}}');
SELECT * FROM pg_temp.state;
SELECT namespace, name, queue, attempts FROM scheduler.pending_pods;
-- nothing to run on yet
SELECT name, node, result FROM schedule_pending();
SELECT pg_temp.node('n2');
SELECT name, node, result FROM schedule_pending();
SELECT * FROM pg_temp.state;
SELECT node, resource, requested FROM scheduler.node_usage WHERE resource = 'cpu';

------------------------------------------------------------------------------
-- relist, a plain DELETE and TRUNCATE delete nodes too.
------------------------------------------------------------------------------
SELECT scheduler.relist('{"kind": "NodeList", "metadata": {"resourceVersion": "7"}, "items": []}');
SELECT * FROM pg_temp.state;
SELECT pg_temp.node('n3');
SELECT name, node, result FROM schedule_pending();
DELETE FROM scheduler.nodes WHERE name = 'n3';
SELECT * FROM pg_temp.state;
SELECT pg_temp.node('n4');
SELECT name, node, result FROM schedule_pending();
TRUNCATE scheduler.nodes;
SELECT * FROM pg_temp.state;

------------------------------------------------------------------------------
-- With an API server: a binding not sent yet is closed unsent, so that the
-- pod placed anew is not bound to the vanished node first, and the pod is
-- forgotten.  A pod whose binding the API server accepted is bound there
-- (the watch will say so): it stays.
------------------------------------------------------------------------------
SET scheduler.kube_api_url = 'https://127.0.0.1:6443';
SELECT pg_temp.node('n5');
SELECT name, node, result FROM schedule_pending();
SELECT pg_temp.pod('api');
SELECT name, node, result FROM schedule_pending();
SELECT kind, name, node, state FROM scheduler.outbox WHERE kind = 'binding' ORDER BY id;
SELECT scheduler.outbox_result(id, 201) FROM scheduler.outbox WHERE kind = 'binding' AND name = 'web';
SELECT scheduler.apply('{"type": "DELETED", "object": {"kind": "Node", "metadata": {"name": "n5"}}}');
SELECT kind, name, node, state, last_status, last_error FROM scheduler.outbox WHERE kind = 'binding' ORDER BY id;
SELECT * FROM pg_temp.state;
SELECT pg_temp.node('n6');
SELECT name, node, result FROM schedule_pending();
SELECT kind, name, node, state FROM scheduler.outbox WHERE kind = 'binding' ORDER BY id;
-- the watch reports web bound where the API server put it
SELECT pg_temp.pod('web', 'n5');
SELECT * FROM pg_temp.state;
RESET scheduler.kube_api_url;

------------------------------------------------------------------------------
-- The backoff a forgotten pod comes back with: kube-scheduler's, by the
-- attempts it has made so far (calculateBackoffDuration: initial, doubled
-- for each attempt after the first, at most the maximum), from now, and
-- enqueued now (QueueSort puts it behind the pods already waiting).  Its
-- attempts count on: a second failure doubles the wait.
------------------------------------------------------------------------------
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.outbox;
SET scheduler.pod_initial_backoff = 1000;
SET scheduler.pod_max_backoff = 10000;
SELECT pg_temp.node('b1');
SELECT pg_temp.pod('backs');
SELECT name, node, result FROM schedule_pending();
SELECT scheduler.apply('{"type": "DELETED", "object": {"kind": "Node", "metadata": {"name": "b1"}}}');
SELECT q.state, q.attempts, ceil(extract(epoch FROM q.backoff_until - now())) AS backoff_s,
       q.enqueued_at > p.created_at AS enqueued_again
FROM scheduler.queue q JOIN scheduler.pods p ON p.uid = q.pod_uid WHERE p.name = 'backs';
-- not tried while it backs off; then placed, and forgotten again
SELECT pg_temp.node('b2');
SELECT count(*) AS tried FROM schedule_pending();
UPDATE scheduler.queue SET backoff_until = now() WHERE state = 'backoff';
SELECT name, node, result FROM schedule_pending();
TRUNCATE scheduler.nodes;
SELECT q.state, q.attempts, ceil(extract(epoch FROM q.backoff_until - now())) AS backoff_s
FROM scheduler.queue q JOIN scheduler.pods p ON p.uid = q.pod_uid WHERE p.name = 'backs';
RESET scheduler.pod_initial_backoff;
RESET scheduler.pod_max_backoff;
