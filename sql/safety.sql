-- Safe to install in an inventory database (issue #11): each finding of the
-- review of 079d9e7, pinned.  Bad input is refused at the door as the API
-- server refuses it (22023, the object and field named, short); a row
-- planted past apply() (SQL can write the tables) fails its pod alone; no
-- crash, no escalation, no over-commit.
\set SHOW_CONTEXT never
-- (a seed under which ties fall as the outputs below show; a change to how
-- ties are drawn may need another)
SET scheduler.random_seed = 121;
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.namespaces, scheduler.workloads,
         scheduler.pdbs, scheduler.attempt_history;

CREATE FUNCTION pg_temp.try(stmt text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
    EXECUTE stmt INTO r;
    RETURN 'ok: ' || coalesce(r, 'NULL');
EXCEPTION WHEN OTHERS THEN
    RETURN 'ERROR ' || SQLSTATE || ': ' || SQLERRM;
END $$;
-- a node of 4 cpu, 8Gi and 110 pods
CREATE FUNCTION pg_temp.node(name text, memory text DEFAULT '8Gi') RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Node', 'metadata', jsonb_build_object('name', name,
        'labels', jsonb_build_object('kubernetes.io/hostname', name, 'topology.kubernetes.io/zone', 'z')),
        'status', jsonb_build_object('allocatable', jsonb_build_object('cpu', '4', 'memory', memory, 'pods', '110'))))
$$;
CREATE FUNCTION pg_temp.pod(name text, spec jsonb DEFAULT '{}', ns text DEFAULT 'default') RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Pod',
        'metadata', jsonb_build_object('name', name, 'namespace', ns, 'uid', 'u-' || name), 'spec', spec))
$$;
-- the pods of the last call, as a row each
CREATE FUNCTION pg_temp.run() RETURNS TABLE (name text, node text, result text, message text) LANGUAGE sql AS $$
    SELECT left(name, 20), node, result, left(message, 160) FROM schedule_pending() ORDER BY 1
$$;
SELECT pg_temp.node('a') + pg_temp.node('b') AS nodes;

------------------------------------------------------------------------------
-- 1. A controller reference without apiVersion, kind or name crashed
--    schedule_pending() (PodTopologySpread's default selector read them).
--    The API server refuses such a reference (ValidateOwnerReferences), and
--    so does apply().  Planted past apply(), the default selector finds no
--    controller in it and the pod is scheduled (kube-scheduler's
--    DefaultSelector finds no such workload either).
------------------------------------------------------------------------------
SELECT pg_temp.try($$SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "owned", "namespace": "default",
    "ownerReferences": [{"controller": true}]}}')$$);
SELECT pg_temp.try($$SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "owned", "namespace": "default",
    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "r", "uid": "1", "controller": true},
                        {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "s", "uid": "2", "controller": true}]}}')$$);
SELECT pg_temp.pod('owned');
UPDATE scheduler.pods SET object = jsonb_set(object, '{metadata,ownerReferences}',
    '[{"controller": true}, {"controller": true, "kind": 7, "name": null}]') WHERE name = 'owned';
SELECT * FROM pg_temp.run();

