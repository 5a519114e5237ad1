-- The outbox: with scheduler.kube_api_url set, schedule_pending() puts a
-- binding for each choice, and for each failure the PodScheduled condition
-- (when its message changed) and a FailedScheduling event (events.k8s.io/v1,
-- its repeats folded into a series as client-go's event broadcaster folds
-- them; a new one at most every scheduler.event_interval), in the
-- transaction of the decision.  The bind
-- worker reports each response through scheduler.outbox_result(), whose
-- rules are the ones a kube-scheduler binding follows: 201 bound; 409
-- "already assigned" to the same node bound; another 409 or 404 forgets the
-- reservation and requeues the pod; 5xx or no response retries with backoff
-- while the reservation holds.
\set SHOW_CONTEXT never
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.outbox, scheduler.event_series;
SET scheduler.pod_initial_backoff = 0;
SET scheduler.pod_max_backoff = 0;

-- without an API server there is no outbox
SELECT scheduler.apply('{"kind": "Node", "metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "10"}}}');
SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "quiet", "namespace": "default", "uid": "u-quiet"}, "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}');
SELECT count(*) FROM schedule_pending();
SELECT count(*) AS outbox_rows FROM scheduler.outbox;

SET scheduler.kube_api_url = 'https://127.0.0.1:6443';
CREATE FUNCTION pg_temp.pod(name text, cpu text) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Pod',
        'metadata', jsonb_build_object('name', name, 'namespace', 'default', 'uid', 'u-' || name),
        'spec', jsonb_build_object('containers', jsonb_build_array(jsonb_build_object('name', 'c',
            'resources', jsonb_build_object('requests', jsonb_build_object('cpu', cpu)))))))
$$;

------------------------------------------------------------------------------
-- A choice: one binding, carrying the pod's uid.
------------------------------------------------------------------------------
SELECT pg_temp.pod('web', '500m');
SELECT name, node, result FROM schedule_pending();
SELECT kind, namespace, name, node, body, state FROM scheduler.outbox ORDER BY id;

