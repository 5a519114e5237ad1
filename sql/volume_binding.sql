-- VolumeBinding, as kube-scheduler's volumebinding plugin behaves
-- (volume_binding.go, binder.go, scorer.go, and component-helpers'
-- FindMatchingVolume): its PreFilter verdicts, its Filter reasons, its
-- scores under VolumeCapacityPriority, its args, and one scheduling cycle.
\set SHOW_CONTEXT never
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts,
    scheduler.persistent_volume_claims, scheduler.persistent_volumes, scheduler.storage_classes,
    scheduler.csi_nodes, scheduler.csi_drivers, scheduler.csi_storage_capacities, scheduler.volume_attachments;
SET scheduler.pod_initial_backoff = 0;
SET scheduler.pod_max_backoff = 0;

CREATE FUNCTION pg_temp.node(name text, zone text) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Node',
        'metadata', jsonb_build_object('name', name, 'labels',
            jsonb_build_object('kubernetes.io/hostname', name, 'topology.kubernetes.io/zone', zone)),
        'status', jsonb_build_object('allocatable', jsonb_build_object('cpu', '8', 'memory', '16Gi', 'pods', '110'))))
$$;
-- a pod with these spec.volumes; uid "uid-<name>"
CREATE FUNCTION pg_temp.pod(name text, volumes jsonb) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Pod',
        'metadata', jsonb_build_object('name', name, 'namespace', 'default', 'uid', 'uid-' || name),
        'spec', jsonb_build_object('containers', jsonb_build_array(jsonb_build_object('name', 'c')),
                                   'volumes', volumes)))
$$;
CREATE FUNCTION pg_temp.claims(VARIADIC names text[]) RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_agg(jsonb_build_object('name', 'v-' || n, 'persistentVolumeClaim', jsonb_build_object('claimName', n)))
    FROM unnest(names) n
$$;
CREATE FUNCTION pg_temp.pvc(name text, class text, extra jsonb DEFAULT '{}') RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'PersistentVolumeClaim',
        'metadata', jsonb_build_object('name', name, 'namespace', 'default', 'uid', 'pvc-' || name),
        'spec', jsonb_build_object('storageClassName', class, 'accessModes', '["ReadWriteOnce"]'::jsonb,
            'resources', '{"requests": {"storage": "10Gi"}}'::jsonb)) || extra)
$$;
-- a claim bound to a volume (spec.volumeName and the bind-completed annotation)
CREATE FUNCTION pg_temp.bound_pvc(name text, volume text) RETURNS int LANGUAGE sql AS $$
    SELECT pg_temp.pvc(name, 'wait-sc', jsonb_build_object(
        'metadata', jsonb_build_object('name', name, 'namespace', 'default', 'uid', 'pvc-' || name,
            'annotations', '{"pv.kubernetes.io/bind-completed": "yes"}'::jsonb),
        'spec', jsonb_build_object('storageClassName', 'wait-sc', 'volumeName', volume)))
$$;
-- a volume of the class with a node affinity "key In (val)": Available, or
-- Bound to the claim named
CREATE FUNCTION pg_temp.pv(name text, class text, size text, key text, val text, claim text DEFAULT NULL)
RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'PersistentVolume',
        'metadata', jsonb_build_object('name', name, 'uid', 'pv-' || name),
        'spec', jsonb_build_object('storageClassName', class, 'accessModes', '["ReadWriteOnce"]'::jsonb,
            'capacity', jsonb_build_object('storage', size),
            'hostPath', '{"path": "/tmp"}'::jsonb,
            'nodeAffinity', jsonb_build_object('required', jsonb_build_object('nodeSelectorTerms',
                jsonb_build_array(jsonb_build_object('matchExpressions', jsonb_build_array(
                    jsonb_build_object('key', key, 'operator', 'In', 'values', jsonb_build_array(val)))))))
            ) || CASE WHEN claim IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('claimRef',
                jsonb_build_object('namespace', 'default', 'name', claim, 'uid', 'pvc-' || claim)) END,
        'status', jsonb_build_object('phase', CASE WHEN claim IS NULL THEN 'Available' ELSE 'Bound' END)))
