-- The volume workloads of kube-scheduler's scheduler_perf
-- (test/integration/scheduler_perf/volumes/performance-config.yaml), at
-- 5000 nodes (node-default.yaml: 4 cpu, 32Gi, 110 pods; three zones).
-- Each pod (pod-default.yaml: 100m, 500Mi) has one volume, "vol", a claim
-- pvc-<i> (pvc.yaml: ReadOnlyMany, 1Gi, bind-completed) bound to its own
-- PersistentVolume sched-0-vol-<i> (CreatePodWithPersistentVolume: the PV's
-- claimRef and phase Bound, the claim's volumeName and phase Bound).  The
-- first pods are placed, then schedule_pending() is timed over the pending
-- ones in a fresh backend (the snapshot, and the volume catalog, are built
-- inside the timed call), and the outcome is checked: a wrong outcome is an
-- ERROR, which fails the bench.  One line each: <name>_5000: <pods/s> pods/s.
--   in_tree_pvs  SchedulingInTreePVs/5000Nodes_2000Pods: 1000 placed, 2000
--                timed; pv-aws.yaml's awsElasticBlockStore PVs
--                (volumeID vol-<i>); no CSINode
--   csi_pvs      SchedulingCSIPVs/5000Nodes_5000Pods: 5000 placed, 5000
--                timed; pv-csi.yaml's CSI PVs (driver ebs.csi.aws.com,
--                volumeHandle the PV's name); every node with allocatable
--                attachable-volumes-csi-ebs.csi.aws.com 39 and a CSINode
--                whose driver ebs.csi.aws.com has allocatable.count 39
-- Unlike scheduler_perf's templates, each PV is in one zone, zone-<i % 3>,
-- so that VolumeZone and VolumeBinding have something to check: the
-- in-tree PV by its topology.kubernetes.io/zone label (as a cloud's PV
-- labeller sets it), the CSI PV by a required nodeAffinity on that key (as
-- a CSI provisioner sets it).
\set QUIET on
\pset footer off
CREATE EXTENSION scheduler;

-- ERROR (failing the bench) unless ok
CREATE FUNCTION public.bench_check(ok boolean, what text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF ok IS NOT TRUE THEN
        RAISE EXCEPTION 'volume bench: %', what;
    END IF;
END $$;

-- the 5000 nodes, node-<i> in zone-<i % 3>, with allocatable extra
CREATE FUNCTION public.bench_nodes(extra jsonb) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_agg(jsonb_build_object(
        'kind', 'Node',
        'metadata', jsonb_build_object('name', 'node-' || i, 'uid', 'node-' || i,
            'labels', jsonb_build_object('kubernetes.io/hostname', 'node-' || i,
                                         'topology.kubernetes.io/zone', 'zone-' || (i % 3))),
        'status', jsonb_build_object('allocatable', '{"cpu": "4", "memory": "32Gi", "pods": "110"}'::jsonb || extra)))))
    FROM generate_series(0, 4999) i
$$;

