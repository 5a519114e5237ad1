-- NodeVolumeLimits, as kube-scheduler's nodevolumelimits plugin (csi.go,
-- struct CSILimits) behaves: per CSI driver, the pod's new volumes plus the
-- node's (its pods' volumes, its VolumeAttachments) within the CSINode's
-- allocatable.count; through scheduler.filter() and scheduling cycles.
\set SHOW_CONTEXT never
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history,
    scheduler.persistent_volume_claims, scheduler.persistent_volumes, scheduler.storage_classes,
    scheduler.csi_nodes, scheduler.volume_attachments;
SET scheduler.pod_initial_backoff = 0;
SET scheduler.pod_max_backoff = 0;

-- a profile of NodeVolumeLimits alone, and NodeAffinity to pin the cycles' pods
INSERT INTO scheduler.profiles VALUES ('volume-limits', NULL);
INSERT INTO scheduler.profile_plugins (scheduler_name, plugin, position) VALUES
    ('volume-limits', 'NodeAffinity', 1), ('volume-limits', 'NodeVolumeLimits', 2);

CREATE FUNCTION pg_temp.node(name text) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Node',
        'metadata', jsonb_build_object('name', name, 'labels', jsonb_build_object('kubernetes.io/hostname', name)),
        'status', jsonb_build_object('allocatable', jsonb_build_object('cpu', '8', 'memory', '16Gi', 'pods', '110'))))
$$;
-- a pod with spec.volumes; on node when given; pinned to a node by nodeSelector when given
CREATE FUNCTION pg_temp.pod(name text, volumes jsonb, node text DEFAULT NULL, pin text DEFAULT NULL)
RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Pod',
        'metadata', jsonb_build_object('name', name, 'namespace', 'default', 'uid', 'uid-' || name),
        'spec', jsonb_strip_nulls(jsonb_build_object('nodeName', node, 'schedulerName', 'volume-limits',
            'nodeSelector', CASE WHEN pin IS NOT NULL THEN jsonb_build_object('kubernetes.io/hostname', pin) END,
            'containers', jsonb_build_array(jsonb_build_object('name', 'c')), 'volumes', volumes))))
$$;
-- persistentVolumeClaim volumes, one per claim
CREATE FUNCTION pg_temp.claims(VARIADIC names text[]) RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_agg(jsonb_build_object('name', n, 'persistentVolumeClaim', jsonb_build_object('claimName', n)))
    FROM unnest(names) n
$$;
CREATE FUNCTION pg_temp.pv(name text, source jsonb) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'PersistentVolume', 'apiVersion', 'v1',
        'metadata', jsonb_build_object('name', name), 'spec', source))
$$;
CREATE FUNCTION pg_temp.pvc(name text, spec jsonb, meta jsonb DEFAULT '{}') RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'PersistentVolumeClaim', 'apiVersion', 'v1',
        'metadata', jsonb_build_object('name', name, 'namespace', 'default', 'uid', 'claim-' || name) || meta,
        'spec', spec))
$$;
CREATE FUNCTION pg_temp.csinode(name text, drivers jsonb) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'CSINode', 'apiVersion', 'storage.k8s.io/v1',
        'metadata', jsonb_build_object('name', name), 'spec', jsonb_build_object('drivers', drivers)))
$$;
CREATE FUNCTION pg_temp.verdicts(pod text) RETURNS TABLE (node text, code text, reason text) LANGUAGE sql AS $$
    SELECT node, code, reason FROM scheduler.filter('default', pod)
    WHERE plugin = 'NodeVolumeLimits' ORDER BY node NULLS FIRST
$$;
CREATE FUNCTION pg_temp.delete_pod(pod_name text) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('type', 'DELETED', 'object', object))
    FROM scheduler.pods WHERE name = pod_name
$$;
CREATE VIEW pg_temp.q AS
    SELECT p.name, q.state, q.rejected_by, q.moved_by
    FROM scheduler.queue q JOIN scheduler.pods p ON p.uid = q.pod_uid ORDER BY p.name;

