-- InterPodAffinity through whole scheduling cycles (schedule_pending), as
-- kube-scheduler's interpodaffinity plugin behaves (filtering.go,
-- scoring.go, plugin.go's QueueingHints), on counts that topology.c keeps
-- current as pods are assumed, bound, deleted and nodes relabelled.
\set SHOW_CONTEXT never
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history, scheduler.namespaces;
SET scheduler.pod_initial_backoff = 0;
SET scheduler.pod_max_backoff = 0;

CREATE FUNCTION pg_temp.node(name text, zone text) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Node',
        'metadata', jsonb_build_object('name', name, 'labels',
            jsonb_build_object('kubernetes.io/hostname', name, 'topology.kubernetes.io/zone', zone)),
        'status', jsonb_build_object('allocatable', jsonb_build_object('cpu', '8', 'memory', '16Gi', 'pods', '110'))))
$$;
-- a pod with labels and spec.affinity; on node when given
CREATE FUNCTION pg_temp.pod(name text, labels jsonb, affinity jsonb DEFAULT '{}', node text DEFAULT NULL,
                            ns text DEFAULT 'default') RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Pod',
        'metadata', jsonb_build_object('name', name, 'namespace', ns, 'uid', ns || '/' || name, 'labels', labels),
        'spec', jsonb_strip_nulls(jsonb_build_object('nodeName', node, 'affinity', affinity,
            'containers', jsonb_build_array(jsonb_build_object('name', 'c',
                'resources', jsonb_build_object('requests', jsonb_build_object('cpu', '100m'))))))))
$$;
CREATE FUNCTION pg_temp.delete_pod(pod_name text) RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('type', 'DELETED', 'object', object))
    FROM scheduler.pods WHERE name = pod_name
$$;
-- one required (anti-)affinity term: {"podAffinity"|"podAntiAffinity": {required: [term]}}
CREATE FUNCTION pg_temp.req(kind text, selector jsonb, key text, extra jsonb DEFAULT '{}') RETURNS jsonb
LANGUAGE sql AS $$
    SELECT jsonb_build_object(kind, jsonb_build_object('requiredDuringSchedulingIgnoredDuringExecution',
        jsonb_build_array(jsonb_build_object('labelSelector', jsonb_build_object('matchLabels', selector),
                                             'topologyKey', key) || extra)))
$$;
CREATE VIEW pg_temp.placed AS
    SELECT name, coalesce(node_name, assumed_node) AS node FROM scheduler.pods ORDER BY name;
CREATE VIEW pg_temp.q AS
    SELECT p.name, q.state, q.rejected_by, q.moved_by
    FROM scheduler.queue q JOIN scheduler.pods p ON p.uid = q.pod_uid ORDER BY p.name;

SELECT pg_temp.node('n1', 'a'), pg_temp.node('n2', 'a'), pg_temp.node('n3', 'b');

------------------------------------------------------------------------------
-- Required anti-affinity on hostname: one web pod per node.  Each pod the
-- cycle assumes counts for the next at once (the counts are updated in the
-- snapshot, not re-read); the fourth fits nowhere, with the incoming pod's
-- own anti-affinity reported first (satisfyPodAntiAffinity before
-- satisfyExistingPodsAntiAffinity).
------------------------------------------------------------------------------
SELECT pg_temp.pod('web-' || i, '{"app": "web"}', pg_temp.req('podAntiAffinity', '{"app": "web"}', 'kubernetes.io/hostname'))
FROM generate_series(1, 4) i;
SELECT name, result, CASE WHEN result = 'scheduled' THEN '' ELSE message END AS message
FROM schedule_pending() ORDER BY name;
SELECT count(DISTINCT node) AS nodes_used FROM pg_temp.placed WHERE name LIKE 'web-%';
SELECT * FROM pg_temp.q;

------------------------------------------------------------------------------
-- QueueingHints (isSchedulableAfterPodChange): an assigned pod added that
-- the pod has no affinity to does not help; a pod deleted that matched its
-- anti-affinity does, and the pod lands where that one was.
------------------------------------------------------------------------------
SELECT pg_temp.pod('db', '{"app": "db"}', '{}', 'n1');
SELECT * FROM pg_temp.q;
SELECT node AS freed FROM pg_temp.placed WHERE name = 'web-2' \gset
SELECT pg_temp.delete_pod('web-2');
SELECT * FROM pg_temp.q;
SELECT name, result FROM schedule_pending();
SELECT node = :'freed' AS took_the_freed_node FROM pg_temp.placed WHERE name = 'web-4';

