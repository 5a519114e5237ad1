-- PodTopologySpread through whole scheduling cycles, as kube-scheduler's
-- podtopologyspread plugin behaves (filtering.go, scoring.go, plugin.go's
-- QueueingHints), on per-node counts that topology.c keeps current.
\set SHOW_CONTEXT never
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history;
SET scheduler.pod_initial_backoff = 0;
SET scheduler.pod_max_backoff = 0;

CREATE FUNCTION pg_temp.node(name text, zone text, taints jsonb DEFAULT '[]') RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Node',
        'metadata', jsonb_build_object('name', name, 'labels',
            jsonb_build_object('kubernetes.io/hostname', name, 'topology.kubernetes.io/zone', zone)),
        'spec', jsonb_build_object('taints', taints),
        'status', jsonb_build_object('allocatable', jsonb_build_object('cpu', '8', 'memory', '16Gi', 'pods', '110'))))
$$;
CREATE FUNCTION pg_temp.pod(name text, labels jsonb, spec jsonb DEFAULT '{}', ns text DEFAULT 'default')
RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Pod',
        'metadata', jsonb_build_object('name', name, 'namespace', ns, 'uid', ns || '/' || name, 'labels', labels),
        'spec', jsonb_build_object('containers', jsonb_build_array(jsonb_build_object('name', 'c',
                'resources', jsonb_build_object('requests', jsonb_build_object('cpu', '100m'))))) || spec))
$$;
-- one spread constraint on app=<app>
CREATE FUNCTION pg_temp.spread(app text, key text, when_unsatisfiable text DEFAULT 'DoNotSchedule',
                               extra jsonb DEFAULT '{}') RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_build_object('topologySpreadConstraints', jsonb_build_array(jsonb_build_object(
        'maxSkew', 1, 'topologyKey', key, 'whenUnsatisfiable', when_unsatisfiable,
        'labelSelector', jsonb_build_object('matchLabels', jsonb_build_object('app', app))) || extra))
$$;
CREATE FUNCTION pg_temp.delete_pod(pod_name text) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('type', 'DELETED', 'object', object))
    FROM scheduler.pods WHERE name = pod_name
$$;
CREATE VIEW pg_temp.per_zone AS
    SELECT p.labels->>'app' AS app, n.labels->>'topology.kubernetes.io/zone' AS zone, count(*) AS pods
    FROM scheduler.pods p JOIN scheduler.nodes n ON n.name = coalesce(p.node_name, p.assumed_node)
    GROUP BY 1, 2 ORDER BY 1, 2;
CREATE VIEW pg_temp.q AS
    SELECT p.name, q.state, q.rejected_by, q.moved_by
    FROM scheduler.queue q JOIN scheduler.pods p ON p.uid = q.pod_uid ORDER BY p.name;

SELECT pg_temp.node('n1', 'a'), pg_temp.node('n2', 'a'), pg_temp.node('n3', 'b');

------------------------------------------------------------------------------
-- maxSkew 1 over zones: six pods in one call go three and three, each
-- assumed pod counting for the next (a zone two ahead is refused).
------------------------------------------------------------------------------
SELECT pg_temp.pod('s-' || i, '{"app": "s"}', pg_temp.spread('s', 'topology.kubernetes.io/zone'))
FROM generate_series(1, 6) i;
SELECT count(*) FILTER (WHERE result = 'scheduled') AS scheduled FROM schedule_pending();
SELECT * FROM pg_temp.per_zone;

-- a node without the constraint's key is UnschedulableAndUnresolvable
SELECT pg_temp.pod('racked', '{"app": "s"}', pg_temp.spread('s', 'rack'));
SELECT node, code, reason FROM scheduler.filter('default', 'racked')
WHERE plugin = 'PodTopologySpread' ORDER BY node NULLS FIRST;

------------------------------------------------------------------------------
-- nodeTaintsPolicy.  Zone c has only a tainted node.  Ignored (the
-- default), zone c counts as a domain with no pods, the global minimum is
-- 0 and zones a and b (3 pods) are too far ahead; honoured, zone c is not a
-- domain and they are not.  (TaintToleration, not this plugin, keeps the
-- pod off n4.)  minDomains 3 with two domains left makes the minimum 0
-- again.
------------------------------------------------------------------------------
SELECT pg_temp.node('n4', 'c', '[{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]');
SELECT pg_temp.pod('t-ignore', '{"app": "s"}', pg_temp.spread('s', 'topology.kubernetes.io/zone'));
SELECT pg_temp.pod('t-honor', '{"app": "s"}', pg_temp.spread('s', 'topology.kubernetes.io/zone', 'DoNotSchedule',
    '{"nodeTaintsPolicy": "Honor"}'));
