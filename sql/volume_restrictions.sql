-- VolumeRestrictions, as kube-scheduler's volumerestrictions plugin behaves
-- (volume_restrictions.go): a pod's GCE PD, AWS EBS, iSCSI and RBD disks must
-- not conflict with those of the pods on the node, and its ReadWriteOncePod
-- claims must not be in use by any pod of the cluster; PreFilter skips a pod
-- with neither; a deleted pod that held the disk or the claim moves the pod
-- back (isSchedulableAfterPodDeleted).
\set SHOW_CONTEXT never
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history,
    scheduler.persistent_volume_claims, scheduler.persistent_volumes;
SET scheduler.pod_initial_backoff = 0;
SET scheduler.pod_max_backoff = 0;

CREATE FUNCTION pg_temp.node(name text) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Node',
        'metadata', jsonb_build_object('name', name, 'labels', jsonb_build_object('kubernetes.io/hostname', name)),
        'status', jsonb_build_object('allocatable', jsonb_build_object('cpu', '8', 'memory', '16Gi', 'pods', '110'))))
$$;
-- a pod with these volumes, on node when given
CREATE FUNCTION pg_temp.pod(name text, volumes jsonb, node text DEFAULT NULL, priority int DEFAULT 0,
                            ns text DEFAULT 'default') RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Pod',
        'metadata', jsonb_build_object('name', name, 'namespace', ns, 'uid', ns || '/' || name),
        'spec', jsonb_strip_nulls(jsonb_build_object('nodeName', node, 'priority', priority, 'volumes', volumes,
            'containers', jsonb_build_array(jsonb_build_object('name', 'c',
                'resources', jsonb_build_object('requests', jsonb_build_object('cpu', '100m'))))))))
$$;
-- a claim bound to its own PersistentVolume (as the other volume plugins of
-- the default profile want it: VolumeZone rejects an unbound claim without a
-- StorageClass)
CREATE FUNCTION pg_temp.claim(name text, mode text, ns text DEFAULT 'default') RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'PersistentVolume', 'apiVersion', 'v1',
        'metadata', jsonb_build_object('name', 'pv-' || ns || '-' || name),
        'spec', jsonb_build_object('accessModes', jsonb_build_array(mode), 'capacity', '{"storage": "1Gi"}'::jsonb,
            'claimRef', jsonb_build_object('namespace', ns, 'name', name, 'uid', 'pvc-' || ns || '-' || name))))
      + scheduler.apply(jsonb_build_object('kind', 'PersistentVolumeClaim', 'apiVersion', 'v1',
        'metadata', jsonb_build_object('name', name, 'namespace', ns, 'uid', 'pvc-' || ns || '-' || name,
            'annotations', '{"pv.kubernetes.io/bind-completed": "yes"}'::jsonb),
        'spec', jsonb_build_object('accessModes', jsonb_build_array(mode), 'volumeName', 'pv-' || ns || '-' || name)))
$$;
-- one volume of each kind
CREATE FUNCTION pg_temp.gce(pd text, ro bool DEFAULT false) RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_build_array(jsonb_build_object('name', 'v', 'gcePersistentDisk',
        jsonb_build_object('pdName', pd, 'readOnly', ro)))
$$;
CREATE FUNCTION pg_temp.ebs(id text, ro bool DEFAULT false) RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_build_array(jsonb_build_object('name', 'v', 'awsElasticBlockStore',
        jsonb_build_object('volumeID', id, 'readOnly', ro)))
$$;
CREATE FUNCTION pg_temp.iscsi(iqn text, ro bool DEFAULT false) RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_build_array(jsonb_build_object('name', 'v', 'iscsi',
        jsonb_build_object('targetPortal', '127.0.0.1:3260', 'iqn', iqn, 'lun', 0, 'readOnly', ro)))
$$;
CREATE FUNCTION pg_temp.rbd(monitors jsonb, pool text, image text, ro bool DEFAULT false) RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_build_array(jsonb_build_object('name', 'v', 'rbd',
        jsonb_strip_nulls(jsonb_build_object('monitors', monitors, 'pool', pool, 'image', image, 'readOnly', ro))))
$$;
CREATE FUNCTION pg_temp.pvc(VARIADIC claims text[]) RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_agg(jsonb_build_object('name', 'v-' || c, 'persistentVolumeClaim', jsonb_build_object('claimName', c)))
    FROM unnest(claims) c
$$;
-- VolumeRestrictions' verdicts for a pod: PreFilter (node NULL), then each node
CREATE FUNCTION pg_temp.verdicts(pod text, ns text DEFAULT 'default')
RETURNS TABLE (node text, code text, reason text) LANGUAGE sql AS $$
    SELECT node, code, reason FROM scheduler.filter(ns, pod)
    WHERE plugin = 'VolumeRestrictions' ORDER BY node NULLS FIRST
