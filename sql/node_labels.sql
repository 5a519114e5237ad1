-- The snapshot's label columns (node_labels.c): NodeAffinity (a pod's terms
-- and a PersistentVolume's, through VolumeBinding), VolumeZone and
-- PodTopologySpread read a node's label as its value's number in the
-- column of that key.  One session keeps its snapshot from call to call:
-- these verdicts pin that the columns follow the nodes as they are
-- relabelled, updated without a label change, deleted and made again, and
-- that a value no node had when a pod's term was first read is found once a
-- node has it.  Every verdict is kube-scheduler's for the labels the node
-- has at that call (labels.Requirement.Matches, volumezone, CheckNodeAffinity).
\set SHOW_CONTEXT never
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history,
    scheduler.persistent_volume_claims, scheduler.persistent_volumes, scheduler.storage_classes;

CREATE FUNCTION pg_temp.node(name text, labels jsonb, cpu text DEFAULT '8') RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Node',
        'metadata', jsonb_build_object('name', name, 'labels', labels),
        'status', jsonb_build_object('allocatable', jsonb_build_object('cpu', cpu, 'memory', '16Gi', 'pods', '110'))))
$$;
-- a pod whose required node affinity is one term of these expressions, and
-- whose volumes are claims of these names
CREATE FUNCTION pg_temp.pod(name text, exprs jsonb, claims text[] DEFAULT '{}') RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Pod',
        'metadata', jsonb_build_object('name', name, 'namespace', 'default', 'uid', 'default/' || name),
        'spec', jsonb_build_object('containers', jsonb_build_array(jsonb_build_object('name', 'c')),
            'affinity', CASE WHEN exprs IS NULL THEN '{}'::jsonb ELSE
                jsonb_build_object('nodeAffinity', jsonb_build_object('requiredDuringSchedulingIgnoredDuringExecution',
                    jsonb_build_object('nodeSelectorTerms', jsonb_build_array(jsonb_build_object('matchExpressions', exprs)))))
                END,
            'volumes', coalesce((SELECT jsonb_agg(jsonb_build_object('name', c,
                                    'persistentVolumeClaim', jsonb_build_object('claimName', c)))
                                 FROM unnest(claims) c), '[]'))))
$$;
-- each pod's verdict from plugin on each node: '-' passes
CREATE FUNCTION pg_temp.verdicts(plugin text) RETURNS TABLE (pod text, n1 text, n2 text, n3 text) LANGUAGE sql AS $$
    SELECT p.name,
           max(CASE f.node WHEN 'n1' THEN coalesce(nullif(f.reason, ''), '-') END),
           max(CASE f.node WHEN 'n2' THEN coalesce(nullif(f.reason, ''), '-') END),
           max(CASE f.node WHEN 'n3' THEN coalesce(nullif(f.reason, ''), '-') END)
    FROM scheduler.pods p, scheduler.filter(p.namespace, p.name) f
    WHERE f.plugin = $1 AND f.node IS NOT NULL
    GROUP BY p.name ORDER BY p.name
$$;

SELECT pg_temp.node('n1', '{"zone": "a", "disk": "ssd", "gen": "5"}');
SELECT pg_temp.node('n2', '{"zone": "b"}');
SELECT pg_temp.node('n3', '{}');
-- one pod per operator; "z" is a value no node has yet
SELECT pg_temp.pod('in-a', '[{"key": "zone", "operator": "In", "values": ["a", "z"]}]');
SELECT pg_temp.pod('in-z', '[{"key": "zone", "operator": "In", "values": ["z"]}]');
SELECT pg_temp.pod('notin-a', '[{"key": "zone", "operator": "NotIn", "values": ["a"]}]');
SELECT pg_temp.pod('exists-disk', '[{"key": "disk", "operator": "Exists"}]');
SELECT pg_temp.pod('absent-disk', '[{"key": "disk", "operator": "DoesNotExist"}]');
SELECT pg_temp.pod('gt-4', '[{"key": "gen", "operator": "Gt", "values": ["4"]}]');
SELECT pg_temp.pod('in-a-and-ssd', '[{"key": "zone", "operator": "In", "values": ["a"]}, {"key": "disk", "operator": "In", "values": ["ssd"]}]');
SELECT * FROM pg_temp.verdicts('NodeAffinity');

-- n2 relabelled (zone a, disk ssd), n1's status updated with the same
-- labels: n2 now passes what n1 passes, n1 is unchanged
SELECT pg_temp.node('n2', '{"zone": "a", "disk": "ssd"}');
SELECT pg_temp.node('n1', '{"zone": "a", "disk": "ssd", "gen": "5"}', '16');
SELECT * FROM pg_temp.verdicts('NodeAffinity');

-- a node takes the value no node had when the pods were first filtered
SELECT pg_temp.node('n3', '{"zone": "z"}');
SELECT * FROM pg_temp.verdicts('NodeAffinity');

-- n1 deleted and made again with other labels
SELECT scheduler.apply('{"type": "DELETED", "object": {"kind": "Node", "metadata": {"name": "n1"}}}');
SELECT pg_temp.node('n1', '{"zone": "b", "gen": "3"}');
SELECT * FROM pg_temp.verdicts('NodeAffinity');

