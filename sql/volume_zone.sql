-- VolumeZone, as kube-scheduler's volumezone plugin behaves (volume_zone.go):
-- PreFilter gathers the zone and region labels of the pod's bound
-- PersistentVolumes, Filter keeps the pod on nodes in those zones and
-- regions.
\set SHOW_CONTEXT never
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history,
    scheduler.persistent_volume_claims, scheduler.persistent_volumes, scheduler.storage_classes;
SET scheduler.pod_initial_backoff = 0;
SET scheduler.pod_max_backoff = 0;
-- The verdicts are VolumeZone's alone, in a profile of its own: in the
-- default profile the PreFilters of VolumeRestrictions and VolumeBinding,
-- which run before VolumeZone's, reject a missing claim or an unbound one
-- first (as kube-scheduler's do).  The scheduling cycle at the end runs the
-- default profile.
INSERT INTO scheduler.profiles VALUES ('volume-zone', NULL);
INSERT INTO scheduler.profile_plugins (scheduler_name, plugin, position) VALUES ('volume-zone', 'VolumeZone', 1);
SET test.profile = 'volume-zone';

CREATE FUNCTION pg_temp.node(name text, labels jsonb) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Node',
        'metadata', jsonb_build_object('name', name, 'labels', labels),
        'status', jsonb_build_object('allocatable', jsonb_build_object('cpu', '8', 'memory', '16Gi', 'pods', '110'))))
$$;
-- a pod whose volumes are claims of these names (a volume named as its claim)
CREATE FUNCTION pg_temp.pod(name text, claims text[] DEFAULT '{}', extra jsonb DEFAULT '[]') RETURNS int
LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Pod',
        'metadata', jsonb_build_object('name', name, 'namespace', 'default', 'uid', 'default/' || name),
        'spec', jsonb_build_object('containers', jsonb_build_array(jsonb_build_object('name', 'c')),
            'schedulerName', coalesce(nullif(current_setting('test.profile', true), ''), 'default-scheduler'),
            'volumes', coalesce((SELECT jsonb_agg(jsonb_build_object('name', c,
                                    'persistentVolumeClaim', jsonb_build_object('claimName', c)))
                                 FROM unnest(claims) c), '[]') || extra)))
$$;
CREATE FUNCTION pg_temp.pv(name text, labels jsonb) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'PersistentVolume', 'apiVersion', 'v1',
        'metadata', jsonb_build_object('name', name, 'uid', 'pv-' || name, 'labels', labels),
        'spec', jsonb_build_object('capacity', jsonb_build_object('storage', '1Gi'))))
$$;
CREATE FUNCTION pg_temp.pvc(name text, spec jsonb, annotations jsonb DEFAULT '{}') RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'PersistentVolumeClaim', 'apiVersion', 'v1',
        'metadata', jsonb_build_object('name', name, 'namespace', 'default', 'uid', 'pvc-' || name,
            -- a claim with a volumeName is bound as the PV controller leaves it
            'annotations', annotations || CASE WHEN spec ? 'volumeName'
                                               THEN '{"pv.kubernetes.io/bind-completed": "yes"}'::jsonb
                                               ELSE '{}' END),
        'spec', spec))
$$;
CREATE FUNCTION pg_temp.sc(name text, mode text) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_strip_nulls(jsonb_build_object('kind', 'StorageClass',
        'apiVersion', 'storage.k8s.io/v1', 'provisioner', 'example.com/disk',
        'metadata', jsonb_build_object('name', name, 'uid', 'sc-' || name),
        'volumeBindingMode', mode)))
$$;
-- VolumeZone's verdicts for a pod: PreFilter (node NULL) and every node
CREATE FUNCTION pg_temp.zone(pod text) RETURNS TABLE (node text, code text, reason text) LANGUAGE sql AS $$
    SELECT node, code, reason FROM scheduler.filter('default', pod)
    WHERE plugin = 'VolumeZone' ORDER BY node NULLS FIRST
$$;