------------------------------------------------------------------------------
-- A failure: the PodScheduled condition and a FailedScheduling event, as
-- kube-scheduler's recorder (client-go's events.k8s.io/v1 EventRecorder)
-- makes it: Warning, action Scheduling, the FitError message as its note,
-- regarding the pod, reported by its schedulerName from this host
-- (reportingInstance "<scheduler>-<hostname>"), eventTime a MicroTime, and
-- a fixed name "<pod>.<hex Unix nanoseconds>" (a POST sent twice is
-- answered AlreadyExists, not made twice).  Its key is kept in
-- scheduler.event_series.
------------------------------------------------------------------------------
SELECT pg_temp.pod('huge', '8');
SELECT name, result FROM schedule_pending();
SELECT kind, name, body #>> '{status,conditions,0,reason}' AS reason,
       coalesce(body #>> '{status,conditions,0,message}', body ->> 'note') AS message,
       body ->> 'reason' AS event_reason, body #>> '{regarding,uid}' AS regarding_uid
FROM scheduler.outbox WHERE name = 'huge' ORDER BY id;
SELECT body ->> 'apiVersion' AS api, body ->> 'type' AS type, body ->> 'action' AS action,
       body ->> 'reportingController' AS controller,
       body ->> 'reportingInstance' LIKE 'default-scheduler-_%' AS instance_is_scheduler_host,
       body #>> '{metadata,name}' ~ '^huge\.[0-9a-f]{16}$' AS name_is_pod_dot_hex_nanos,
       object = body #>> '{metadata,name}' AS object_is_event_name,
       body ->> 'eventTime' ~ '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$' AS event_time_is_micro,
       body #>> '{metadata,namespace}' AS namespace, body ? 'series' AS has_series
FROM scheduler.outbox WHERE name = 'huge' AND kind = 'event';
SELECT reason, action, type, reporting_controller, count, last_observed IS NULL AS no_series_yet
FROM scheduler.event_series WHERE regarding_uid = 'u-huge';
-- The same failure again (the same message): no condition (it did not
-- change); the event is a repeat, which client-go's broadcaster counts in
-- its cache and, the second time, writes at once as the Event's series:
-- count 2 and lastObservedTime, patched onto the Event of that name (its
-- body the whole Event, created with the series should the patch find
-- none).  kube-scheduler writes it whatever scheduler.event_interval says.
UPDATE scheduler.queue SET state = 'active';
SELECT name, result FROM schedule_pending();
SELECT kind, count(*) FROM scheduler.outbox WHERE name = 'huge' GROUP BY 1 ORDER BY 1;
SELECT e.object = c.object AS same_event, e.body -> 'series' ->> 'count' AS series_count,
       e.body #>> '{series,lastObservedTime}' ~ '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$' AS observed_is_micro,
       e.body - 'series' = c.body AS rest_as_created
FROM scheduler.outbox e JOIN scheduler.outbox c ON c.name = 'huge' AND c.kind = 'event' AND NOT c.body ? 'series'
WHERE e.name = 'huge' AND e.kind = 'event' AND e.body ? 'series';
-- a third and a fourth: counted, nothing sent (client-go writes the series
-- again on its timers only: every 30 minutes, and 6 minutes after the last)
UPDATE scheduler.queue SET state = 'active';
SELECT name, result FROM schedule_pending();
UPDATE scheduler.queue SET state = 'active';
SELECT name, result FROM schedule_pending();
SELECT kind, count(*) FROM scheduler.outbox WHERE name = 'huge' GROUP BY 1 ORDER BY 1;
SELECT count, last_observed >= event_time AS observed_after_made, refreshed_at IS NOT NULL AS series_written
FROM scheduler.event_series WHERE regarding_uid = 'u-huge';
-- a new message while the old condition is not sent yet: the old one is
-- closed unsent, so that it cannot land after the new one
SELECT scheduler.apply('{"kind": "Node", "metadata": {"name": "n2"}, "spec": {"unschedulable": true}, "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "10"}}}');
UPDATE scheduler.queue SET state = 'active';
SELECT name, result FROM schedule_pending();
SELECT kind, state, last_error, body #>> '{status,conditions,0,message}' AS message
FROM scheduler.outbox WHERE name = 'huge' AND kind = 'condition' ORDER BY id;
-- a new message is a new Event, not a repeat (its key holds the note, as
-- client-go's holds the pod's resourceVersion, which the new PodScheduled
-- message changes); within scheduler.event_interval of the last one it is
-- not made, nor counted
SELECT count(*) AS events FROM scheduler.outbox WHERE name = 'huge' AND kind = 'event';
SELECT count(*) AS keys FROM scheduler.event_series WHERE regarding_uid = 'u-huge';
-- after the interval it is made
SET scheduler.event_interval = 0;
UPDATE scheduler.queue SET state = 'active';
SELECT name, result FROM schedule_pending();
SELECT body ->> 'note' AS note, body ? 'series' AS has_series
FROM scheduler.outbox WHERE name = 'huge' AND kind = 'event' ORDER BY id;
SELECT note, count FROM scheduler.event_series WHERE regarding_uid = 'u-huge' ORDER BY event_time, note;
RESET scheduler.event_interval;
DELETE FROM scheduler.nodes WHERE name = 'n2';
-- kube-scheduler's truncateMessage: a FailedScheduling note longer than the
-- API's 1024-byte limit (validation's NoteLengthLimit) is cut to 1020 bytes
-- and " ..." added; the PodScheduled condition keeps the whole message.
-- (A pod asking for forty extended resources no node has makes a long FitError.)
SELECT scheduler.apply(jsonb_build_object('kind', 'Pod',
    'metadata', jsonb_build_object('name', 'greedy', 'namespace', 'default', 'uid', 'u-greedy'),
    'spec', jsonb_build_object('containers', jsonb_build_array(jsonb_build_object('name', 'c',
        'resources', jsonb_build_object('requests',
            (SELECT jsonb_object_agg('example.com/a-rather-long-resource-name-' || i, '1') FROM generate_series(10, 49) i)))))));
SELECT name, result FROM schedule_pending() WHERE name = 'greedy';
SELECT octet_length(body ->> 'note') AS note_bytes, right(body ->> 'note', 8) AS note_end,
       left(body ->> 'note', 1020) = left(p.message, 1020) AS note_is_message_cut
