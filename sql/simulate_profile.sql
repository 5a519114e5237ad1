-- simulate() with a profile to use instead: a KubeSchedulerConfiguration
-- (kubescheduler.config.k8s.io/v1) among the changes.  Its profile for the
-- schedulerName simulated is built as kube-scheduler builds one: the
-- default plugins, then plugins.multiPoint (disabled, "*" for every default,
-- then enabled), plugins.score (weights; disabled: does not score), each
-- plugin's args from pluginConfig, percentageOfNodesToScore.  Nothing is
-- written: scheduler.profiles stays as it is.
\set SHOW_CONTEXT never
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history, scheduler.outbox;
SET scheduler.random_seed = 1;

CREATE FUNCTION pg_temp.node(name text, cpu text) RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_build_object('kind', 'Node',
        'metadata', jsonb_build_object('name', name, 'labels', jsonb_build_object('kubernetes.io/hostname', name)),
        'status', jsonb_build_object('allocatable', jsonb_build_object('cpu', cpu, 'memory', '16Gi', 'pods', '110')))
$$;
CREATE FUNCTION pg_temp.pod(name text, cpu text, node text DEFAULT NULL) RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_build_object('kind', 'Pod',
        'metadata', jsonb_build_object('name', name, 'namespace', 'default', 'uid', 'u-' || name),
        'spec', jsonb_strip_nulls(jsonb_build_object('nodeName', node,
            'containers', jsonb_build_array(jsonb_build_object('name', 'c',
                'resources', jsonb_build_object('requests', jsonb_build_object('cpu', cpu)))))))
$$;
CREATE FUNCTION pg_temp.config(profile jsonb) RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_build_object('apiVersion', 'kubescheduler.config.k8s.io/v1', 'kind', 'KubeSchedulerConfiguration',
                              'profiles', jsonb_build_array(profile))
$$;

-- small (4 cpu, 3 requested) and large (16 cpu, 3 requested); one pod of 1 cpu
SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_build_array(
    pg_temp.node('small', '4'), pg_temp.node('large', '16'),
    pg_temp.pod('a', '3', 'small'), pg_temp.pod('b', '3', 'large'), pg_temp.pod('p', '1'))));