$$;
CREATE FUNCTION pg_temp.sc(name text, provisioner text, extra jsonb DEFAULT '{}') RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'StorageClass', 'apiVersion', 'storage.k8s.io/v1',
        'metadata', jsonb_build_object('name', name, 'uid', 'sc-' || name),
        'provisioner', provisioner) || extra)
$$;
CREATE FUNCTION pg_temp.verdicts(pod text) RETURNS TABLE (node text, code text, reason text) LANGUAGE sql AS $$
    SELECT node, code, reason FROM scheduler.filter('default', pod)
    WHERE plugin = 'VolumeBinding' ORDER BY node NULLS FIRST
$$;
CREATE FUNCTION pg_temp.prefilter(pod text) RETURNS TABLE (code text, reason text) LANGUAGE sql AS $$
    SELECT code, reason FROM scheduler.filter('default', pod) WHERE plugin = 'VolumeBinding' AND node IS NULL
$$;

SELECT pg_temp.node('n1', 'a'), pg_temp.node('n2', 'a'), pg_temp.node('n3', 'b');
SELECT pg_temp.sc('immediate-sc', 'kubernetes.io/no-provisioner', '{"volumeBindingMode": "Immediate"}'),
       pg_temp.sc('wait-sc', 'kubernetes.io/no-provisioner', '{"volumeBindingMode": "WaitForFirstConsumer"}'),
       pg_temp.sc('modeless-sc', 'kubernetes.io/no-provisioner'),
       pg_temp.sc('csi-sc', 'csi.example.com', '{"volumeBindingMode": "WaitForFirstConsumer",
            "allowedTopologies": [{"matchLabelExpressions": [{"key": "topology.kubernetes.io/zone", "values": ["a"]}]}]}');

------------------------------------------------------------------------------
-- PreFilter (podHasPVCs, GetPodVolumeClaims): a pod without claims is
-- skipped; a claim that is missing, Lost, being deleted, or an ephemeral
-- volume's claim not made yet or not the pod's, rejects the pod
-- (UnschedulableAndUnresolvable, the error's text); so does an unbound
-- claim of an Immediate class, or one pre-bound to a volume; a class with
-- no volumeBindingMode is an Error.
------------------------------------------------------------------------------
SELECT pg_temp.pod('no-claims', '[{"name": "d", "gcePersistentDisk": {"pdName": "d"}}]');
SELECT * FROM pg_temp.prefilter('no-claims');

SELECT pg_temp.pod('missing', pg_temp.claims('nope'));
-- (in the default profile VolumeRestrictions' PreFilter, before
-- VolumeBinding's, rejects a missing claim first, as kube-scheduler's: this
-- pod runs a profile of VolumeBinding alone)
INSERT INTO scheduler.profiles VALUES ('volume-binding', NULL);
INSERT INTO scheduler.profile_plugins (scheduler_name, plugin, position) VALUES ('volume-binding', 'VolumeBinding', 1);
UPDATE scheduler.pods SET scheduler_name = 'volume-binding' WHERE name = 'missing';
SELECT * FROM pg_temp.prefilter('missing');

SELECT pg_temp.pod('eph', '[{"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}]');
SELECT * FROM pg_temp.prefilter('eph');
-- the claim "eph-scratch" made, but owned by another pod
SELECT pg_temp.pvc('eph-scratch', 'wait-sc', '{"metadata": {"name": "eph-scratch", "namespace": "default",
    "uid": "pvc-eph", "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "other", "uid": "uid-other",
    "controller": true}]}}');
SELECT * FROM pg_temp.prefilter('eph');

SELECT pg_temp.pvc('lost', 'wait-sc', '{"spec": {"storageClassName": "wait-sc", "volumeName": "gone"},
    "status": {"phase": "Lost"}}');
SELECT pg_temp.pod('lost', pg_temp.claims('lost'));
SELECT * FROM pg_temp.prefilter('lost');

SELECT pg_temp.pvc('doomed', 'wait-sc', '{"metadata": {"name": "doomed", "namespace": "default", "uid": "pvc-doomed",
    "deletionTimestamp": "2024-01-01T00:00:00Z"}}');
SELECT pg_temp.pod('doomed', pg_temp.claims('doomed'));
SELECT * FROM pg_temp.prefilter('doomed');

SELECT pg_temp.pvc('immediate', 'immediate-sc'), pg_temp.pvc('prebound', 'wait-sc',
    '{"spec": {"storageClassName": "wait-sc", "volumeName": "some-pv"}}');