FROM scheduler.outbox o, scheduler.pod_attempts p
WHERE o.name = 'greedy' AND o.kind = 'event' AND p.pod_uid = 'u-greedy';
SELECT octet_length(body #>> '{status,conditions,0,message}') > 1024 AS condition_whole,
       body #>> '{status,conditions,0,message}' = p.message AS condition_is_message
FROM scheduler.outbox o, scheduler.pod_attempts p
WHERE o.name = 'greedy' AND o.kind = 'condition' AND p.pod_uid = 'u-greedy';

------------------------------------------------------------------------------
-- Responses.
------------------------------------------------------------------------------
CREATE FUNCTION pg_temp.binding(pod text) RETURNS bigint LANGUAGE sql AS $$
    SELECT id FROM scheduler.outbox WHERE kind = 'binding' AND name = pod ORDER BY id DESC LIMIT 1
$$;
-- 201: bound; a duplicate report changes nothing
SELECT scheduler.outbox_result(pg_temp.binding('web'), 201);
SELECT scheduler.outbox_result(pg_temp.binding('web'), 500);
SELECT name, assumed_node FROM scheduler.pods WHERE name = 'web';
-- and, as kube-scheduler records after a binding, a Normal Scheduled event
-- (action Binding), "Successfully assigned <ns>/<name> to <node>", from its
-- schedulerName, sent as the status writes are (issue 16, item 1)
SELECT body ->> 'type' AS type, body ->> 'reason' AS reason, body ->> 'action' AS action, body ->> 'note' AS note,
       body ->> 'reportingController' AS controller, body #>> '{regarding,name}' AS pod, state
FROM scheduler.outbox WHERE kind = 'event' AND name = 'web';

-- 409 already assigned to the same node: bound too
SELECT pg_temp.pod('again', '100m');
SELECT name, node FROM schedule_pending();
SELECT scheduler.outbox_result(pg_temp.binding('again'), 409,
    '{"kind": "Status", "status": "Failure", "reason": "Conflict", "code": 409,
      "message": "pod again is already assigned to node \"n1\""}');

-- 500, then no response: retried with backoff, the reservation kept
SELECT pg_temp.pod('flaky', '100m');
SELECT name, node FROM schedule_pending();
SELECT scheduler.outbox_result(pg_temp.binding('flaky'), 500, '{"message": "etcdserver: request timed out"}');
SELECT scheduler.outbox_result(pg_temp.binding('flaky'), 0);
SELECT state, attempts, last_status, next_attempt_at > now() AS backing_off,
       round(extract(epoch FROM next_attempt_at - now())) AS backoff_s
FROM scheduler.outbox WHERE id = pg_temp.binding('flaky');
SELECT name, assumed_node FROM scheduler.pods WHERE name = 'flaky';
SELECT scheduler.outbox_result(pg_temp.binding('flaky'), 201);

-- 401 and 403 (credentials being fixed or rotated): retried with backoff,
-- the reservation kept; forgetting it would only reschedule the pod into the
-- same refusal
SELECT pg_temp.pod('denied', '100m');
SELECT name, node FROM schedule_pending();
SELECT scheduler.outbox_result(pg_temp.binding('denied'), 401, '{"kind": "Status", "code": 401, "message": "Unauthorized"}');
SELECT scheduler.outbox_result(pg_temp.binding('denied'), 403, '{"kind": "Status", "code": 403, "message": "forbidden"}');
SELECT state, attempts, last_status, last_error FROM scheduler.outbox WHERE id = pg_temp.binding('denied');
SELECT name, assumed_node FROM scheduler.pods WHERE name = 'denied';
SELECT scheduler.outbox_result(pg_temp.binding('denied'), 201);

-- 409 assigned elsewhere: failed, the reservation forgotten, the pod back
-- in the queue (in backoff, as kube-scheduler's failed binding cycle leaves
-- it, its attempt counted)
SELECT pg_temp.pod('raced', '100m');
SELECT name, node FROM schedule_pending();
SELECT scheduler.outbox_result(pg_temp.binding('raced'), 409,
    '{"kind": "Status", "code": 409, "message": "pod raced is already assigned to node \"n9\""}');
SELECT name, assumed_node FROM scheduler.pods WHERE name = 'raced';
SELECT queue, attempts FROM scheduler.pending_pods WHERE name = 'raced';
-- not told why: the pod is bound elsewhere, and a False PodScheduled
-- would overwrite the True of that binding (kube-scheduler's
-- handleSchedulingFailure patches it anyway)
SELECT count(*) AS told FROM scheduler.outbox WHERE name = 'raced' AND kind IN ('condition', 'event');

-- 404: the pod is gone (or its uid changed): failed, reservation forgotten
SELECT pg_temp.pod('ghost', '100m');
SELECT name, node FROM schedule_pending();
SELECT scheduler.outbox_result(pg_temp.binding('ghost'), 404, '{"kind": "Status", "code": 404, "message": "pods \"ghost\" not found"}');
SELECT name, assumed_node FROM scheduler.pods WHERE name = 'ghost';
-- nothing to tell a pod that is gone (the watch deletes it)
SELECT count(*) AS told FROM scheduler.outbox WHERE name = 'ghost' AND kind IN ('condition', 'event');

-- conditions and events: 200/201 done, 5xx retried
SELECT scheduler.outbox_result(id, CASE kind WHEN 'condition' THEN 200 ELSE 503 END,
                               CASE kind WHEN 'event' THEN '{"kind": "Status", "message": "etcdserver: leader changed"}'::jsonb END)
FROM scheduler.outbox WHERE name = 'huge' AND state = 'pending' ORDER BY id;
SELECT kind, state, attempts FROM scheduler.outbox WHERE name = 'huge' ORDER BY id;
-- the events retried answered 201 with the Event made: its own message is
-- no error, where a failure's is kept (issue 16: last_error held the
-- FailedScheduling message of an event created)
SELECT kind, last_status, last_error FROM scheduler.outbox WHERE name = 'huge' AND kind = 'event' ORDER BY id;
SELECT scheduler.outbox_result(id, 201, jsonb_build_object('kind', 'Event', 'message', body ->> 'note'))
FROM scheduler.outbox WHERE name = 'huge' AND kind = 'event' AND state = 'pending' ORDER BY id;
SELECT kind, state, last_status, last_error FROM scheduler.outbox WHERE name = 'huge' AND kind = 'event' ORDER BY id;
-- an Event's create answered 409 AlreadyExists: the Event is there (this
-- POST was sent before and its answer lost): done, as client-go does not
-- retry it; a series' create (after its patch found no Event) answered so:
-- retried, its patch goes through next time (client-go's recordEvent)
INSERT INTO scheduler.outbox (kind, pod_uid, namespace, name, object, body)
VALUES ('event', 'u-x1', 'ns1', 'x1', 'x1.1', '{"metadata": {"name": "x1.1"}}'),
       ('event', 'u-x2', 'ns1', 'x2', 'x2.1', '{"metadata": {"name": "x2.1"}, "series": {"count": 2}}');
SELECT name, scheduler.outbox_result(id, 409, '{"kind": "Status", "reason": "AlreadyExists", "code": 409}')
FROM scheduler.outbox WHERE name IN ('x1', 'x2') ORDER BY name;

SELECT kind, state, count(*) FROM scheduler.outbox GROUP BY 1, 2 ORDER BY 1, 2;
SELECT scheduler.outbox_result(123456789, 201);

-- answered requests are kept as long as the history
-- (scheduler.history_retention), pending ones until they are answered
BEGIN;
SET LOCAL scheduler.history_retention = 0;
UPDATE scheduler.outbox SET finished_at = finished_at - interval '1 second' WHERE finished_at IS NOT NULL;
SELECT count(*) FROM schedule_pending();
SELECT state, count(*) FROM scheduler.outbox GROUP BY 1 ORDER BY 1;
COMMIT;

-- no answer, or 5xx, every time: retried up to scheduler.outbox_max_attempts
-- (10) in all, then failed with "gave up after 10 attempts", and the
-- reservation forgotten, as kube-scheduler forgets an assumed pod whose
-- binding failed and puts it back in the queue: no request retries forever
TRUNCATE scheduler.pods, scheduler.pod_attempts, scheduler.outbox;
SELECT pg_temp.pod('unanswered', '100m');
SELECT name, node FROM schedule_pending();
SELECT scheduler.outbox_result(pg_temp.binding('unanswered'), 503, '{"kind": "Status", "code": 503, "message": "etcdserver: request timed out"}')
FROM generate_series(1, 9);
SELECT state, attempts, last_status FROM scheduler.outbox WHERE id = pg_temp.binding('unanswered');
SELECT name, assumed_node FROM scheduler.pods WHERE name = 'unanswered';
SELECT scheduler.outbox_result(pg_temp.binding('unanswered'), 503, '{"kind": "Status", "code": 503, "message": "etcdserver: request timed out"}');
SELECT state, attempts, last_status, last_error FROM scheduler.outbox WHERE id = pg_temp.binding('unanswered');
SELECT name, assumed_node FROM scheduler.pods WHERE name = 'unanswered';
SELECT queue FROM scheduler.pending_pods WHERE name = 'unanswered';
SELECT kind, coalesce(body #>> '{status,conditions,0,reason}', body ->> 'reason') AS reason,
       coalesce(body #>> '{status,conditions,0,message}', body ->> 'note') AS message
FROM scheduler.outbox WHERE name = 'unanswered' AND kind IN ('condition', 'event') ORDER BY id;
-- the cap is the caller's (the bind worker passes the setting)
SELECT pg_temp.pod('impatient', '100m');
SELECT name, node FROM schedule_pending() WHERE name = 'impatient';
SELECT scheduler.outbox_result(pg_temp.binding('impatient'), 0, NULL, 2);
SELECT scheduler.outbox_result(pg_temp.binding('impatient'), 0, NULL, 2);
SELECT state, attempts, last_error FROM scheduler.outbox WHERE id = pg_temp.binding('impatient');

-- 422, the Binding refused: failed, reservation forgotten, and the pod told
-- why, as kube-scheduler's failed binding cycle tells it
-- (handleSchedulingFailure, its test "error bind forget pod": the Bind
-- plugin's error, running Bind plugin "DefaultBinder": <error>,
-- SchedulerError): the PodScheduled condition and a FailedScheduling event,
-- and pending_pods shows the message
SELECT pg_temp.pod('refused', '100m');
SELECT name, node FROM schedule_pending() WHERE name = 'refused';
SELECT scheduler.outbox_result(pg_temp.binding('refused'), 422,
    '{"kind": "Status", "code": 422, "message": "Binding.core \"refused\" is invalid: target.name: Invalid value: \"n1\""}');
SELECT name, assumed_node FROM scheduler.pods WHERE name = 'refused';
SELECT kind, coalesce(body #>> '{status,conditions,0,reason}', body ->> 'reason') AS reason,
       coalesce(body #>> '{status,conditions,0,message}', body ->> 'note') AS message
FROM scheduler.outbox WHERE name = 'refused' AND kind IN ('condition', 'event') ORDER BY id;
SELECT message FROM scheduler.pending_pods WHERE name = 'refused';

-- -1: no request could be built (the bind worker refuses a name that is no
-- path segment): failed at once, the reservation forgotten
SELECT pg_temp.pod('unbuildable', '100m');
SELECT name, node FROM schedule_pending() WHERE name = 'unbuildable';
SELECT scheduler.outbox_result(pg_temp.binding('unbuildable'), -1, '{"message": "no request can be built for binding default/unbuildable: not a path segment"}');
SELECT state, attempts, last_status FROM scheduler.outbox WHERE id = pg_temp.binding('unbuildable');
SELECT name, assumed_node FROM scheduler.pods WHERE name = 'unbuildable';

-- A condition closed unsent because its pod was placed since (the bind
-- worker closes it so: it would overwrite PodScheduled=True) is not taken
-- as told.  When the placement comes undone (here its node is deleted
-- before the binding went) and the pod fails again with the same message,
-- the condition is written again, as kube-scheduler's updatePod writes it
-- when the pod's own condition differs, which the unsent one never reached.
SELECT pg_temp.pod('undone', '64');
SELECT name, result FROM schedule_pending() WHERE name = 'undone';
SELECT scheduler.apply('{"kind": "Node", "metadata": {"name": "huge"}, "status": {"allocatable": {"cpu": "128", "memory": "4Gi", "pods": "10"}}}');
UPDATE scheduler.queue SET state = 'active' WHERE pod_uid = 'u-undone';
SELECT name, node FROM schedule_pending() WHERE name = 'undone';
-- (what the bind worker's OutboxClaim does to it now)
UPDATE scheduler.outbox SET state = 'done', finished_at = now(), last_error = 'not sent: the pod was scheduled since'
WHERE name = 'undone' AND kind = 'condition' AND state = 'pending';
SELECT scheduler.apply('{"type": "DELETED", "object": {"kind": "Node", "metadata": {"name": "huge"}}}');
SELECT p.name, p.assumed_node, q.state FROM scheduler.pods p JOIN scheduler.queue q ON q.pod_uid = p.uid
WHERE p.name = 'undone';
UPDATE scheduler.queue SET state = 'active' WHERE pod_uid = 'u-undone';
SELECT name, result FROM schedule_pending() WHERE name = 'undone';
SELECT kind, node, state, last_error, body #>> '{status,conditions,0,message}' AS message
FROM scheduler.outbox WHERE name = 'undone' AND kind IN ('condition', 'binding') ORDER BY id;
-- So is a condition that failed (here a 422; or out of retries): the next
-- failure with its message writes it again.  One sent (200) is not written
-- again.
SELECT scheduler.outbox_result(id, 422, '{"message": "PodScheduled condition refused"}')
FROM scheduler.outbox WHERE name = 'undone' AND kind = 'condition' AND state = 'pending';
UPDATE scheduler.queue SET state = 'active' WHERE pod_uid = 'u-undone';
SELECT name, result FROM schedule_pending() WHERE name = 'undone';
SELECT scheduler.outbox_result(id, 200)
FROM scheduler.outbox WHERE name = 'undone' AND kind = 'condition' AND state = 'pending';
UPDATE scheduler.queue SET state = 'active' WHERE pod_uid = 'u-undone';
SELECT name, result FROM schedule_pending() WHERE name = 'undone';
SELECT kind, state, last_status, last_error FROM scheduler.outbox WHERE name = 'undone' AND kind = 'condition' ORDER BY id;
SELECT posted_message IS NOT NULL AS told FROM scheduler.pod_attempts WHERE pod_uid = 'u-undone';

------------------------------------------------------------------------------
-- Every row's body, as the API server receives it (times masked): a
-- binding; a failure's PodScheduled condition and FailedScheduling event
-- (SchedulerError when its cycle failed); and DefaultPreemption's rows: the
-- preemptor's status.nominatedNodeName with its condition, a DeleteOptions
-- with the victim's uid as precondition, a Preempted event on the victim.
------------------------------------------------------------------------------
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.outbox, scheduler.event_series;
-- (times, an Event's name's nanoseconds and the host in its reportingInstance masked)
CREATE FUNCTION pg_temp.bodies() RETURNS TABLE (kind text, name text, node text, body text) LANGUAGE sql AS $$
    SELECT kind, name, node,
        regexp_replace(regexp_replace(regexp_replace(body::text,
            '"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z"', '"<time>"', 'g'),
            '\.[0-9a-f]{16}"', '.<nanos>"', 'g'),
            '("reportingInstance": "default-scheduler-)[^"]+"', '\1<host>"', 'g')
    FROM scheduler.outbox ORDER BY id
$$;
SELECT scheduler.apply('{"kind": "Node", "metadata": {"name": "m1"}, "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "10"}}}');
SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "low", "namespace": "ns1", "uid": "u-low"},
    "spec": {"schedulerName": "default-scheduler", "priority": 0, "nodeName": "m1",
             "containers": [{"name": "c", "resources": {"requests": {"cpu": "2"}}}]},
    "status": {"phase": "Running"}}');
SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "big", "namespace": "ns1", "uid": "u-big"},
    "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "3"}}}]}}');
SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "vip", "namespace": "ns1", "uid": "u-vip"},
    "spec": {"priority": 1000, "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}');
SELECT name, node, result FROM schedule_pending() ORDER BY name;
SELECT * FROM pg_temp.bodies();
-- sent; tried again while the victim is still there: the PodScheduled
-- message did not change, so only the nomination is sent
UPDATE scheduler.outbox SET state = 'done';
UPDATE scheduler.queue SET state = 'active' WHERE pod_uid = 'u-vip';
SELECT name, node, result FROM schedule_pending() ORDER BY name;
SELECT * FROM pg_temp.bodies() WHERE kind = 'condition' AND name = 'vip';
-- the victim goes; vip binds where room was made
DELETE FROM scheduler.pods WHERE uid = 'u-low';
UPDATE scheduler.queue SET state = 'active';
SELECT name, node, result FROM schedule_pending() ORDER BY name;
SELECT * FROM pg_temp.bodies() WHERE name = 'vip' AND kind = 'binding';
-- a cycle that throws: SchedulerError
UPDATE scheduler.pods SET requests = '[1]' WHERE uid = 'u-big';
UPDATE scheduler.queue SET state = 'active' WHERE pod_uid = 'u-big';
SELECT name, result FROM schedule_pending();
SELECT kind, name, body #>> '{status,conditions,0,reason}' AS reason FROM scheduler.outbox
WHERE kind = 'condition' AND name = 'big' ORDER BY id DESC LIMIT 1;

-- a victim's delete: 200, 202 (deleting) and 404 (gone already) are done;
-- 409 (another pod of that name now) fails
INSERT INTO scheduler.outbox (kind, pod_uid, namespace, name, body)
SELECT 'delete', 'u-v' || i, 'ns1', 'v' || i, '{}' FROM generate_series(1, 4) i;
SELECT name, scheduler.outbox_result(id, (ARRAY[200, 202, 404, 409])[substr(name, 2)::int]) FROM scheduler.outbox
WHERE kind = 'delete' AND name LIKE 'v_' ORDER BY id;
-- a binding's 202 fails; a message that is no string is read as its text;
-- a 409 naming another node fails
INSERT INTO scheduler.outbox (kind, pod_uid, namespace, name, node, body)
SELECT 'binding', 'u-b' || i, 'ns1', 'b' || i, 'm1', '{}' FROM generate_series(1, 3) i;
SELECT scheduler.outbox_result(id, 202) FROM scheduler.outbox WHERE name = 'b1';
SELECT scheduler.outbox_result(id, 503, '{"message": {"nested": [1, "x"]}}') FROM scheduler.outbox WHERE name = 'b2';
SELECT scheduler.outbox_result(id, 409, '{"message": "pod b3 is already assigned to node \"m2\""}') FROM scheduler.outbox WHERE name = 'b3';
SELECT name, state, attempts, last_status, last_error FROM scheduler.outbox WHERE name IN ('b1', 'b2', 'b3') ORDER BY name;
-- NULLs: no status fails; no cap retries on; no such request
SELECT scheduler.outbox_result(id, NULL) FROM scheduler.outbox WHERE name = 'b2';
INSERT INTO scheduler.outbox (kind, pod_uid, namespace, name, body, attempts) VALUES ('event', 'u-e', 'ns1', 'e', '{}', 50);
SELECT scheduler.outbox_result(id, 500, '[1]', NULL) FROM scheduler.outbox WHERE name = 'e';
SELECT name, state, attempts, last_status, last_error, round(extract(epoch FROM next_attempt_at - now())) AS backoff_s
FROM scheduler.outbox WHERE name IN ('b2', 'e') ORDER BY name;
SELECT scheduler.outbox_result(NULL, 200);

------------------------------------------------------------------------------
-- VolumeBinding's PreBind (BindPodVolumes' bindAPIUpdate): a pod whose
-- claims are not bound yet gets, before its binding, a merge patch of each
-- volume it binds statically (spec.claimRef, bound-by-controller, the
-- volume's resourceVersion a precondition) and of each claim to provision
-- (the selected-node annotation, the claim's resourceVersion a
-- precondition); its binding names them (waits_for) and the claims it waits
-- for, for bindTimeoutSeconds (600 by default).  A pod whose claims are all
-- bound gets a binding alone (allBound: PreBind is skipped).  A PreBind
-- patch's 200 is done; its 409 (the object changed since) fails it.
------------------------------------------------------------------------------
TRUNCATE scheduler.pods, scheduler.queue, scheduler.outbox, scheduler.persistent_volumes,
    scheduler.persistent_volume_claims, scheduler.storage_classes;
SELECT scheduler.apply('{"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "wait", "uid": "sc-w"},
    "provisioner": "example.com/p", "volumeBindingMode": "WaitForFirstConsumer"}');
SELECT scheduler.apply('{"kind": "PersistentVolume", "metadata": {"name": "pv-1", "uid": "u-pv1", "resourceVersion": "41"},
    "spec": {"storageClassName": "wait", "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "5Gi"},
             "hostPath": {"path": "/x"}}, "status": {"phase": "Available"}}');
SELECT scheduler.apply(jsonb_build_object('kind', 'PersistentVolumeClaim',
    'metadata', jsonb_build_object('name', c, 'namespace', 'default', 'uid', 'u-' || c, 'resourceVersion', '7'),
    'spec', '{"storageClassName": "wait", "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "5Gi"}}}'::jsonb))
FROM unnest(ARRAY['static', 'dynamic']) c;
SELECT scheduler.apply('{"kind": "PersistentVolumeClaim", "metadata": {"name": "done", "namespace": "default", "uid": "u-done",
    "annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
    "spec": {"storageClassName": "wait", "volumeName": "elsewhere"}}');
SELECT scheduler.apply('{"kind": "PersistentVolume", "metadata": {"name": "elsewhere", "uid": "u-pv2"},
    "spec": {"storageClassName": "wait", "capacity": {"storage": "5Gi"}, "hostPath": {"path": "/x"},
             "claimRef": {"namespace": "default", "name": "done", "uid": "u-done"}}, "status": {"phase": "Bound"}}');
SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "stateful", "namespace": "default", "uid": "u-stateful"},
    "spec": {"containers": [{"name": "c"}], "volumes": [
        {"name": "a", "persistentVolumeClaim": {"claimName": "static"}},
        {"name": "b", "persistentVolumeClaim": {"claimName": "dynamic"}}]}}');
SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "settled", "namespace": "default", "uid": "u-settled"},
    "spec": {"containers": [{"name": "c"}], "volumes": [{"name": "a", "persistentVolumeClaim": {"claimName": "done"}}]}}');
