# The periodic safety job through pg_cron (Debian's 1.4.2, one-minute
# resolution): with no scheduler worker running, a pending pod is placed by
# the job 'SELECT pg_catalog.count(*) FROM public.schedule_pending()', which
# also flushes the queue's timers (expired backoff, unschedulable timeout)
# first.  Every name schema-qualified: the job runs as a superuser on the
# database's search_path.  This is the registration the README documents.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('cron');
$node->init;
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'pg_cron'
cron.database_name = 'postgres'
cron.use_background_workers = on
max_worker_processes = 16
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION pg_cron; CREATE EXTENSION scheduler');

$node->safe_psql('postgres', q{
	SELECT scheduler.apply('{"kind": "Node", "metadata": {"name": "n1"},
	  "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}');
	SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "web", "namespace": "default"},
	  "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}');
});
is($node->safe_psql('postgres', q{SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'scheduler worker'}),
	'0', 'no scheduler worker (the library is not preloaded)');
is($node->safe_psql('postgres', q{SELECT queue FROM scheduler.pending_pods WHERE name = 'web'}),
	'active', 'the pod waits in the active queue');

# the documented registration
$node->safe_psql('postgres', q{
	SELECT cron.schedule('scheduler-safety', '* * * * *', 'SELECT pg_catalog.count(*) FROM public.schedule_pending()');
});
ok($node->poll_query_until('postgres', q{SELECT assumed_node = 'n1' FROM scheduler.pods WHERE name = 'web'}),
	'the pg_cron job placed the pod');
is($node->safe_psql('postgres', q{
	SELECT status FROM cron.job_run_details d JOIN cron.job j USING (jobid)
	WHERE j.jobname = 'scheduler-safety' ORDER BY runid LIMIT 1}),
	'succeeded', 'and its run succeeded');
$node->stop;
done_testing();