SELECT pg_temp.pod('immediate', pg_temp.claims('immediate')), pg_temp.pod('prebound', pg_temp.claims('prebound'));
SELECT * FROM pg_temp.prefilter('immediate');
SELECT * FROM pg_temp.prefilter('prebound');

SELECT pg_temp.pvc('modeless', 'modeless-sc');
SELECT pg_temp.pod('modeless', pg_temp.claims('modeless'));
SELECT * FROM pg_temp.prefilter('modeless');

------------------------------------------------------------------------------
-- Bound claims.  A bound claim's volume that does not exist fails every
-- node ("PV not exist"); a local volume (node affinity on
-- kubernetes.io/hostname) restricts the nodes to its hostnames
-- (PreFilterResult, GetEligibleNodes); a zonal volume's node affinity
-- rejects the other zone's nodes ("node conflict").
------------------------------------------------------------------------------
SELECT pg_temp.bound_pvc('to-nowhere', 'no-such-pv');
SELECT pg_temp.pod('to-nowhere', pg_temp.claims('to-nowhere'));
SELECT * FROM pg_temp.verdicts('to-nowhere');

SELECT pg_temp.pv('local-n2', 'wait-sc', '10Gi', 'kubernetes.io/hostname', 'n2', 'local');
SELECT pg_temp.bound_pvc('local', 'local-n2');
SELECT pg_temp.pod('local', pg_temp.claims('local'));
SELECT * FROM pg_temp.prefilter('local');
-- two local volumes on different nodes: the intersection is empty, no node is left
SELECT pg_temp.pv('local-n1', 'wait-sc', '10Gi', 'kubernetes.io/hostname', 'n1', 'local-1');
SELECT pg_temp.bound_pvc('local-1', 'local-n1');
SELECT pg_temp.pod('split', pg_temp.claims('local', 'local-1'));
SELECT plugin, code, reason FROM scheduler.filter('default', 'split') WHERE node IS NULL AND code <> 'Skip';

SELECT pg_temp.pv('zonal-a', 'wait-sc', '10Gi', 'topology.kubernetes.io/zone', 'a', 'zonal');
SELECT pg_temp.bound_pvc('zonal', 'zonal-a');
SELECT pg_temp.pod('zonal', pg_temp.claims('zonal'));
SELECT * FROM pg_temp.verdicts('zonal');

