-- scheduler.diagnosis(namespace, name) (issue 14): why a pod is pending, as
-- one jsonb document read from what its latest attempt stored, and the
-- same document as the last column of scheduler.pending_pods.  Each block
-- says what it pins.  The hints come from scheduler.fit_hints(): only their
-- being fit_hints' rows is checked here, never their content.
\set SHOW_CONTEXT never
-- (a seed under which ties fall as the outputs below show; a change to how
-- ties are drawn may need another)
SET scheduler.random_seed = 3;
SET scheduler.pod_initial_backoff = 0;
SET scheduler.pod_max_backoff = 0;
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history, scheduler.outbox;

CREATE FUNCTION pg_temp.node(name text, cpu text, memory text, spec jsonb DEFAULT '{}') RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Node', 'metadata', jsonb_build_object('name', name),
        'spec', spec, 'status', jsonb_build_object('allocatable',
            jsonb_build_object('cpu', cpu, 'memory', memory, 'pods', '10'))))
$$;
CREATE FUNCTION pg_temp.pod(name text, cpu text, memory text, spec jsonb DEFAULT '{}', priority int DEFAULT 0,
                            node text DEFAULT NULL) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Pod',
        'metadata', jsonb_build_object('name', name, 'namespace', 'default', 'uid', 'u-' || name),
        'spec', jsonb_strip_nulls(jsonb_build_object('priority', priority, 'nodeName', node,
            'containers', jsonb_build_array(jsonb_build_object('name', 'c',
                'resources', jsonb_build_object('requests', jsonb_build_object('cpu', cpu, 'memory', memory)))))) || spec))
$$;
-- the document without what changes from run to run (times), nor the
-- hints (fit_hints()' content is not this test's: checked apart below)
CREATE FUNCTION pg_temp.doc(name text) RETURNS jsonb LANGUAGE sql AS $$
    SELECT (scheduler.diagnosis('default', name) - 'hints') #- '{pod,since}' #- '{attempt,at}'
           #- '{attempt,queueWaitMs}' #- '{attempt,cycleTimeMs}'
