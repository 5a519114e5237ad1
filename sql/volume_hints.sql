-- The QueueingHints of the four volume plugins for the storage kinds' events,
-- as kube-scheduler registers them (EventsToRegister of volumezone,
-- volumerestrictions, nodevolumelimits and volumebinding): a pod one plugin
-- rejected moves back for an event that may help it (Queue), and stays for
-- one that cannot (Skip) or that the plugin does not register.  Each plugin
-- runs in a profile of its own, so that it alone rejects the pod.
\set SHOW_CONTEXT never
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history,
    scheduler.persistent_volume_claims, scheduler.persistent_volumes, scheduler.storage_classes,
    scheduler.csi_nodes, scheduler.csi_drivers, scheduler.csi_storage_capacities, scheduler.volume_attachments;
SET scheduler.pod_initial_backoff = 0;
SET scheduler.pod_max_backoff = 0;
INSERT INTO scheduler.profiles VALUES ('zone', NULL), ('restrictions', NULL), ('limits', NULL), ('binding', NULL);
INSERT INTO scheduler.profile_plugins (scheduler_name, plugin, position) VALUES
    ('zone', 'VolumeZone', 1), ('restrictions', 'VolumeRestrictions', 1),
    ('limits', 'NodeVolumeLimits', 1), ('binding', 'VolumeBinding', 1);

CREATE FUNCTION pg_temp.node(name text, zone text) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Node',
        'metadata', jsonb_build_object('name', name, 'labels',
            jsonb_build_object('kubernetes.io/hostname', name, 'topology.kubernetes.io/zone', zone)),
        'status', jsonb_build_object('allocatable', jsonb_build_object('cpu', '8', 'memory', '16Gi', 'pods', '110'))))
$$;
-- a pod of profile prof with spec.volumes, in namespace default
CREATE FUNCTION pg_temp.pod(name text, prof text, volumes jsonb, node text DEFAULT NULL) RETURNS int
LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Pod',
        'metadata', jsonb_build_object('name', name, 'namespace', 'default', 'uid', 'uid-' || name),
        'spec', jsonb_strip_nulls(jsonb_build_object('nodeName', node, 'schedulerName', prof,
            'containers', jsonb_build_array(jsonb_build_object('name', 'c')), 'volumes', volumes))))
$$;
CREATE FUNCTION pg_temp.claims(VARIADIC names text[]) RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_agg(jsonb_build_object('name', n, 'persistentVolumeClaim', jsonb_build_object('claimName', n)))
    FROM unnest(names) n
$$;
-- a claim (added, or updated: the uid is its namespace and name)
CREATE FUNCTION pg_temp.pvc(name text, spec jsonb, ns text DEFAULT 'default') RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'PersistentVolumeClaim', 'apiVersion', 'v1',
        'metadata', jsonb_build_object('name', name, 'namespace', ns, 'uid', 'pvc-' || ns || '-' || name),
        'spec', spec))
$$;
CREATE FUNCTION pg_temp.pv(name text, meta jsonb, spec jsonb) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'PersistentVolume', 'apiVersion', 'v1',
        'metadata', jsonb_build_object('name', name, 'uid', 'pv-' || name) || meta, 'spec', spec))
$$;
CREATE FUNCTION pg_temp.sc(name text, extra jsonb) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'StorageClass', 'apiVersion', 'storage.k8s.io/v1',
        'metadata', jsonb_build_object('name', name, 'uid', 'sc-' || name), 'provisioner', 'example.com/disk') || extra)
$$;
CREATE FUNCTION pg_temp.csinode(name text, drivers jsonb, annotations jsonb DEFAULT '{}') RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'CSINode', 'apiVersion', 'storage.k8s.io/v1',
        'metadata', jsonb_build_object('name', name, 'uid', 'csinode-' || name, 'annotations', annotations),
        'spec', jsonb_build_object('drivers', drivers)))