------------------------------------------------------------------------------
-- Required affinity on zone: db is on n1 in zone a, so n1 and n2 pass and
-- n3 (zone b) is UnschedulableAndUnresolvable.  After n2 moves to zone b,
-- only n1 passes: relabelling a node moves its pods between domains.
------------------------------------------------------------------------------
SELECT pg_temp.pod('cache', '{"app": "cache"}', pg_temp.req('podAffinity', '{"app": "db"}', 'topology.kubernetes.io/zone'));
SELECT node, code, reason FROM scheduler.filter('default', 'cache') WHERE plugin = 'InterPodAffinity' ORDER BY node NULLS FIRST;
SELECT scheduler.apply(jsonb_set(object, '{metadata,labels}', object->'metadata'->'labels' || '{"topology.kubernetes.io/zone": "b"}'))
FROM scheduler.nodes WHERE name = 'n2';
SELECT node, code FROM scheduler.filter('default', 'cache') WHERE plugin = 'InterPodAffinity' ORDER BY node NULLS FIRST;

-- The first pod of a group with affinity to itself: no pod matches yet,
-- and it matches its own term, so every node with the key passes.
SELECT pg_temp.pod('solo', '{"app": "solo"}', pg_temp.req('podAffinity', '{"app": "solo"}', 'topology.kubernetes.io/zone'));
SELECT node, code FROM scheduler.filter('default', 'solo') WHERE plugin = 'InterPodAffinity' ORDER BY node NULLS FIRST;
-- but not a node without the topology key
SELECT pg_temp.pod('solo-rack', '{"app": "solo"}', pg_temp.req('podAffinity', '{"app": "solo"}', 'rack'));
SELECT node, code, reason FROM scheduler.filter('default', 'solo-rack') WHERE plugin = 'InterPodAffinity' ORDER BY node NULLS FIRST;

