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

INSERT INTO scheduler.profiles VALUES ('default-scheduler', NULL);
INSERT INTO scheduler.profile_plugins (scheduler_name, plugin, position, weight) VALUES
    ('default-scheduler', 'NodeUnschedulable', 1, NULL),
    ('default-scheduler', 'NodeName', 2, NULL),
    ('default-scheduler', 'TaintToleration', 3, 3),
    ('default-scheduler', 'NodeAffinity', 4, 2),
    ('default-scheduler', 'NodePorts', 5, NULL),
    ('default-scheduler', 'NodeResourcesFit', 6, 1),
    ('default-scheduler', 'PodTopologySpread', 7, 2),
    ('default-scheduler', 'InterPodAffinity', 8, 2),
    ('default-scheduler', 'DefaultPreemption', 9, NULL),
    ('default-scheduler', 'NodeResourcesBalancedAllocation', 10, 1),
    ('default-scheduler', 'ImageLocality', 11, 1);

------------------------------------------------------------------------------