$$;
CREATE FUNCTION pg_temp.delete(obj_kind text, obj_name text) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('type', 'DELETED', 'object', o.object)) FROM (
        SELECT v.object FROM scheduler.volume_attachments v WHERE obj_kind = 'VolumeAttachment' AND v.name = obj_name
        UNION ALL SELECT p.object FROM scheduler.pods p WHERE obj_kind = 'Pod' AND p.name = obj_name) o
$$;
-- the pods of the block: state, who rejected them, what moved them
CREATE VIEW pg_temp.q AS
    SELECT p.name, q.state, q.rejected_by, q.moved_by
    FROM scheduler.queue q JOIN scheduler.pods p ON p.uid = q.pod_uid ORDER BY p.name;
-- try the pods of profile prof again: those still rejected are unschedulable again
CREATE FUNCTION pg_temp.retry(prof text) RETURNS TABLE (name text, node text, result text) LANGUAGE sql AS $$
    SELECT set_config('scheduler.scheduler_name', prof, false);
    SELECT name, node, result FROM schedule_pending() ORDER BY name
$$;

SELECT pg_temp.node('a-1', 'zone-a');

------------------------------------------------------------------------------
-- VolumeZone, isSchedulableAfterPersistentVolumeClaimChange
-- (PersistentVolumeClaim/Add|Update): Queue for a claim of the pod's
-- persistentVolumeClaim volumes, in its namespace; Skip for another claim,
-- the same name in another namespace, or an ephemeral volume's claim (the
-- plugin reads only persistentVolumeClaim volumes).
------------------------------------------------------------------------------
SELECT pg_temp.pod('z-claim', 'zone', pg_temp.claims('zc')
    || '[{"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}]');
SELECT * FROM pg_temp.retry('zone');
SELECT * FROM pg_temp.q;
SELECT pg_temp.pvc('other', '{"storageClassName": "x"}');
SELECT pg_temp.pvc('zc', '{"storageClassName": "x"}', 'elsewhere');
SELECT pg_temp.pvc('z-claim-scratch', '{"storageClassName": "x"}');
SELECT * FROM pg_temp.q;
SELECT pg_temp.pvc('zc', '{"storageClassName": "late"}');
SELECT * FROM pg_temp.q;
-- its class is missing now: rejected again; the claim updated (bound): Queue
SELECT * FROM pg_temp.retry('zone');
SELECT pg_temp.pvc('zc', '{"storageClassName": "late", "volumeName": "pv-z"}');
SELECT * FROM pg_temp.q;
SELECT pg_temp.delete('Pod', 'z-claim');

------------------------------------------------------------------------------
-- VolumeZone, isSchedulableAfterStorageClassAdded (StorageClass/Add): only
-- a WaitForFirstConsumer class may let an unbound claim be skipped; an
-- update is not registered (volumeBindingMode cannot change).
------------------------------------------------------------------------------
SELECT pg_temp.pvc('unbound', '{"storageClassName": "wffc"}');
SELECT pg_temp.pod('z-class', 'zone', pg_temp.claims('unbound'));
SELECT * FROM pg_temp.retry('zone');
SELECT pg_temp.sc('immediate', '{"volumeBindingMode": "Immediate"}');
SELECT pg_temp.sc('immediate', '{"volumeBindingMode": "Immediate", "parameters": {"type": "ssd"}}');
SELECT * FROM pg_temp.q;
SELECT pg_temp.sc('wffc', '{"volumeBindingMode": "WaitForFirstConsumer"}');
SELECT * FROM pg_temp.q;
SELECT * FROM pg_temp.retry('zone');
SELECT pg_temp.delete('Pod', 'z-class');

