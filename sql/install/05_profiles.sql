------------------------------------------------------------------------------
-- Profiles: which plugins a schedulerName runs, in which order, with which
-- weights and args (kube-scheduler's KubeSchedulerProfile).  A change takes
-- effect on the next cycle.  A schedulerName without rows runs the default
-- profile, the rows of 'default-scheduler' as installed.
------------------------------------------------------------------------------
CREATE TABLE scheduler.profiles (
    scheduler_name text PRIMARY KEY,
    percentage_of_nodes_to_score integer CHECK (percentage_of_nodes_to_score BETWEEN 0 AND 100)
);
COMMENT ON TABLE scheduler.profiles IS 'Scheduling profiles (kube-scheduler''s KubeSchedulerProfile), one per schedulerName; a schedulerName without one runs the plugins of default-scheduler';
COMMENT ON COLUMN scheduler.profiles.percentage_of_nodes_to_score IS 'NULL: the GUC scheduler.percentage_of_nodes_to_score';

CREATE TABLE scheduler.profile_plugins (
    scheduler_name text NOT NULL REFERENCES scheduler.profiles ON UPDATE CASCADE ON DELETE CASCADE,
    plugin         text NOT NULL,
    position       integer NOT NULL,
    enabled        boolean NOT NULL DEFAULT true,
    weight         integer CHECK (weight >= 0),  -- score weight; NULL: the plugin's default
    args           jsonb NOT NULL DEFAULT '{}',
    PRIMARY KEY (scheduler_name, plugin)
);
COMMENT ON TABLE scheduler.profile_plugins IS 'Plugins of each profile in order, with score weight and plugin args (kube-scheduler pluginConfig field names)';

-- The plugin registry (profile.c, made from src/plugins/plugins.def, the one
-- list of plugins): every plugin with its default weight, its place in the
-- default profile and its extension points.
CREATE FUNCTION scheduler.plugins()
    RETURNS TABLE (plugin text, default_weight integer, default_position integer, extension_points text[])
    AS 'MODULE_PATHNAME', 'scheduler_plugins' LANGUAGE C STRICT STABLE PARALLEL SAFE;
COMMENT ON FUNCTION scheduler.plugins() IS 'The plugins this build knows (src/plugins/plugins.def): default score weight (NULL: does not score), position in the default profile (NULL: not in it), extension points';

-- The default profile, kube-scheduler's, as plugins.def lists it
INSERT INTO scheduler.profiles VALUES ('default-scheduler', NULL);
INSERT INTO scheduler.profile_plugins (scheduler_name, plugin, position, weight)
    SELECT 'default-scheduler', p.plugin, p.default_position, p.default_weight
    FROM scheduler.plugins() p
    WHERE p.default_position IS NOT NULL
    ORDER BY p.default_position;

------------------------------------------------------------------------------