$$;
CREATE FUNCTION pg_temp.delete_pod(pod_name text) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('type', 'DELETED', 'object', object))
    FROM scheduler.pods WHERE name = pod_name
$$;
CREATE VIEW pg_temp.q AS
    SELECT p.name, q.state, q.rejected_by, q.moved_by
    FROM scheduler.queue q JOIN scheduler.pods p ON p.uid = q.pod_uid ORDER BY p.name;

SELECT pg_temp.node('n1'), pg_temp.node('n2');

------------------------------------------------------------------------------
-- PreFilter Skip: a pod without volumes, or with volumes no rule covers
-- (a configMap), never reads the claims and Filter does not run.
------------------------------------------------------------------------------
SELECT pg_temp.pod('plain', NULL),
       pg_temp.pod('config', '[{"name": "cfg", "configMap": {"name": "c"}}]');
SELECT * FROM pg_temp.verdicts('plain');
SELECT * FROM pg_temp.verdicts('config');

------------------------------------------------------------------------------
-- GCE PD: the same pdName conflicts unless both pods mount it read-only;
-- Filter is Unschedulable ("node(s) had no available disk") on the node
-- holding it, and the other node passes.
------------------------------------------------------------------------------
SELECT pg_temp.pod('gce-held', pg_temp.gce('pd-1'), 'n1'),
       pg_temp.pod('gce-ro-held', pg_temp.gce('pd-2', true), 'n1');
SELECT pg_temp.pod('gce-same', pg_temp.gce('pd-1')),
       pg_temp.pod('gce-other', pg_temp.gce('pd-9')),
       pg_temp.pod('gce-ro-ro', pg_temp.gce('pd-2', true)),
       pg_temp.pod('gce-rw-ro', pg_temp.gce('pd-2')),
       pg_temp.pod('gce-ro-rw', pg_temp.gce('pd-1', true));
SELECT * FROM pg_temp.verdicts('gce-same');
SELECT * FROM pg_temp.verdicts('gce-other');
SELECT * FROM pg_temp.verdicts('gce-ro-ro');
SELECT * FROM pg_temp.verdicts('gce-rw-ro');
SELECT * FROM pg_temp.verdicts('gce-ro-rw');

------------------------------------------------------------------------------
-- AWS EBS: the same volumeID conflicts, read-only or not.
------------------------------------------------------------------------------
SELECT pg_temp.pod('ebs-held', pg_temp.ebs('vol-1', true), 'n2');
SELECT pg_temp.pod('ebs-same-ro', pg_temp.ebs('vol-1', true)), pg_temp.pod('ebs-other', pg_temp.ebs('vol-2'));
SELECT * FROM pg_temp.verdicts('ebs-same-ro');
SELECT * FROM pg_temp.verdicts('ebs-other');

------------------------------------------------------------------------------
-- iSCSI: the same IQN conflicts unless both mount it read-only.
------------------------------------------------------------------------------
SELECT pg_temp.pod('iscsi-held', pg_temp.iscsi('iqn.2016-12.server:t1', true), 'n1');
SELECT pg_temp.pod('iscsi-ro', pg_temp.iscsi('iqn.2016-12.server:t1', true)),
       pg_temp.pod('iscsi-rw', pg_temp.iscsi('iqn.2016-12.server:t1')),
       pg_temp.pod('iscsi-other', pg_temp.iscsi('iqn.2017-12.server:t1'));
SELECT n.node, n.code AS ro, r.code AS rw, o.code AS other_iqn
FROM pg_temp.verdicts('iscsi-ro') n JOIN pg_temp.verdicts('iscsi-rw') r USING (node)
JOIN pg_temp.verdicts('iscsi-other') o USING (node);

------------------------------------------------------------------------------
-- RBD: a monitor in common, the same pool (unset is "rbd") and the same
-- image conflict, unless both mount it read-only.
------------------------------------------------------------------------------
SELECT pg_temp.pod('rbd-held', pg_temp.rbd('["a", "b"]', NULL, 'img'), 'n2');
SELECT pg_temp.pod('rbd-same', pg_temp.rbd('["b", "c"]', 'rbd', 'img')),
       pg_temp.pod('rbd-disjoint', pg_temp.rbd('["c", "d"]', NULL, 'img')),
       pg_temp.pod('rbd-pool', pg_temp.rbd('["a"]', 'other', 'img')),
       pg_temp.pod('rbd-image', pg_temp.rbd('["a"]', NULL, 'img-2')),
       pg_temp.pod('rbd-ro', pg_temp.rbd('["a"]', NULL, 'img', true));