$$;
-- why()'s rows, as the document holds them: (node, plugin, reason) of each
-- Filter group, of the PreFilter's rejection, and of the nodes a
-- PreFilterResult left out (why() names their plugins joined by spaces)
CREATE FUNCTION pg_temp.doc_rows(name text) RETURNS TABLE (node text, plugin text, reason text) LANGUAGE sql AS $$
    WITH d AS (SELECT scheduler.diagnosis('default', name) AS d)
    SELECT n, p.key, r.key
    FROM d, jsonb_each(d.d -> 'plugins') p, jsonb_each(p.value) r, jsonb_array_elements_text(r.value -> 'nodes') n
    UNION ALL
    SELECT n, d.d #>> '{preFilter,rejection,plugin}', d.d #>> '{preFilter,rejection,reason}'
    FROM d, jsonb_array_elements_text(d.d #> '{preFilter,rejection,nodes}') n
    UNION ALL
    SELECT n, array_to_string(ARRAY(SELECT jsonb_array_elements_text(d.d #> '{preFilter,nodesLeftOut,plugins}')), ' '),
           d.d #>> '{preFilter,nodesLeftOut,reason}'
    FROM d, jsonb_array_elements_text(d.d #> '{preFilter,nodesLeftOut,nodes}') n
$$;
-- why() and the document: the same rows, each as often
CREATE FUNCTION pg_temp.same_as_why(name text) RETURNS boolean LANGUAGE sql AS $$
    SELECT NOT EXISTS ((SELECT * FROM scheduler.why('default', name) EXCEPT ALL SELECT * FROM pg_temp.doc_rows(name))
                       UNION ALL
                       (SELECT * FROM pg_temp.doc_rows(name) EXCEPT ALL SELECT * FROM scheduler.why('default', name)))
$$;
-- the FailedScheduling message, built again from the document alone:
-- attempt.nodes (N), node -> [reasons] of the Filter groups and of the nodes
-- left out, the PreFilter's rejection and the PostFilter's message
CREATE FUNCTION pg_temp.rebuilt(name text) RETURNS text LANGUAGE sql AS $$
    WITH d AS (SELECT scheduler.diagnosis('default', name) AS d),
    entries AS (
        SELECT r.value AS e FROM d, jsonb_each(d.d -> 'plugins') p, jsonb_each(p.value) r
        UNION ALL
        SELECT d.d #> '{preFilter,nodesLeftOut}' FROM d WHERE d.d #> '{preFilter,nodesLeftOut}' <> 'null')
    SELECT scheduler.fit_error_message((d.d #>> '{attempt,nodes}')::int,
               coalesce((SELECT jsonb_object_agg(n, e -> 'reasons') FROM entries, jsonb_array_elements_text(e -> 'nodes') n), '{}'),
               d.d #>> '{preFilter,rejection,reason}', d.d #>> '{preemption,message}')
    FROM d
$$;

------------------------------------------------------------------------------
-- A pod that fails on several plugins across nodes.  a1 lacks cpu and
-- memory, a2 cpu only: NodeResourcesFit gives two reasons, each with its
-- nodes and count; b1's taint (TaintToleration) and c1's cordon
-- (NodeUnschedulable) one node each.  A reason of several (kube-scheduler's
-- Status with two reasons) lists them one by one in "reasons", as the
-- message counts them ("1 Insufficient memory"); its key is why()'s
-- reason, the reasons joined with ", ".  DefaultPreemption found no
-- victims: its PostFilter message is the preemption's, with no nominated
-- node.  The whole document once, annotated in the README.
------------------------------------------------------------------------------
SELECT pg_temp.node('a1', '1', '1Gi'), pg_temp.node('a2', '1', '4Gi'),
       pg_temp.node('b1', '8', '8Gi', '{"taints": [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]}'),
       pg_temp.node('c1', '8', '8Gi', '{"unschedulable": true}');
SELECT pg_temp.pod('big', '2', '2Gi');
SELECT name, result, message FROM schedule_pending();
SELECT jsonb_pretty(pg_temp.doc('big'));
-- the times are there: when it was attempted, since when it is pending
SELECT d #>> '{attempt,at}' IS NOT NULL AS at, d #>> '{pod,since}' IS NOT NULL AS since,
       (d #>> '{attempt,cycleTimeMs}')::numeric >= 0 AS cycle_time
FROM scheduler.diagnosis('default', 'big') d;
-- why() and the message are views of the same data
SELECT pg_temp.same_as_why('big') AS same_as_why,
       pg_temp.rebuilt('big') = (SELECT message FROM scheduler.pod_attempts WHERE pod_uid = 'u-big') AS message_rebuilt;
-- (the check can fail: a row more or less, or a reason changed, shows)
SELECT count(*) AS why_rows, (SELECT count(*) FROM pg_temp.doc_rows('big')) AS doc_rows FROM scheduler.why('default', 'big');

------------------------------------------------------------------------------
-- Pods that fail alike in one call share one stored diagnosis
-- (attempt_history.diagnosis_of): the second reads it as why() does.
------------------------------------------------------------------------------
SELECT pg_temp.pod('big2', '2', '2Gi');
UPDATE scheduler.queue SET state = 'active' WHERE state <> 'gated';
SELECT name, result FROM schedule_pending() ORDER BY name;
SELECT h.name, h.diagnosis IS NULL AS shares FROM scheduler.pod_attempts a
JOIN scheduler.attempt_history h ON h.id = a.history_id WHERE a.pod_uid IN ('u-big', 'u-big2') ORDER BY 1;
SELECT pg_temp.doc('big2') -> 'plugins' = pg_temp.doc('big') -> 'plugins' AS same_plugins,
       pg_temp.same_as_why('big2') AS same_as_why,
       pg_temp.rebuilt('big2') = (SELECT message FROM scheduler.pod_attempts WHERE pod_uid = 'u-big2') AS message_rebuilt;

------------------------------------------------------------------------------
-- A PreFilterResult (NodeAffinity matchFields metadata.name: a1 only): the
-- nodes it left out, with the plugin that restricted them and their reason
-- "node(s) didn't satisfy plugin(s) [NodeAffinity]"; a1 itself fails on
-- NodeResourcesFit.  No PreFilter rejection.
------------------------------------------------------------------------------
SELECT pg_temp.pod('pinned', '2', '100Mi', '{"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
    {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["a1"]}]}]}}}}');
SELECT name, result, message FROM schedule_pending() WHERE name = 'pinned';
SELECT jsonb_pretty(pg_temp.doc('pinned') -> 'preFilter') AS "preFilter",
       pg_temp.doc('pinned') -> 'plugins' AS plugins;
SELECT pg_temp.same_as_why('pinned') AS same_as_why,
       pg_temp.rebuilt('pinned') = (SELECT message FROM scheduler.pod_attempts WHERE pod_uid = 'u-pinned') AS message_rebuilt;

------------------------------------------------------------------------------
-- A PreFilter rejection (two matchFields no node can meet at once):
-- NodeAffinity's status is every node's, so the rejection names every
-- node; no Filter ran, so "plugins" is empty.  The message is "0/N nodes
-- are available: <the PreFilter's message>." and then the preemption's.
------------------------------------------------------------------------------
SELECT pg_temp.pod('conflicted', '100m', '100Mi', '{"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
    {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["x"]},
                                            {"key": "metadata.name", "operator": "In", "values": ["y"]}]}]}}}}');