------------------------------------------------------------------------------
-- Existing pods' anti-affinity: loner on n3 keeps noisy pods off n3.
------------------------------------------------------------------------------
SELECT pg_temp.pod('loner', '{"app": "loner"}', pg_temp.req('podAntiAffinity', '{"app": "noisy"}', 'kubernetes.io/hostname'), 'n3');
SELECT pg_temp.pod('noisy', '{"app": "noisy"}');
SELECT node, code, reason FROM scheduler.filter('default', 'noisy') WHERE plugin = 'InterPodAffinity' ORDER BY node NULLS FIRST;
-- in another namespace the term (which names none, so means loner's own) does not apply
SELECT pg_temp.pod('noisy', '{"app": "noisy"}', '{}', NULL, 'other');
SELECT node, code FROM scheduler.filter('other', 'noisy') WHERE plugin = 'InterPodAffinity' ORDER BY node NULLS FIRST;

------------------------------------------------------------------------------
-- namespaceSelector: resolved against the mirrored namespaces when the
-- cycle runs (mergeAffinityTermNamespacesIfNotEmpty).
------------------------------------------------------------------------------
SELECT scheduler.apply('{"kind": "Namespace", "metadata": {"name": "team-a", "uid": "ns-a", "labels": {"team": "a"}}}');
SELECT pg_temp.pod('api', '{"app": "api"}', '{}', 'n2', 'team-a');
SELECT pg_temp.pod('client', '{"app": "client"}',
    pg_temp.req('podAntiAffinity', '{"app": "api"}', 'kubernetes.io/hostname', '{"namespaceSelector": {"matchLabels": {"team": "a"}}}'));
SELECT node, code FROM scheduler.filter('default', 'client') WHERE plugin = 'InterPodAffinity' ORDER BY node NULLS FIRST;
SELECT scheduler.apply('{"kind": "Namespace", "metadata": {"name": "team-a", "uid": "ns-a", "labels": {"team": "b"}}}');
SELECT node, code FROM scheduler.filter('default', 'client') WHERE plugin = 'InterPodAffinity' ORDER BY node NULLS FIRST;
-- and again at each call: the pod's terms, parsed once and kept, are
-- copied to each caller, as PreFilter merges the namespaces into its own
-- (had the kept terms taken the last merge, team-a, labelled "a" again,
-- would not be read, and n2 would pass)
SELECT scheduler.apply('{"kind": "Namespace", "metadata": {"name": "team-a", "uid": "ns-a", "labels": {"team": "a"}}}');
SELECT node, code FROM scheduler.filter('default', 'client') WHERE plugin = 'InterPodAffinity' ORDER BY node NULLS FIRST;
SELECT node, code FROM scheduler.filter('default', 'client') WHERE plugin = 'InterPodAffinity' ORDER BY node NULLS FIRST;
SELECT scheduler.apply('{"kind": "Namespace", "metadata": {"name": "team-a", "uid": "ns-a", "labels": {"team": "b"}}}');
SELECT node, code FROM scheduler.filter('default', 'client') WHERE plugin = 'InterPodAffinity' ORDER BY node NULLS FIRST;

------------------------------------------------------------------------------
-- matchLabelKeys and mismatchLabelKeys join the selector with the pod's own
-- values, as the API server merges them: v2 is not kept off v1's node, and
-- a pod that needs a pod of another version finds none (nor is it one).
------------------------------------------------------------------------------
SELECT pg_temp.pod('ver-1', '{"app": "ver", "version": "v1"}', '{}', 'n1');
SELECT pg_temp.pod('ver-2', '{"app": "ver", "version": "v2"}',
    pg_temp.req('podAntiAffinity', '{"app": "ver"}', 'kubernetes.io/hostname', '{"matchLabelKeys": ["version"]}'));
SELECT node, code FROM scheduler.filter('default', 'ver-2') WHERE plugin = 'InterPodAffinity' ORDER BY node NULLS FIRST;
SELECT pg_temp.pod('ver-odd', '{"app": "ver", "version": "v1"}',
    pg_temp.req('podAffinity', '{"app": "ver"}', 'kubernetes.io/hostname', '{"mismatchLabelKeys": ["version"]}'));
SELECT node, code FROM scheduler.filter('default', 'ver-odd') WHERE plugin = 'InterPodAffinity' ORDER BY node NULLS FIRST;

------------------------------------------------------------------------------
-- Scoring: an existing pod's required affinity to the incoming pod scores
-- hardPodAffinityWeight (1 by default; 0 turns it off, and PreScore then
-- has nothing to score and skips) for its node's domain; preferred
-- anti-affinity subtracts its weight per matching pod in the domain.
-- Normalized between min and max.
------------------------------------------------------------------------------
SELECT pg_temp.pod('leader', '{"app": "leader"}', pg_temp.req('podAffinity', '{"app": "follower"}', 'kubernetes.io/hostname'), 'n3');
SELECT pg_temp.pod('follower', '{"app": "follower"}');
SELECT node, raw, normalized FROM scheduler.score('default', 'follower') WHERE plugin = 'InterPodAffinity' ORDER BY node;
UPDATE scheduler.profile_plugins SET args = '{"hardPodAffinityWeight": 10}'
WHERE scheduler_name = 'default-scheduler' AND plugin = 'InterPodAffinity';
SELECT node, raw, normalized FROM scheduler.score('default', 'follower') WHERE plugin = 'InterPodAffinity' ORDER BY node;
UPDATE scheduler.profile_plugins SET args = '{"hardPodAffinityWeight": 0}'
WHERE scheduler_name = 'default-scheduler' AND plugin = 'InterPodAffinity';
SELECT node, raw, normalized FROM scheduler.score('default', 'follower') WHERE plugin = 'InterPodAffinity' ORDER BY node;
UPDATE scheduler.profile_plugins SET args = '{}'
WHERE scheduler_name = 'default-scheduler' AND plugin = 'InterPodAffinity';
-- a weight out of range is refused, naming the field
UPDATE scheduler.profile_plugins SET args = '{"hardPodAffinityWeight": 101}'
WHERE scheduler_name = 'default-scheduler' AND plugin = 'InterPodAffinity';
SELECT pg_temp.pod('shy', '{"app": "shy"}', '{"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    {"weight": 5, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "topology.kubernetes.io/zone"}}]}}');
-- web pods per zone: n2 is in zone b now
SELECT n.labels->>'topology.kubernetes.io/zone' AS zone, count(*) AS web_pods
FROM pg_temp.placed p JOIN scheduler.nodes n ON n.name = p.node WHERE p.name LIKE 'web-%' GROUP BY 1 ORDER BY 1;
SELECT node, raw, normalized FROM scheduler.score('default', 'shy') WHERE plugin = 'InterPodAffinity' ORDER BY node;

------------------------------------------------------------------------------
-- Pods nominated to a node (preemption made room for them there) count on
-- it for the pods of their priority or lower, as kube-scheduler's
-- RunFilterPluginsWithNominatedPods counts them through the plugin's AddPod
-- (updateWithPod, on the node's own topology pairs): a nominated pod whose
-- required anti-affinity matches the pod keeps it off that node (existing
-- pods' anti-affinity), and so does one that the pod's own required
-- anti-affinity matches.  A pod of higher priority does not count them; nor
-- does a pod whose PreFilter skips (no terms, none against it on a node):
-- kube-scheduler runs no AddPod nor Filter for a skipped plugin.
------------------------------------------------------------------------------
CREATE FUNCTION pg_temp.ppod(name text, labels jsonb, affinity jsonb, priority int, gates jsonb DEFAULT '[]')
RETURNS int LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'Pod',
        'metadata', jsonb_build_object('name', name, 'namespace', 'default', 'uid', 'default/' || name, 'labels', labels),
        'spec', jsonb_build_object('priority', priority, 'affinity', affinity, 'schedulingGates', gates,
            'containers', jsonb_build_array(jsonb_build_object('name', 'c',
                'resources', jsonb_build_object('requests', jsonb_build_object('cpu', '100m')))))))
$$;
-- (nom is gated, so that no cycle here places it: it stays nominated)
SELECT pg_temp.ppod('nom', '{"app": "nom"}', pg_temp.req('podAntiAffinity', '{"app": "near"}', 'kubernetes.io/hostname'), 100,
                    '[{"name": "hold"}]');
UPDATE scheduler.queue SET nominated_node = 'n1' WHERE pod_uid = 'default/nom';
SELECT pg_temp.ppod('near-low', '{"app": "near"}', pg_temp.req('podAntiAffinity', '{"app": "none"}', 'kubernetes.io/hostname'), 0);
SELECT pg_temp.ppod('near-high', '{"app": "near"}', pg_temp.req('podAntiAffinity', '{"app": "none"}', 'kubernetes.io/hostname'), 1000);
SELECT pg_temp.ppod('near-eq', '{"app": "near"}', pg_temp.req('podAntiAffinity', '{"app": "none"}', 'kubernetes.io/hostname'), 100);
SELECT pg_temp.ppod('near-plain', '{"app": "near"}', '{}', 0);
SELECT pg_temp.ppod('repel-low', '{"app": "repel"}', pg_temp.req('podAntiAffinity', '{"app": "nom"}', 'kubernetes.io/hostname'), 0);
SELECT pg_temp.ppod('repel-high', '{"app": "repel"}', pg_temp.req('podAntiAffinity', '{"app": "nom"}', 'kubernetes.io/hostname'), 1000);
SELECT p.name, node, code, reason
FROM unnest(ARRAY['near-low', 'near-eq', 'near-high', 'near-plain', 'repel-low', 'repel-high']) AS p(name),
     LATERAL scheduler.filter('default', p.name) f
WHERE f.plugin = 'InterPodAffinity' AND (f.node = 'n1' OR f.node IS NULL)
ORDER BY p.name, node NULLS FIRST;
-- the cycle counts them so too: near-low and repel-low go elsewhere, ten
-- times over (their nodes are drawn among the ties)
CREATE FUNCTION pg_temp.tenfold() RETURNS TABLE (on_n1 bigint, placed bigint) LANGUAGE plpgsql AS $$
BEGIN
    CREATE TEMP TABLE landed (node text);
    FOR i IN 1 .. 10 LOOP
        PERFORM pg_temp.delete_pod('near-low'), pg_temp.delete_pod('repel-low');
        PERFORM pg_temp.ppod('near-low', '{"app": "near"}', pg_temp.req('podAntiAffinity', '{"app": "none"}', 'kubernetes.io/hostname'), 0);
        PERFORM pg_temp.ppod('repel-low', '{"app": "repel"}', pg_temp.req('podAntiAffinity', '{"app": "nom"}', 'kubernetes.io/hostname'), 0);
        INSERT INTO landed SELECT s.node FROM schedule_pending() s WHERE s.name IN ('near-low', 'repel-low');
    END LOOP;
    RETURN QUERY SELECT count(*) FILTER (WHERE l.node = 'n1'), count(l.node) FROM landed l;
    DROP TABLE landed;
END $$;
SELECT * FROM pg_temp.tenfold();
-- a nominated pod that the pod's required affinity matches counts on its
-- node's pairs in the first pass (AddPod), so the node is judged on what
-- comes after: here its anti-affinity to the pod, Unschedulable; the other
-- nodes fail the affinity, UnschedulableAndUnresolvable
SELECT pg_temp.ppod('lone', '{"app": "lone"}', pg_temp.req('podAntiAffinity', '{"app": "seeker"}', 'kubernetes.io/hostname'), 100,
                    '[{"name": "hold"}]');
UPDATE scheduler.queue SET nominated_node = 'n3' WHERE pod_uid = 'default/lone';
SELECT pg_temp.ppod('seeker', '{"app": "seeker"}', pg_temp.req('podAffinity', '{"app": "lone"}', 'topology.kubernetes.io/zone'), 0);
SELECT node, code, reason FROM scheduler.filter('default', 'seeker') WHERE plugin = 'InterPodAffinity' ORDER BY node NULLS FIRST;
