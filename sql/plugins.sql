-- The plugins: src/plugins/plugins.def is their one list (kube-scheduler's
-- plugins/registry.go and the default profile of default_plugins.go in one
-- table).  The registry, the plugins' own definitions and the default
-- profile the install script makes from the list all agree.
\set SHOW_CONTEXT never

-- the registry, in plugins.def's order
SELECT * FROM scheduler.plugins();

-- every plugin listed is known by its name, and takes {} as its args
SELECT count(*) AS known FROM scheduler.plugins() p, scheduler.check_plugin(p.plugin, '{}') c;

-- a plugin has a default weight exactly when it scores (a weight applies to
-- Score plugins only)
SELECT plugin AS weight_without_score FROM scheduler.plugins()
WHERE (default_weight IS NOT NULL) <> ('Score' = ANY (extension_points));

-- the default profile's positions are 1..n, each once
SELECT count(*) AS in_default_profile,
       count(DISTINCT default_position) = count(*) AND min(default_position) = 1
           AND max(default_position) = count(*) AS positions_one_to_n
FROM scheduler.plugins() WHERE default_position IS NOT NULL;

-- the default profile as a fresh install makes it: kube-scheduler's default
-- plugins in its order with its weights (0.1's rows, unchanged), and exactly
-- the registry's rows
BEGIN;
DROP EXTENSION scheduler;
CREATE EXTENSION scheduler;
SELECT * FROM scheduler.profiles ORDER BY scheduler_name;
SELECT scheduler_name, plugin, position, enabled, weight, args
FROM scheduler.profile_plugins ORDER BY scheduler_name, position;
SELECT coalesce(r.plugin, p.plugin) AS disagree, r.default_position, p.position, r.default_weight, p.weight
FROM (SELECT * FROM scheduler.plugins() WHERE default_position IS NOT NULL) r
FULL JOIN (SELECT * FROM scheduler.profile_plugins WHERE scheduler_name = 'default-scheduler') p USING (plugin)
WHERE r.plugin IS NULL OR p.plugin IS NULL
   OR r.default_position IS DISTINCT FROM p.position OR r.default_weight IS DISTINCT FROM p.weight
   OR p.args <> '{}' OR NOT p.enabled;
ROLLBACK;