SELECT name, result, message FROM schedule_pending() WHERE name = 'conflicted';
SELECT jsonb_pretty(pg_temp.doc('conflicted') - 'pod' - 'message' - 'attempt') AS doc;
SELECT pg_temp.same_as_why('conflicted') AS same_as_why,
       pg_temp.rebuilt('conflicted') = (SELECT message FROM scheduler.pod_attempts WHERE pod_uid = 'u-conflicted') AS message_rebuilt,
       (SELECT count(*) FROM scheduler.why('default', 'conflicted')) AS why_rows;

------------------------------------------------------------------------------
-- A gated pod: never attempted (attempt null, nothing rejected it); its
-- message is the SchedulingGates one, as pending_pods shows it.
------------------------------------------------------------------------------
SELECT pg_temp.pod('gated', '100m', '100Mi', '{"schedulingGates": [{"name": "example.com/quota"}]}');
SELECT jsonb_pretty(pg_temp.doc('gated')) AS doc;
SELECT scheduler.diagnosis('default', 'gated') ->> 'message' = message AS pending_pods_message
FROM scheduler.pending_pods WHERE name = 'gated';

------------------------------------------------------------------------------
-- A scheduled pod is no error: its latest attempt succeeded, nothing
-- rejected it, nothing is hinted; assumed (not pending: no queue), then
-- bound (spec.nodeName) when the API server says so.
------------------------------------------------------------------------------
SELECT pg_temp.pod('small', '100m', '100Mi');
SELECT name, node, result FROM schedule_pending() WHERE name = 'small';
SELECT jsonb_pretty(pg_temp.doc('small')) AS doc;
SELECT pg_temp.pod('small', '100m', '100Mi', node => (SELECT assumed_node FROM scheduler.pods WHERE name = 'small'));
SELECT d #> '{pod,node}' AS node, d #> '{pod,assumedNode}' AS assumed, d #> '{attempt,result}' AS result,
       d -> 'plugins' AS plugins, scheduler.diagnosis('default', 'small') -> 'hints' AS hints
FROM pg_temp.doc('small') d;
-- a pod bound before we ever saw it: never attempted
SELECT pg_temp.pod('resident', '100m', '100Mi', node => 'b1');
SELECT d #> '{pod,node}' AS node, d #> '{pod,queue}' AS queue, d -> 'attempt' AS attempt, d -> 'message' AS message
FROM pg_temp.doc('resident') d;