------------------------------------------------------------------------------
-- Unbound WaitForFirstConsumer claims (findMatchingVolumes): an available
-- volume of the class that holds the request and reaches the node (zone b:
-- big-b; small-b is too small, zone a's volumes are bound to other claims);
-- none, and no provisioner (wait-sc's is kubernetes.io/no-provisioner):
-- "bind conflict".  With a bound claim's conflict too, both reasons, node
-- conflict first.
------------------------------------------------------------------------------
SELECT pg_temp.pv('small-b', 'wait-sc', '1Gi', 'topology.kubernetes.io/zone', 'b');
SELECT pg_temp.pv('big-b', 'wait-sc', '100Gi', 'topology.kubernetes.io/zone', 'b');
SELECT pg_temp.pvc('unbound', 'wait-sc');
SELECT pg_temp.pod('unbound', pg_temp.claims('unbound'));
SELECT * FROM pg_temp.verdicts('unbound');
-- big-b claimed by another claim: no volume for "unbound" anywhere
UPDATE scheduler.persistent_volumes
SET object = jsonb_set(object, '{spec,claimRef}', '{"namespace": "default", "name": "someone-else"}')
WHERE name = 'big-b';
SELECT * FROM pg_temp.verdicts('unbound');
SELECT pg_temp.pod('both', pg_temp.claims('zonal', 'unbound'));
SELECT * FROM pg_temp.verdicts('both');
-- a volume pre-bound to this claim (claimRef without uid) is its match
UPDATE scheduler.persistent_volumes
SET object = jsonb_set(object, '{spec,claimRef}', '{"namespace": "default", "name": "unbound"}')
WHERE name = 'big-b';
SELECT * FROM pg_temp.verdicts('unbound');

------------------------------------------------------------------------------
-- Dynamic provisioning (checkVolumeProvisions): the class's provisioner
-- must provision, on the node's topology (allowedTopologies: zone a), and,
-- for a CSI driver with storageCapacity, with a CSIStorageCapacity of the
-- class reaching the node that holds the request ("not enough space").
-- A claim with a selected node fits that node only.
------------------------------------------------------------------------------
SELECT pg_temp.pvc('dyn', 'csi-sc');
SELECT pg_temp.pod('dyn', pg_temp.claims('dyn'));
SELECT * FROM pg_temp.verdicts('dyn');
SELECT scheduler.apply('{"kind": "CSIDriver", "apiVersion": "storage.k8s.io/v1",
    "metadata": {"name": "csi.example.com", "uid": "driver-1"}, "spec": {"storageCapacity": true}}');
SELECT * FROM pg_temp.verdicts('dyn');
SELECT scheduler.apply('{"kind": "CSIStorageCapacity", "apiVersion": "storage.k8s.io/v1",
    "metadata": {"name": "cap-n1", "namespace": "default", "uid": "cap-1"}, "storageClassName": "csi-sc",
    "nodeTopology": {"matchLabels": {"kubernetes.io/hostname": "n1"}}, "capacity": "50Gi"}');
SELECT scheduler.apply('{"kind": "CSIStorageCapacity", "apiVersion": "storage.k8s.io/v1",
    "metadata": {"name": "cap-n2", "namespace": "default", "uid": "cap-2"}, "storageClassName": "csi-sc",
    "nodeTopology": {"matchLabels": {"kubernetes.io/hostname": "n2"}}, "capacity": "50Gi",
    "maximumVolumeSize": "5Gi"}');
SELECT * FROM pg_temp.verdicts('dyn');
SELECT pg_temp.pvc('picked', 'csi-sc', '{"metadata": {"name": "picked", "namespace": "default", "uid": "pvc-picked",
    "annotations": {"volume.kubernetes.io/selected-node": "n2"}}}');
SELECT pg_temp.pod('picked', pg_temp.claims('picked'));
SELECT * FROM pg_temp.verdicts('picked');

------------------------------------------------------------------------------
-- Score (VolumeCapacityPriority): the smallest fitting volume per node,
-- its class's utilization through the shape ({0, 0}, {100, 10} by
-- default): 10Gi of 40Gi (not 80Gi) scores 25, of 20Gi 50; n3 has no
-- volume for the claim (5Gi is too small, big-b is another's) and scores
-- 0 when scored (every node, as TestVolumeBinding does), or is filtered
-- out.  Without the gate, PreScore skips.
------------------------------------------------------------------------------
SELECT pg_temp.pv('cap-n1-a', 'wait-sc', '40Gi', 'kubernetes.io/hostname', 'n1'),
       pg_temp.pv('cap-n1-b', 'wait-sc', '80Gi', 'kubernetes.io/hostname', 'n1'),
       pg_temp.pv('cap-n2-a', 'wait-sc', '20Gi', 'kubernetes.io/hostname', 'n2'),
       pg_temp.pv('cap-n3-a', 'wait-sc', '5Gi', 'kubernetes.io/hostname', 'n3');
SELECT pg_temp.pvc('sized', 'wait-sc');
SELECT pg_temp.pod('sized', pg_temp.claims('sized'));
SELECT node, raw FROM scheduler.score('default', 'sized', false) WHERE plugin = 'VolumeBinding' ORDER BY node;
SET scheduler.feature_gates = 'VolumeCapacityPriority=true';
SELECT node, raw FROM scheduler.score('default', 'sized', false) WHERE plugin = 'VolumeBinding' ORDER BY node;
SELECT node, raw FROM scheduler.score('default', 'sized') WHERE plugin = 'VolumeBinding' ORDER BY node;
-- a pod with only bound claims has no static binding: PreScore skips
SELECT node, raw FROM scheduler.score('default', 'zonal') WHERE plugin = 'VolumeBinding' ORDER BY node;

------------------------------------------------------------------------------
-- Args (ValidateVolumeBindingArgs): bindTimeoutSeconds not negative; shape
-- only with the gate, sorted, in range.
------------------------------------------------------------------------------
SELECT scheduler.check_plugin('VolumeBinding', '{"bindTimeoutSeconds": 300,
    "shape": [{"utilization": 0, "score": 0}, {"utilization": 50, "score": 3}, {"utilization": 100, "score": 5}]}');
SELECT scheduler.check_plugin('VolumeBinding', '{"bindTimeoutSeconds": -1}');
SELECT scheduler.check_plugin('VolumeBinding', '{"shape": [{"utilization": 50, "score": 1}, {"utilization": 10, "score": 2}]}');
SELECT scheduler.check_plugin('VolumeBinding', '{"shape": [{"utilization": 0, "score": 11}]}');
SELECT scheduler.check_plugin('VolumeBinding', '{"shape": []}');
SELECT scheduler.check_plugin('VolumeBinding', '{"bindTimeout": 1}');
RESET scheduler.feature_gates;
SELECT scheduler.check_plugin('VolumeBinding', '{"shape": [{"utilization": 0, "score": 0}]}');
SELECT scheduler.check_plugin('VolumeBinding', '{"bindTimeoutSeconds": 0}');

------------------------------------------------------------------------------
-- Rows planted past apply() read as what they hold, never crash: a volume
-- whose fields have the wrong types, a claim whose selector does not parse
-- (FindMatchingVolume's error: Filter says Error), a class and capacities
-- of nonsense.
------------------------------------------------------------------------------
UPDATE scheduler.persistent_volumes SET object = '{"metadata": {"name": "big-b", "labels": 3},
    "spec": {"nodeAffinity": {"required": {"nodeSelectorTerms": [1, {"matchExpressions": "x"}]}},
             "claimRef": 5, "capacity": {"storage": "lots"}, "storageClassName": "wait-sc"}, "status": {"phase": 7}}'
WHERE name = 'big-b';
UPDATE scheduler.persistent_volume_claims
SET object = jsonb_set(object, '{spec,selector}', '{"matchExpressions": [{"key": "", "operator": "Bogus"}]}')
WHERE name = 'unbound';
UPDATE scheduler.storage_classes SET object = '{"metadata": {"name": "csi-sc"}, "provisioner": 5,
    "volumeBindingMode": "WaitForFirstConsumer", "allowedTopologies": [3, {"matchLabelExpressions": [{"key": 1}]}]}'