------------------------------------------------------------------------------
-- 2. PreScore ran after a failed PreFilter with no args and crashed
--    (score() of every node).  maxSkew "x" and "" are refused at the door;
--    planted, the PreFilter error is the pod's, and score() of every node
--    says which plugin failed.
------------------------------------------------------------------------------
SELECT pg_temp.try($$SELECT pg_temp.pod('skew', '{"topologySpreadConstraints": [{"maxSkew": "x",
    "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]}')$$);
SELECT pg_temp.try($$SELECT pg_temp.pod('skew', '{"topologySpreadConstraints": [{"maxSkew": "",
    "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]}')$$);
SELECT pg_temp.try($$SELECT pg_temp.pod('skew', '{"topologySpreadConstraints": [{"maxSkew": 0,
    "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]}')$$);
SELECT pg_temp.pod('skew');
UPDATE scheduler.pods SET object = jsonb_set(object, '{spec,topologySpreadConstraints}',
    '[{"maxSkew": "x", "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]') WHERE name = 'skew';
SELECT plugin, code, reason FROM scheduler.filter('default', 'skew') WHERE node IS NULL AND code <> 'Success';
SELECT pg_temp.try($$SELECT count(*) FROM scheduler.score('default', 'skew', false)$$);
-- spec null: nothing to read (the API server would default it); every stage runs
SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "nullspec", "namespace": "default"}, "spec": null}');
SELECT count(*) AS scores FROM scheduler.score('default', 'nullspec', false);
SELECT * FROM pg_temp.run();

------------------------------------------------------------------------------
-- 3. The functions called built-ins by name on the caller's search_path: a
--    public.power(int, int) that a database owner planted ran as the
--    superuser worker.  Every function of the extension runs with
--    search_path = pg_catalog, pg_temp; here a role with CREATE on public
--    plants look-alikes of what the extension calls (better matches than
--    the built-ins, or the same, for a path that names public first), and
--    none is ever called, whatever the caller's path.
------------------------------------------------------------------------------
CREATE ROLE regress_planter;
GRANT CREATE ON SCHEMA public TO regress_planter;
SET ROLE regress_planter;
CREATE TABLE public.planted_calls (fn text);
GRANT INSERT ON public.planted_calls TO PUBLIC;
CREATE FUNCTION public.planted(fn text) RETURNS void LANGUAGE sql
    AS $$ INSERT INTO public.planted_calls VALUES (fn) $$;
CREATE FUNCTION public.power(integer, integer) RETURNS double precision LANGUAGE sql
    AS $$ SELECT public.planted('power(int,int)'); SELECT 1::double precision $$;
CREATE FUNCTION public.power(double precision, double precision) RETURNS double precision LANGUAGE sql
    AS $$ SELECT public.planted('power(float8,float8)'); SELECT 1::double precision $$;
CREATE FUNCTION public.now() RETURNS timestamptz LANGUAGE sql
    AS $$ SELECT public.planted('now()'); SELECT pg_catalog.now() $$;
CREATE FUNCTION public.cardinality(text[]) RETURNS integer LANGUAGE sql
    AS $$ SELECT public.planted('cardinality(text[])'); SELECT 0 $$;
CREATE FUNCTION public.to_jsonb(text) RETURNS jsonb LANGUAGE sql
    AS $$ SELECT public.planted('to_jsonb(text)'); SELECT '"x"'::jsonb $$;
CREATE FUNCTION public.jsonb_build_object(text, text, text, text) RETURNS jsonb LANGUAGE sql
    AS $$ SELECT public.planted('jsonb_build_object(text x4)'); SELECT '{}'::jsonb $$;
CREATE FUNCTION public.array_to_string(text[], text) RETURNS text LANGUAGE sql
    AS $$ SELECT public.planted('array_to_string(text[],text)'); SELECT '' $$;
CREATE FUNCTION public.planted_eq(text, text) RETURNS boolean LANGUAGE sql
    AS $$ SELECT public.planted('=(text,text)'); SELECT $1 OPERATOR(pg_catalog.=) $2 $$;
CREATE OPERATOR public.= (LEFTARG = text, RIGHTARG = text, FUNCTION = public.planted_eq);
CREATE FUNCTION public.planted_mul(bigint, interval) RETURNS interval LANGUAGE sql
    AS $$ SELECT public.planted('*(bigint,interval)'); SELECT $2 $$;
CREATE OPERATOR public.* (LEFTARG = bigint, RIGHTARG = interval, FUNCTION = public.planted_mul);
RESET ROLE;
INSERT INTO scheduler.outbox (kind, pod_uid, namespace, name, node, body)
VALUES ('binding', 'u-sp', 'default', 'sp-1', 'a', '{}');
-- a superuser whose path names public first: apply, schedule (a failure
-- computes a backoff with power(), an attempt stores a time), explain,
-- relist, write the queue through the triggers, and the views
SET search_path = public, pg_catalog;
SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "sp-1", "namespace": "default"},
    "spec": {"schedulingGates": [{"name": "g"}], "containers": [{"name": "c", "resources": {"requests": {"cpu": "64"}}}]}}');
SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "sp-1", "namespace": "default"},
    "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "64"}}}]}}');
SELECT scheduler.apply_events(ARRAY['{"type": "ADDED", "object": {"kind": "Pod", "metadata": {"name": "sp-2", "namespace": "default"}}}'::jsonb]);
SELECT count(*) FROM schedule_pending();
SELECT count(*) FROM scheduler.filter('default', 'sp-1');
SELECT count(*) FROM scheduler.score('default', 'sp-1', false);
SELECT count(*) FROM scheduler.why('default', 'sp-1');
SELECT count(*) FROM scheduler.pending_pods;
SELECT count(*) FROM scheduler.node_usage;
SELECT count(*) FROM scheduler.metrics_latency;
SELECT scheduler.relist('{"kind": "NodeList", "metadata": {"resourceVersion": "7"}, "items": [
    {"metadata": {"name": "a"}, "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}]}');
SELECT scheduler.outbox_result((SELECT max(id) FROM scheduler.outbox), 500);
RESET search_path;
SELECT fn, count(*) FROM public.planted_calls GROUP BY fn;
SELECT count(*) AS calls FROM public.planted_calls;
DROP TABLE public.planted_calls;
DROP FUNCTION public.power(integer, integer), public.power(double precision, double precision), public.now(),
    public.cardinality(text[]), public.to_jsonb(text), public.jsonb_build_object(text, text, text, text),
    public.array_to_string(text[], text), public.planted_eq(text, text), public.planted_mul(bigint, interval) CASCADE;
DROP FUNCTION public.planted(text);
REVOKE CREATE ON SCHEMA public FROM regress_planter;
DROP ROLE regress_planter;
SELECT pg_temp.node('b');
DELETE FROM scheduler.pods WHERE name LIKE 'sp-%';
DELETE FROM scheduler.outbox;
-- 'owned', assumed on b, was forgotten when the relist left b out: it is
-- back in the queue in backoff, as kube-scheduler hands back a pod whose
-- binding failed; its backoff is cut short so that the next call places it
UPDATE scheduler.queue SET backoff_until = now() WHERE pod_uid = 'u-owned' AND state = 'backoff';

------------------------------------------------------------------------------
-- 4. Sums of requests wrapped around: three containers of 5Ei summed to a
--    small number, 2^63 GPUs fit on a 2-GPU node, an overhead of 7Ei made a
--    node's request negative.  A pod's own total out of int64 is refused at
--    the door (each quantity alone is valid, as the API server admits it).
------------------------------------------------------------------------------
SELECT pg_temp.try($$SELECT pg_temp.pod('huge', '{"containers": [
    {"name": "a", "resources": {"requests": {"memory": "5Ei"}}},
    {"name": "b", "resources": {"requests": {"memory": "5Ei"}}},
    {"name": "c", "resources": {"requests": {"memory": "5Ei"}}}]}')$$);
SELECT pg_temp.try($$SELECT pg_temp.pod('huge', '{"containers": [{"name": "a",
    "resources": {"requests": {"nvidia.com/gpu": "9223372036854775808"}, "limits": {"nvidia.com/gpu": "9223372036854775808"}}}]}')$$);
SELECT pg_temp.try($$SELECT pg_temp.pod('huge', '{"containers": [
    {"name": "a", "resources": {"requests": {"nvidia.com/gpu": "4611686018427387904"}, "limits": {"nvidia.com/gpu": "4611686018427387904"}}},
    {"name": "b", "resources": {"requests": {"nvidia.com/gpu": "4611686018427387904"}, "limits": {"nvidia.com/gpu": "4611686018427387904"}}}]}')$$);
SELECT pg_temp.try($$SELECT pg_temp.pod('huge', '{"overhead": {"memory": "7Ei"},
    "containers": [{"name": "a", "resources": {"requests": {"memory": "2Ei"}}}]}')$$);
-- Pods bound by the API server are what they are: two of 5Ei on an 8Gi node.
-- The node's sum stops at the int64 limit instead of wrapping, so nothing
-- more fits there; when one goes, the sum is counted again from its pods.
SELECT pg_temp.node('big');
SELECT pg_temp.pod('bound-1', '{"nodeName": "big", "containers": [{"name": "a", "resources": {"requests": {"memory": "5Ei"}}}]}');
SELECT pg_temp.pod('bound-2', '{"nodeName": "big", "containers": [{"name": "a", "resources": {"requests": {"memory": "5Ei"}}}]}');
SELECT node, requested->'memory' AS memory FROM scheduler.snapshot() WHERE node = 'big';
SELECT pg_temp.pod('small', '{"containers": [{"name": "a", "resources": {"requests": {"memory": "24Gi"}}}]}');
SELECT * FROM pg_temp.run();
SELECT scheduler.apply(jsonb_build_object('type', 'DELETED', 'object', object)) FROM scheduler.pods WHERE name = 'bound-2';
SELECT node, requested->'memory' AS memory FROM scheduler.snapshot() WHERE node = 'big';
DELETE FROM scheduler.pods WHERE name IN ('bound-1', 'small');

------------------------------------------------------------------------------
-- 5. One bad pod stopped all scheduling: a long legal name got a uid over
--    63 bytes (PodRef.uid[64]), a weight of 1e19 failed every cycle with
--    "bigint out of range", naming no pod.  Names and uids of any legal
--    length work everywhere; a weight out of 1-100 is refused at the door,
--    and planted, fails its pod alone.
------------------------------------------------------------------------------
SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "web-frontend-deployment-with-a-long-name-5d8f7c9b6-abcde",
    "namespace": "production"}}');
SELECT uid, length(uid) FROM scheduler.pods WHERE namespace = 'production';
-- the longest: a 253-character name in a 63-character namespace, its uid made of them
SELECT scheduler.apply(jsonb_build_object('kind', 'Pod', 'metadata', jsonb_build_object('namespace', repeat('n', 63),
    'name', repeat('a', 63) || '.' || repeat('b', 63) || '.' || repeat('c', 63) || '.' || repeat('d', 61))));
SELECT length(name), length(namespace), length(uid) FROM scheduler.pods WHERE namespace = repeat('n', 63);
SELECT * FROM pg_temp.run();
SELECT count(*) AS nodes_filtered FROM scheduler.filter(repeat('n', 63),
    repeat('a', 63) || '.' || repeat('b', 63) || '.' || repeat('c', 63) || '.' || repeat('d', 61))
WHERE plugin = 'NodeResourcesFit' AND node IS NOT NULL;
SELECT pg_temp.try($$SELECT pg_temp.pod('heavy', '{"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    {"weight": 1e19, "preference": {"matchExpressions": [{"key": "zone", "operator": "Exists"}]}}]}}}')$$);
SELECT pg_temp.try($$SELECT pg_temp.pod('light', '{"affinity": {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    {"weight": -1, "podAffinityTerm": {"topologyKey": "zone", "labelSelector": {"matchLabels": {"a": "b"}}}}]}}}')$$);
SELECT pg_temp.pod('heavy'), pg_temp.pod('light'), pg_temp.pod('fine');
UPDATE scheduler.pods SET affinity = '{"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    {"weight": 1e19, "preference": {"matchExpressions": [{"key": "zone", "operator": "Exists"}]}}]}}' WHERE name = 'heavy';
UPDATE scheduler.pods SET affinity = '{"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    {"weight": -1, "podAffinityTerm": {"topologyKey": "zone", "labelSelector": {"matchLabels": {"a": "b"}}}}]}}' WHERE name = 'light';
SELECT * FROM pg_temp.run();
SELECT name, queue, attempts FROM scheduler.pending_pods WHERE name IN ('heavy', 'light') ORDER BY name;
SELECT pg_temp.try($$SELECT count(*) FROM scheduler.score('default', 'light')$$);

------------------------------------------------------------------------------
-- A stored row that cannot be read at all (requests not a map of integers,
-- a negative request): that pod fails alone, with backoff, saying which
-- column; a bound pod's bad row counts what can be read, with a WARNING.
------------------------------------------------------------------------------
SELECT pg_temp.pod('garbled'), pg_temp.pod('ok');
UPDATE scheduler.pods SET requests = '{"cpu": "lots", "memory": -5}' WHERE name = 'garbled';
SELECT * FROM pg_temp.run();
SELECT pg_temp.try($$SELECT count(*) FROM scheduler.filter('default', 'garbled')$$);
UPDATE scheduler.pods SET node_name = 'a', requests = '[1, 2]' WHERE name = 'garbled';
SELECT node, pods FROM scheduler.snapshot() WHERE node = 'a';
DELETE FROM scheduler.pods WHERE name = 'garbled';

------------------------------------------------------------------------------
-- 8. Smaller: a 300 KB name is refused with a short message; RFC 3339 times
--    only ("yesterday", "epoch" and "infinity" were taken); PodTopologySpread's
--    defaultConstraints are validated, and unknown args fields refused as
--    kube-scheduler decodes its configuration strictly.
------------------------------------------------------------------------------
SELECT length(pg_temp.try(format($$SELECT pg_temp.pod(%L)$$, repeat('x', 300000)))) < 300 AS short,
       left(pg_temp.try(format($$SELECT pg_temp.pod(%L)$$, repeat('x', 300000))), 120) AS message;
SELECT pg_temp.try(format($$SELECT scheduler.apply('{"kind": "Node", "metadata": {"name": "t",
    "creationTimestamp": %s}}')$$, t))
FROM unnest(ARRAY['"yesterday"', '"epoch"', '"infinity"', '"2024-01-02 03:04:05Z"', '"2024-02-30T00:00:00Z"',
                  '"2024-01-02T24:00:00Z"', '"2024-01-02T03:04:05"', '"2024-01-02T03:04:05+0100"', '17']) t;
SELECT scheduler.apply('{"kind": "Node", "metadata": {"name": "t", "creationTimestamp": "2024-02-29T12:00:00.5+02:00"}}');
SELECT created_at AT TIME ZONE 'UTC' AS created_utc FROM scheduler.nodes WHERE name = 't';
SELECT pg_temp.try($$SELECT scheduler.check_plugin('PodTopologySpread', '{"defaultingType": "List",
    "defaultConstraints": [{"maxSkew": "x", "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]}')$$);
SELECT pg_temp.try($$SELECT scheduler.check_plugin('PodTopologySpread', '{"defaultingType": "List",
    "defaultConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
                            "labelSelector": {}}]}')$$);
SELECT pg_temp.try(format($$SELECT scheduler.check_plugin(%L, '{"typo": 1}')$$, p))
FROM unnest(ARRAY['NodeResourcesFit', 'NodeResourcesBalancedAllocation', 'NodeAffinity', 'InterPodAffinity',
                  'PodTopologySpread', 'TaintToleration']) p;
SELECT pg_temp.try($$SELECT scheduler.check_plugin('NodeResourcesFit', '{"scoringStrategy": {"type": "LeastAllocated", "resources": [{"name": "cpu", "weight": 1, "wieght": 2}]}}')$$);


------------------------------------------------------------------------------
-- 9. Found by test/fuzz/sqlfuzz.py after the fixes above:
--    a. a node row with a column SQL NULL (planted) crashed the node-event
--       hint when the row changed; the hints read it as absent;
--    b. one apply_events() batch with two uids under one name (a pod deleted
--       and made again) failed on the (namespace, name) key: the later is
--       the pod;
--    c. schedulerName has no length limit in the API: a long one was refused
--       by a btree index entry;
--    d. names in args errors were echoed whole (80 KB);
--    e. node_usage and snapshot_from_tables failed on a planted row that is
--       not an object of numbers (the loaders skip it; so do the views).
------------------------------------------------------------------------------
SELECT pg_temp.pod('waiting', '{"containers": [{"name": "c", "resources": {"requests": {"cpu": "100"}}}]}');
SELECT count(*) FROM schedule_pending();
SELECT pg_temp.pod('bound', '{"nodeName": "b"}');
UPDATE scheduler.nodes SET labels = 'null', taints = 'null', allocatable = 'null' WHERE name = 'b';
UPDATE scheduler.nodes SET labels = '{"x": "y"}', taints = '[]',
       allocatable = '{"cpu": 4000, "memory": 8589934592, "pods": 110}' WHERE name = 'b';
UPDATE scheduler.nodes SET labels = 'null', taints = 'null', allocatable = 'null' WHERE name = 'b';
UPDATE scheduler.pods SET labels = 'null' WHERE name = 'bound';
UPDATE scheduler.pods SET labels = '{"app": "x"}' WHERE name = 'bound';
UPDATE scheduler.pods SET labels = 'null' WHERE name = 'bound';
SELECT name, labels, taints FROM scheduler.nodes WHERE name = 'b';
SELECT p.name, q.state FROM scheduler.queue q JOIN scheduler.pods p ON p.uid = q.pod_uid WHERE p.name = 'waiting';
DELETE FROM scheduler.pods WHERE name IN ('waiting', 'bound');

SELECT scheduler.apply_events(ARRAY[
    '{"type": "ADDED", "object": {"kind": "Pod", "metadata": {"name": "again", "namespace": "default", "uid": "u-1"}, "spec": {}}}',
    '{"type": "ADDED", "object": {"kind": "Pod", "metadata": {"name": "again", "namespace": "default", "uid": "u-2"}, "spec": {}}}'
]::jsonb[]) AS changed;
SELECT uid FROM scheduler.pods WHERE name = 'again';
DELETE FROM scheduler.pods WHERE name = 'again';

SELECT pg_temp.try(format($$SELECT scheduler.apply(%L)$$, jsonb_build_object('kind', 'Pod',
    'metadata', jsonb_build_object('name', 'other-scheduler', 'namespace', 'default'),
    'spec', jsonb_build_object('schedulerName', repeat('s', 300000)))));
SELECT length(scheduler_name) FROM scheduler.pods WHERE name = 'other-scheduler';
SELECT count(*) FROM schedule_pending();
DELETE FROM scheduler.pods WHERE name = 'other-scheduler';

SELECT left(pg_temp.try(format($$SELECT scheduler.check_plugin(%L, '{}')$$, repeat('P', 80000))), 160) AS unknown_plugin;
SELECT length(pg_temp.try(format($$SELECT scheduler.check_plugin('NodeAffinity', %L)$$,
    jsonb_build_object('addedAffinity', jsonb_build_object('preferredDuringSchedulingIgnoredDuringExecution',
        jsonb_build_array(jsonb_build_object('weight', 1, 'preference', jsonb_build_object('matchExpressions',
            jsonb_build_array(jsonb_build_object('key', 'k', 'operator', repeat('a/', 40000))))))))))) < 400 AS short;
SELECT length(pg_temp.try(format($$SELECT scheduler.check_plugin('NodeResourcesFit', %L)$$,
    jsonb_build_object('scoringStrategy', jsonb_build_object('type', repeat('T', 80000)))))) < 400 AS short;

SELECT pg_temp.pod('planted', '{"nodeName": "a"}');
UPDATE scheduler.pods SET requests = '{"cpu": "lots", "memory": [1]}' WHERE name = 'planted';
UPDATE scheduler.nodes SET allocatable = '"4 cpus"' WHERE name = 'b';
SELECT node, resource, allocatable, requested FROM scheduler.node_usage ORDER BY 1, 2;
SELECT node, requested, pods FROM scheduler.snapshot_from_tables ORDER BY 1;
UPDATE scheduler.pods SET requests = '[1]' WHERE name = 'planted';
SELECT node, requested, pods FROM scheduler.snapshot_from_tables ORDER BY 1;

TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history;

------------------------------------------------------------------------------
-- 9f. (sqlfuzz, the sanitized build) A budget planted with
--     disruptions_allowed at the int32 minimum: taking one more disruption
--     from it overflowed (UBSan), and wrapped to the maximum in the stock
--     build, so the budget's pod became the cheap victim.  A budget below
--     zero stays violated, as kube-scheduler's pdbsAllowed[i]-- then < 0:
--     the node whose victim no budget guards is picked, although its victim
--     has the higher priority (the same choice as sql/preemption's).
------------------------------------------------------------------------------
SELECT pg_temp.node('p1') + pg_temp.node('p2') AS nodes;
SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "guarded", "namespace": "default", "uid": "u-guarded",
    "labels": {"app": "db"}}, "spec": {"nodeName": "p1", "priority": 0,
    "containers": [{"name": "c", "resources": {"requests": {"cpu": "4"}}}]}}');
SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "other", "namespace": "default", "uid": "u-other"},
    "spec": {"nodeName": "p2", "priority": 10, "containers": [{"name": "c", "resources": {"requests": {"cpu": "4"}}}]}}');
SELECT scheduler.apply('{"kind": "PodDisruptionBudget", "apiVersion": "policy/v1",
    "metadata": {"name": "db", "namespace": "default", "uid": "pdb-db"},
    "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "db"}}},
    "status": {"disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1}}');
UPDATE scheduler.pdbs SET disruptions_allowed = -2147483648 WHERE name = 'db';
SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "vip", "namespace": "default", "uid": "u-vip"},
    "spec": {"priority": 1000, "containers": [{"name": "c", "resources": {"requests": {"cpu": "4"}}}]}}');
SELECT * FROM pg_temp.run();
SELECT p.name, q.nominated_node FROM scheduler.queue q JOIN scheduler.pods p ON p.uid = q.pod_uid WHERE p.name = 'vip';
SELECT name, coalesce(node_name, assumed_node) AS node FROM scheduler.pods ORDER BY 1;
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history, scheduler.pdbs;

------------------------------------------------------------------------------
-- 9g. (review) Bookkeeping planted at its edges: a node search start of
--     INT_MAX overflowed (the stock build then read cand[-1]); attempt
--     counts at INT_MAX and a -infinity time made the write-back throw, so
--     every call failed while that pod was in it; an outbox row at INT_MAX
--     attempts made outbox_result() throw, so the bind worker's record of a
--     whole batch failed and it sent the batch again forever.  Counts stop
--     at the int4 maximum; the start is taken modulo the nodes.
------------------------------------------------------------------------------
SELECT pg_temp.node('q1') + pg_temp.node('q2') AS nodes;
SELECT pg_temp.pod('edge-big', '{"containers": [{"name": "c", "resources": {"requests": {"cpu": "100"}}}]}');
SELECT * FROM pg_temp.run();
UPDATE scheduler.cycle_lock SET next_start_node_index = 2147483647;
UPDATE scheduler.queue SET attempts = 2147483647, internal_errors = 2147483647, moved_at = '-infinity', state = 'active'
WHERE pod_uid = 'u-edge-big';
UPDATE scheduler.pod_attempts SET attempts = 2147483647 WHERE pod_uid = 'u-edge-big';
SELECT pg_temp.pod('edge-1', '{"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}')
     + pg_temp.pod('edge-2', '{"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}') AS pods;
SELECT * FROM pg_temp.run();
SELECT q.attempts, q.internal_errors, a.attempts AS pod_attempts
FROM scheduler.queue q JOIN scheduler.pod_attempts a USING (pod_uid) WHERE pod_uid = 'u-edge-big';
SELECT next_start_node_index BETWEEN 0 AND 1 AS start_in_range FROM scheduler.cycle_lock;
SELECT queue_wait IS NULL AS no_wait_from_minus_infinity FROM scheduler.attempt_history
WHERE pod_uid = 'u-edge-big' ORDER BY id DESC LIMIT 1;
INSERT INTO scheduler.outbox (kind, pod_uid, namespace, name, body, attempts, next_attempt_at)
VALUES ('binding', 'u-edge-big', 'default', 'edge-big', '{}', 2147483647, '-infinity');
SELECT scheduler.outbox_result(id, 503) FROM scheduler.outbox WHERE pod_uid = 'u-edge-big';
SELECT state, attempts, last_error FROM scheduler.outbox WHERE pod_uid = 'u-edge-big';
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history, scheduler.outbox;
UPDATE scheduler.cycle_lock SET next_start_node_index = 0;
