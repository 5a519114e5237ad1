-- scheduler.plan_capacity(templates, pods) and plan_capacity_pods(): how
-- many nodes of each template would place the pending pods (issue 14), as
-- cluster-autoscaler's binpacking estimator packs them, with the real
-- filters on the private view simulate() uses.  Every pod is first tried on
-- the cluster as it is (QueueSort order, whole cycles, no preemption); the
-- rest go template by template in the order given (a pod goes to the first
-- template that can hold it), largest first (the estimator's
-- DecreasingPodOrderer), first fit on the template's new nodes, else on a
-- fresh node "<template>-<k>", which is taken out again when even it does
-- not pass the pod.  Nothing is written and no lock is taken.
\set SHOW_CONTEXT never
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history, scheduler.outbox;
SET scheduler.random_seed = 1;

CREATE FUNCTION pg_temp.node(name text, cpu text, extra jsonb DEFAULT '{}') RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_build_object('kind', 'Node',
        'metadata', jsonb_build_object('name', name, 'labels', jsonb_build_object('kubernetes.io/hostname', name)),
        'status', jsonb_build_object('allocatable', jsonb_build_object('cpu', cpu, 'memory', '16Gi', 'pods', '110'))) || extra
$$;
-- a pod of cpu and priority, on node when given, created at minute m
CREATE FUNCTION pg_temp.pod(name text, cpu text, m int DEFAULT 0, node text DEFAULT NULL, priority int DEFAULT 0)
RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_build_object('kind', 'Pod',
        'metadata', jsonb_build_object('name', name, 'namespace', 'default', 'uid', 'u-' || name,
            'creationTimestamp', to_char(timestamptz '2024-01-01' + m * interval '1 minute', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')),
        'spec', jsonb_strip_nulls(jsonb_build_object('nodeName', node, 'priority', priority,
            'containers', jsonb_build_array(jsonb_build_object('name', 'c',
                'resources', jsonb_build_object('requests', jsonb_build_object('cpu', cpu)))))),
        'status', jsonb_build_object('phase', CASE WHEN node IS NULL THEN 'Pending' ELSE 'Running' END))
$$;
-- n pending pods "<prefix><i>" of cpu, created at minutes 1..n
CREATE FUNCTION pg_temp.pods(prefix text, n int, cpu text) RETURNS integer LANGUAGE sql AS $$
    SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items',
        (SELECT jsonb_agg(pg_temp.pod(prefix || i, cpu, i)) FROM generate_series(1, n) i)))
$$;
-- everything a call could write, as one row to compare
CREATE VIEW pg_temp.written AS
    SELECT (SELECT count(*) FROM scheduler.nodes) AS nodes,
           (SELECT count(*) FILTER (WHERE coalesce(node_name, assumed_node) IS NOT NULL) FROM scheduler.pods) AS placed,
           (SELECT string_agg(q.state || ':' || q.attempts, ' ' ORDER BY q.pod_uid) FROM scheduler.queue q) AS queue,
           (SELECT count(*) FROM scheduler.pod_attempts) AS attempts, (SELECT count(*) FROM scheduler.attempt_history) AS history,
           (SELECT count(*) FROM scheduler.outbox) AS outbox;
-- the planned new nodes, each as the Node object plan_capacity made of its
-- template (its name and its hostname label), for simulate()
CREATE FUNCTION pg_temp.planned_nodes(templates jsonb, pods jsonb DEFAULT NULL) RETURNS jsonb LANGUAGE sql AS $$
    SELECT coalesce(jsonb_agg(jsonb_set(jsonb_set(t, '{metadata,name}', to_jsonb(p.node)),
                                        '{metadata,labels}', coalesce(t -> 'metadata' -> 'labels', '{}')
                                        || jsonb_build_object('kubernetes.io/hostname', p.node)) ORDER BY p.node), '[]')
    FROM (SELECT DISTINCT template, node FROM scheduler.plan_capacity_pods(templates, pods) WHERE template IS NOT NULL) p
    JOIN jsonb_array_elements(templates) t ON t -> 'metadata' ->> 'name' = p.template
$$;

