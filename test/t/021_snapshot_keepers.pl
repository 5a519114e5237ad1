# Memory that does not grow with the connections (issue 15): a session's
# cluster snapshot is kept between transactions only by the scheduling
# worker and by the first scheduler.snapshot_keepers sessions that ask
# (scheduler.keep_snapshot); every other session frees its snapshot at the
# end of each transaction, and builds it again at its next call.  Seen
# through pg_backend_memory_contexts ("scheduler snapshot cache") in each
# session, and pg_log_backend_memory_contexts() for the worker.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('main');
$node->init;
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'scheduler'
scheduler.database = 'postgres'
scheduler.snapshot_keepers = 1
});
$node->start;
sub q1 { $node->safe_psql('postgres', $_[0]) }
q1('CREATE EXTENSION scheduler');
q1(q{SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_agg(jsonb_build_object(
    'kind', 'Node', 'metadata', jsonb_build_object('name', 'n' || i),
    'status', '{"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "20"}}'::jsonb))))
  FROM generate_series(1, 50) i});
q1(q{SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_agg(jsonb_build_object(
    'kind', 'Pod', 'metadata', jsonb_build_object('name', 'b' || i, 'namespace', 'default'),
    'spec', jsonb_build_object('nodeName', 'n' || (i % 50 + 1),
        'containers', '[{"name": "c", "resources": {"requests": {"cpu": "100m"}}}]'::jsonb)))))
  FROM generate_series(1, 200) i});
# one pod no node holds (the worker tries it, then leaves it unschedulable)
q1(q{SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "big", "namespace": "default"},
    "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "64"}}}]}}')});

my $filter = q{SELECT count(DISTINCT node) FILTER (WHERE code <> 'Success') || ' of ' || count(DISTINCT node) FROM scheduler.filter('default', 'big')};
my $kept = q{SELECT count(*) FROM pg_backend_memory_contexts WHERE name = 'scheduler snapshot cache'};
my %s = map { $_ => $node->background_psql('postgres') } qw(s1 s2 s3);

# one call each: the answer is the same; s1 came first and keeps its snapshot
for my $who (qw(s1 s2 s3))
{
	my $answer = $s{$who}->query_safe($filter);
	like($answer, qr/^\d+ of 50$/, "$who: filter() answers ($answer)");
}
is($s{s1}->query_safe($kept), '1', 's1, first with scheduler.snapshot_keepers = 1, keeps its snapshot');
is($s{s2}->query_safe($kept), '0', 's2 freed its snapshot at the end of its transaction');
is($s{s3}->query_safe($kept), '0', 's3 too');

# within a transaction the snapshot stays, whoever holds it
$s{s2}->query_safe('BEGIN');
$s{s2}->query_safe($filter);
is($s{s2}->query_safe($kept), '1', 's2: kept until its transaction ends');
$s{s2}->query_safe('COMMIT');
is($s{s2}->query_safe($kept), '0', 's2: freed at COMMIT');

# the equivalence classes a cycle made (simulate() runs cycles: the pod
# "big") hold per node verdicts and scores: they go with the snapshot
my $classes = q{SELECT count(*) FROM pg_backend_memory_contexts WHERE name = 'scheduler equivalence classes'};
$s{s3}->query_safe('BEGIN');
like($s{s3}->query_safe(q{SELECT string_agg(name || ' ' || result, ',') FROM scheduler.simulate('[]')}),
	qr/big unschedulable/, 's3: simulate() tried the pending pod');
is($s{s3}->query_safe($classes), '1', 's3: its cycle made equivalence classes, kept until its transaction ends');
$s{s3}->query_safe('COMMIT');
is($s{s3}->query_safe($classes), '0', 's3: freed at COMMIT, with its snapshot');

# s1 gives its place up; the next to ask takes it
$s{s1}->query_safe('SET scheduler.keep_snapshot = off');
$s{s1}->query_safe($filter);
is($s{s1}->query_safe($kept), '0', 's1: scheduler.keep_snapshot off frees it, and the place');
$s{s3}->query_safe($filter);
is($s{s3}->query_safe($kept), '1', 's3 takes the free place');
$s{s2}->query_safe($filter);
is($s{s2}->query_safe($kept), '0', 's2 still has none');

# a session that ends gives its place back
my $s3pid = $s{s3}->query_safe('SELECT pg_backend_pid()');
$s{s3}->quit;
$node->poll_query_until('postgres', "SELECT count(*) = 0 FROM pg_stat_activity WHERE pid = $s3pid");
$s{s2}->query_safe($filter);
is($s{s2}->query_safe($kept), '1', 's3 gone: s2 takes its place');

# the cap is a reload away
$node->append_conf('postgresql.conf', "scheduler.snapshot_keepers = 0\n");
$node->reload;
$node->poll_query_until('postgres', q{SELECT current_setting('scheduler.snapshot_keepers') = '0'});
$s{s2}->query_safe($filter);
is($s{s2}->query_safe($kept), '0', 'scheduler.snapshot_keepers = 0: s2 frees its snapshot too');

# the scheduling worker keeps its own, whatever the cap
my $pid = q1(q{SELECT pid FROM pg_stat_activity WHERE backend_type = 'scheduler worker'});
ok($node->poll_query_until('postgres', q{SELECT count(*) > 0 FROM scheduler.pod_attempts a
    JOIN scheduler.pods p ON p.uid = a.pod_uid WHERE p.name = 'big'}), 'the worker tried the big pod');
my $log_at = -s $node->logfile;
q1("SELECT pg_log_backend_memory_contexts($pid)");
ok($node->wait_for_log(qr/\[$pid\] LOG:  level: \d+; scheduler snapshot cache: /, $log_at),
	'the scheduling worker keeps its snapshot');

$_->quit for ($s{s1}, $s{s2});
$node->stop;
done_testing();