-- n1: ebs.csi.aws.com takes 2 volumes; n2: the driver gives no limit; n3: no CSINode
SELECT pg_temp.node('n1'), pg_temp.node('n2'), pg_temp.node('n3');
SELECT pg_temp.csinode('n1', '[{"name": "ebs.csi.aws.com", "nodeID": "i-1", "allocatable": {"count": 2}}]'),
       pg_temp.csinode('n2', '[{"name": "ebs.csi.aws.com", "nodeID": "i-2"}]');
-- CSI volumes vol-0..vol-3, each with a bound claim c0..c3
SELECT pg_temp.pv('pv-' || i, jsonb_build_object('csi', jsonb_build_object('driver', 'ebs.csi.aws.com',
                                                                            'volumeHandle', 'vol-' || i))),
       pg_temp.pvc('c' || i, jsonb_build_object('volumeName', 'pv-' || i))
FROM generate_series(0, 3) i;
SELECT scheduler.apply('{"kind": "StorageClass", "apiVersion": "storage.k8s.io/v1",
                         "metadata": {"name": "csi-sc"}, "provisioner": "ebs.csi.aws.com"}');
SELECT pg_temp.pvc('unbound', '{"storageClassName": "csi-sc"}'), pg_temp.pvc('no-class', '{}');
-- n1 holds vol-1 already
SELECT pg_temp.pod('running', pg_temp.claims('c1'), 'n1');

------------------------------------------------------------------------------
-- PreFilter: Skip without a claim, an ephemeral or a migratable inline
-- volume (configMap and secret volumes, or none, do not count).
------------------------------------------------------------------------------
SELECT pg_temp.pod('no-volumes', '[]'),
       pg_temp.pod('config-only', '[{"name": "a", "configMap": {"name": "x"}}, {"name": "b", "secret": {"secretName": "y"}}]');
SELECT * FROM pg_temp.verdicts('no-volumes');
SELECT * FROM pg_temp.verdicts('config-only');

------------------------------------------------------------------------------
-- Filter: the pod's new volumes plus the node's, within the limit.  One
-- more on n1 fits (1 + 1 <= 2); two more do not, Unschedulable ("node(s)
-- exceed max volume count").  n2's driver gives no limit and n3 has no
-- CSINode: any number fits there.
------------------------------------------------------------------------------
SELECT pg_temp.pod('one', pg_temp.claims('c0')), pg_temp.pod('two', pg_temp.claims('c0', 'c2'));
SELECT * FROM pg_temp.verdicts('one');
SELECT * FROM pg_temp.verdicts('two');
-- a volume the node already has takes no more room (vol-1 is counted once)
SELECT pg_temp.pod('shared', pg_temp.claims('c1', 'c2'));
SELECT * FROM pg_temp.verdicts('shared');

------------------------------------------------------------------------------
-- An unbound claim counts as its StorageClass's provisioner (with a handle
-- of its own); a claim without a class does not count.
------------------------------------------------------------------------------
SELECT pg_temp.pod('with-unbound', pg_temp.claims('c0', 'unbound')),
       pg_temp.pod('with-no-class', pg_temp.claims('c0', 'no-class'));
SELECT * FROM pg_temp.verdicts('with-unbound');
SELECT * FROM pg_temp.verdicts('with-no-class');

------------------------------------------------------------------------------
-- The pod's claims must exist: UnschedulableAndUnresolvable, on every
-- node ("looking up PVC <ns>/<name>: ... not found").  A generic ephemeral
-- volume's claim <pod>-<volume> must be the pod's (controller owner
-- reference with its uid), else an Error.
------------------------------------------------------------------------------
SELECT pg_temp.pod('missing', pg_temp.claims('nope'));
SELECT * FROM pg_temp.verdicts('missing');
SELECT pg_temp.pod('eph', '[{"name": "data", "ephemeral": {}}]');
SELECT pg_temp.pvc('eph-data', '{"storageClassName": "csi-sc"}',
                   '{"ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "eph", "uid": "someone-else", "controller": true}]}');
SELECT * FROM pg_temp.verdicts('eph');
-- owned by the pod, it counts as an unbound claim of csi-sc: 1 + 1 on n1
SELECT pg_temp.pvc('eph-data', '{"storageClassName": "csi-sc"}',
                   '{"ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "eph", "uid": "uid-eph", "controller": true}]}');