------------------------------------------------------------------------------
-- The hints are fit_hints()' rows, each an object of its five columns, in
-- (rank, node, kind) order, for a pending pod whose latest attempt failed;
-- a pod with nothing to hint (scheduled, gated, never attempted) has none,
-- and no hintsError.
------------------------------------------------------------------------------
SELECT name, scheduler.diagnosis('default', name) -> 'hints' =
       (SELECT coalesce(jsonb_agg(jsonb_build_object('rank', h.rank, 'node', h.node, 'kind', h.kind,
                                                     'detail', h.detail, 'change', h.change)
                                  ORDER BY h.rank, h.node, h.kind), '[]')
        FROM scheduler.fit_hints('default', name) h) AS fit_hints_rows
FROM (VALUES ('big'), ('pinned'), ('conflicted')) v(name);
SELECT name, scheduler.diagnosis('default', name) -> 'hints' AS hints, scheduler.diagnosis('default', name) -> 'hintsError' AS "hintsError"
FROM (VALUES ('small'), ('gated'), ('resident')) v(name);

-- a fit_hints() that fails (here: gone) fails no document, nor pending_pods:
-- hints null, hintsError its message
BEGIN;
ALTER FUNCTION scheduler.fit_hints(text, text, integer) RENAME TO fit_hints_gone;
SELECT d -> 'hints' AS hints, d -> 'hintsError' AS "hintsError", d #> '{attempt,result}' AS result
FROM scheduler.diagnosis('default', 'big') d;
SELECT count(*) AS documents, count(*) FILTER (WHERE diagnosis -> 'hints' = 'null') AS without_hints
FROM scheduler.pending_pods;
ROLLBACK;
SELECT jsonb_typeof(d -> 'hints') AS hints, d -> 'hintsError' AS "hintsError" FROM scheduler.diagnosis('default', 'big') d;

------------------------------------------------------------------------------
-- An unknown pod is an error, as in why() (SQLSTATE 42704).
------------------------------------------------------------------------------
\set VERBOSITY sqlstate
SELECT scheduler.diagnosis('default', 'nope');
SELECT scheduler.diagnosis('nowhere', 'big');
\set VERBOSITY default
SELECT scheduler.diagnosis('default', 'nope');

------------------------------------------------------------------------------
-- It writes nothing: it runs in a read-only transaction.
------------------------------------------------------------------------------
BEGIN TRANSACTION READ ONLY;
SELECT count(scheduler.diagnosis('default', p.name)) FROM scheduler.pods p;
COMMIT;

------------------------------------------------------------------------------
-- Preemption, with an API server (the outbox): vip preempts low on m1.  The
-- document names the nominated node and the victim, from its Preempted
-- event, with the state of its deletion; a preemption that made room has
-- no PostFilter message.  Once the API server answers the deletion, it is
-- done.  (Without an API server the victims are deleted at once and none
-- is recorded: victims is empty.)
------------------------------------------------------------------------------
SELECT pg_temp.node('m1', '2', '4Gi');
SELECT pg_temp.pod('low', '2', '1Gi', node => 'm1');
-- only vip takes part from here (nothing that would free the others)
UPDATE scheduler.queue SET state = 'unschedulable', unschedulable_since = now() WHERE state <> 'gated';
SET scheduler.kube_api_url = 'https://127.0.0.1:6443';
SELECT pg_temp.pod('vip', '2', '1Gi', priority => 1000);
SELECT name, result, message FROM schedule_pending();
SELECT jsonb_pretty(pg_temp.doc('vip') -> 'preemption') AS preemption, pg_temp.doc('vip') #> '{pod,nominatedNode}' AS nominated;
SELECT pg_temp.same_as_why('vip') AS same_as_why,
       pg_temp.rebuilt('vip') = (SELECT message FROM scheduler.pod_attempts WHERE pod_uid = 'u-vip') AS message_rebuilt;