------------------------------------------------------------------------------
-- The issue's known answer: 10 pods of 3 cpu, templates of 4 cpu, no node
-- yet: one pod per node (3 + 3 > 4), 10 nodes.  One row per template in the
-- order given, then the row whose template is NULL (nodes 0): here none
-- that no template can hold.
------------------------------------------------------------------------------
SELECT pg_temp.pods('p', 10, '3');
SELECT * FROM pg_temp.written;
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node('four', '4')));
-- pod by pod, in QueueSort order: each its new node, named "<template>-<k>";
-- the message is why the cluster as it is cannot hold it
SELECT * FROM scheduler.plan_capacity_pods(jsonb_build_array(pg_temp.node('four', '4')));
-- simulate() with those 10 nodes added places every pod; with 9, one waits
SELECT result, count(*) FROM scheduler.simulate(pg_temp.planned_nodes(jsonb_build_array(pg_temp.node('four', '4'))))
GROUP BY result;
SELECT result, count(*) FROM scheduler.simulate(
    (SELECT jsonb_agg(pg_temp.node('four-' || k, '4')) FROM generate_series(1, 9) k)) GROUP BY result;
SELECT * FROM pg_temp.written;

------------------------------------------------------------------------------
-- Packing (the estimator's First-Fit): 10 pods of 1 cpu on 4-cpu nodes fill
-- them in turn, 4 + 4 + 2: 3 nodes.
------------------------------------------------------------------------------
TRUNCATE scheduler.pods;
SELECT pg_temp.pods('q', 10, '1');
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node('four', '4')));
SELECT node, count(*), string_agg(name, ' ' ORDER BY name) FROM scheduler.plan_capacity_pods(jsonb_build_array(pg_temp.node('four', '4')))
GROUP BY node ORDER BY node;

-- ... largest first (DecreasingPodOrderer: cpu over the template's cpu plus
-- memory over its memory): 1, 1, 3, 3 cpu queued in that order would take 3
-- nodes first fit in queue order (1+1, 3, 3); largest first, 3+1 and 3+1: 2
TRUNCATE scheduler.pods;
SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_build_array(
    pg_temp.pod('s1', '1', 1), pg_temp.pod('s2', '1', 2), pg_temp.pod('l1', '3', 3), pg_temp.pod('l2', '3', 4))));
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node('four', '4')));
SELECT name, template, node FROM scheduler.plan_capacity_pods(jsonb_build_array(pg_temp.node('four', '4')));
SELECT result, count(*) FROM scheduler.simulate(pg_temp.planned_nodes(jsonb_build_array(pg_temp.node('four', '4'))))
GROUP BY result;

------------------------------------------------------------------------------
-- Pods the cluster as it is holds need no node: n1 (4 cpu) takes q1..q4 (in
-- QueueSort order, each counting against it for the next), the 6 others
-- need 2 new nodes.  Their rows name n1 and no template.
------------------------------------------------------------------------------
TRUNCATE scheduler.pods;
SELECT pg_temp.pods('q', 10, '1');
SELECT scheduler.apply(pg_temp.node('n1', '4'));
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node('four', '4')));
SELECT * FROM scheduler.plan_capacity_pods(jsonb_build_array(pg_temp.node('four', '4')));
SELECT result, count(*) FROM scheduler.simulate(pg_temp.planned_nodes(jsonb_build_array(pg_temp.node('four', '4'))))
GROUP BY result;
-- a template named after the cluster's nodes: its new nodes take the next
-- free names (n-1 is a node, of 1 cpu: it holds a pod too, n1 four, and
-- the 5 others go to n-2 and n-3)
SELECT scheduler.apply(pg_temp.node('n-1', '1'));
SELECT DISTINCT template, node FROM scheduler.plan_capacity_pods(jsonb_build_array(pg_temp.node('n', '4'))) ORDER BY node;
-- no template at all: what the cluster holds, and the row of NULL counts the rest
SELECT * FROM scheduler.plan_capacity('[]');
SELECT name, node, message FROM scheduler.plan_capacity_pods('[]') WHERE name IN ('q1', 'q10');

