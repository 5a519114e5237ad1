-- The storage kinds the volume plugins read (src/volumes.c), mirrored as the
-- other kinds: apply(), relist(), watch events.  What the API server refuses
-- is refused with the field named; the pods table keeps the volumes a volume
-- plugin reads.
SET client_min_messages = warning;

------------------------------------------------------------------------------
-- Each kind and its typed columns, generated from the object
------------------------------------------------------------------------------
SELECT scheduler.apply('{"kind": "List", "items": [
  {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "wait", "uid": "sc-wait"},
   "provisioner": "csi.example.com", "volumeBindingMode": "WaitForFirstConsumer",
   "allowedTopologies": [{"matchLabelExpressions": [{"key": "topology.kubernetes.io/zone", "values": ["a"]}]}]},
  {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
   "metadata": {"name": "data", "namespace": "db", "uid": "pvc-data",
                "annotations": {"pv.kubernetes.io/bind-completed": "yes", "volume.kubernetes.io/selected-node": "n1"}},
   "spec": {"storageClassName": "wait", "volumeName": "pv-1", "accessModes": ["ReadWriteOncePod"],
            "resources": {"requests": {"storage": "10Gi"}}}},
  {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "logs", "namespace": "db", "uid": "pvc-logs"},
   "spec": {"storageClassName": "wait", "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}},
  {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv-1", "uid": "pv-1", "labels": {"topology.kubernetes.io/zone": "a"}},
   "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOncePod"], "storageClassName": "wait",
            "claimRef": {"namespace": "db", "name": "data", "uid": "pvc-data"},
            "csi": {"driver": "csi.example.com", "volumeHandle": "h-1"},
            "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["a"]}]}]}}},
   "status": {"phase": "Bound"}},
  {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": "n1", "uid": "csinode-n1"},
   "spec": {"drivers": [{"name": "csi.example.com", "nodeID": "n1", "allocatable": {"count": 2}, "topologyKeys": ["topology.kubernetes.io/zone"]}]}},
  {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": "csi.example.com", "uid": "drv"},
   "spec": {"attachRequired": true, "storageCapacity": true}},
  {"apiVersion": "storage.k8s.io/v1", "kind": "CSIStorageCapacity", "metadata": {"name": "cap-a", "namespace": "kube-system", "uid": "cap-a"},
   "storageClassName": "wait", "capacity": "100Gi", "maximumVolumeSize": "50Gi",
   "nodeTopology": {"matchLabels": {"topology.kubernetes.io/zone": "a"}}},
  {"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachment", "metadata": {"name": "va-1", "uid": "va-1"},
   "spec": {"attacher": "csi.example.com", "nodeName": "n1", "source": {"persistentVolumeName": "pv-1"}}}
]}') AS changed;

SELECT name, provisioner, volume_binding_mode FROM scheduler.storage_classes;
-- bound: volumeName set and annotated bind-completed (any value: HasAnnotation)
SELECT namespace, name, storage_class, volume_name, selected_node, bound
FROM scheduler.persistent_volume_claims ORDER BY name;
SELECT name, storage_class, claim_namespace, claim_name, phase FROM scheduler.persistent_volumes;
SELECT name, object->'spec'->'drivers'->0->'allocatable' AS allocatable FROM scheduler.csi_nodes;
SELECT namespace, name, storage_class FROM scheduler.csi_storage_capacities;
SELECT name, node_name, attacher FROM scheduler.volume_attachments;

-- applying the same object again changes nothing; a watch event deletes
SELECT scheduler.apply(object) AS unchanged FROM scheduler.csi_drivers;
SELECT scheduler.apply(jsonb_build_object('type', 'DELETED', 'object', object)) AS deleted
FROM scheduler.volume_attachments;
SELECT count(*) AS attachments FROM scheduler.volume_attachments;

-- a relist is the whole truth for its kind: the claim it no longer has goes
SELECT scheduler.relist(jsonb_build_object('kind', 'PersistentVolumeClaimList', 'metadata', '{"resourceVersion": "7"}'::jsonb,
    'items', jsonb_build_array((SELECT object FROM scheduler.persistent_volume_claims WHERE name = 'data'))));