WHERE name = 'csi-sc';
UPDATE scheduler.csi_storage_capacities SET object = '{"metadata": {}, "nodeTopology": [], "capacity": {}}';
SELECT * FROM pg_temp.verdicts('unbound');
SELECT * FROM pg_temp.verdicts('dyn');
SET scheduler.feature_gates = 'VolumeCapacityPriority=true';
SELECT node, raw FROM scheduler.score('default', 'sized', false) WHERE plugin = 'VolumeBinding' ORDER BY node;
RESET scheduler.feature_gates;

------------------------------------------------------------------------------
-- One scheduling cycle: the pod with the local volume goes to n2, the
-- only node its PreFilterResult leaves; the pod with an unbound immediate
-- claim stays pending with the PreFilter's reason.
------------------------------------------------------------------------------
DELETE FROM scheduler.pods WHERE name NOT IN ('local', 'immediate');
SELECT name, node, result, message FROM schedule_pending() ORDER BY name;

------------------------------------------------------------------------------
-- Reserve (AssumePodVolumes) and PreBind (BindPodVolumes), without an API
-- server: the choices are written to the mirror as the API server would
-- write PreBind's updates.  Two pods whose claims fit one volume: the first
-- takes it (its claimRef names the claim, annotated
-- pv.kubernetes.io/bound-by-controller), and the second, in the same call,
-- finds none left (the assumed volume is taken, as kube-scheduler's assume
-- cache holds it), nor in the next call.  A claim to provision gets the
-- node in volume.kubernetes.io/selected-node; a pod sharing it follows it
-- to that node.
------------------------------------------------------------------------------
TRUNCATE scheduler.pods, scheduler.persistent_volume_claims, scheduler.persistent_volumes, scheduler.queue;
SELECT pg_temp.pv('only', 'wait-sc', '10Gi', 'topology.kubernetes.io/zone', 'b');
SELECT pg_temp.pvc('first', 'wait-sc'), pg_temp.pvc('second', 'wait-sc');
SELECT pg_temp.pod('p-first', pg_temp.claims('first')), pg_temp.pod('p-second', pg_temp.claims('second'));
SELECT name, node, result, message FROM schedule_pending() ORDER BY name;
SELECT name, object->'spec'->'claimRef' AS claim_ref,
       object->'metadata'->'annotations' AS annotations