------------------------------------------------------------------------------
-- VolumeZone, isSchedulableAfterPersistentVolumeChange
-- (PersistentVolume/Add|Update): any PV added; an update only when its
-- topology labels (getPVTopologies: each zone and region label's set of
-- "__"-separated values) changed.
------------------------------------------------------------------------------
SELECT pg_temp.pv('pv-b', '{"labels": {"topology.kubernetes.io/zone": "zone-b__zone-c"}}', '{}');
SELECT pg_temp.pvc('bound-b', '{"volumeName": "pv-b"}');
SELECT pg_temp.pod('z-volume', 'zone', pg_temp.claims('bound-b'));
SELECT * FROM pg_temp.retry('zone');
-- another label, and the same set in another order: Skip
SELECT pg_temp.pv('pv-b', '{"labels": {"topology.kubernetes.io/zone": "zone-b__zone-c", "tier": "gold"}}', '{}');
SELECT pg_temp.pv('pv-b', '{"labels": {"topology.kubernetes.io/zone": "zone-c__zone-b", "tier": "gold"}}', '{}');
SELECT * FROM pg_temp.q;
-- a region label added: Queue (the pod still does not fit zone-a)
SELECT pg_temp.pv('pv-b', '{"labels": {"topology.kubernetes.io/zone": "zone-c__zone-b",
    "topology.kubernetes.io/region": "r1"}}', '{}');
SELECT * FROM pg_temp.q;
SELECT * FROM pg_temp.retry('zone');
-- another PV added: Queue
SELECT pg_temp.pv('pv-new', '{}', '{}');
SELECT * FROM pg_temp.q;
SELECT * FROM pg_temp.retry('zone');
-- the region label gone and the zone now including zone-a: Queue, and it fits
SELECT pg_temp.pv('pv-b', '{"labels": {"topology.kubernetes.io/zone": "zone-a__zone-b"}}', '{}');
SELECT * FROM pg_temp.q;
SELECT * FROM pg_temp.retry('zone');

------------------------------------------------------------------------------
-- VolumeRestrictions, isSchedulableAfterPersistentVolumeClaimAdded
-- (PersistentVolumeClaim/Add): Queue for the pod's claim in its namespace;
-- an update is not registered.
------------------------------------------------------------------------------
SELECT pg_temp.pod('r-claim', 'restrictions', pg_temp.claims('rc'));
SELECT * FROM pg_temp.retry('restrictions');
SELECT pg_temp.pvc('rc', '{}', 'elsewhere'), pg_temp.pvc('rc2', '{}');
SELECT * FROM pg_temp.q;
SELECT pg_temp.pvc('rc', '{"accessModes": ["ReadWriteOncePod"]}');
SELECT * FROM pg_temp.q;
-- a ReadWriteOncePod claim in use by a pod on a-1: rejected; the claim
-- updated: not registered; the pod using it deleted: Queue
-- (isSchedulableAfterPodDeleted)
SELECT pg_temp.pod('r-holder', 'restrictions', pg_temp.claims('rc'), 'a-1');
SELECT * FROM pg_temp.retry('restrictions');
SELECT pg_temp.pvc('rc', '{"accessModes": ["ReadWriteOncePod"], "volumeName": "x"}');
SELECT * FROM pg_temp.q;
SELECT pg_temp.delete('Pod', 'r-holder');
SELECT * FROM pg_temp.q;
SELECT * FROM pg_temp.retry('restrictions');

------------------------------------------------------------------------------
-- NodeVolumeLimits, isSchedulableAfterPVCAdded (PersistentVolumeClaim/Add):
-- Queue for a claim of the pod in its namespace, a persistentVolumeClaim
-- volume's or a generic ephemeral volume's ("<pod>-<volume>").
------------------------------------------------------------------------------
SELECT pg_temp.pod('l-eph', 'limits', '[{"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}]');
SELECT * FROM pg_temp.retry('limits');
SELECT pg_temp.pvc('scratch', '{}'), pg_temp.pvc('l-eph-scratch', '{}', 'elsewhere');
SELECT * FROM pg_temp.q;
SELECT scheduler.apply('{"kind": "PersistentVolumeClaim", "apiVersion": "v1", "metadata": {"name": "l-eph-scratch",
    "namespace": "default", "uid": "pvc-default-l-eph-scratch", "ownerReferences": [{"apiVersion": "v1",
    "kind": "Pod", "name": "l-eph", "uid": "uid-l-eph", "controller": true}]}, "spec": {}}');
SELECT * FROM pg_temp.q;
SELECT * FROM pg_temp.retry('limits');

