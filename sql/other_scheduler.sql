-- Pods of another scheduler.  kube-scheduler only queues the pods whose
-- spec.schedulerName one of its profiles names (its informer's filter,
-- responsibleForPod), and its scheduler_pending_pods metric counts only
-- those; a pod for a scheduler that is not running stays Pending with no
-- word from kube-scheduler.  Here the pods that are ours are those whose
-- schedulerName is scheduler.scheduler_name or has a profile: pending_pods
-- shows any other as other-scheduler, with its scheduler_name, and the
-- metrics view does not count it.
\set SHOW_CONTEXT never
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts;
CREATE FUNCTION pg_temp.pod(name text, scheduler text) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Pod',
        'metadata', jsonb_build_object('name', name, 'namespace', 'default'),
        'spec', jsonb_build_object('schedulerName', scheduler, 'containers', jsonb_build_array(jsonb_build_object('name', 'c')))))
$$;
SELECT pg_temp.pod('ours', 'default-scheduler');
SELECT pg_temp.pod('theirs', 'my-scheduler');
SELECT pg_temp.pod('packed', 'packer');
SELECT namespace, name, queue, attempts, message, scheduler_name FROM scheduler.pending_pods ORDER BY name;
SELECT * FROM scheduler.metrics_pending_pods ORDER BY queue;
-- schedule_pending() takes ours only: the others stay
SELECT name, result FROM schedule_pending();
SELECT name, queue, scheduler_name FROM scheduler.pending_pods ORDER BY name;

-- a profile makes a schedulerName ours
INSERT INTO scheduler.profiles VALUES ('packer', NULL);
SELECT name, queue, scheduler_name FROM scheduler.pending_pods ORDER BY name;
SELECT * FROM scheduler.metrics_pending_pods ORDER BY queue;
-- and so does scheduler.scheduler_name (it runs the default profile)
SET scheduler.scheduler_name = 'my-scheduler';
SELECT name, queue, scheduler_name FROM scheduler.pending_pods ORDER BY name;
SELECT * FROM scheduler.metrics_pending_pods ORDER BY queue;
RESET scheduler.scheduler_name;
DELETE FROM scheduler.profiles WHERE scheduler_name = 'packer';

-- The queue keeps each pod's schedulerName: a call pops its own active
-- pods, and looks up no other scheduler's.  A pending pod whose
-- spec.schedulerName changes (the mirror takes what it is given, where the
-- API server refuses the change) is queued under its new name, and popped
-- by that scheduler.
SELECT p.name, q.state, q.scheduler_name, q.scheduler_name = p.scheduler_name AS as_its_row
FROM scheduler.queue q JOIN scheduler.pods p ON p.uid = q.pod_uid ORDER BY p.name;
SELECT pg_temp.pod('theirs', 'default-scheduler');
SELECT p.name, q.state, q.scheduler_name FROM scheduler.queue q JOIN scheduler.pods p ON p.uid = q.pod_uid ORDER BY p.name;
SELECT name, result FROM schedule_pending();
SET scheduler.scheduler_name = 'packer';
SELECT name, result FROM schedule_pending();
RESET scheduler.scheduler_name;
SELECT p.name, q.state, q.scheduler_name FROM scheduler.queue q JOIN scheduler.pods p ON p.uid = q.pod_uid ORDER BY p.name;
-- A schedulerName past 253 characters (a DNS subdomain's most; the mirror
-- takes it): queued whole, and popped by that name alone, not by another
-- with the same first 253.
SELECT pg_temp.pod('long', repeat('s', 300));
SELECT pg_temp.pod('long-twin', repeat('s', 253) || 't');
SELECT set_config('scheduler.scheduler_name', repeat('s', 300), false) IS NOT NULL AS set;
SELECT name, result FROM schedule_pending();
RESET scheduler.scheduler_name;
-- a gated pod renamed stays gated, under its new name
SELECT scheduler.apply(jsonb_build_object('kind', 'Pod',
    'metadata', jsonb_build_object('name', 'gated', 'namespace', 'default'),
    'spec', jsonb_build_object('schedulerName', 'my-scheduler', 'schedulingGates', '[{"name": "wait"}]'::jsonb,
                               'containers', jsonb_build_array(jsonb_build_object('name', 'c')))));
SELECT scheduler.apply(jsonb_build_object('kind', 'Pod',
    'metadata', jsonb_build_object('name', 'gated', 'namespace', 'default'),
    'spec', jsonb_build_object('schedulerName', 'packer', 'schedulingGates', '[{"name": "wait"}]'::jsonb,
                               'containers', jsonb_build_array(jsonb_build_object('name', 'c')))));
SELECT p.name, q.state, left(q.scheduler_name, 10) AS scheduler_name, length(q.scheduler_name)
FROM scheduler.queue q JOIN scheduler.pods p ON p.uid = q.pod_uid ORDER BY p.name;