FROM scheduler.persistent_volumes;
SELECT * FROM pg_temp.verdicts('p-second');

SELECT pg_temp.sc('prov-sc', 'example.com/provisioner', '{"volumeBindingMode": "WaitForFirstConsumer"}');
SELECT pg_temp.pvc('shared', 'prov-sc', '{"spec": {"storageClassName": "prov-sc",
    "accessModes": ["ReadWriteMany"], "resources": {"requests": {"storage": "1Gi"}}}}');
SELECT pg_temp.pod('s1', pg_temp.claims('shared'));
SELECT name, node IS NOT NULL AS placed, result FROM schedule_pending() ORDER BY name;
SELECT c.name, c.selected_node = p.assumed_node AS selected_its_node, c.bound
FROM scheduler.persistent_volume_claims c, scheduler.pods p WHERE c.name = 'shared' AND p.name = 's1';
SELECT pg_temp.pod('s2', pg_temp.claims('shared'));
SELECT p.name, p.node = s.selected_node AS follows_the_claim
FROM schedule_pending() p, scheduler.persistent_volume_claims s WHERE s.name = 'shared';

------------------------------------------------------------------------------
-- With an API server, a pod whose deletion starts before it is bound is
-- forgotten at once (kube-scheduler's handleAssumedPodDeletion: its room is
-- free), but the volumes Reserve assumed for it stay taken while its
-- binding is pending: kube-scheduler lets go of them only when the binding
-- cycle fails (Unreserve).  The API server refuses to bind a pod being
-- deleted.
------------------------------------------------------------------------------
TRUNCATE scheduler.pods, scheduler.persistent_volume_claims, scheduler.persistent_volumes, scheduler.queue;
DELETE FROM scheduler.outbox;
SET scheduler.kube_api_url = 'https://127.0.0.1:6443';
SELECT pg_temp.pv('held', 'wait-sc', '10Gi', 'topology.kubernetes.io/zone', 'b');
-- (as the API server gives it: Reserve's assumption holds until the mirror shows a newer version)
SELECT scheduler.apply(jsonb_set(object, '{metadata,resourceVersion}', '"100"'))
FROM scheduler.persistent_volumes WHERE name = 'held';
SELECT pg_temp.pvc('third', 'wait-sc'), pg_temp.pvc('fourth', 'wait-sc');
SELECT pg_temp.pod('p-third', pg_temp.claims('third'));
SELECT name, node, result FROM schedule_pending();
SELECT kind, name, object, state FROM scheduler.outbox WHERE kind IN ('volume', 'binding') ORDER BY id;
-- the API server's word on p-third now: being deleted, held by a finalizer, no nodeName
SELECT scheduler.apply(object || jsonb_build_object('metadata', object->'metadata'
    || '{"deletionTimestamp": "2024-01-01T00:10:00Z", "finalizers": ["example.com/hold"]}'))
FROM scheduler.pods WHERE name = 'p-third';
SELECT name, assumed_node, pending FROM scheduler.pods;
SELECT pg_temp.pod('p-fourth', pg_temp.claims('fourth'));
SELECT name, node, result FROM schedule_pending();
-- the volume's patch goes through first (the binding waits for it), then
-- the binding is refused: Unreserve lets go of the volume, which is free
-- until the mirror shows the new version the patch made
SELECT scheduler.outbox_result(id, 200) FROM scheduler.outbox WHERE kind = 'volume';
SELECT scheduler.outbox_result(id, 409, '{"kind": "Status", "reason": "Conflict", "code": 409,
    "message": "Operation cannot be fulfilled on pods/binding \"p-third\": pod p-third is being deleted, cannot be assigned to a host"}')
FROM scheduler.outbox WHERE kind = 'binding';
SELECT kind, name, state FROM scheduler.outbox WHERE kind IN ('volume', 'binding') ORDER BY id;
UPDATE scheduler.queue SET state = 'active', backoff_until = NULL;
SELECT name, node, result FROM schedule_pending();
RESET scheduler.kube_api_url;
DELETE FROM scheduler.outbox;