------------------------------------------------------------------------------
-- Nothing is preempted: urgent (priority 10, 4 cpu) would preempt low on
-- n1 (simulate() nominates it there: its message has no "preemption:" part,
-- preemption made room); the plan gives it a new node instead, as the
-- estimator, which runs the filters only, does.
------------------------------------------------------------------------------
TRUNCATE scheduler.pods;
SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_build_array(
    pg_temp.pod('low', '2', 0, 'n1'), pg_temp.pod('urgent', '4', 1, NULL, 10))));
SELECT name, result, message FROM scheduler.simulate();
SELECT * FROM scheduler.plan_capacity_pods(jsonb_build_array(pg_temp.node('four', '4')));
DELETE FROM scheduler.nodes WHERE name = 'n-1';

------------------------------------------------------------------------------
-- Two templates, in the order given: a pod goes to the first that can hold
-- it (the priority expander's order).  general (8 cpu) comes first; gpu (8
-- cpu, labelled accel=gpu, tainted dedicated=gpu:NoSchedule) holds what
-- general cannot: the pod that selects accel=gpu and tolerates the taint.
-- tolerant tolerates the taint but selects nothing: general holds it.
-- no-toleration selects accel=gpu without tolerating the taint, huge needs
-- 64 cpu, picky selects a label no template has: no template holds them,
-- and the row of NULL counts them; plan_capacity_pods says why, template by
-- template, from a fresh node of each.
------------------------------------------------------------------------------
TRUNCATE scheduler.nodes, scheduler.pods;
CREATE TEMP TABLE templates AS SELECT jsonb_build_array(
    pg_temp.node('general', '8'),
    jsonb_build_object('kind', 'Node',
        'metadata', jsonb_build_object('name', 'gpu', 'labels', jsonb_build_object('accel', 'gpu')),
        'spec', jsonb_build_object('taints', jsonb_build_array(jsonb_build_object('key', 'dedicated', 'value', 'gpu', 'effect', 'NoSchedule'))),
        'status', jsonb_build_object('allocatable', jsonb_build_object('cpu', '8', 'memory', '16Gi', 'pods', '110')))) AS t;
SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_build_array(
    pg_temp.pod('plain', '2', 1),
    jsonb_set(jsonb_set(pg_temp.pod('gpu-job', '2', 2), '{spec,nodeSelector}', '{"accel": "gpu"}'),
              '{spec,tolerations}', '[{"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}]'),
    jsonb_set(pg_temp.pod('tolerant', '2', 3), '{spec,tolerations}', '[{"key": "dedicated", "operator": "Exists"}]'),
    jsonb_set(pg_temp.pod('no-toleration', '2', 4), '{spec,nodeSelector}', '{"accel": "gpu"}'),
    pg_temp.pod('huge', '64', 5),
    jsonb_set(jsonb_set(pg_temp.pod('picky', '1', 6), '{spec,nodeSelector}', '{"accel": "tpu"}'),
              '{spec,tolerations}', '[{"key": "dedicated", "operator": "Exists"}]'))));
SELECT p.* FROM templates, scheduler.plan_capacity(t) p;
SELECT p.* FROM templates, scheduler.plan_capacity_pods(t) p;
SELECT s.result, count(*) FROM templates, scheduler.simulate(pg_temp.planned_nodes(t)) s GROUP BY s.result ORDER BY 1;
-- pods alike no template holds: each counted, each with the same reasons
-- (a fresh node is added and taken out once per template for them all: the
-- verdict of a pod that no plugin reading other pods has anything to say
-- about depends on its fields the plugins sign and on the node alone)
SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_build_array(
    pg_temp.pod('huge-2', '64', 7), pg_temp.pod('huge-3', '64', 8))));
SELECT p.* FROM templates, scheduler.plan_capacity(t) p;
SELECT count(*), p.message FROM templates, scheduler.plan_capacity_pods(t) p WHERE p.name LIKE 'huge%' GROUP BY p.message;
DELETE FROM scheduler.pods WHERE name IN ('huge-2', 'huge-3');
-- the other order: gpu first holds tolerant too (it fits there: a template
-- before general that can hold it)
SELECT p.* FROM templates, scheduler.plan_capacity(jsonb_build_array(t -> 1, t -> 0)) p;
SELECT p.name, p.template, p.node FROM templates, scheduler.plan_capacity_pods(jsonb_build_array(t -> 1, t -> 0)) p
WHERE p.template IS NOT NULL;

