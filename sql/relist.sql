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