------------------------------------------------------------------------------
-- NodeVolumeLimits: CSINode/Add without a hint; CSINode/Update,
-- isSchedulableAfterCSINodeUpdated: Queue when a driver's allocatable.count
-- went up.  The node takes no ebs.csi.aws.com volume (count 0).
------------------------------------------------------------------------------
SELECT pg_temp.csinode('a-1', '[{"name": "ebs.csi.aws.com", "nodeID": "a-1", "allocatable": {"count": 0}}]',
    '{"storage.alpha.kubernetes.io/migrated-plugins": "kubernetes.io/aws-ebs"}');
SELECT pg_temp.pv('pv-ebs', '{}', '{"csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "vol-1"}}');
SELECT pg_temp.pvc('ebs', '{"volumeName": "pv-ebs"}');
SELECT pg_temp.pod('l-count', 'limits', pg_temp.claims('ebs'));
SELECT * FROM pg_temp.retry('limits');
-- a driver added without a count (it reads 0): Skip
SELECT pg_temp.csinode('a-1', '[{"name": "ebs.csi.aws.com", "nodeID": "a-1", "allocatable": {"count": 0}},
    {"name": "pd.csi.storage.gke.io", "nodeID": "a-1"}]',
    '{"storage.alpha.kubernetes.io/migrated-plugins": "kubernetes.io/aws-ebs"}');
SELECT * FROM pg_temp.q;
-- another node's CSINode added: Queue (no hint)
SELECT pg_temp.csinode('b-1', '[]');
SELECT * FROM pg_temp.q;
SELECT * FROM pg_temp.retry('limits');
-- a count raised: Queue (here from 0 to 1: it fits)
SELECT pg_temp.csinode('a-1', '[{"name": "ebs.csi.aws.com", "nodeID": "a-1", "allocatable": {"count": 1}},
    {"name": "pd.csi.storage.gke.io", "nodeID": "a-1"}]',
    '{"storage.alpha.kubernetes.io/migrated-plugins": "kubernetes.io/aws-ebs"}');
SELECT * FROM pg_temp.q;
SELECT * FROM pg_temp.retry('limits');

------------------------------------------------------------------------------
-- NodeVolumeLimits, isSchedulableAfterVolumeAttachmentDeleted
-- (VolumeAttachment/Delete): Queue when the attachment was of the PV one of
-- the pod's claims is bound to, or of the CSI driver an inline migratable
-- volume of the pod translates to; Skip for another PV or driver.
------------------------------------------------------------------------------
SELECT scheduler.apply(jsonb_build_object('kind', 'VolumeAttachment', 'apiVersion', 'storage.k8s.io/v1',
    'metadata', jsonb_build_object('name', name, 'uid', 'va-' || name), 'spec', spec))