------------------------------------------------------------------------------
-- Required pod anti-affinity on kubernetes.io/hostname: one pod per new
-- node.  Each new node is labelled kubernetes.io/hostname with its own
-- name, whatever the template says (four's label reads "four"; bare has no
-- labels at all), as the autoscaler sanitizes a template node.
------------------------------------------------------------------------------
TRUNCATE scheduler.pods;
SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', (SELECT jsonb_agg(
    jsonb_set(jsonb_set(pg_temp.pod('web-' || i, '100m', i), '{metadata,labels}', '{"app": "web"}'), '{spec,affinity}',
        '{"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "kubernetes.io/hostname",
          "labelSelector": {"matchLabels": {"app": "web"}}}]}}')) FROM generate_series(1, 5) i)));
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node('four', '4')));
SELECT name, template, node FROM scheduler.plan_capacity_pods(jsonb_build_array(pg_temp.node('four', '4')));
SELECT * FROM scheduler.plan_capacity('[{"metadata": {"name": "bare"}, "status": {"allocatable": {"cpu": "4", "pods": "110"}}}]');
SELECT result, count(*) FROM scheduler.simulate(pg_temp.planned_nodes(jsonb_build_array(pg_temp.node('four', '4'))))
GROUP BY result;

------------------------------------------------------------------------------
-- Required pod affinity to a pod queued (or packed) after it: follower
-- (2 cpu) must be on the node of a pod app=leader; leader (1 cpu) comes
-- after it.  The queue tries follower again once leader is assigned (the
-- plugin that rejected it reads other pods), and so does the plan: on new
-- nodes (largest first: follower first, kept off a fresh node, then tried
-- again beside leader: one node), and on the cluster as it is, where
-- simulate()'s single pass leaves follower waiting.
------------------------------------------------------------------------------
TRUNCATE scheduler.pods;
SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_build_array(
    jsonb_set(pg_temp.pod('follower', '2', 1), '{spec,affinity}', '{"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
        [{"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "leader"}}}]}}'),
    jsonb_set(pg_temp.pod('leader', '1', 2), '{metadata,labels}', '{"app": "leader"}'))));
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node('four', '4')));
SELECT name, template, node FROM scheduler.plan_capacity_pods(jsonb_build_array(pg_temp.node('four', '4')));
SELECT scheduler.apply(pg_temp.node('n1', '4'));
SELECT name, result FROM scheduler.simulate();
SELECT * FROM scheduler.plan_capacity_pods(jsonb_build_array(pg_temp.node('four', '4')));
DELETE FROM scheduler.nodes WHERE name = 'n1';