-- Pods from..to, each with its claim pvc-<i> bound to its PV sched-0-vol-<i>
-- in zone-<i % 3>: source is the PV's volume source, csi (true) or
-- awsElasticBlockStore; placed pods go round the nodes of their PV's zone.
CREATE FUNCTION public.bench_pods(prefix text, from_i int, to_i int, placed boolean, csi boolean) RETURNS int
LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_agg(o ORDER BY i, k)))
    FROM generate_series(from_i, to_i) i,
    LATERAL (SELECT 'sched-0-vol-' || i AS pv, 'pvc-' || i AS pvc, 'zone-' || (i % 3) AS zone) n,
    LATERAL (VALUES
        (1, jsonb_build_object('kind', 'PersistentVolume', 'apiVersion', 'v1',
            'metadata', jsonb_build_object('name', n.pv, 'uid', n.pv)
                || CASE WHEN csi THEN '{}' ELSE jsonb_build_object('labels',
                        jsonb_build_object('topology.kubernetes.io/zone', n.zone)) END,
            'spec', jsonb_build_object('accessModes', '["ReadOnlyMany"]'::jsonb,
                    'capacity', '{"storage": "1Gi"}'::jsonb,
                    'persistentVolumeReclaimPolicy', 'Retain',
                    'claimRef', jsonb_build_object('kind', 'PersistentVolumeClaim', 'apiVersion', 'v1',
                        'namespace', 'sched-0', 'name', n.pvc))
                || CASE WHEN csi THEN jsonb_build_object(
                        'csi', jsonb_build_object('driver', 'ebs.csi.aws.com', 'volumeHandle', n.pv),
                        'nodeAffinity', jsonb_build_object('required', jsonb_build_object('nodeSelectorTerms',
                            jsonb_build_array(jsonb_build_object('matchExpressions', jsonb_build_array(
                                jsonb_build_object('key', 'topology.kubernetes.io/zone', 'operator', 'In',
                                                   'values', jsonb_build_array(n.zone))))))))
                   ELSE jsonb_build_object('awsElasticBlockStore', jsonb_build_object('volumeID', 'vol-' || i)) END,
            'status', '{"phase": "Bound"}'::jsonb)),
        (2, jsonb_build_object('kind', 'PersistentVolumeClaim', 'apiVersion', 'v1',
            'metadata', jsonb_build_object('name', n.pvc, 'namespace', 'sched-0', 'uid', n.pvc,
                'annotations', '{"pv.kubernetes.io/bind-completed": "true"}'::jsonb),
            'spec', jsonb_build_object('accessModes', '["ReadOnlyMany"]'::jsonb,
                    'resources', '{"requests": {"storage": "1Gi"}}'::jsonb, 'volumeName', n.pv),
            'status', '{"phase": "Bound"}'::jsonb)),
        (3, jsonb_build_object('kind', 'Pod',
            'metadata', jsonb_build_object('name', prefix || i, 'namespace', 'sched-0', 'uid', prefix || i,
                'creationTimestamp', to_char(timestamptz '2024-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')),
            'spec', jsonb_build_object('containers', jsonb_build_array(jsonb_build_object('name', 'pause',
                        'image', 'registry.k8s.io/pause:3.10',
                        'resources', jsonb_build_object('requests', '{"cpu": "100m", "memory": "500Mi"}'::jsonb))),
                    'volumes', jsonb_build_array(jsonb_build_object('name', 'vol',
                        'persistentVolumeClaim', jsonb_build_object('claimName', n.pvc))))
                || CASE WHEN placed THEN jsonb_build_object('nodeName', 'node-' || ((i / 3) % 1666 * 3 + i % 3))
                   ELSE '{}' END,
            'status', jsonb_build_object('phase', CASE WHEN placed THEN 'Running' ELSE 'Pending' END)))
    ) v(k, o)
$$;

-- Every pod on a node, in its PV's zone (the in-tree PV's zone label, the
-- CSI PV's nodeAffinity), and within its nodes' CSI volume limits: errors
-- unless all hold; sets :misplaced and :max_volumes (the most unique
-- volumes of a driver on one node).
CREATE FUNCTION public.bench_outcome(OUT misplaced bigint, OUT max_volumes bigint) LANGUAGE plpgsql AS $$
DECLARE
    unplaced bigint;
    over bigint;