SELECT * FROM pg_temp.verdicts('eph');

------------------------------------------------------------------------------
-- In-tree AWS EBS volumes count as ebs.csi.aws.com where the node has a
-- CSINode (isCSIMigrationOn), their IDs translated ("aws://<zone>/vol-1"
-- is vol-1, already on n1); on n3 they do not count.  An ID that does not
-- translate is an Error where it would count.
------------------------------------------------------------------------------
SELECT pg_temp.pod('inline', '[{"name": "disk", "awsElasticBlockStore": {"volumeID": "aws://us-east-1a/vol-1"}}]'
                             || pg_temp.claims('c0'));
SELECT * FROM pg_temp.verdicts('inline');
SELECT pg_temp.pod('inline-bad', '[{"name": "disk", "awsElasticBlockStore": {"volumeID": "aws://us-east-1a/disk-1"}}]');
SELECT * FROM pg_temp.verdicts('inline-bad');
-- an in-tree PV is translated the same way: "aws:///vol-2" is vol-2, which
-- c2 holds too, so one new volume on n1 (untranslated, it would be two)
SELECT pg_temp.pv('pv-intree', '{"awsElasticBlockStore": {"volumeID": "aws:///vol-2"}}'),
       pg_temp.pvc('c-intree', '{"volumeName": "pv-intree"}');
SELECT pg_temp.pod('intree', pg_temp.claims('c-intree', 'c2'));
SELECT * FROM pg_temp.verdicts('intree');

------------------------------------------------------------------------------
-- VolumeAttachments to the node count too (a volume still attached after
-- its pod went), once with the pods' volumes: vol-1's attachment adds
-- nothing, vol-3's fills n1.
------------------------------------------------------------------------------
SELECT scheduler.apply(jsonb_build_object('kind', 'VolumeAttachment', 'apiVersion', 'storage.k8s.io/v1',
        'metadata', jsonb_build_object('name', 'va-' || i),
        'spec', jsonb_build_object('attacher', 'ebs.csi.aws.com', 'nodeName', 'n1',
                                   'source', jsonb_build_object('persistentVolumeName', 'pv-' || i))))
FROM unnest(ARRAY[1]) i;
SELECT * FROM pg_temp.verdicts('one');
SELECT scheduler.apply('{"kind": "VolumeAttachment", "apiVersion": "storage.k8s.io/v1", "metadata": {"name": "va-3"},
                         "spec": {"attacher": "ebs.csi.aws.com", "nodeName": "n1", "source": {"persistentVolumeName": "pv-3"}}}');
SELECT * FROM pg_temp.verdicts('one');
SELECT scheduler.apply('{"type": "DELETED", "object": {"kind": "VolumeAttachment", "apiVersion": "storage.k8s.io/v1",
                         "metadata": {"name": "va-3"}, "spec": {"attacher": "ebs.csi.aws.com", "nodeName": "n1",
                         "source": {"persistentVolumeName": "pv-3"}}}}');

------------------------------------------------------------------------------
-- Scheduling cycles (pods pinned to n1).  first takes vol-0 (n1: vol-1,
-- vol-0); second, wanting vol-2, no longer fits and waits.  Deleting the
-- pod with vol-1 (an assigned pod with a claim: isSchedulableAfterPodDeleted
-- queues) moves it, but vol-1 is still attached to n1 (va-1): it still
-- does not fit, as in kube-scheduler, which counts the attachment until it
-- is gone.
------------------------------------------------------------------------------
SELECT count(pg_temp.delete_pod(name)) AS deleted FROM scheduler.pods WHERE node_name IS NULL;
SET scheduler.scheduler_name = 'volume-limits';
SELECT pg_temp.pod('first', pg_temp.claims('c0'), NULL, 'n1');
SELECT name, node, result FROM schedule_pending();
SELECT pg_temp.pod('second', pg_temp.claims('c2'), NULL, 'n1');
SELECT name, node, result, message FROM schedule_pending();
SELECT * FROM pg_temp.q;
SELECT pg_temp.delete_pod('running');
SELECT * FROM pg_temp.q;
SELECT name, node, result FROM schedule_pending();
-- the attachment gone, it fits; the deletion does not move it
-- (isSchedulableAfterVolumeAttachmentDeleted queues a pod only for an
-- attachment of its own claims' PVs or its inline volumes' driver)
SELECT scheduler.apply('{"type": "DELETED", "object": {"kind": "VolumeAttachment", "apiVersion": "storage.k8s.io/v1",
                         "metadata": {"name": "va-1"}, "spec": {"attacher": "ebs.csi.aws.com", "nodeName": "n1",
                         "source": {"persistentVolumeName": "pv-1"}}}}');