------------------------------------------------------------------------------
-- The pods argument: the pods to plan for.  "namespace/name" names pending
-- pods; a Pod object is a hypothetical pending pod (a Deployment not yet
-- created), validated as apply() validates it, queued now; '[]' plans for
-- none.  NULL: every pending pod of the scheduler that is not gated.
------------------------------------------------------------------------------
TRUNCATE scheduler.pods;
SELECT pg_temp.pods('p', 4, '3');
SELECT scheduler.apply(jsonb_set(pg_temp.pod('gated', '3', 9), '{spec,schedulingGates}', '[{"name": "wait"}]'));
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node('four', '4')));
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node('four', '4')), '["default/p2", "default/p4"]');
-- a gated pod named is planned for (its gates lifted, as when they will be)
SELECT name, template, node FROM scheduler.plan_capacity_pods(jsonb_build_array(pg_temp.node('four', '4')), '["default/gated"]');
-- hypothetical pods beside a named one: p1 (3 cpu) and deploy-b (1 cpu)
-- share four-1, deploy-a (1 cpu) takes four-2 (largest first); the rows
-- in QueueSort order: deploy-b (priority 5) first, then p1, then
-- deploy-a (queued now, after p1)
SELECT * FROM scheduler.plan_capacity_pods(jsonb_build_array(pg_temp.node('four', '4')),
    jsonb_build_array('default/p1', pg_temp.pod('deploy-a', '1'), pg_temp.pod('deploy-b', '1', 0, NULL, 5)));
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node('four', '4')), '[]');
SELECT * FROM scheduler.plan_capacity_pods(jsonb_build_array(pg_temp.node('four', '4')), '[]');
-- what it refuses, naming the element
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node('four', '4')), '{"items": []}');
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node('four', '4')), '"default/p1"');
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node('four', '4')), '["default/p1", 7]');
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node('four', '4')), '["p1"]');
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node('four', '4')), '["default/p1/x"]');
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node('four', '4')), '["default/nope"]');
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node('four', '4')), '["default/p1", "default/p2", "default/p1"]');
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node('four', '4')),
    jsonb_build_array('default/p1', pg_temp.pod('p1', '1')));
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node('four', '4')),
    jsonb_build_array(pg_temp.pod('x', '1'), jsonb_set(pg_temp.pod('y', '1'), '{metadata,uid}', '"u-x"')));
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node('four', '4')), jsonb_build_array(pg_temp.pod('x', '1x')));
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node('four', '4')), jsonb_build_array(pg_temp.pod('x', '1') - 'kind'));
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node('four', '4')), jsonb_build_array(pg_temp.node('x', '1')));
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node('four', '4')),
    '[{"type": "ADDED", "object": {"kind": "Pod", "metadata": {"name": "x"}}}]');
-- not pending: bound (named, or an object with spec.nodeName), terminated
SELECT scheduler.apply(pg_temp.node('n1', '4'));
SELECT scheduler.apply(pg_temp.pod('running', '1', 0, 'n1'));
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node('four', '4')), '["default/running"]');
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node('four', '4')), jsonb_build_array(pg_temp.pod('x', '1', 0, 'n1')));
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node('four', '4')),
    jsonb_build_array(jsonb_set(pg_temp.pod('x', '1'), '{status,phase}', '"Succeeded"')));
-- a pending pod with the uid of a pod on a node is not a pod to plan for
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node('four', '4')),
    jsonb_build_array(jsonb_set(pg_temp.pod('x', '1'), '{metadata,uid}', '"u-running"')));
-- another schedulerName's pod: named or given, refused; with NULL, left out
SELECT scheduler.apply(jsonb_set(pg_temp.pod('other', '1', 9), '{spec,schedulerName}', '"other-scheduler"'));
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node('four', '4')), '["default/other"]');
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node('four', '4')),
    jsonb_build_array(jsonb_set(pg_temp.pod('x', '1'), '{spec,schedulerName}', '"other-scheduler"')));
SELECT count(*) AS planned FROM scheduler.plan_capacity_pods(jsonb_build_array(pg_temp.node('four', '4')));