BEGIN
    SELECT count(*) INTO unplaced FROM scheduler.pods WHERE coalesce(node_name, assumed_node) IS NULL;
    PERFORM public.bench_check(unplaced = 0, unplaced || ' pods not on a node');
    SELECT count(*) INTO misplaced
    FROM scheduler.pods p
    JOIN scheduler.nodes n ON n.name = coalesce(p.node_name, p.assumed_node)
    JOIN scheduler.persistent_volume_claims c
      ON c.namespace = p.namespace AND c.name = p.object #>> '{spec,volumes,0,persistentVolumeClaim,claimName}'
    JOIN scheduler.persistent_volumes v ON v.name = c.volume_name
    WHERE (n.labels->>'topology.kubernetes.io/zone') IS DISTINCT FROM
          coalesce(v.object #>> '{metadata,labels,topology.kubernetes.io/zone}',
                   v.object #>> '{spec,nodeAffinity,required,nodeSelectorTerms,0,matchExpressions,0,values,0}');
    PERFORM public.bench_check(misplaced = 0, misplaced || ' pods on a node outside their volume''s zone');
    PERFORM public.bench_check((SELECT count(*) FROM scheduler.pods) =
        (SELECT count(*) FROM scheduler.pods p
         JOIN scheduler.persistent_volume_claims c
           ON c.namespace = p.namespace AND c.name = p.object #>> '{spec,volumes,0,persistentVolumeClaim,claimName}'
         JOIN scheduler.persistent_volumes v ON v.name = c.volume_name),
        'a pod whose claim or volume is missing');
    -- unique volumes per node and CSI driver, the placed pods' included,
    -- against the CSINode's allocatable.count for that driver
    WITH used AS (
        SELECT coalesce(p.node_name, p.assumed_node) AS node, v.object #>> '{spec,csi,driver}' AS driver,
               count(DISTINCT v.object #>> '{spec,csi,volumeHandle}') AS volumes
        FROM scheduler.pods p
        JOIN scheduler.persistent_volume_claims c
          ON c.namespace = p.namespace AND c.name = p.object #>> '{spec,volumes,0,persistentVolumeClaim,claimName}'
        JOIN scheduler.persistent_volumes v ON v.name = c.volume_name
        WHERE v.object #> '{spec,csi}' IS NOT NULL
        GROUP BY 1, 2)
    SELECT coalesce(max(u.volumes), 0),
           count(*) FILTER (WHERE u.volumes > (d->'allocatable'->>'count')::bigint)
    INTO max_volumes, over
    FROM used u
    LEFT JOIN scheduler.csi_nodes cn ON cn.name = u.node
    LEFT JOIN LATERAL jsonb_array_elements(cn.object->'spec'->'drivers') d ON d->>'name' = u.driver;
    PERFORM public.bench_check(over = 0, over || ' nodes over their CSI volume limit');
END $$;

SELECT public.bench_nodes('{}') \gset loaded_

------------------------------------------------------------------------------
-- in_tree_pvs: SchedulingInTreePVs, 5000Nodes_2000Pods
------------------------------------------------------------------------------
SELECT public.bench_pods('init-', 1, 1000, true, false) \gset
SELECT public.bench_pods('pv-', 1001, 3000, false, false) \gset
VACUUM ANALYZE scheduler.pods;
\ir timed_pending.psql
SELECT public.bench_check(:done = 2000 AND :pods = 2000, :done || ' of ' || :pods || ' pods scheduled, 2000 pending') \gset
SELECT * FROM public.bench_outcome() \gset
\echo 'in_tree_pvs: ' :done 'of' :pods 'scheduled; outside their volume''s zone:' :misplaced
\echo 'in_tree_pvs_5000: ' :rate 'pods/s'
TRUNCATE scheduler.pods, scheduler.persistent_volume_claims, scheduler.persistent_volumes;

------------------------------------------------------------------------------
-- csi_pvs: SchedulingCSIPVs, 5000Nodes_5000Pods
------------------------------------------------------------------------------
-- nodeAllocatableStrategy: the node's allocatable and its CSINode
SELECT public.bench_nodes('{"attachable-volumes-csi-ebs.csi.aws.com": "39"}') \gset
SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_agg(jsonb_build_object(
    'kind', 'CSINode', 'apiVersion', 'storage.k8s.io/v1',
    'metadata', jsonb_build_object('name', 'node-' || i, 'uid', 'csinode-' || i,
        'annotations', '{"storage.alpha.kubernetes.io/migrated-plugins": ""}'::jsonb),
    'spec', jsonb_build_object('drivers', jsonb_build_array(jsonb_build_object(
        'name', 'ebs.csi.aws.com', 'nodeID', 'node-' || i, 'allocatable', '{"count": 39}'::jsonb)))))))
FROM generate_series(0, 4999) i \gset
SELECT public.bench_pods('init-', 1, 5000, true, true) \gset
SELECT public.bench_pods('csi-', 5001, 10000, false, true) \gset
VACUUM ANALYZE scheduler.pods;
\ir timed_pending.psql
SELECT public.bench_check(:done = 5000 AND :pods = 5000, :done || ' of ' || :pods || ' pods scheduled, 5000 pending') \gset
SELECT * FROM public.bench_outcome() \gset
\echo 'csi_pvs: ' :done 'of' :pods 'scheduled; outside their volume''s zone:' :misplaced '; most volumes on a node:' :max_volumes 'of 39'
\echo 'csi_pvs_5000: ' :rate 'pods/s'