-- the default profile: LeastAllocated spreads, large wins
SELECT name, node, result FROM scheduler.simulate();
-- NodeResourcesFit with MostAllocated (pluginConfig's args): small wins
SELECT name, node, result FROM scheduler.simulate(jsonb_build_array(pg_temp.config(
    '{"schedulerName": "default-scheduler",
      "pluginConfig": [{"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "MostAllocated",
          "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}}}]}')));
-- a pod too big for either node: with NodeResourcesFit disabled
-- (multiPoint), it is placed anyway; the same with every default disabled
SELECT scheduler.apply(pg_temp.pod('huge', '64'));
SELECT name, node, result FROM scheduler.simulate() ORDER BY name;
SELECT name, node IS NOT NULL AS placed, result FROM scheduler.simulate(jsonb_build_array(pg_temp.config(
    '{"plugins": {"multiPoint": {"disabled": [{"name": "NodeResourcesFit"}]}}}'))) ORDER BY name;
SELECT name, node IS NOT NULL AS placed, result FROM scheduler.simulate(jsonb_build_array(pg_temp.config(
    '{"plugins": {"multiPoint": {"disabled": [{"name": "*"}]}}}'))) ORDER BY name;
-- and re-enabled with a weight (multiPoint.enabled), scores off for
-- BalancedAllocation (score.disabled)
SELECT name, node, result FROM scheduler.simulate(jsonb_build_array(pg_temp.config(
    '{"plugins": {"multiPoint": {"disabled": [{"name": "*"}], "enabled": [{"name": "NodeResourcesFit", "weight": 5}]},
                  "score": {"disabled": [{"name": "NodeResourcesBalancedAllocation"}]}}}'))) ORDER BY name;
-- kube-scheduler's weights: an enabled entry without a weight (or with 0,
-- "not permitted") scores with 1, not 0: every scorer but NodeResourcesFit
-- off, and it enabled again with no weight: LeastAllocated picks large
SELECT name, node, result FROM scheduler.simulate(jsonb_build_array(pg_temp.config(
    '{"plugins": {"score": {"disabled": [{"name": "*"}], "enabled": [{"name": "NodeResourcesFit"}]}}}'))) ORDER BY name;
SELECT name, node, result FROM scheduler.simulate(jsonb_build_array(pg_temp.config(
    '{"plugins": {"score": {"disabled": [{"name": "*"}], "enabled": [{"name": "NodeResourcesFit", "weight": 0}]}}}'))) ORDER BY name;
-- the profile is the simulation's only: the table's profile is unchanged
SELECT name, node, result FROM scheduler.simulate() ORDER BY name;
SELECT count(*) FROM scheduler.profile_plugins WHERE scheduler_name = 'default-scheduler';

-- the profile is the one of the schedulerName simulated
SELECT count(*) FROM scheduler.simulate(jsonb_build_array(pg_temp.config('{"schedulerName": "other"}')));
SELECT count(*) FROM scheduler.simulate(jsonb_build_array(pg_temp.config('{"schedulerName": "other"}')), 'other');

-- errors name the field
SELECT * FROM scheduler.simulate(jsonb_build_array(pg_temp.config('{"plugins": {"multiPoint": {"enabled": [{"name": "NoSuchPlugin"}]}}}')));
SELECT * FROM scheduler.simulate(jsonb_build_array(pg_temp.config('{"plugins": {"filter": {"disabled": [{"name": "NodePorts"}]}}}')));
SELECT * FROM scheduler.simulate(jsonb_build_array(pg_temp.config('{"plugins": {"multiPoint": {"enabled": [{"weight": 1}]}}}')));
SELECT * FROM scheduler.simulate(jsonb_build_array(pg_temp.config('{"plugins": {"score": {"enabled": [{"name": "ImageLocality", "weight": -1}]}}}')));
SELECT * FROM scheduler.simulate(jsonb_build_array(pg_temp.config('{"pluginConfig": [{"name": "InterPodAffinity", "args": {"hardPodAffinityWeight": 101}}]}')));
SELECT * FROM scheduler.simulate(jsonb_build_array(pg_temp.config('{"percentageOfNodesToScore": 101}')));
SELECT * FROM scheduler.simulate('[{"apiVersion": "kubescheduler.config.k8s.io/v1beta3", "kind": "KubeSchedulerConfiguration", "profiles": []}]');
SELECT * FROM scheduler.simulate(jsonb_build_array(pg_temp.config('{}'), pg_temp.config('{}')));
-- a plugin enabled at Score alone is refused (here a plugin runs at every
-- point it has), as is one without a Score
SELECT * FROM scheduler.simulate(jsonb_build_array(pg_temp.config(
    '{"plugins": {"multiPoint": {"disabled": [{"name": "NodeAffinity"}]}, "score": {"enabled": [{"name": "NodeAffinity"}]}}}')));
SELECT * FROM scheduler.simulate(jsonb_build_array(pg_temp.config('{"plugins": {"score": {"enabled": [{"name": "NodePorts"}]}}}')));
-- pluginConfig: one entry per plugin, each validated, in the profile or not
SELECT * FROM scheduler.simulate(jsonb_build_array(pg_temp.config(
    '{"pluginConfig": [{"name": "NodeResourcesFit", "args": {}}, {"name": "NodeResourcesFit", "args": {}}]}')));
SELECT * FROM scheduler.simulate(jsonb_build_array(pg_temp.config(
    '{"plugins": {"multiPoint": {"disabled": [{"name": "InterPodAffinity"}]}},
      "pluginConfig": [{"name": "InterPodAffinity", "args": {"hardPodAffinityWeight": -1}}]}')));
-- decoded strictly, as kube-scheduler decodes its configuration
SELECT * FROM scheduler.simulate(jsonb_build_array(pg_temp.config('{"plugins": {"multiPoint": {"disable": [{"name": "NodePorts"}]}}}')));
SELECT * FROM scheduler.simulate(jsonb_build_array(pg_temp.config('{"plugins": {"multiPoint": "oops"}}')));
SELECT * FROM scheduler.simulate(jsonb_build_array(pg_temp.config('{"schedulerName": 5}')));
SELECT * FROM scheduler.simulate(jsonb_build_array(pg_temp.config('{"plugins": {"multiPoint": {"disabled": {"name": "NodePorts"}}}}')));
SELECT * FROM scheduler.simulate('[{"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration", "profile": []}]');