------------------------------------------------------------------------------
-- The templates: a JSON array of Node objects (kind may be left out), each
-- validated at the door as apply() validates a Node, errors naming
-- templates[i] and the field; names unique, short enough for "<name>-<k>"
-- to be a hostname label value (63 characters); resources required.
------------------------------------------------------------------------------
SELECT * FROM scheduler.plan_capacity(NULL);
SELECT * FROM scheduler.plan_capacity('{"kind": "Node"}');
SELECT * FROM scheduler.plan_capacity('[1]');
SELECT * FROM scheduler.plan_capacity('[{"kind": "Pod", "metadata": {"name": "a"}}]');
SELECT * FROM scheduler.plan_capacity('[{"status": {"allocatable": {"cpu": "4"}}}]');
SELECT * FROM scheduler.plan_capacity('[{"metadata": {"name": ""}, "status": {"allocatable": {"cpu": "4"}}}]');
SELECT * FROM scheduler.plan_capacity('[{"metadata": {"name": "a"}}]');
SELECT * FROM scheduler.plan_capacity('[{"metadata": {"name": "a"}, "status": {"allocatable": {"cpu": "4x"}}}]');
SELECT * FROM scheduler.plan_capacity('[{"metadata": {"name": "A_1"}, "status": {"allocatable": {"cpu": "4"}}}]');
SELECT * FROM scheduler.plan_capacity('[{"metadata": {"name": "a"}, "spec": {"taints": [{"key": "k"}]}, "status": {"allocatable": {"cpu": "4"}}}]');
SELECT * FROM scheduler.plan_capacity('[{"metadata": {"name": "a"}, "status": {"allocatable": {"cpu": "4"}}},
    {"metadata": {"name": "b"}, "status": {"allocatable": {"cpu": "4"}}}, {"metadata": {"name": "a"}, "status": {"allocatable": {"cpu": "8"}}}]');
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node(repeat('a', 58), '4')));
SELECT template = repeat('a', 57) AS longest_name, nodes, pods FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node(repeat('a', 57), '4')));
-- capacity alone stands for allocatable, as apply() defaults it
SELECT * FROM scheduler.plan_capacity('[{"metadata": {"name": "cap"}, "status": {"capacity": {"cpu": "4", "pods": "110"}}}]');
-- at most 100 templates: each is a packing pass over every pod
SELECT * FROM scheduler.plan_capacity((SELECT jsonb_agg(pg_temp.node('t' || i, '4')) FROM generate_series(1, 101) i));
SELECT count(*) FROM scheduler.plan_capacity((SELECT jsonb_agg(pg_temp.node('t' || i, '4')) FROM generate_series(1, 100) i));

------------------------------------------------------------------------------
-- The work is capped: at most 1000 new nodes of a template (the
-- autoscaler's --max-nodes-per-scaleup default); the pods past that go on
-- to the next template, or, without one, no template holds them, saying so.
------------------------------------------------------------------------------
TRUNCATE scheduler.nodes, scheduler.pods;
SELECT pg_temp.pods('p', 1001, '3');
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node('four', '4')));
SELECT name, template, node, message FROM scheduler.plan_capacity_pods(jsonb_build_array(pg_temp.node('four', '4')))
WHERE node IS NULL OR node = 'four-1000';
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node('four', '4'), pg_temp.node('eight', '8')));

------------------------------------------------------------------------------
-- One pod's failure fails it alone (a stored row planted past apply() that
-- cannot be read, as in schedule_pending()): no template is tried for it,
-- the row of NULL counts it, and the others are planned.
------------------------------------------------------------------------------
TRUNCATE scheduler.pods;
SELECT pg_temp.pods('p', 3, '3');
UPDATE scheduler.pods SET requests = '{"cpu": "lots"}' WHERE name = 'p2';
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node('four', '4')));
SELECT * FROM scheduler.plan_capacity_pods(jsonb_build_array(pg_temp.node('four', '4')));

------------------------------------------------------------------------------
-- Nothing was written by any of these, and no lock is taken: in a read-only
-- transaction too, and scheduler_reader may call both; a role without it
-- is told which role to ask for.
------------------------------------------------------------------------------
SELECT * FROM pg_temp.written;
BEGIN TRANSACTION READ ONLY;
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node('four', '4')));
-- scheduler.cycle_lock only read (where the search starts), never locked as schedule_pending() locks it
SELECT mode FROM pg_locks WHERE relation = 'scheduler.cycle_lock'::regclass AND pid = pg_backend_pid();
COMMIT;
CREATE ROLE regress_plan_reader;
CREATE ROLE regress_plan_nobody;
GRANT scheduler_reader TO regress_plan_reader;
SET ROLE regress_plan_reader;
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node('four', '4')));
SELECT count(*) FROM scheduler.plan_capacity_pods(jsonb_build_array(pg_temp.node('four', '4')));
SET ROLE regress_plan_nobody;
SELECT * FROM scheduler.plan_capacity(jsonb_build_array(pg_temp.node('four', '4')));
SELECT * FROM scheduler.plan_capacity_pods(jsonb_build_array(pg_temp.node('four', '4')));
RESET ROLE;
DROP ROLE regress_plan_reader;
DROP ROLE regress_plan_nobody;
SELECT * FROM pg_temp.written;
-- the backend's next call reads the cluster afresh: no new node is left in its view
SELECT count(*) AS nodes FROM scheduler.snapshot();