-- (pv-1 fits one claim; the smaller request sorts first, equal ones keep their order)
SELECT name, node, result FROM schedule_pending() ORDER BY name;
SELECT o.kind, o.name, o.object, o.body, o.node,
       (SELECT array_agg(r.kind || ' ' || r.object ORDER BY r.id) FROM scheduler.outbox r WHERE r.id = ANY (o.waits_for)) AS waits_for,
       o.claims, extract(epoch FROM o.wait_until - o.created_at) AS wait_s,
       o.id > ALL (SELECT r.id FROM scheduler.outbox r WHERE r.id = ANY (o.waits_for)) AS after_them
FROM scheduler.outbox o ORDER BY o.id;
SELECT object, scheduler.outbox_result(id, 200) FROM scheduler.outbox WHERE kind = 'volume';
SELECT object, scheduler.outbox_result(id, 409, '{"message": "Operation cannot be fulfilled on persistentvolumeclaims \"dynamic\": the object has been modified; please apply your changes to the latest version and try again"}')
FROM scheduler.outbox WHERE kind = 'claim';
SELECT kind, object, state, last_status, last_error FROM scheduler.outbox WHERE kind IN ('volume', 'claim') ORDER BY id;
TRUNCATE scheduler.pods, scheduler.queue, scheduler.outbox, scheduler.persistent_volumes,
    scheduler.persistent_volume_claims, scheduler.storage_classes;