FROM (VALUES ('va-other', '{"attacher": "ebs.csi.aws.com", "nodeName": "a-1", "source": {"persistentVolumeName": "pv-other"}}'::jsonb),
             ('va-ebs', '{"attacher": "ebs.csi.aws.com", "nodeName": "b-1", "source": {"persistentVolumeName": "pv-ebs2"}}'),
             ('va-gce-inline', '{"attacher": "pd.csi.storage.gke.io", "nodeName": "b-1",
                 "source": {"inlineVolumeSpec": {"csi": {"driver": "pd.csi.storage.gke.io", "volumeHandle": "h"}}}}'),
             ('va-ebs-inline', '{"attacher": "ebs.csi.aws.com", "nodeName": "b-1",
                 "source": {"inlineVolumeSpec": {"csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "h"}}}}')) v(name, spec);
SELECT pg_temp.pv('pv-ebs2', '{}', '{"csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "vol-2"}}');
SELECT pg_temp.pvc('ebs2', '{"volumeName": "pv-ebs2"}');
-- l-count holds a-1's one volume: these pods do not fit
SELECT pg_temp.pod('l-claim', 'limits', pg_temp.claims('ebs2'));
SELECT pg_temp.pod('l-inline', 'limits', '[{"name": "disk", "awsElasticBlockStore": {"volumeID": "vol-3"}}]');
SELECT * FROM pg_temp.retry('limits');
SELECT pg_temp.delete('VolumeAttachment', 'va-other');
SELECT pg_temp.delete('VolumeAttachment', 'va-gce-inline');
SELECT * FROM pg_temp.q;
SELECT pg_temp.delete('VolumeAttachment', 'va-ebs');
SELECT * FROM pg_temp.q;
SELECT pg_temp.delete('VolumeAttachment', 'va-ebs-inline');
SELECT * FROM pg_temp.q;
SELECT pg_temp.delete('Pod', 'l-claim'), pg_temp.delete('Pod', 'l-inline');

------------------------------------------------------------------------------
-- VolumeBinding, isSchedulableAfterPersistentVolumeClaimChange
-- (PersistentVolumeClaim/Add|Update): Queue for a claim of the pod in its
-- namespace (persistentVolumeClaim or generic ephemeral volume).
------------------------------------------------------------------------------
SELECT pg_temp.pod('b-claim', 'binding', pg_temp.claims('bc'));
SELECT pg_temp.pod('b-eph', 'binding', '[{"name": "tmp", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}]');
SELECT * FROM pg_temp.retry('binding');
SELECT pg_temp.pvc('bc', '{"storageClassName": "immediate"}', 'elsewhere');
SELECT * FROM pg_temp.q;
-- an unbound claim of an Immediate class: Queue, and rejected again
SELECT pg_temp.pvc('bc', '{"storageClassName": "immediate"}');
SELECT * FROM pg_temp.q;
SELECT * FROM pg_temp.retry('binding');
-- updated (bound by the PV controller): Queue
SELECT pg_temp.pvc('bc', '{"storageClassName": "immediate", "volumeName": "pv-bc"}');
SELECT pg_temp.pvc('b-eph-tmp', '{"storageClassName": "immediate"}');
SELECT * FROM pg_temp.q;
SELECT * FROM pg_temp.retry('binding');
SELECT pg_temp.delete('Pod', 'b-eph');

------------------------------------------------------------------------------
-- VolumeBinding, PersistentVolume/Add|Update: no hint, always Queue.
------------------------------------------------------------------------------
SELECT pg_temp.pv('pv-bc', '{}', '{"capacity": {"storage": "1Gi"}}');
SELECT * FROM pg_temp.q;
SELECT * FROM pg_temp.retry('binding');
SELECT pg_temp.pv('pv-bc', '{"labels": {"any": "thing"}}', '{"capacity": {"storage": "1Gi"}}');
SELECT * FROM pg_temp.q;
SELECT pg_temp.delete('Pod', 'b-claim');

------------------------------------------------------------------------------
-- VolumeBinding, isSchedulableAfterStorageClassChange (StorageClass/Add|
-- Update): any class added; an update only when allowedTopologies changed.
-- The claim waits for its first consumer, with a class whose topologies
-- exclude zone-a.
------------------------------------------------------------------------------
SELECT pg_temp.sc('topo', '{"volumeBindingMode": "WaitForFirstConsumer", "allowedTopologies": [{"matchLabelExpressions":
    [{"key": "topology.kubernetes.io/zone", "values": ["zone-b"]}]}]}');
SELECT pg_temp.pvc('topo', '{"storageClassName": "topo"}');
SELECT pg_temp.pod('b-class', 'binding', pg_temp.claims('topo'));
SELECT * FROM pg_temp.retry('binding');
SELECT pg_temp.sc('topo', '{"volumeBindingMode": "WaitForFirstConsumer", "parameters": {"type": "ssd"},
    "allowedTopologies": [{"matchLabelExpressions": [{"key": "topology.kubernetes.io/zone", "values": ["zone-b"]}]}]}');
SELECT * FROM pg_temp.q;
SELECT pg_temp.sc('topo', '{"volumeBindingMode": "WaitForFirstConsumer", "parameters": {"type": "ssd"},
    "allowedTopologies": [{"matchLabelExpressions": [{"key": "topology.kubernetes.io/zone", "values": ["zone-c"]}]}]}');
SELECT * FROM pg_temp.q;
SELECT * FROM pg_temp.retry('binding');
SELECT pg_temp.sc('another', '{"volumeBindingMode": "Immediate"}');
SELECT * FROM pg_temp.q;
SELECT * FROM pg_temp.retry('binding');

------------------------------------------------------------------------------
-- VolumeBinding, isSchedulableAfterCSINodeChange (CSINode/Add|Update): any
-- CSINode added; an update only when its migrated-plugins annotation
-- changed.
------------------------------------------------------------------------------
SELECT pg_temp.csinode('b-1', '[{"name": "ebs.csi.aws.com", "nodeID": "b-1"}]');
SELECT * FROM pg_temp.q;
SELECT pg_temp.csinode('c-1', '[]');
SELECT * FROM pg_temp.q;
SELECT * FROM pg_temp.retry('binding');
SELECT pg_temp.csinode('c-1', '[]', '{"storage.alpha.kubernetes.io/migrated-plugins": "kubernetes.io/gce-pd"}');
SELECT * FROM pg_temp.q;
SELECT * FROM pg_temp.retry('binding');

------------------------------------------------------------------------------
-- VolumeBinding, isSchedulableAfterCSIStorageCapacityChange
-- (CSIStorageCapacity/Add|Update): any capacity added; an update only when
-- its volume limit (maximumVolumeSize, else capacity) appeared or grew.
------------------------------------------------------------------------------
CREATE FUNCTION pg_temp.capacity(fields jsonb) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'CSIStorageCapacity', 'apiVersion', 'storage.k8s.io/v1',
        'metadata', jsonb_build_object('name', 'cap', 'namespace', 'default', 'uid', 'cap'),
        'storageClassName', 'topo') || fields)