SELECT pg_temp.pod('t-min3', '{"app": "s"}', pg_temp.spread('s', 'topology.kubernetes.io/zone', 'DoNotSchedule',
    '{"nodeTaintsPolicy": "Honor", "minDomains": 3}'));
SELECT f.node, f.code, f.reason, t.code AS honor, m.code AS min3
FROM scheduler.filter('default', 't-ignore') f
JOIN scheduler.filter('default', 't-honor') t USING (node, plugin)
JOIN scheduler.filter('default', 't-min3') m USING (node, plugin)
WHERE f.plugin = 'PodTopologySpread' AND f.node IS NOT NULL ORDER BY f.node;
-- with the gate off, taints never count (the legacy behaviour)
SET scheduler.feature_gates = 'NodeInclusionPolicyInPodTopologySpread=false';
SELECT node, code FROM scheduler.filter('default', 't-honor')
WHERE plugin = 'PodTopologySpread' AND node IS NOT NULL ORDER BY node;
RESET scheduler.feature_gates;

------------------------------------------------------------------------------
-- QueueingHints (isSchedulableAfterPodChange).  h-new may only go to n1
-- (nodeSelector), and nodeAffinityPolicy Ignore counts every node: n1 has
-- two h pods, n2 and n3 one, n4 (taints honoured) is out, so n1 is two
-- ahead of the minimum.  A pod of another app added, or an h pod deleted in
-- another namespace, does not help; an h pod deleted from n1 does.
------------------------------------------------------------------------------
SELECT pg_temp.pod('h-1', '{"app": "h"}', '{"nodeName": "n1"}'), pg_temp.pod('h-2', '{"app": "h"}', '{"nodeName": "n1"}'),
       pg_temp.pod('h-3', '{"app": "h"}', '{"nodeName": "n2"}'), pg_temp.pod('h-4', '{"app": "h"}', '{"nodeName": "n3"}'),
       pg_temp.pod('h-5', '{"app": "h"}', '{"nodeName": "n3"}', 'elsewhere');
SELECT pg_temp.pod('h-new', '{"app": "h"}', pg_temp.spread('h', 'kubernetes.io/hostname', 'DoNotSchedule',
    '{"nodeAffinityPolicy": "Ignore", "nodeTaintsPolicy": "Honor"}') || '{"nodeSelector": {"kubernetes.io/hostname": "n1"}}');
SELECT name, result, message FROM schedule_pending() WHERE name = 'h-new';
SELECT * FROM pg_temp.q WHERE name = 'h-new';
SELECT pg_temp.pod('other', '{"app": "other"}', '{"nodeName": "n1"}');
SELECT pg_temp.delete_pod('h-5');
SELECT * FROM pg_temp.q WHERE name = 'h-new';
SELECT pg_temp.delete_pod('h-1');
SELECT * FROM pg_temp.q WHERE name = 'h-new';
SELECT name, node, result FROM schedule_pending() WHERE name = 'h-new';

------------------------------------------------------------------------------
-- Constraints that do not parse: the cycle fails for the pod with an Error
-- (kube-scheduler's PreFilter error).  The API server refuses such a pod,
-- and so does apply(); kube-scheduler's test feeds one anyway, so the row is
-- planted here past apply(), as SQL can.
------------------------------------------------------------------------------
SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "bad", "namespace": "default", "uid": "default/bad",
    "labels": {"app": "s"}}, "spec": {"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone",
    "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchExpressions": [{"key": "app", "operator": "In"}]}}]}}');
SELECT pg_temp.pod('bad', '{"app": "s"}');
UPDATE scheduler.pods SET object = jsonb_set(object, '{spec,topologySpreadConstraints}',
    '[{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
       "labelSelector": {"matchExpressions": [{"key": "app", "operator": "In"}]}}]')
WHERE name = 'bad';
SELECT node, code, reason FROM scheduler.filter('default', 'bad') WHERE plugin = 'PodTopologySpread' AND node IS NULL;