SELECT s.node, s.code AS same, d.code AS disjoint, p.code AS pool, i.code AS image, r.code AS ro
FROM pg_temp.verdicts('rbd-same') s JOIN pg_temp.verdicts('rbd-disjoint') d USING (node)
JOIN pg_temp.verdicts('rbd-pool') p USING (node) JOIN pg_temp.verdicts('rbd-image') i USING (node)
JOIN pg_temp.verdicts('rbd-ro') r USING (node);
SELECT * FROM pg_temp.verdicts('rbd-same');

------------------------------------------------------------------------------
-- ReadWriteOncePod.  A claim that does not exist rejects every node in
-- PreFilter, UnschedulableAndUnresolvable, with the API's NotFound text.
-- A claim in use by a pod anywhere (rwop-1, by holder on n1) makes Filter
-- Unschedulable on every node; a ReadWriteOncePod claim nobody uses, a
-- ReadWriteMany claim in use, or a claim of the same name in another
-- namespace leave the pod to PreFilter's Skip.
------------------------------------------------------------------------------
SELECT pg_temp.claim('rwop-1', 'ReadWriteOncePod'), pg_temp.claim('rwop-2', 'ReadWriteOncePod'),
       pg_temp.claim('rwx', 'ReadWriteMany'), pg_temp.claim('rwop-1', 'ReadWriteOncePod', 'team');
SELECT pg_temp.pod('holder', pg_temp.pvc('rwop-1', 'rwx'), 'n1');
SELECT pg_temp.pod('missing', pg_temp.pvc('rwx', 'nope'));
SELECT * FROM pg_temp.verdicts('missing');
SELECT pg_temp.pod('wants-rwop-1', pg_temp.pvc('rwop-1')), pg_temp.pod('wants-both', pg_temp.pvc('rwop-2', 'rwop-1'));
SELECT * FROM pg_temp.verdicts('wants-rwop-1');
SELECT * FROM pg_temp.verdicts('wants-both');
SELECT pg_temp.pod('wants-rwop-2', pg_temp.pvc('rwop-2')), pg_temp.pod('wants-rwx', pg_temp.pvc('rwx')),
       pg_temp.pod('team-rwop-1', pg_temp.pvc('rwop-1'), ns => 'team');
SELECT * FROM pg_temp.verdicts('wants-rwop-2');
SELECT * FROM pg_temp.verdicts('wants-rwx');
SELECT * FROM pg_temp.verdicts('team-rwop-1', 'team');
-- a disk conflict is reported before the claim
SELECT pg_temp.pod('disk-and-claim', pg_temp.gce('pd-1') || pg_temp.pvc('rwop-1'));
SELECT * FROM pg_temp.verdicts('disk-and-claim');