SELECT * FROM pg_temp.q;
SELECT * FROM pg_temp.verdicts('second');
RESET scheduler.scheduler_name;

------------------------------------------------------------------------------
-- Pods nominated to a node (preemption made room for them there) count
-- among its pods for the pods of their priority or lower, as
-- kube-scheduler's RunFilterPluginsWithNominatedPods adds them to the copy
-- of the node that CSILimits' Filter reads (nodeInfo.Pods).  n1 (limit 2)
-- holds vol-1; nom (priority 100, gated so that no cycle places it),
-- wanting vol-0, is nominated to n1:
--   * v-low (priority 0), wanting vol-2: vol-1, vol-0 and vol-2 exceed 2 on
--     n1; passes n2 and n3;
--   * v-high (priority 1000) does not count nom: n1 passes;
--   * v-same (priority 0) wants vol-0, nom's own: counted once, n1 passes.
------------------------------------------------------------------------------
SELECT count(pg_temp.delete_pod(name)) AS deleted FROM scheduler.pods;
-- a pod of that priority, gated when asked, pinned to a node by nodeSelector when given
CREATE FUNCTION pg_temp.ppod(name text, volumes jsonb, priority int, gated bool DEFAULT false, pin text DEFAULT NULL)
RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Pod',
        'metadata', jsonb_build_object('name', name, 'namespace', 'default', 'uid', 'uid-' || name),
        'spec', jsonb_strip_nulls(jsonb_build_object('schedulerName', 'volume-limits', 'priority', priority,
            'schedulingGates', CASE WHEN gated THEN '[{"name": "hold"}]'::jsonb END,
            'nodeSelector', CASE WHEN pin IS NOT NULL THEN jsonb_build_object('kubernetes.io/hostname', pin) END,
            'containers', jsonb_build_array(jsonb_build_object('name', 'c')), 'volumes', volumes))))
$$;
SELECT pg_temp.pod('running', pg_temp.claims('c1'), 'n1');
SELECT pg_temp.ppod('nom', pg_temp.claims('c0'), 100, true);
UPDATE scheduler.queue SET nominated_node = 'n1' WHERE pod_uid = 'uid-nom';
SELECT pg_temp.ppod('v-low', pg_temp.claims('c2'), 0), pg_temp.ppod('v-high', pg_temp.claims('c2'), 1000),
       pg_temp.ppod('v-same', pg_temp.claims('c0'), 0);
SELECT * FROM pg_temp.verdicts('v-low');
SELECT * FROM pg_temp.verdicts('v-high');
SELECT * FROM pg_temp.verdicts('v-same');
-- the cycle counts nom too: v-low pinned to n1 does not fit there (vol-1
-- and vol-2 alone would)
SELECT count(pg_temp.delete_pod(name)) AS deleted FROM scheduler.pods WHERE name LIKE 'v-%';
SELECT pg_temp.ppod('v-low', pg_temp.claims('c2'), 0, pin => 'n1');
SET scheduler.scheduler_name = 'volume-limits';
SELECT name, node, result, message FROM schedule_pending() ORDER BY name;
RESET scheduler.scheduler_name;

DELETE FROM scheduler.profiles WHERE scheduler_name = 'volume-limits';
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history,
    scheduler.persistent_volume_claims, scheduler.persistent_volumes, scheduler.storage_classes,
    scheduler.csi_nodes, scheduler.volume_attachments;