SELECT name FROM scheduler.persistent_volume_claims;

------------------------------------------------------------------------------
-- A pod's volumes: the pods table keeps those a volume plugin reads
-- (persistentVolumeClaim, ephemeral, the in-tree disks), in order; a pod
-- without any keeps NULL
------------------------------------------------------------------------------
SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "web", "namespace": "db", "uid": "pod-web"},
  "spec": {"containers": [{"name": "c", "image": "i"}], "volumes": [
    {"name": "config", "configMap": {"name": "cfg"}},
    {"name": "data", "persistentVolumeClaim": {"claimName": "data", "readOnly": true}},
    {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {"accessModes": ["ReadWriteOnce"]}}}},
    {"name": "disk", "gcePersistentDisk": {"pdName": "pd-1"}},
    {"name": "token", "projected": {"sources": []}}]}}');
SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "plain", "namespace": "db", "uid": "pod-plain"},
  "spec": {"containers": [{"name": "c", "image": "i"}], "volumes": [{"name": "config", "configMap": {"name": "cfg"}}]}}');
SELECT name, jsonb_path_query_array(volumes, '$[*].name') AS volumes FROM scheduler.pods WHERE namespace = 'db' ORDER BY name;

------------------------------------------------------------------------------
-- Refused, as the API server refuses them, the field named
------------------------------------------------------------------------------
\set ON_ERROR_STOP 0
SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "p", "namespace": "db"},
  "spec": {"containers": [{"name": "c"}], "volumes": [{"name": "v", "persistentVolumeClaim": {}}]}}');
SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "p", "namespace": "db"},
  "spec": {"containers": [{"name": "c"}], "volumes": [{"name": "v", "rbd": {"monitors": [], "image": "i"}}]}}');
SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "p", "namespace": "db"},
  "spec": {"containers": [{"name": "c"}], "volumes": [{"name": "v", "iscsi": {"targetPortal": "t", "iqn": "q", "lun": "0"}}]}}');
SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "p", "namespace": "db"},
  "spec": {"containers": [{"name": "c"}], "volumes": [{"name": "v", "persistentVolumeClaim": {"claimName": "c"},
                                                      "gcePersistentDisk": {"pdName": "pd"}}]}}');
SELECT scheduler.apply('{"kind": "PersistentVolumeClaim", "metadata": {"name": "c", "namespace": "db"},
  "spec": {"accessModes": ["ReadWriteAlways"]}}');
SELECT scheduler.apply('{"kind": "PersistentVolumeClaim", "metadata": {"name": "c", "namespace": "db"},
  "spec": {"resources": {"requests": {"storage": "ten"}}}}');
SELECT scheduler.apply('{"kind": "PersistentVolumeClaim", "metadata": {"name": "C", "namespace": "db"}, "spec": {}}');
SELECT scheduler.apply('{"kind": "PersistentVolume", "metadata": {"name": "v"},
  "spec": {"nodeAffinity": {"required": {"nodeSelectorTerms": []}}}}');
SELECT scheduler.apply('{"kind": "PersistentVolume", "metadata": {"name": "v"}, "spec": {"csi": {"volumeHandle": "h"}}}');
SELECT scheduler.apply('{"kind": "StorageClass", "metadata": {"name": "s"}, "provisioner": "p", "volumeBindingMode": "Later"}');
SELECT scheduler.apply('{"kind": "CSINode", "metadata": {"name": "n"},
  "spec": {"drivers": [{"name": "d", "allocatable": {"count": -1}}]}}');
SELECT scheduler.apply('{"kind": "CSIStorageCapacity", "metadata": {"name": "c", "namespace": "db"}, "capacity": "1Gi"}');
SELECT scheduler.apply('{"kind": "CSIDriver", "metadata": {"name": "d"}, "spec": {"storageCapacity": "yes"}}');
\set ON_ERROR_STOP 1