------------------------------------------------------------------------------
-- The system default constraints (defaultingType System): a pod without
-- constraints of its own, selected by a Service (or owned by a
-- ReplicationController, ReplicaSet or StatefulSet), spreads ScheduleAnyway
-- over hostname (maxSkew 3) and zone (maxSkew 5), with DefaultSelector's
-- selector.  Two web pods on m1; m1 and m2 in zone a, m3 in zone b:
--   hostname weight ln(3 + 2), zone weight ln(2 + 2);
--   m1: 2*1.609 + 2 + 2*1.386 + 4 = 12, m2: 0 + 2 + 2*1.386 + 4 = 9, m3: 6;
--   normalized 100 * (12 + 6 - s) / 12: 50, 75, 100.
------------------------------------------------------------------------------
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history, scheduler.workloads;
SELECT pg_temp.node('m1', 'a'), pg_temp.node('m2', 'a'), pg_temp.node('m3', 'b');
SELECT pg_temp.pod('web-a', '{"app": "web"}', '{"nodeName": "m1"}'), pg_temp.pod('web-b', '{"app": "web"}', '{"nodeName": "m1"}');
SELECT pg_temp.pod('web-new', '{"app": "web"}');
-- no Service selects it yet: nothing to spread by
SELECT node, raw FROM scheduler.score('default', 'web-new') WHERE plugin = 'PodTopologySpread';
SELECT scheduler.apply('{"kind": "Service", "apiVersion": "v1", "metadata": {"name": "web", "namespace": "default"},
    "spec": {"selector": {"app": "web"}}}');
SELECT node, raw, normalized FROM scheduler.score('default', 'web-new') WHERE plugin = 'PodTopologySpread' ORDER BY node;
-- a Service in another namespace, or with no selector, selects nothing here
DELETE FROM scheduler.workloads;
SELECT scheduler.apply('{"kind": "List", "items": [
    {"kind": "Service", "metadata": {"name": "web", "namespace": "other"}, "spec": {"selector": {"app": "web"}}},
    {"kind": "Service", "metadata": {"name": "headless", "namespace": "default"}, "spec": {}}]}');
SELECT node, raw FROM scheduler.score('default', 'web-new') WHERE plugin = 'PodTopologySpread';
-- owned by a ReplicaSet (its controller): its selector
SELECT scheduler.apply('{"kind": "ReplicaSet", "apiVersion": "apps/v1", "metadata": {"name": "web-7f9", "namespace": "default"},
    "spec": {"selector": {"matchLabels": {"app": "web"}}}}');
SELECT scheduler.apply(jsonb_set(object, '{metadata,ownerReferences}',
    '[{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-7f9", "uid": "rs-1", "controller": true}]'))
FROM scheduler.pods WHERE name = 'web-new';
SELECT node, raw, normalized FROM scheduler.score('default', 'web-new') WHERE plugin = 'PodTopologySpread' ORDER BY node;
-- a node without a zone is still scored by hostname (the system defaults do
-- not require every key): m4 has no zone label
SELECT scheduler.apply('{"kind": "Node", "metadata": {"name": "m4", "labels": {"kubernetes.io/hostname": "m4"}},
    "status": {"allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110"}}}');
SELECT node, raw FROM scheduler.score('default', 'web-new') WHERE plugin = 'PodTopologySpread' ORDER BY node;
-- m4 joins zone b: its domain follows its labels (zone weight ln(2 + 2),
-- hostname ln(4 + 2): m1 12, m2 9, m3 6, m4 2 + 0 + 4 = 6); a status
-- update that leaves the labels alone keeps them
SELECT scheduler.apply(jsonb_set(object, '{metadata,labels}', object->'metadata'->'labels' || '{"topology.kubernetes.io/zone": "b"}'))
FROM scheduler.nodes WHERE name = 'm4';
SELECT scheduler.apply(jsonb_set(object, '{status,allocatable,cpu}', '"9"')) FROM scheduler.nodes WHERE name = 'm4';
SELECT node, raw FROM scheduler.score('default', 'web-new') WHERE plugin = 'PodTopologySpread' ORDER BY node;
-- a selector that does not parse is refused, naming the field
SELECT scheduler.apply('{"kind": "Service", "metadata": {"name": "bad", "namespace": "default"}, "spec": {"selector": ["app"]}}');
SELECT scheduler.relist('{"kind": "ServiceList", "metadata": {"resourceVersion": "3"}, "items": []}');
SELECT kind, name FROM scheduler.workloads ORDER BY 1, 2;
DELETE FROM scheduler.watch_state WHERE resource = 'services';

