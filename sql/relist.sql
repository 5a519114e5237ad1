-- Relisting (after a 410 on a watch, or at start): the list is the whole
-- truth.  Objects that vanished while the watch was down are deleted, and
-- the list's resourceVersion is where the watch resumes.  As kube-scheduler's
-- informers do on a relist (reflector Replace).
\set SHOW_CONTEXT never
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts;
SET scheduler.pod_initial_backoff = 0;
SET scheduler.pod_max_backoff = 0;
CREATE FUNCTION pg_temp.nodes(rv text, VARIADIC names text[]) RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_build_object('kind', 'NodeList', 'apiVersion', 'v1', 'metadata', jsonb_build_object('resourceVersion', rv),
        'items', coalesce(jsonb_agg(jsonb_build_object('metadata', jsonb_build_object('name', n, 'uid', 'uid-' || n),
            'status', '{"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "10"}}'::jsonb)), '[]'))
    FROM unnest(names) n
$$;

SELECT scheduler.relist(pg_temp.nodes('100', 'a', 'b', 'c'));
SELECT name FROM scheduler.nodes ORDER BY 1;
SELECT resource, resource_version FROM scheduler.watch_state;
-- b vanished while the watch was down; d appeared
SELECT scheduler.relist(pg_temp.nodes('250', 'a', 'c', 'd'));
SELECT name FROM scheduler.nodes ORDER BY 1;
SELECT resource, resource_version FROM scheduler.watch_state;
-- the same list again: nothing changes
SELECT scheduler.relist(pg_temp.nodes('250', 'a', 'c', 'd'));

-- pods: a pod deleted while the watch was down frees its node, which moves
-- a pod it blocked (AssignedPodDelete) and schedules it
SELECT scheduler.relist('{"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": "300"}, "items": [
  {"metadata": {"name": "big-1", "namespace": "default", "uid": "p1"}, "spec": {"nodeName": "a", "containers": [{"name": "c", "resources": {"requests": {"cpu": "2"}}}]}},
  {"metadata": {"name": "big-2", "namespace": "default", "uid": "p2"}, "spec": {"nodeName": "c", "containers": [{"name": "c", "resources": {"requests": {"cpu": "2"}}}]}},
  {"metadata": {"name": "big-3", "namespace": "default", "uid": "p3"}, "spec": {"nodeName": "d", "containers": [{"name": "c", "resources": {"requests": {"cpu": "2"}}}]}},
  {"metadata": {"name": "waiting", "namespace": "default", "uid": "p4"}, "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "2"}}}]}}]}');
SELECT name, result FROM schedule_pending();
SELECT scheduler.relist('{"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": "420"}, "items": [
  {"metadata": {"name": "big-1", "namespace": "default", "uid": "p1"}, "spec": {"nodeName": "a", "containers": [{"name": "c", "resources": {"requests": {"cpu": "2"}}}]}},
  {"metadata": {"name": "big-3", "namespace": "default", "uid": "p3"}, "spec": {"nodeName": "d", "containers": [{"name": "c", "resources": {"requests": {"cpu": "2"}}}]}},
  {"metadata": {"name": "waiting", "namespace": "default", "uid": "p4"}, "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "2"}}}]}}]}');
SELECT name FROM scheduler.pods ORDER BY 1;
SELECT name, node, result FROM schedule_pending();
SELECT resource, resource_version FROM scheduler.watch_state ORDER BY 1;

-- an empty list deletes every object of that kind
SELECT scheduler.relist(pg_temp.nodes('500', VARIADIC ARRAY[]::text[]));
SELECT count(*) AS nodes_left FROM scheduler.nodes;

-- bad input
SELECT scheduler.relist('{"kind": "Pod", "metadata": {"name": "x"}}');
SELECT scheduler.relist('{"kind": "PodList", "items": {}}');

-- a list longer than one batch (relist writes its pods 1000 at a time): the
-- same as item by item.  Two items of one name with different uids: the
-- later is the pod (the earlier, in another batch, is gone); two of one uid:
-- the later is its object.  Every pending pod is in the queue.
SELECT scheduler.relist(jsonb_build_object('kind', 'PodList', 'apiVersion', 'v1',
  'metadata', jsonb_build_object('resourceVersion', '600'),
  'items', (SELECT jsonb_agg(jsonb_build_object(
      'metadata', jsonb_build_object('namespace', 'default',
                                     'name', CASE i WHEN 2200 THEN 'many-10' ELSE 'many-' || i END,
                                     'uid', CASE i WHEN 1500 THEN 'm-20' ELSE 'm-' || i END,
                                     'labels', jsonb_build_object('i', i::text)),
      'spec', jsonb_build_object('containers', jsonb_build_array(jsonb_build_object('name', 'c')))) ORDER BY i)
    FROM generate_series(1, 2500) i)));
SELECT count(*) AS pods, count(*) FILTER (WHERE pending) AS pending,
       (SELECT count(*) FROM scheduler.queue) AS queued FROM scheduler.pods;
SELECT uid, name, labels->>'i' AS i FROM scheduler.pods WHERE name IN ('many-10', 'many-20', 'many-1500') ORDER BY name;
SELECT scheduler.relist('{"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": "601"}, "items": []}');
SELECT count(*) AS pods, (SELECT count(*) FROM scheduler.queue) AS queued FROM scheduler.pods;