SELECT scheduler.outbox_result(id, 200) FROM scheduler.outbox WHERE kind = 'delete' AND pod_uid = 'u-low';
SELECT pg_temp.doc('vip') #> '{preemption,victims}' AS victims;
RESET scheduler.kube_api_url;
-- without an API server: vip2 preempts low2 on m2, deleted at once
SELECT pg_temp.node('m2', '2', '1Gi'), pg_temp.pod('low2', '2', '512Mi', node => 'm2');
UPDATE scheduler.queue SET state = 'unschedulable', unschedulable_since = now() WHERE state <> 'gated';
SELECT pg_temp.pod('vip2', '2', '512Mi', priority => 1000);
SELECT name, result, message FROM schedule_pending();
SELECT count(*) AS low2_left FROM scheduler.pods WHERE name = 'low2';
SELECT pg_temp.doc('vip2') -> 'preemption' AS preemption;

------------------------------------------------------------------------------
-- A cycle that failed with an error: its message is the error, not a
-- FitError; the document claims no node count and no PostFilter part.
------------------------------------------------------------------------------
SELECT pg_temp.pod('broken', '100m', '100Mi');
UPDATE scheduler.pods SET requests = '[1]' WHERE name = 'broken';
UPDATE scheduler.queue SET state = 'unschedulable', unschedulable_since = now()
WHERE pod_uid <> 'u-broken' AND state <> 'gated';
SELECT name, result FROM schedule_pending();
SELECT d #> '{attempt,message}' AS message, d #> '{attempt,nodes}' AS nodes, d -> 'plugins' AS plugins,
       d -> 'preFilter' AS "preFilter", d -> 'preemption' AS preemption
FROM pg_temp.doc('broken') d;
-- (fit_hints() may fail for such a pod: then hints is null and hintsError
-- says why, and the document is there all the same)
SELECT jsonb_typeof(d -> 'hints') = 'array' AND d -> 'hintsError' = 'null'
       OR d -> 'hints' = 'null' AND jsonb_typeof(d -> 'hintsError') = 'string' AS hints_or_why
FROM scheduler.diagnosis('default', 'broken') d;

------------------------------------------------------------------------------
-- A stored diagnosis that cannot be read (written past the cycle by SQL):
-- an ERROR naming the pod and what is wrong (data_corrupted), never a
-- crash.  A group stored before 0.3 has no "reasons": its reason alone.
------------------------------------------------------------------------------
CREATE FUNCTION pg_temp.plant(diagnosis jsonb) RETURNS void LANGUAGE sql AS $$
    UPDATE scheduler.attempt_history h SET diagnosis = plant.diagnosis
    FROM scheduler.pod_attempts a WHERE a.history_id = h.id AND a.pod_uid = 'u-pinned'
$$;
\set VERBOSITY sqlstate
SELECT pg_temp.plant('[{"plugin": "X", "code": "Unschedulable", "reason": "r", "nodes": [1]}]');
SELECT scheduler.diagnosis('default', 'pinned');
\set VERBOSITY default
SELECT scheduler.diagnosis('default', 'pinned');
SELECT pg_temp.plant('{"x": 1}');
SELECT scheduler.diagnosis('default', 'pinned');
SELECT pg_temp.plant('[{"plugin": "X", "nodes": []}]');
SELECT scheduler.diagnosis('default', 'pinned');
SELECT pg_temp.plant('[{"plugin": "X", "code": "Unschedulable", "reason": "r", "nodes": [], "reasons": "r"}]');
SELECT scheduler.diagnosis('default', 'pinned');
SELECT pg_temp.plant('[{"plugin": "X", "code": "Unschedulable", "reason": "r, s", "nodes": ["a1"]}]');
SELECT pg_temp.doc('pinned') -> 'plugins' AS plugins;