-- A Scheduled event is not written while 1000 events wait, as client-go's
-- broadcaster drops events when 1000 wait.  The bind worker records a
-- flight's responses in one transaction: the waiting events are counted
-- once in it, then followed as it writes them.  998 wait; of three
-- bindings recorded together the first two get their event, the third none.
SELECT pg_temp.pod('cap-' || i, '100m') FROM generate_series(1, 3) i;
SELECT count(*) FILTER (WHERE node IS NOT NULL) AS placed FROM schedule_pending();
INSERT INTO scheduler.outbox (kind, pod_uid, namespace, name, body)
SELECT 'event', 'u-filler-' || i, 'default', 'filler-' || i, '{}' FROM generate_series(1, 998) i;
BEGIN;
SELECT name, scheduler.outbox_result(pg_temp.binding(name), 201) FROM (VALUES ('cap-1'), ('cap-2'), ('cap-3')) v(name);
COMMIT;
SELECT p.name, count(o.id) AS scheduled_events
FROM (VALUES ('cap-1'), ('cap-2'), ('cap-3')) p(name)
LEFT JOIN scheduler.outbox o ON o.kind = 'event' AND o.name = p.name AND o.body ->> 'reason' = 'Scheduled'
GROUP BY p.name ORDER BY p.name;
SELECT count(*) AS waiting FROM scheduler.outbox WHERE kind = 'event' AND state = 'pending';
-- 1000 wait now.  An event answered in the same transaction frees its
-- place: recorded between two bindings, the second gets its event (here
-- each response is recorded alone; the bind worker's batch counts the
-- room after all of its verdicts, the events answered in it included).
SELECT pg_temp.pod('cap-' || i, '100m') FROM generate_series(4, 5) i;
SELECT count(*) FILTER (WHERE node IS NOT NULL) AS placed FROM schedule_pending();
BEGIN;
SELECT scheduler.outbox_result(pg_temp.binding('cap-4'), 201) AS cap_4;
SELECT scheduler.outbox_result((SELECT id FROM scheduler.outbox WHERE kind = 'event' AND name = 'filler-1'), 201) AS filler_1;
SELECT scheduler.outbox_result(pg_temp.binding('cap-5'), 201) AS cap_5;
COMMIT;
SELECT p.name, count(o.id) AS scheduled_events
FROM (VALUES ('cap-4'), ('cap-5')) p(name)
LEFT JOIN scheduler.outbox o ON o.kind = 'event' AND o.name = p.name AND o.body ->> 'reason' = 'Scheduled'
GROUP BY p.name ORDER BY p.name;
