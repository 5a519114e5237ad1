------------------------------------------------------------------------------
-- Mirror tables.  Written by scheduler.apply(); one row per object, keyed by
-- metadata.uid, with typed columns for what scheduling reads and the object
-- itself.  Resources are normalized: cpu in millicores; memory,
-- ephemeral-storage and hugepages-* in bytes; pods as a count; extended
-- resources (nvidia.com/gpu) by name in their own units.
-- A pod's or node's uid, and the columns that name a pod by it, compare
-- bytewise (COLLATE "C"): a uid is opaque, and the locale's comparison of
-- a database's default collation cost most of each lookup by uid.
------------------------------------------------------------------------------
CREATE TABLE scheduler.nodes (
    uid              text COLLATE "C" PRIMARY KEY,
    name             text NOT NULL UNIQUE,
    resource_version text,
    created_at       timestamptz NOT NULL,
    labels           jsonb NOT NULL DEFAULT '{}',
    taints           jsonb NOT NULL DEFAULT '[]',
    unschedulable    boolean NOT NULL DEFAULT false,
    allocatable      jsonb NOT NULL DEFAULT '{}',
    images           jsonb NOT NULL DEFAULT '[]',
    object           jsonb NOT NULL,
    updated_at       timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE scheduler.nodes IS 'Mirror of Kubernetes Nodes, written by scheduler.apply()';
COMMENT ON COLUMN scheduler.nodes.allocatable IS 'status.allocatable (or capacity), normalized: cpu in millicores, memory/ephemeral-storage/hugepages-* in bytes, pods as a count';

CREATE TABLE scheduler.pods (
    uid                text COLLATE "C" PRIMARY KEY,
    namespace          text NOT NULL,
    name               text NOT NULL,
    resource_version   text,
    created_at         timestamptz NOT NULL,
    node_name          text,          -- spec.nodeName: bound, as the API server says
    assumed_node       text,          -- chosen by schedule_pending(), not yet confirmed
    scheduler_name     text NOT NULL,
    priority           integer NOT NULL DEFAULT 0,
    phase              text,
    deletion_timestamp timestamptz,
    labels             jsonb NOT NULL DEFAULT '{}',
    node_selector      jsonb,          -- NULL when the pod has none
    tolerations        jsonb NOT NULL DEFAULT '[]',
    affinity           jsonb NOT NULL DEFAULT '{}',
    requests           jsonb NOT NULL DEFAULT '{}',
    nonzero_cpu        bigint NOT NULL DEFAULT 0,
    nonzero_memory     bigint NOT NULL DEFAULT 0,
    host_ports         jsonb NOT NULL DEFAULT '[]',  -- [{"hostIP", "protocol", "hostPort"}]
    images             jsonb NOT NULL DEFAULT '[]',  -- container images, init containers first
    has_sidecar        boolean NOT NULL DEFAULT false,
    scheduling_gates   text[] NOT NULL DEFAULT '{}', -- spec.schedulingGates names
    object             jsonb NOT NULL,
    updated_at         timestamptz NOT NULL DEFAULT now(),
    -- The two states everything else reads, defined here once.  Terminal: a
    -- finished pod (phase Succeeded or Failed) takes no room on its node.
    terminal           boolean NOT NULL GENERATED ALWAYS AS
                           (phase IS NOT NULL AND phase IN ('Succeeded', 'Failed')) STORED,
    -- Pending: in the scheduling queue (scheduling_queue.c): not on a node
    -- (bound or assumed), not being deleted, not terminal.
    pending            boolean NOT NULL GENERATED ALWAYS AS
                           (node_name IS NULL AND assumed_node IS NULL AND deletion_timestamp IS NULL
                            AND (phase IS NULL OR phase NOT IN ('Succeeded', 'Failed'))) STORED,
    -- spec.volumes that a volume plugin reads (persistentVolumeClaim, ephemeral,
    -- gcePersistentDisk, awsElasticBlockStore, rbd, iscsi); NULL when none
    volumes            jsonb,
    -- a pending pod's non-zero cpu and memory as NodeResourcesFit's scorer
    -- reads it, where a node counts it otherwise (pod-level requests); NULL
    -- when the same
    pending_nonzero_cpu    bigint,
    pending_nonzero_memory bigint,
    UNIQUE (namespace, name)
)
-- Half of each page is left free: a pod's rows are rewritten as it is
-- assumed, bound and its status moves, and a version that fits on its page
-- (no index reads the columns that changed) is a HOT update, which writes
-- no index entry.  A pod burst that schedule_pending() assumes in one call
-- is written on the pages that hold it.
WITH (fillfactor = 50);
COMMENT ON TABLE scheduler.pods IS 'Mirror of Kubernetes Pods, written by scheduler.apply(); assumed_node by schedule_pending()';
COMMENT ON COLUMN scheduler.pods.requests IS 'effective request as kube-scheduler computes it (containers summed, max with init containers, sidecars added, overhead added), normalized';
COMMENT ON COLUMN scheduler.pods.nonzero_cpu IS 'effective cpu request in millicores as a node counts it for scoring: with the 100m default for containers that set none (under pod-level requests, only when neither the pod nor a container sets cpu)';
COMMENT ON COLUMN scheduler.pods.terminal IS 'phase Succeeded or Failed: the pod takes no room on its node';
COMMENT ON COLUMN scheduler.pods.pending IS 'waits for a node: not bound or assumed, not being deleted, not terminal (the scheduling queue holds exactly these pods)';
COMMENT ON COLUMN scheduler.pods.nonzero_memory IS 'effective memory request in bytes as a node counts it for scoring: with the 200Mi default for containers that set none (under pod-level requests, only when neither the pod nor a container sets memory)';
COMMENT ON COLUMN scheduler.pods.pending_nonzero_cpu IS 'a pending pod''s cpu as NodeResourcesFit''s scorer reads the pod it schedules (its containers alone, the 100m default for each that sets none, and the overhead: released kube-scheduler skips pod-level requests there), where that differs from nonzero_cpu; NULL otherwise';
COMMENT ON COLUMN scheduler.pods.pending_nonzero_memory IS 'a pending pod''s memory as NodeResourcesFit''s scorer reads the pod it schedules (its containers alone, the 200Mi default for each that sets none, and the overhead: released kube-scheduler skips pod-level requests there), where that differs from nonzero_memory; NULL otherwise';

-- The pods bound to a node.  No index reads assumed_node: the assume, the
-- one write of each placement in schedule_pending(), is then a HOT update.
-- The pending pods, not on a node, are not indexed here.
CREATE INDEX pods_on_node ON scheduler.pods (node_name) WHERE node_name IS NOT NULL;
-- No index of pending pods by schedulerName: the queue (scheduler.queue)
-- holds them, and the pop reads it.  (0.1's, a hash index on one key that
-- every pending pod shares, cost each write a walk of one long chain.)

-- Writers of nodes and pods hold scheduler.cycle_lock in SHARE mode,
-- schedule_pending() holds it EXCLUSIVE: a change either commits before a
-- cycle reads the cluster, or waits for the cycle to commit and then sees its
-- unschedulable pods (so its QueueingHints can move them).  No event is lost
-- to a cycle in flight.  Only the owner can take a conflicting lock on the
-- table (nobody is granted one): no stranger can hold scheduling up.
CREATE FUNCTION scheduler_internal.writer_lock() RETURNS trigger
    AS 'MODULE_PATHNAME', 'scheduler_writer_lock' LANGUAGE C;
CREATE TRIGGER writer_lock BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON scheduler.nodes
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.writer_lock();
CREATE TRIGGER writer_lock BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON scheduler.pods
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.writer_lock();

-- Namespaces: what InterPodAffinity's namespaceSelector reads (issue #6).
CREATE TABLE scheduler.namespaces (
    uid              text PRIMARY KEY,
    name             text NOT NULL UNIQUE,
    resource_version text,
    labels           jsonb NOT NULL DEFAULT '{}',
    object           jsonb NOT NULL,
    updated_at       timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE scheduler.namespaces IS 'Mirror of Kubernetes Namespaces, written by scheduler.apply()';
CREATE TRIGGER writer_lock BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON scheduler.namespaces
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.writer_lock();

-- PodDisruptionBudgets (policy/v1): what DefaultPreemption respects.  The
-- disruption controller's status says how many pods may go.
CREATE TABLE scheduler.pdbs (
    uid                 text PRIMARY KEY,
    namespace           text NOT NULL,
    name                text NOT NULL,
    resource_version    text,
    selector            jsonb,                 -- spec.selector; NULL selects no pod
    disruptions_allowed integer NOT NULL DEFAULT 0,  -- status.disruptionsAllowed
    disrupted_pods      jsonb NOT NULL DEFAULT '{}', -- status.disruptedPods: pod name -> time
    object              jsonb NOT NULL,
    updated_at          timestamptz NOT NULL DEFAULT now(),
    UNIQUE (namespace, name)
);
COMMENT ON TABLE scheduler.pdbs IS 'Mirror of PodDisruptionBudgets, written by scheduler.apply(); read by DefaultPreemption';
CREATE TRIGGER writer_lock BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON scheduler.pdbs
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.writer_lock();

-- The workloads whose selectors make PodTopologySpread's system default
-- constraints (DefaultSelector): Services and ReplicationControllers (a
-- label map), ReplicaSets and StatefulSets (a LabelSelector).
CREATE TABLE scheduler.workloads (
    uid              text PRIMARY KEY,
    kind             text NOT NULL CHECK (kind IN ('Service', 'ReplicationController', 'ReplicaSet', 'StatefulSet')),
    namespace        text NOT NULL,
    name             text NOT NULL,
    resource_version text,
    selector         jsonb,          -- spec.selector as the object has it; NULL when it has none
    object           jsonb NOT NULL,
    updated_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (kind, namespace, name)
);
COMMENT ON TABLE scheduler.workloads IS 'Mirror of Services, ReplicationControllers, ReplicaSets and StatefulSets (their selectors), written by scheduler.apply(); read by PodTopologySpread''s system default constraints';
CREATE TRIGGER writer_lock BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON scheduler.workloads
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.writer_lock();

-- The storage objects the volume plugins read (volumes.c): one table per
-- kind, keyed by uid, the object as it came and, for queries and joins, the
-- fields the plugins read most, generated from it.
CREATE TABLE scheduler.persistent_volume_claims (
    uid              text PRIMARY KEY,
    namespace        text NOT NULL,
    name             text NOT NULL,
    resource_version text,
    object           jsonb NOT NULL,
    updated_at       timestamptz NOT NULL DEFAULT now(),
    storage_class    text GENERATED ALWAYS AS (object->'spec'->>'storageClassName') STORED,
    volume_name      text GENERATED ALWAYS AS (nullif(object->'spec'->>'volumeName', '')) STORED,
    selected_node    text GENERATED ALWAYS AS
                         (object->'metadata'->'annotations'->>'volume.kubernetes.io/selected-node') STORED,
    bound            boolean NOT NULL GENERATED ALWAYS AS
                         (coalesce(object->'spec'->>'volumeName', '') <> ''
                          AND coalesce(object->'metadata'->'annotations' ? 'pv.kubernetes.io/bind-completed', false)) STORED,
    UNIQUE (namespace, name)
);
COMMENT ON TABLE scheduler.persistent_volume_claims IS 'Mirror of PersistentVolumeClaims, written by scheduler.apply(); read by the volume plugins';
COMMENT ON COLUMN scheduler.persistent_volume_claims.bound IS 'spec.volumeName set and annotated pv.kubernetes.io/bind-completed: VolumeBinding''s PreBind waits for this';
CREATE TRIGGER writer_lock BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON scheduler.persistent_volume_claims
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.writer_lock();

CREATE TABLE scheduler.persistent_volumes (
    uid              text PRIMARY KEY,
    name             text NOT NULL UNIQUE,
    resource_version text,
    object           jsonb NOT NULL,
    updated_at       timestamptz NOT NULL DEFAULT now(),
    storage_class    text GENERATED ALWAYS AS (coalesce(object->'spec'->>'storageClassName', '')) STORED,
    claim_namespace  text GENERATED ALWAYS AS (object->'spec'->'claimRef'->>'namespace') STORED,
    claim_name       text GENERATED ALWAYS AS (object->'spec'->'claimRef'->>'name') STORED,
    phase            text GENERATED ALWAYS AS (object->'status'->>'phase') STORED
);
COMMENT ON TABLE scheduler.persistent_volumes IS 'Mirror of PersistentVolumes, written by scheduler.apply(); read by the volume plugins';
CREATE TRIGGER writer_lock BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON scheduler.persistent_volumes
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.writer_lock();

CREATE TABLE scheduler.storage_classes (
    uid               text PRIMARY KEY,
    name              text NOT NULL UNIQUE,
    resource_version  text,
    object            jsonb NOT NULL,
    updated_at        timestamptz NOT NULL DEFAULT now(),
    provisioner       text GENERATED ALWAYS AS (object->>'provisioner') STORED,
    volume_binding_mode text GENERATED ALWAYS AS (object->>'volumeBindingMode') STORED
);
COMMENT ON TABLE scheduler.storage_classes IS 'Mirror of StorageClasses (storage.k8s.io/v1), written by scheduler.apply(); read by the volume plugins';
CREATE TRIGGER writer_lock BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON scheduler.storage_classes
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.writer_lock();

CREATE TABLE scheduler.csi_nodes (
    uid              text PRIMARY KEY,
    name             text NOT NULL UNIQUE,   -- the node's name
    resource_version text,
    object           jsonb NOT NULL,
    updated_at       timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE scheduler.csi_nodes IS 'Mirror of CSINodes (storage.k8s.io/v1): each node''s CSI drivers and their volume limits (allocatable.count), written by scheduler.apply(); read by NodeVolumeLimits and VolumeBinding';
CREATE TRIGGER writer_lock BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON scheduler.csi_nodes
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.writer_lock();

CREATE TABLE scheduler.csi_drivers (
    uid              text PRIMARY KEY,
    name             text NOT NULL UNIQUE,
    resource_version text,
    object           jsonb NOT NULL,
    updated_at       timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE scheduler.csi_drivers IS 'Mirror of CSIDrivers (storage.k8s.io/v1), written by scheduler.apply(); read by VolumeBinding (storageCapacity) and NodeVolumeLimits';
CREATE TRIGGER writer_lock BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON scheduler.csi_drivers
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.writer_lock();

CREATE TABLE scheduler.csi_storage_capacities (
    uid              text PRIMARY KEY,
    namespace        text NOT NULL,
    name             text NOT NULL,
    resource_version text,
    object           jsonb NOT NULL,
    updated_at       timestamptz NOT NULL DEFAULT now(),
    storage_class    text GENERATED ALWAYS AS (object->>'storageClassName') STORED,
    UNIQUE (namespace, name)
);
COMMENT ON TABLE scheduler.csi_storage_capacities IS 'Mirror of CSIStorageCapacities (storage.k8s.io/v1), written by scheduler.apply(); read by VolumeBinding';
CREATE TRIGGER writer_lock BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON scheduler.csi_storage_capacities
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.writer_lock();

CREATE TABLE scheduler.volume_attachments (
    uid              text PRIMARY KEY,
    name             text NOT NULL UNIQUE,
    resource_version text,
    object           jsonb NOT NULL,
    updated_at       timestamptz NOT NULL DEFAULT now(),
    node_name        text GENERATED ALWAYS AS (object->'spec'->>'nodeName') STORED,
    attacher         text GENERATED ALWAYS AS (object->'spec'->>'attacher') STORED
);
COMMENT ON TABLE scheduler.volume_attachments IS 'Mirror of VolumeAttachments (storage.k8s.io/v1), written by scheduler.apply(); counted by NodeVolumeLimits';
CREATE TRIGGER writer_lock BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON scheduler.volume_attachments
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.writer_lock();