------------------------------------------------------------------------------
-- pending_pods' last column is the document, and the view's message and
-- queue are the document's.  The column costs nothing when not selected:
-- the plan of a query without it calls no diagnosis() (the view is pulled
-- up into the query, diagnosis() being STABLE), so a document that cannot
-- be built (a stored diagnosis planted unreadable) fails only the queries
-- that select it.
------------------------------------------------------------------------------
SELECT count(*) AS pending,
       count(*) FILTER (WHERE v.diagnosis - 'hints' = scheduler.diagnosis(v.namespace, v.name) - 'hints') AS same_document,
       count(*) FILTER (WHERE v.message IS NOT DISTINCT FROM v.diagnosis ->> 'message') AS same_message,
       count(*) FILTER (WHERE v.queue IS NOT DISTINCT FROM v.diagnosis #>> '{pod,queue}') AS same_queue
FROM scheduler.pending_pods v;
SELECT attname, attnum FROM pg_attribute
WHERE attrelid = 'scheduler.pending_pods'::regclass AND attnum > 0 ORDER BY attnum DESC LIMIT 2;
CREATE FUNCTION pg_temp.plan_calls_diagnosis(query text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || query LOOP
        IF line LIKE '%diagnosis(%' THEN
            RETURN true;
        END IF;
    END LOOP;
    RETURN false;
END $$;
SELECT q, pg_temp.plan_calls_diagnosis(q) AS calls_diagnosis FROM (VALUES
    ('SELECT namespace, name, message FROM scheduler.pending_pods'),
    ('SELECT count(*) FROM scheduler.pending_pods'),
    ('SELECT name, diagnosis FROM scheduler.pending_pods')) v(q);
SELECT pg_temp.plant('[1]');
SELECT namespace, name, message FROM scheduler.pending_pods WHERE name = 'pinned';
SELECT count(*) FROM scheduler.pending_pods;
SELECT name, diagnosis FROM scheduler.pending_pods WHERE name = 'pinned';

-- Pods that fail alike in one call share one stored diagnosis, and the
-- same document is not built again (explain.c's DiagnosisToJsonbReusing);
-- pods whose groups have the same plugins, reasons and sizes but not the
-- same nodes each get their own: "away-b" is rejected by NodeAffinity on
-- b alone, "away-c" on c alone, then "away-c2" as "away-c".
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history;
SELECT scheduler.apply(jsonb_build_object('kind', 'Node', 'metadata',
    jsonb_build_object('name', z, 'labels', jsonb_build_object('zone', z)),
    'status', '{"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"}}'::jsonb)) AS applied
FROM unnest(ARRAY['a', 'b', 'c']) z;
SELECT pg_temp.pod(p, '8', '1Gi', jsonb_build_object('affinity', jsonb_build_object('nodeAffinity', jsonb_build_object(
    'requiredDuringSchedulingIgnoredDuringExecution', jsonb_build_object('nodeSelectorTerms', jsonb_build_array(
        jsonb_build_object('matchExpressions', jsonb_build_array(
            jsonb_build_object('key', 'zone', 'operator', 'NotIn', 'values', jsonb_build_array(z))))))))))
FROM (VALUES ('away-b', 'b'), ('away-c', 'c'), ('away-c2', 'c')) v(p, z);
SELECT name, result FROM schedule_pending() ORDER BY name;
SELECT * FROM pg_temp.doc_rows('away-b') ORDER BY 1, 2;
SELECT * FROM pg_temp.doc_rows('away-c') ORDER BY 1, 2;
SELECT * FROM pg_temp.doc_rows('away-c2') ORDER BY 1, 2;
SELECT h.name, h.diagnosis IS NOT NULL AS stored, o.name AS shares
FROM scheduler.attempt_history h LEFT JOIN scheduler.attempt_history o ON o.id = h.diagnosis_of
WHERE h.name LIKE 'away-%' ORDER BY h.name;

RESET scheduler.pod_initial_backoff;
RESET scheduler.pod_max_backoff;
