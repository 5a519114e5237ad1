-- Equivalence classes (equivalence.c): a cycle keeps each node's Filter
-- verdict for the next pod of the same class, within one schedule_pending()
-- call.  A class is the signature of the fields the profile's plugins read
-- (each plugin's sign, as kube-scheduler's SignPod).  Two pods that differ
-- only in a field some Filter reads must get verdicts of their own: each
-- block schedules, in one call, a pod the node rejects and then (created a
-- second later, so tried after it) a pod that differs from it only there,
-- which must fit.
\set SHOW_CONTEXT never
SET scheduler.pod_initial_backoff = 0;
SET scheduler.pod_max_backoff = 0;
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts;

CREATE FUNCTION pg_temp.node(name text, extra jsonb DEFAULT '{}') RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Node',
        'metadata', jsonb_build_object('name', name),
        'status', jsonb_build_object('allocatable',
            jsonb_build_object('cpu', '4', 'memory', '4Gi', 'pods', '110'))) || extra)
$$;
CREATE FUNCTION pg_temp.pod(name text, created int, spec jsonb DEFAULT '{}',
                            container jsonb DEFAULT '{}') RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Pod',
        'metadata', jsonb_build_object('name', name, 'namespace', 'default',
            'creationTimestamp', to_char(timestamptz '2024-01-01 00:00:00+00' + created * interval '1 second',
                                         'YYYY-MM-DD"T"HH24:MI:SS"Z"')),
        'spec', jsonb_build_object('containers', jsonb_build_array(jsonb_build_object('name', 'c',
                'resources', jsonb_build_object('requests', jsonb_build_object('cpu', '1'))) || container))
            || spec,
        'status', jsonb_build_object('phase', 'Pending')))
$$;
CREATE FUNCTION pg_temp.reset() RETURNS void LANGUAGE sql AS $$
    TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts
$$;

-- TaintToleration signs the tolerations
SELECT pg_temp.node('tainted', '{"spec": {"taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}]}}');
SELECT pg_temp.pod('intolerant', 1);
SELECT pg_temp.pod('tolerant', 2, '{"tolerations": [{"key": "k", "operator": "Equal", "value": "v", "effect": "NoSchedule"}]}');
SELECT name, node, result FROM schedule_pending() ORDER BY name;

