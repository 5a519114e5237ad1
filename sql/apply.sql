-- scheduler.apply(): Kubernetes JSON into the mirror tables.
\set SHOW_CONTEXT never
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts;

-- Errors are shown with their SQLSTATE.
CREATE FUNCTION pg_temp.try(stmt text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
    EXECUTE stmt INTO r;
    RETURN 'ok: ' || coalesce(r, 'NULL');
EXCEPTION WHEN OTHERS THEN
    RETURN 'ERROR ' || SQLSTATE || ': ' || SQLERRM;
END $$;

------------------------------------------------------------------------------
-- What `kubectl get nodes -o json` prints (test/fixtures, kind List).
-- Expected numbers: test/fixtures/README.md (Ki = 1024 bytes).
------------------------------------------------------------------------------
\set nodes `cat test/fixtures/kubectl-get-nodes.json`
\set pods `cat test/fixtures/kubectl-get-pods.json`
SELECT scheduler.apply(:'nodes') AS nodes_changed;
SELECT name, unschedulable, jsonb_array_length(taints) AS taints,
       allocatable->'cpu' AS cpu_m, allocatable->'memory' AS memory,
       allocatable->'pods' AS pods, allocatable->'ephemeral-storage' AS ephemeral,
       labels->>'topology.kubernetes.io/zone' AS zone,
       object->'metadata'->>'name' = name AS object_kept
FROM scheduler.nodes ORDER BY name;
-- the same List again changes nothing
SELECT scheduler.apply(:'nodes') AS nodes_changed_again;

-- `kubectl get pods -A -o json`: requests are effective requests, normalized.
SELECT scheduler.apply(:'pods') AS pods_changed;
SELECT namespace, name, node_name, phase, scheduler_name, priority,
       requests, nonzero_cpu, nonzero_memory
FROM scheduler.pods ORDER BY namespace, name;
SELECT scheduler.apply(:'pods') AS pods_changed_again;

------------------------------------------------------------------------------
-- Watch events
------------------------------------------------------------------------------
-- MODIFIED: a label added to worker-a
SELECT scheduler.apply(jsonb_build_object('type', 'MODIFIED', 'object',
    jsonb_set(object, '{metadata,labels,team}', '"payments"'))) AS changed
FROM scheduler.nodes WHERE name = 'worker-a';
SELECT labels->>'team' AS team FROM scheduler.nodes WHERE name = 'worker-a';
-- the same event again: no change
SELECT scheduler.apply(jsonb_build_object('type', 'MODIFIED', 'object', object)) AS changed
FROM scheduler.nodes WHERE name = 'worker-a';
-- MODIFIED: cordon worker-b (spec.unschedulable) with a new allocatable
SELECT scheduler.apply(jsonb_build_object('type', 'MODIFIED', 'object',
    jsonb_set(jsonb_set(object, '{spec,unschedulable}', 'true'),
              '{status,allocatable,cpu}', '"7"'))) AS changed
FROM scheduler.nodes WHERE name = 'worker-b';
SELECT name, unschedulable, allocatable->'cpu' AS cpu_m FROM scheduler.nodes WHERE name = 'worker-b';
-- DELETED removes the row; deleting again changes nothing
SELECT scheduler.apply(jsonb_build_object('type', 'DELETED', 'object', object)) AS changed
FROM scheduler.pods WHERE name = 'web-6d4cf56db6-7xk2p';
SELECT count(*) AS web_rows FROM scheduler.pods WHERE name = 'web-6d4cf56db6-7xk2p';
SELECT scheduler.apply(jsonb_build_object('type', 'DELETED', 'object',
    (:'pods'::jsonb)->'items'->(
        SELECT (i - 1)::int FROM jsonb_array_elements(:'pods'::jsonb->'items') WITH ORDINALITY e(v, i)
        WHERE v->'metadata'->>'name' = 'web-6d4cf56db6-7xk2p'))) AS changed;
-- ADDED brings it back
SELECT scheduler.apply(jsonb_build_object('type', 'ADDED', 'object', e.v)) AS changed
FROM jsonb_array_elements(:'pods'::jsonb->'items') e(v)
WHERE e.v->'metadata'->>'name' = 'web-6d4cf56db6-7xk2p';
-- BOOKMARK changes nothing
SELECT scheduler.apply('{"type": "BOOKMARK", "object": {"kind": "Pod", "apiVersion": "v1", "metadata": {"resourceVersion": "12345"}}}') AS changed;
-- ERROR carries the Status message
SELECT pg_temp.try($$SELECT scheduler.apply('{"type": "ERROR", "object": {"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": "too old resource version: 1 (4321)", "reason": "Expired", "code": 410}}')$$);
SELECT pg_temp.try($$SELECT scheduler.apply('{"type": "RESYNC", "object": {"kind": "Pod", "metadata": {"name": "x"}}}')$$);
-- The type is read before the object, as the watch decoder reads an event
-- (client-go's watch Decoder refuses a type it does not know before it
-- decodes the object): an event of an unknown type is reported as such,
-- whatever its object lacks, applied alone or in a batch.
SELECT pg_temp.try($$SELECT scheduler.apply('{"type": "WHATEVER", "object": {}}')$$);
SELECT pg_temp.try($$SELECT scheduler.apply('{"type": "WHATEVER", "object": null}')$$);
SELECT pg_temp.try($$SELECT scheduler.apply('{"type": "WHATEVER"}')$$);
SELECT pg_temp.try($$SELECT scheduler.apply_events(ARRAY['{"type": "WHATEVER", "object": {}}'::jsonb])$$);
-- a known type without an object: the object is required
SELECT pg_temp.try($$SELECT scheduler.apply('{"type": "ADDED"}')$$);
SELECT pg_temp.try($$SELECT scheduler.apply('{"type": "MODIFIED", "object": {}}')$$);

-- A NodeList as the API server returns it: items carry no kind.
SELECT scheduler.apply('{"kind": "NodeList", "apiVersion": "v1", "metadata": {"resourceVersion": "99"},
  "items": [{"metadata": {"name": "listed-1", "uid": "u-listed-1"}, "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "10"}}},
            {"metadata": {"name": "listed-2", "uid": "u-listed-2"}, "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "10"}}}]}') AS changed;

------------------------------------------------------------------------------
-- Hand-written objects get what the API server would default.
------------------------------------------------------------------------------
-- allocatable defaults to capacity (SetDefaults_NodeStatus); uid from the name
SELECT scheduler.apply('{"kind": "Node", "metadata": {"name": "handmade"},
  "status": {"capacity": {"cpu": "1500m", "memory": "2Gi", "pods": "20", "nvidia.com/gpu": "1"}}}') AS changed;
SELECT uid, allocatable FROM scheduler.nodes WHERE name = 'handmade';
-- requests default to limits (SetDefaults_Pod); namespace to "default";
-- schedulerName to "default-scheduler"; priority to 0; JSON numbers are quantities
SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "limits-only"},
  "spec": {"containers": [{"name": "a", "resources": {"limits": {"cpu": "2", "memory": "1Gi"}, "requests": {"cpu": "500m"}}},
                          {"name": "b", "resources": {"limits": {"cpu": 0.25, "nvidia.com/gpu": 1}}}]}}') AS changed;
SELECT uid, namespace, scheduler_name, priority, requests, nonzero_cpu, nonzero_memory
FROM scheduler.pods WHERE name = 'limits-only';

-- The same name with a new uid is a new object: the old row goes.
SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "recreated", "namespace": "default", "uid": "old-uid"}, "spec": {"containers": []}}') AS changed;
SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "recreated", "namespace": "default", "uid": "new-uid"}, "spec": {"containers": []}}') AS changed;
SELECT uid FROM scheduler.pods WHERE name = 'recreated';