------------------------------------------------------------------------------
-- A node that comes after the pods bound to it.  late-1 is bound to k2
-- before k2 exists: it counts in no domain (kube-scheduler's cache keeps a
-- pod whose node it has not seen, and the snapshot lists only nodes that
-- exist), then k2 arrives and its pods join their domains (node_load).  The
-- per-node counts of the probe's constraint set must outlive the call that
-- grew them there: they were once allocated in that call's memory, and read
-- back as garbage by the next calls (an invalid score, or a crash once
-- written to).  ScheduleAnyway over hostname: raw = pods * ln(2 nodes + 2),
-- rounded.
------------------------------------------------------------------------------
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history, scheduler.workloads;
SELECT pg_temp.node('k1', 'a');
SELECT pg_temp.pod('late-probe', '{"app": "late"}', pg_temp.spread('late', 'kubernetes.io/hostname', 'ScheduleAnyway'));
-- the constraint set is made while no pod matches it
SELECT node, raw FROM scheduler.score('default', 'late-probe') WHERE plugin = 'PodTopologySpread' ORDER BY node;
SELECT pg_temp.pod('late-1', '{"app": "late"}', '{"nodeName": "k2"}');
SELECT node, raw FROM scheduler.score('default', 'late-probe') WHERE plugin = 'PodTopologySpread' ORDER BY node;
SELECT pg_temp.node('k2', 'a');
SELECT node, raw FROM scheduler.score('default', 'late-probe') WHERE plugin = 'PodTopologySpread' ORDER BY node;
SELECT node, raw FROM scheduler.score('default', 'late-probe') WHERE plugin = 'PodTopologySpread' ORDER BY node;
SELECT pg_temp.pod('late-2', '{"app": "late"}', '{"nodeName": "k1"}'), pg_temp.pod('late-3', '{"app": "late"}', '{"nodeName": "k1"}');
SELECT node, raw FROM scheduler.score('default', 'late-probe') WHERE plugin = 'PodTopologySpread' ORDER BY node;
SELECT node, raw FROM scheduler.score('default', 'late-probe') WHERE plugin = 'PodTopologySpread' ORDER BY node;

------------------------------------------------------------------------------
-- Pods nominated to a node (preemption made room for them there) count in
-- its domain for the pods of their priority or lower, as kube-scheduler's
-- RunFilterPluginsWithNominatedPods counts them through the plugin's AddPod
-- (updateWithPod: of the pod's namespace, matching the selector, the
-- domain's count and the critical paths' minimum updated).  nom (app s,
-- gated so that no cycle places it) is nominated to h1:
--   * s-low (priority 0): h1 holds 1 with nom, h2 0: skew 2, rejected;
--   * s-high (priority 1000) does not count nom: h1 passes;
--   * s-other (namespace other, of the same labels) does not count it.
-- Then with h2 and h3 holding one each, h1 holds 1 with nom: the minimum is
-- 1, no longer h1's 0, and s-low passes h1 (skew 1); with the minimum left
-- at 0 it would be rejected.
------------------------------------------------------------------------------
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history, scheduler.workloads;
SELECT pg_temp.node('h1', 'a'), pg_temp.node('h2', 'b');
SELECT pg_temp.pod('nom', '{"app": "s"}', '{"priority": 100, "schedulingGates": [{"name": "hold"}]}');
UPDATE scheduler.queue SET nominated_node = 'h1' WHERE pod_uid = 'default/nom';
SELECT pg_temp.pod('s-low', '{"app": "s"}', pg_temp.spread('s', 'kubernetes.io/hostname') || '{"priority": 0}');
SELECT pg_temp.pod('s-high', '{"app": "s"}', pg_temp.spread('s', 'kubernetes.io/hostname') || '{"priority": 1000}');
SELECT pg_temp.pod('s-other', '{"app": "s"}', pg_temp.spread('s', 'kubernetes.io/hostname') || '{"priority": 0}', 'other');
SELECT p.name, f.node, f.code
FROM unnest(ARRAY['s-low', 's-high', 's-other']) AS p(name),
     LATERAL scheduler.filter(CASE p.name WHEN 's-other' THEN 'other' ELSE 'default' END, p.name) f
WHERE f.plugin = 'PodTopologySpread' ORDER BY p.name, f.node;
SELECT pg_temp.node('h3', 'c');
SELECT pg_temp.pod('s-2', '{"app": "s"}', '{"nodeName": "h2"}'), pg_temp.pod('s-3', '{"app": "s"}', '{"nodeName": "h3"}');
SELECT f.node, f.code FROM scheduler.filter('default', 's-low') f WHERE f.plugin = 'PodTopologySpread' ORDER BY f.node;
-- the cycle counts it so too (RunFilters): s-low lands on h1
SELECT pg_temp.delete_pod('s-high'), pg_temp.delete_pod('s-other');
SELECT name, node FROM schedule_pending();