------------------------------------------------------------------------------
-- Scheduling cycles.  Clear the pods out, then three pods want the same
-- EBS volume: each one assumed counts for the next, so two are placed, one
-- per node, and the third finds no node (priority 0: nothing to preempt).
------------------------------------------------------------------------------
TRUNCATE scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history;
SELECT pg_temp.pod('ebs-' || i, pg_temp.ebs('vol-shared')) FROM generate_series(1, 3) i;
-- (which of the two nodes each goes to is the cycle's random tie-break)
SELECT name, node IS NOT NULL AS placed, result, CASE WHEN node IS NULL THEN message END AS message
FROM schedule_pending() ORDER BY name;
SELECT count(DISTINCT assumed_node) AS nodes_used FROM scheduler.pods WHERE assumed_node IS NOT NULL;
-- deleting a pod of another namespace, or one without the disk, does not
-- move it (QueueSkip); deleting one holding the disk does
SELECT pg_temp.pod('bystander', pg_temp.ebs('vol-shared'), 'n1', ns => 'team'),
       pg_temp.pod('unrelated', pg_temp.ebs('vol-x'), 'n1');
SELECT pg_temp.delete_pod('bystander'), pg_temp.delete_pod('unrelated');
SELECT * FROM pg_temp.q WHERE name = 'ebs-3';
SELECT pg_temp.delete_pod('ebs-1');
SELECT * FROM pg_temp.q WHERE name = 'ebs-3';
SELECT name, node IS NOT NULL AS placed, result FROM schedule_pending();

------------------------------------------------------------------------------
-- A ReadWriteOncePod claim in use: the pod is unschedulable on every node;
-- the holder deleted moves it back (it used a claim the pod names) and it
-- is placed.
------------------------------------------------------------------------------
SELECT pg_temp.pod('rwop-holder', pg_temp.pvc('rwop-1'), 'n2');
SELECT pg_temp.pod('rwop-waiter', pg_temp.pvc('rwop-1'));
SELECT name, result, message FROM schedule_pending();
SELECT * FROM pg_temp.q WHERE name = 'rwop-waiter';
SELECT pg_temp.delete_pod('rwop-holder');
SELECT * FROM pg_temp.q WHERE name = 'rwop-waiter';
SELECT name, node IS NOT NULL AS placed, result FROM schedule_pending();

------------------------------------------------------------------------------
-- Preemption: the claim's user has a lower priority.  Taking it off its
-- node lowers the count of claims in use (kube-scheduler's RemovePod), so
-- that node is a candidate and the user is the victim (deleted: only
-- high-user is left); the other node has no lower-priority pod.
------------------------------------------------------------------------------
TRUNCATE scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history;
SELECT pg_temp.pod('low-user', pg_temp.pvc('rwop-2'), 'n1', priority => 0);
SELECT pg_temp.pod('high-user', pg_temp.pvc('rwop-2'), priority => 1000);
SELECT name, result, message FROM schedule_pending();
SELECT p.name, coalesce(p.node_name, p.assumed_node) AS node, q.nominated_node
FROM scheduler.pods p LEFT JOIN scheduler.queue q ON q.pod_uid = p.uid ORDER BY p.name;
SELECT name, node, result FROM schedule_pending();

------------------------------------------------------------------------------
-- Pods nominated to a node (preemption made room for them there) count
-- there for the pods of their priority or lower, as kube-scheduler's
-- RunFilterPluginsWithNominatedPods counts them: among the node's pods for
-- the disks, and through the plugin's AddPod for the ReadWriteOncePod
-- claims (conflictingPVCRefCountForPod).  nom (priority 100, gated so that
-- no cycle places it) is nominated to n1, with EBS vol-nom and claim
-- rwop-n, which no placed pod uses:
--   * d-low (priority 0), wanting vol-nom: n1 Unschedulable (disk), n2
--     passes; d-high (priority 1000) passes both;
--   * c-low (priority 0), wanting rwop-n and a disk of its own (PreFilter
--     runs): n1 Unschedulable (the claim), n2 passes;
--   * c-only, wanting rwop-n alone: PreFilter skips (no disk, the claim in
--     use by no placed pod), so AddPod never counts nom and n1 passes: as
--     in kube-scheduler, where a skipped plugin's AddPod is not called;
--   * c-team, of namespace team, wanting its own team/rwop-n and a disk:
--     AddPod compares the claim's name only, so n1 rejects it too.
------------------------------------------------------------------------------
TRUNCATE scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history;
SELECT pg_temp.claim('rwop-n', 'ReadWriteOncePod'), pg_temp.claim('rwop-n', 'ReadWriteOncePod', 'team');
SELECT scheduler.apply(jsonb_build_object('kind', 'Pod',
    'metadata', '{"name": "nom", "namespace": "default", "uid": "default/nom"}'::jsonb,
    'spec', jsonb_build_object('priority', 100, 'schedulingGates', '[{"name": "hold"}]'::jsonb,
        'volumes', pg_temp.ebs('vol-nom') || pg_temp.pvc('rwop-n'),
        'containers', '[{"name": "c"}]'::jsonb)));
UPDATE scheduler.queue SET nominated_node = 'n1' WHERE pod_uid = 'default/nom';
SELECT pg_temp.pod('d-low', pg_temp.ebs('vol-nom'), priority => 0),
       pg_temp.pod('d-high', pg_temp.ebs('vol-nom'), priority => 1000),
       pg_temp.pod('c-low', pg_temp.pvc('rwop-n') || pg_temp.ebs('vol-own'), priority => 0),
       pg_temp.pod('c-only', pg_temp.pvc('rwop-n'), priority => 0),
       pg_temp.pod('c-team', pg_temp.pvc('rwop-n') || pg_temp.ebs('vol-team'), priority => 0, ns => 'team');
SELECT * FROM pg_temp.verdicts('d-low');
SELECT * FROM pg_temp.verdicts('d-high');
SELECT * FROM pg_temp.verdicts('c-low');
SELECT * FROM pg_temp.verdicts('c-only');
SELECT * FROM pg_temp.verdicts('c-team', 'team');
-- the cycle counts nom too: d-low and c-low go to n2
SELECT count(pg_temp.delete_pod(name)) AS deleted FROM scheduler.pods
WHERE name IN ('d-high', 'c-only', 'c-team');
SELECT name, node, result FROM schedule_pending() ORDER BY name;