-- a-1: GA zone a; b-1: GA zone b; beta-a: only the beta labels, zone a;
-- plain: no zone or region label at all
SELECT pg_temp.node('a-1', '{"topology.kubernetes.io/zone": "zone-a", "topology.kubernetes.io/region": "r1"}'),
       pg_temp.node('b-1', '{"topology.kubernetes.io/zone": "zone-b", "topology.kubernetes.io/region": "r1"}'),
       pg_temp.node('beta-a', '{"failure-domain.beta.kubernetes.io/zone": "zone-a",
                                "failure-domain.beta.kubernetes.io/region": "r1"}'),
       pg_temp.node('plain', '{"kubernetes.io/hostname": "plain"}');

SELECT pg_temp.pv('pv-beta-a', '{"failure-domain.beta.kubernetes.io/zone": "zone-a"}'),
       pg_temp.pv('pv-ga-a', '{"topology.kubernetes.io/zone": "zone-a"}'),
       pg_temp.pv('pv-ga-a-r2', '{"topology.kubernetes.io/zone": "zone-a", "topology.kubernetes.io/region": "r2"}'),
       pg_temp.pv('pv-multi', '{"topology.kubernetes.io/zone": "zone-c__zone-b"}'),
       pg_temp.pv('pv-bad-multi', '{"topology.kubernetes.io/zone": "zone-a____zone-b"}'),
       pg_temp.pv('pv-nozone', '{"app": "x"}');
SELECT pg_temp.pvc('c-beta-a', '{"volumeName": "pv-beta-a"}'),
       pg_temp.pvc('c-ga-a', '{"volumeName": "pv-ga-a"}'),
       pg_temp.pvc('c-ga-a-r2', '{"volumeName": "pv-ga-a-r2"}'),
       pg_temp.pvc('c-multi', '{"volumeName": "pv-multi"}'),
       pg_temp.pvc('c-bad-multi', '{"volumeName": "pv-bad-multi"}'),
       pg_temp.pvc('c-nozone', '{"volumeName": "pv-nozone"}'),
       pg_temp.pvc('c-lost', '{"volumeName": "pv-gone"}');

------------------------------------------------------------------------------
-- PreFilter skips a pod without claims (Filter does not run), a pod whose
-- PVs carry no zone or region label, and a PV whose "__" list has an empty
-- element ("zone-a____zone-b": LabelZonesToSet fails, the label is ignored).
------------------------------------------------------------------------------
SELECT pg_temp.pod('none'), pg_temp.pod('nozone', '{c-nozone}'), pg_temp.pod('bad-multi', '{c-bad-multi}');
SELECT * FROM pg_temp.zone('none');
SELECT * FROM pg_temp.zone('nozone');
SELECT * FROM pg_temp.zone('bad-multi');

------------------------------------------------------------------------------
-- Filter: a node without any zone or region label always fits; otherwise
-- each PV label must find its key on the node with a value it lists.  A
-- beta key on the PV is also looked up under its GA key on the node (b-1,
-- a-1); a GA key is never looked up under its beta key (beta-a).
------------------------------------------------------------------------------
SELECT pg_temp.pod('beta-pv', '{c-beta-a}'), pg_temp.pod('ga-pv', '{c-ga-a}');
SELECT * FROM pg_temp.zone('beta-pv');
SELECT * FROM pg_temp.zone('ga-pv');

-- every label of the PV must match: zone-a but region r2 fits no labelled node
SELECT pg_temp.pod('ga-r2', '{c-ga-a-r2}');
SELECT * FROM pg_temp.zone('ga-r2');

-- a multi-zone PV ("zone-c__zone-b") fits a node in any of its zones
SELECT pg_temp.pod('multi', '{c-multi}');
SELECT * FROM pg_temp.zone('multi');

-- every claim's PV counts: zone-a and zone-c/zone-b leave no labelled node
SELECT pg_temp.pod('two', '{c-ga-a,c-multi}');
SELECT * FROM pg_temp.zone('two');