$$;
SELECT pg_temp.capacity('{"capacity": "10Gi"}');
SELECT * FROM pg_temp.q;
SELECT * FROM pg_temp.retry('binding');
SELECT pg_temp.capacity('{"capacity": "5Gi"}');
SELECT pg_temp.capacity('{"capacity": "5Gi", "maximumVolumeSize": "5Gi"}');
SELECT * FROM pg_temp.q;
SELECT pg_temp.capacity('{"capacity": "5Gi", "maximumVolumeSize": "6Gi"}');
SELECT * FROM pg_temp.q;
SELECT * FROM pg_temp.retry('binding');

------------------------------------------------------------------------------
-- VolumeBinding, isSchedulableAfterCSIDriverChange (CSIDriver/Update; an
-- Add is not registered): Queue only when the driver of one of the pod's
-- inline CSI volumes stopped tracking storage capacity.
------------------------------------------------------------------------------
CREATE FUNCTION pg_temp.driver(capacity boolean) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'CSIDriver', 'apiVersion', 'storage.k8s.io/v1',
        'metadata', jsonb_build_object('name', 'csi.example.com', 'uid', 'driver'),
        'spec', jsonb_build_object('storageCapacity', capacity)))
$$;
SELECT pg_temp.pod('b-inline', 'binding', pg_temp.claims('topo')
    || '[{"name": "inline", "csi": {"driver": "csi.example.com"}}]');
SELECT * FROM pg_temp.retry('binding');
SELECT pg_temp.driver(true);
SELECT * FROM pg_temp.q;
SELECT pg_temp.driver(false);
SELECT * FROM pg_temp.q;
SELECT * FROM pg_temp.retry('binding');
SELECT pg_temp.driver(true);
SELECT * FROM pg_temp.q;

RESET scheduler.scheduler_name;
DELETE FROM scheduler.profiles WHERE scheduler_name IN ('zone', 'restrictions', 'limits', 'binding');
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history,
    scheduler.persistent_volume_claims, scheduler.persistent_volumes, scheduler.storage_classes,
    scheduler.csi_nodes, scheduler.csi_drivers, scheduler.csi_storage_capacities, scheduler.volume_attachments;