------------------------------------------------------------------------------
-- Bad input: a clear ERROR (22023 unless said) naming the object and field.
------------------------------------------------------------------------------
SELECT pg_temp.try($$SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "web-1", "namespace": "default"}, "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "12x"}}}]}}')$$);
SELECT pg_temp.try($$SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "web-1"}, "spec": {"initContainers": [{"name": "i", "resources": {"limits": {"memory": "1.2.3"}}}]}}')$$);
SELECT pg_temp.try($$SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "web-1"}, "spec": {"overhead": {"cpu": "--1"}}}')$$);
SELECT pg_temp.try($$SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "web-1"}, "spec": {"containers": [{"name": "c", "resources": {"requests": {"memory": "-1Gi"}}}]}}')$$);
SELECT pg_temp.try($$SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "web-1"}, "spec": {"containers": [{"name": "c", "resources": {"requests": {"memory": ""}}}]}}')$$);
SELECT pg_temp.try($$SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "web-1"}, "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": true}}}]}}')$$);
SELECT pg_temp.try($$SELECT scheduler.apply('{"kind": "Node", "metadata": {"name": "n1"}, "status": {"allocatable": {"memory": "100E"}}}')$$);
SELECT pg_temp.try($$SELECT scheduler.apply('{"kind": "Node", "metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "10000000000000000"}}}')$$);
SELECT pg_temp.try($$SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "web-1"}, "spec": {"containers": {"name": "c"}}}')$$);
SELECT pg_temp.try($$SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "web-1", "labels": {"app": 1}}}')$$);
SELECT pg_temp.try($$SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "web-1", "labels": ["app"]}}')$$);
SELECT pg_temp.try($$SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "web-1"}, "spec": {"priority": "high"}}')$$);
SELECT pg_temp.try($$SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "web-1"}, "spec": {"priority": 1.5}}')$$);
SELECT pg_temp.try($$SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "web-1"}, "spec": {"tolerations": [{"key": "k", "operator": "In"}]}}')$$);
SELECT pg_temp.try($$SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "web-1"}, "spec": {"initContainers": [{"name": "i", "restartPolicy": "OnFailure"}]}}')$$);
SELECT pg_temp.try($$SELECT scheduler.apply('{"kind": "Node", "metadata": {"name": "n1"}, "spec": {"taints": [{"key": "k", "effect": "NoScheduled"}]}}')$$);
SELECT pg_temp.try($$SELECT scheduler.apply('{"kind": "Node", "metadata": {"name": "n1"}, "spec": {"taints": [{"effect": "NoSchedule"}]}}')$$);
SELECT pg_temp.try($$SELECT scheduler.apply('{"kind": "Node", "metadata": {"name": "n1", "creationTimestamp": "yesterday-ish"}}')$$);
SELECT pg_temp.try($$SELECT scheduler.apply('{"kind": "Node", "metadata": {}}')$$);
SELECT pg_temp.try($$SELECT scheduler.apply('{"kind": "Pod", "spec": {}}')$$);
SELECT pg_temp.try($$SELECT scheduler.apply('{"kind": "Deployment", "metadata": {"name": "web"}}')$$);
SELECT pg_temp.try($$SELECT scheduler.apply('{"kind": "List", "items": [{"kind": "ConfigMap", "metadata": {"name": "cm"}}]}')$$);
SELECT pg_temp.try($$SELECT scheduler.apply('{"kind": "List", "items": [{"metadata": {"name": "no-kind"}}]}')$$);
SELECT pg_temp.try($$SELECT scheduler.apply('{"apiVersion": "v1"}')$$);
SELECT pg_temp.try($$SELECT scheduler.apply('[{"kind": "Pod"}]')$$);
SELECT pg_temp.try($$SELECT scheduler.apply('"Pod"')$$);
-- a failed object in a List leaves nothing of the List behind (one statement)
SELECT count(*) AS pods_before FROM scheduler.pods;
SELECT pg_temp.try($$SELECT scheduler.apply('{"kind": "List", "items": [
   {"kind": "Pod", "metadata": {"name": "good"}, "spec": {}},
   {"kind": "Pod", "metadata": {"name": "bad"}, "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1x"}}}]}}]}')$$);
SELECT count(*) AS pods_after FROM scheduler.pods;