------------------------------------------------------------------------------
-- PreFilter rejections, UnschedulableAndUnresolvable on every node: a claim
-- that does not exist, a claim bound to a PV that does not exist, a claim
-- with an empty claimName (which apply() refuses: planted in the table, as
-- kube-scheduler's plugin still checks).  The first claim that fails
-- decides.
------------------------------------------------------------------------------
SELECT pg_temp.pod('no-claim', '{c-missing}'), pg_temp.pod('lost-pv', '{c-ga-a,c-lost}'),
       pg_temp.pod('empty-name', '{c-ga-a}');
UPDATE scheduler.pods SET volumes = '[{"name": "v", "persistentVolumeClaim": {"claimName": ""}}]'
WHERE name = 'empty-name';

SELECT * FROM pg_temp.zone('no-claim');
SELECT * FROM pg_temp.zone('lost-pv') WHERE node IS NULL;
SELECT * FROM pg_temp.zone('empty-name') WHERE node IS NULL;

------------------------------------------------------------------------------
-- Unbound claims go by their StorageClass (GetPersistentVolumeClaimClass:
-- the beta annotation volume.beta.kubernetes.io/storage-class before
-- spec.storageClassName).  None named; one that does not exist; one without
-- volumeBindingMode; Immediate: all reject.  WaitForFirstConsumer: the
-- claim is skipped (provisioned where the pod goes), so a pod with only
-- such claims skips.
------------------------------------------------------------------------------
SELECT pg_temp.sc('immediate', 'Immediate'), pg_temp.sc('unset', NULL), pg_temp.sc('wait', 'WaitForFirstConsumer');
SELECT pg_temp.pvc('u-none', '{}'),
       pg_temp.pvc('u-missing', '{"storageClassName": "gold"}'),
       pg_temp.pvc('u-unset', '{"storageClassName": "unset"}'),
       pg_temp.pvc('u-immediate', '{"storageClassName": "immediate"}'),
       pg_temp.pvc('u-wait', '{"storageClassName": "wait"}'),
       pg_temp.pvc('u-beta-wait', '{"storageClassName": "immediate"}',
                   '{"volume.beta.kubernetes.io/storage-class": "wait"}'),
       pg_temp.pvc('u-beta-empty', '{"storageClassName": "wait"}',
                   '{"volume.beta.kubernetes.io/storage-class": ""}');
SELECT pg_temp.pod(c, ARRAY[c]) FROM unnest('{u-none,u-missing,u-unset,u-immediate,u-wait,u-beta-wait,u-beta-empty}'::text[]) c;
SELECT c AS pod, z.code, z.reason
FROM unnest('{u-none,u-missing,u-unset,u-immediate,u-wait,u-beta-wait,u-beta-empty}'::text[]) WITH ORDINALITY u(c, i),
     pg_temp.zone(c) z
WHERE z.node IS NULL ORDER BY i;
-- a waiting claim beside a bound one: the bound PV still decides
SELECT pg_temp.pod('wait-and-bound', '{u-wait,c-ga-a}');
SELECT * FROM pg_temp.zone('wait-and-bound');

------------------------------------------------------------------------------
-- A scheduling cycle: each pod goes to a node its volumes allow; a pod no
-- node allows is unschedulable with the plugin's reason (and preemption
-- cannot help an UnschedulableAndUnresolvable node).
------------------------------------------------------------------------------
RESET test.profile;
TRUNCATE scheduler.pods, scheduler.pod_attempts;
SELECT scheduler.apply(jsonb_build_object('type', 'DELETED', 'object', object))
FROM scheduler.nodes WHERE name = 'plain';
SELECT pg_temp.pod('run-multi', '{c-multi}'), pg_temp.pod('run-ga', '{c-ga-a}'),
       pg_temp.pod('run-r2', '{c-ga-a-r2}'), pg_temp.pod('run-free');
-- (run-free, without volumes, may go anywhere)
SELECT name, CASE WHEN name = 'run-free' THEN node IS NOT NULL ELSE NULL END AS placed,
       CASE WHEN name <> 'run-free' THEN node END AS node, result,
       CASE WHEN name <> 'run-free' THEN message END AS message
FROM schedule_pending() ORDER BY name;