-- NodeUnschedulable signs them too (the unschedulable taint's toleration)
SELECT pg_temp.reset();
SELECT pg_temp.node('cordoned', '{"spec": {"unschedulable": true}}');
SELECT pg_temp.pod('intolerant', 1);
SELECT pg_temp.pod('tolerant', 2, '{"tolerations": [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}]}');
SELECT name, node, result FROM schedule_pending() ORDER BY name;

-- NodeAffinity signs the node selector and the node affinity
SELECT pg_temp.reset();
SELECT pg_temp.node('a', '{"metadata": {"name": "a", "labels": {"zone": "a"}}}');
SELECT pg_temp.pod('elsewhere', 1, '{"nodeSelector": {"zone": "b"}}');
SELECT pg_temp.pod('here', 2, '{"nodeSelector": {"zone": "a"}}');
SELECT pg_temp.pod('elsewhere-affinity', 3, '{"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}]}]}}}}');
SELECT pg_temp.pod('here-affinity', 4, '{"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}}}}');
SELECT name, node, result FROM schedule_pending() ORDER BY name;

-- NodePorts signs the host ports (port 80 is taken on the node)
SELECT pg_temp.reset();
SELECT pg_temp.node('n');
SELECT pg_temp.pod('web', 0, '{"nodeName": "n"}', '{"ports": [{"containerPort": 80, "hostPort": 80}]}');
SELECT pg_temp.pod('same-port', 1, '{}', '{"ports": [{"containerPort": 80, "hostPort": 80}]}');
SELECT pg_temp.pod('other-port', 2, '{}', '{"ports": [{"containerPort": 80, "hostPort": 81}]}');
SELECT name, node, result FROM schedule_pending() ORDER BY name;

-- NodeResourcesFit signs the requests
SELECT pg_temp.reset();
SELECT pg_temp.node('n');
SELECT pg_temp.pod('big', 1, '{}', '{"resources": {"requests": {"cpu": "8"}}}');
SELECT pg_temp.pod('small', 2, '{}', '{"resources": {"requests": {"cpu": "2"}}}');
SELECT name, node, result FROM schedule_pending() ORDER BY name;


-- Scores.  The raw score of a plugin whose Score reads only the pod's signed
-- fields and the node (NodeResourcesFit, BalancedAllocation, ImageLocality,
-- TaintToleration, NodeAffinity) is kept per class and node too, and read
-- again while the node is unchanged.  Kept scores must give what computing
-- them gives, as kube-scheduler computes every score in every cycle.

-- A node changed by the pod before (it was assumed there) is scored again:
-- eight pods of one class on eight empty nodes, each goes where the fewest
-- requests are (LeastAllocated), so each to a node of its own.  Scores kept
-- past the change would tie every node, and eight random picks are all
-- different once in 400.
SELECT pg_temp.reset();
SELECT count(pg_temp.node('n' || i)) FROM generate_series(1, 8) i;
SELECT count(pg_temp.pod('p' || i, i)) FROM generate_series(1, 8) i;
SELECT count(*) AS pods, count(DISTINCT node) AS nodes FROM schedule_pending();

-- The same, for pods whose Filter verdicts are not kept (a required pod
-- anti-affinity term, to pods none of them matches, makes InterPodAffinity's
-- PreFilter count other pods): their node-local scores still are.
SELECT pg_temp.reset();
SELECT count(pg_temp.node('n' || i)) FROM generate_series(1, 8) i;
SELECT count(pg_temp.pod('p' || i, i, '{"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {"matchLabels": {"app": "none"}}, "topologyKey": "kubernetes.io/hostname"}]}}}'))
FROM generate_series(1, 8) i;
SELECT count(*) AS pods, count(DISTINCT node) AS nodes FROM schedule_pending();

-- ImageLocality signs the images: a score-only field.  Node "img" has the
-- image (1000 MiB), "roomy" does not and has four times the cpu.  The first
-- pod, without that image, prefers roomy (NodeResourcesFit and
-- BalancedAllocation); img is left unchanged.  The second asks for the same
-- resources with the image: on img, ImageLocality gives it
-- 100 * (1000 MiB * 1/2 - 23 MiB) / (1000 MiB - 23 MiB) = 48, which outweighs
-- roomy's lead (82 + 93 against 85 + 87).  Read as the first pod's score
-- there (0), it would go to roomy too.
SELECT pg_temp.reset();
SELECT pg_temp.node('img', '{"status": {"allocatable": {"cpu": "4", "memory": "4Gi", "pods": "110"}, "images": [{"names": ["nginx:1.25"], "sizeBytes": 1048576000}]}}');
SELECT pg_temp.node('roomy', '{"status": {"allocatable": {"cpu": "16", "memory": "4Gi", "pods": "110"}}}');
SELECT pg_temp.pod('no-image', 1, '{}', '{"image": "pause:3.10"}');
SELECT pg_temp.pod('with-image', 2, '{}', '{"image": "nginx:1.25"}');
SELECT name, node, result FROM schedule_pending() ORDER BY name;


-- The images are told apart as lists: ["a", "b|c"] is not ["a|b", "c"] (the
-- API server takes an image with any characters but blanks).  The same
-- nodes, img now having "a|b:latest"; both pods ask for 500m twice.  The
-- second, whose "a|b" img has, gets 100 * (500 MiB - 23 MiB) / (2000 MiB -
-- 23 MiB) = 24 there, against roomy's lead of 7 (83 + 93 against 82 + 87).
SELECT pg_temp.reset();
SELECT pg_temp.node('img', '{"status": {"allocatable": {"cpu": "4", "memory": "4Gi", "pods": "110"}, "images": [{"names": ["a|b:latest"], "sizeBytes": 1048576000}]}}');
SELECT pg_temp.node('roomy', '{"status": {"allocatable": {"cpu": "16", "memory": "4Gi", "pods": "110"}}}');
SELECT pg_temp.pod('split-after-a', 1, '{"containers": [{"name": "a", "image": "a", "resources": {"requests": {"cpu": "500m"}}}, {"name": "b", "image": "b|c", "resources": {"requests": {"cpu": "500m"}}}]}');
SELECT pg_temp.pod('split-after-b', 2, '{"containers": [{"name": "a", "image": "a|b", "resources": {"requests": {"cpu": "500m"}}}, {"name": "b", "image": "c", "resources": {"requests": {"cpu": "500m"}}}]}');
SELECT name, node, result FROM schedule_pending() ORDER BY name;

------------------------------------------------------------------------------
-- A pod whose verdicts depend on pods elsewhere (its required pod
-- anti-affinity: InterPodAffinity reads other pods) keeps, per node, only
-- the verdict of the Filters before the first plugin of the profile that
-- reads pods (NodeUnschedulable to NodeResourcesFit); the rest run every
-- time.  Nodes a (tainted), b and c, 4 cpu each; in one call:
--   web-1..3: 1 cpu, app=web, anti-affinity to app=web per node.  Two fit
--     (b and c), the third is turned away by a's taint (kept) and by the
--     anti-affinity on b and c, which runs after their kept passes: as in
--     kube-scheduler, "1 node(s) had untolerated taint {k: v}, 2 node(s)
--     didn't match pod anti-affinity rules".
--   batch-1..3: 3 cpu, app=batch, anti-affinity to app=none (no pod has it:
--     InterPodAffinity still runs).  Two fit, one on b and one on c (3 cpu
--     left on each); the third finds neither with room: a node's kept
--     verdict goes with the pod assumed there (its generation), so b and c
--     say "Insufficient cpu" (NodeResourcesFit comes before
--     InterPodAffinity), and nothing is over-committed.
SELECT pg_temp.reset();
SELECT pg_temp.node(n, jsonb_build_object('metadata', jsonb_build_object('name', n,
                          'labels', jsonb_build_object('kubernetes.io/hostname', n)))
                       || CASE WHEN n = 'a' THEN '{"spec": {"taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}]}}'
                          ELSE '{}' END::jsonb)
FROM unnest(ARRAY['a', 'b', 'c']) n;
-- (each pod labelled: pg_temp.pod's object with metadata.labels)
SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_agg(
    jsonb_set(jsonb_build_object('kind', 'Pod',
        'metadata', jsonb_build_object('name', p.name, 'namespace', 'default',
            'creationTimestamp', to_char(timestamptz '2024-01-01 00:00:00+00' + p.created * interval '1 second',
                                         'YYYY-MM-DD"T"HH24:MI:SS"Z"')),
        'spec', jsonb_build_object('containers', jsonb_build_array(jsonb_build_object('name', 'c',
                'resources', jsonb_build_object('requests', jsonb_build_object('cpu', p.cpu)))),
            'affinity', jsonb_build_object('podAntiAffinity', jsonb_build_object(
                'requiredDuringSchedulingIgnoredDuringExecution', jsonb_build_array(jsonb_build_object(
                    'labelSelector', jsonb_build_object('matchLabels', jsonb_build_object('app', p.avoid)),
                    'topologyKey', 'kubernetes.io/hostname'))))),
        'status', jsonb_build_object('phase', 'Pending')),
    '{metadata,labels}', jsonb_build_object('app', p.app)))))
FROM (SELECT 'web-' || i AS name, i AS created, '1' AS cpu, 'web' AS app, 'web' AS avoid FROM generate_series(1, 3) i
      UNION ALL
      SELECT 'batch-' || i, 10 + i, '3', 'batch', 'none' FROM generate_series(1, 3) i) p;
SELECT name, result, CASE WHEN node IS NULL THEN message END AS message FROM schedule_pending() ORDER BY name;
SELECT node, requested, allocatable FROM scheduler.node_usage WHERE resource = 'cpu' ORDER BY node;

SELECT pg_temp.reset();