-- A scheduling cycle reads the same columns: in-z goes to n3, its only fit;
-- in-a-and-ssd to n2, its only fit.
SELECT * FROM schedule_pending() WHERE name IN ('in-z', 'in-a-and-ssd') ORDER BY name;
TRUNCATE scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history;

-- VolumeZone: a PV's beta zone label matches a node's beta label, else the
-- GA key it became; a node with none of the four labels fits any volume.
-- VolumeBinding: a bound PV's node affinity, through the same columns.
SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_build_array(
    jsonb_build_object('kind', 'PersistentVolume', 'apiVersion', 'v1',
        'metadata', '{"name": "pv-beta", "uid": "pv-beta", "labels": {"failure-domain.beta.kubernetes.io/zone": "east"}}'::jsonb,
        'spec', '{"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "claimRef": {"namespace": "default", "name": "c-beta"}}'::jsonb,
        'status', '{"phase": "Bound"}'::jsonb),
    jsonb_build_object('kind', 'PersistentVolumeClaim', 'apiVersion', 'v1',
        'metadata', '{"name": "c-beta", "namespace": "default", "uid": "c-beta", "annotations": {"pv.kubernetes.io/bind-completed": "yes"}}'::jsonb,
        'spec', '{"volumeName": "pv-beta", "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}'::jsonb,
        'status', '{"phase": "Bound"}'::jsonb),
    jsonb_build_object('kind', 'PersistentVolume', 'apiVersion', 'v1',
        'metadata', '{"name": "pv-affine", "uid": "pv-affine"}'::jsonb,
        'spec', '{"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "claimRef": {"namespace": "default", "name": "c-affine"},
                  "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "rack", "operator": "In", "values": ["r1", "r2"]}]}]}}}'::jsonb,
        'status', '{"phase": "Bound"}'::jsonb),
    jsonb_build_object('kind', 'PersistentVolumeClaim', 'apiVersion', 'v1',
        'metadata', '{"name": "c-affine", "namespace": "default", "uid": "c-affine", "annotations": {"pv.kubernetes.io/bind-completed": "yes"}}'::jsonb,
        'spec', '{"volumeName": "pv-affine", "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}'::jsonb,
        'status', '{"phase": "Bound"}'::jsonb))));
SELECT pg_temp.node('n1', '{"failure-domain.beta.kubernetes.io/zone": "east", "rack": "r1"}');
SELECT pg_temp.node('n2', '{"topology.kubernetes.io/zone": "east", "rack": "r3"}');
SELECT pg_temp.node('n3', '{"failure-domain.beta.kubernetes.io/zone": "west", "topology.kubernetes.io/zone": "east"}');
SELECT pg_temp.pod('beta', NULL, '{c-beta}');
SELECT pg_temp.pod('affine', NULL, '{c-affine}');
SELECT * FROM pg_temp.verdicts('VolumeZone');
SELECT * FROM pg_temp.verdicts('VolumeBinding');
-- relabelled: n2 loses its zone (no zone label at all: it fits any volume)
-- and moves to rack r2; n3's beta label becomes east; n1 leaves the racks
SELECT pg_temp.node('n2', '{"rack": "r2"}');
SELECT pg_temp.node('n3', '{"failure-domain.beta.kubernetes.io/zone": "east"}');
SELECT pg_temp.node('n1', '{"failure-domain.beta.kubernetes.io/zone": "east"}');
SELECT * FROM pg_temp.verdicts('VolumeZone');
SELECT * FROM pg_temp.verdicts('VolumeBinding');

-- Columns are kept for at most 32 keys: past that, a new key's column takes
-- the place of those not asked for in this refresh.  40 pods, each with a
-- key of its own, filtered one call each (a refresh each) and then all in
-- one scheduling call (one refresh): every verdict stays the labels'.
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history,
    scheduler.persistent_volume_claims, scheduler.persistent_volumes;
SELECT pg_temp.node('n1', (SELECT jsonb_object_agg('k' || i, 'v') FROM generate_series(1, 40, 2) i));
SELECT pg_temp.node('n2', (SELECT jsonb_object_agg('k' || i, 'v') FROM generate_series(2, 40, 2) i));
SELECT sum(pg_temp.pod('key-' || i, jsonb_build_array(jsonb_build_object('key', 'k' || i, 'operator', 'Exists'))))
FROM generate_series(1, 40) i;
SELECT count(*) FILTER (WHERE f.code = 'Success' AND f.node = CASE WHEN split_part(p.name, '-', 2)::int % 2 = 1 THEN 'n1' ELSE 'n2' END) AS right,
       count(*) FILTER (WHERE f.code = 'Success') AS passed, count(*) AS verdicts
FROM scheduler.pods p, scheduler.filter(p.namespace, p.name) f
WHERE f.plugin = 'NodeAffinity' AND f.node IS NOT NULL;
SELECT count(*) FILTER (WHERE node = CASE WHEN split_part(name, '-', 2)::int % 2 = 1 THEN 'n1' ELSE 'n2' END) AS placed_right,
       count(*) AS scheduled
FROM schedule_pending();
