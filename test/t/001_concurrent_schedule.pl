# Two or more sessions calling schedule_pending() at once never over-commit a
# node and never place a pod twice.  kube-scheduler runs one scheduling loop;
# here concurrent callers are serialized on scheduler.cycle_lock.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('main');
$node->init;
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION scheduler');

# 20 nodes of 2 cpu; pods of 500m: room for exactly 80 pods.
sub load_cluster
{
	my ($npods) = @_;
	$node->safe_psql('postgres', q{
		TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts;
		SELECT sum(scheduler.apply(jsonb_build_object('kind', 'Node',
			'metadata', jsonb_build_object('name', 'n' || i),
			'status', '{"allocatable": {"cpu": "2", "memory": "8Gi", "pods": "110"}}'::jsonb)))
		FROM generate_series(1, 20) i;
	} . qq{
		SELECT sum(scheduler.apply(jsonb_build_object('kind', 'Pod',
			'metadata', jsonb_build_object('name', 'p' || i, 'namespace', 'default'),
			'spec', '{"containers": [{"name": "c", "resources": {"requests": {"cpu": "500m", "memory": "100Mi"}}}]}'::jsonb)))
		FROM generate_series(1, $npods) i;
	});
}

sub check_invariants
{
	my ($label, $expect_placed) = @_;
	is($node->safe_psql('postgres',
			'SELECT count(*) FROM scheduler.node_usage WHERE requested > allocatable'),
		'0', "$label: no node over-committed");
	is($node->safe_psql('postgres',
			'SELECT count(*) FROM scheduler.pods WHERE assumed_node IS NOT NULL'),
		$expect_placed, "$label: $expect_placed pods placed");
}

# Send a query to a background session without waiting for it ...
sub send_query
{
	my ($s, $sql) = @_;
	$s->{stdin} .= "$sql\n\\echo __done__\n";
	$s->{run}->pump_nb while length $s->{stdin};
}

# ... and collect its output lines later.
sub collect
{
	my ($s) = @_;
	$s->{run}->pump until $s->{stdout} =~ /__done__/;
	my @lines = grep { $_ ne '__done__' && $_ ne '' } split /\n/, $s->{stdout};
	$s->{stdout} = '';
	return @lines;
}

# --- 1. A second caller waits for the first to commit, then sees its work.
load_cluster(200);
my $s1 = $node->background_psql('postgres');
my $s2 = $node->background_psql('postgres');
$s1->query_safe('BEGIN');
is($s1->query_safe("SELECT count(*) FROM schedule_pending() WHERE result = 'scheduled'"),
	'80', 'first session places 80 pods (uncommitted)');
send_query($s2, "SELECT count(*) FROM schedule_pending() WHERE result = 'scheduled';");
ok( $node->poll_query_until('postgres', q{
		SELECT count(*) = 1 FROM pg_stat_activity
		WHERE wait_event_type = 'Lock' AND query LIKE '%schedule_pending%'}),
	'second session waits on the first');
$s1->query_safe('COMMIT');
is((collect($s2))[0], '0', 'then sees the 80 placed and places none');
$s1->quit;
$s2->quit;
check_invariants('after serialized calls', '80');
is($node->safe_psql('postgres', q{
		SELECT count(*) FROM scheduler.queue WHERE state = 'unschedulable' AND attempts = 1}),
	'120', 'the 120 that did not fit wait in the unschedulable queue, tried once');

# --- 2. Under REPEATABLE READ a caller whose snapshot predates another's
# commit gets a serialization failure instead of reading stale room.
load_cluster(200);
$s1 = $node->background_psql('postgres', on_error_stop => 0);
$s1->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
$s1->query_safe('SELECT count(*) FROM scheduler.nodes');    # takes the snapshot
$node->safe_psql('postgres', 'SELECT count(*) FROM schedule_pending(10)');
my ($out, $err) = $s1->query('SELECT count(*) FROM schedule_pending()');
like($s1->{stderr}, qr/could not serialize access due to concurrent update/,
	'a stale REPEATABLE READ caller fails with a serialization error');
$s1->quit;
check_invariants('after the serialization failure', '10');

# --- 3. Four sessions race, each scheduling small batches many times.
load_cluster(300);
my @sessions = map { $node->background_psql('postgres') } 1 .. 4;
my %placed;
my $duplicates = 0;
for my $round (1 .. 10)
{
	# all four are sent before any is collected, and start together
	send_query($_, "SELECT pg_sleep(0.05); SELECT name FROM schedule_pending(8) WHERE result = 'scheduled';")
	  for @sessions;
	for my $s (@sessions)
	{
		my @names = grep { /^p\d+$/ } collect($s);
		$duplicates += exists $placed{$_} for @names;
		$placed{$_} = 1 for @names;
	}
}
$_->quit for @sessions;
is($duplicates, 0, 'no pod was reported placed by two calls');
is(scalar(keys %placed), 80, 'the racing sessions placed exactly the 80 that fit');
check_invariants('after the race', '80');

# --- 4. An event that arrives while a pod is in its cycle is not lost
# (kube-scheduler's in-flight events): the writer waits for the cycle to
# commit, then its QueueingHint sees the pod unschedulable and moves it.
$node->safe_psql('postgres', q{
	TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts;
	SELECT scheduler.apply('{"kind": "Node", "metadata": {"name": "small"},
	  "status": {"allocatable": {"cpu": "1", "memory": "8Gi", "pods": "110"}}}');
	SELECT scheduler.apply('{"kind": "Pod", "metadata": {"name": "big", "namespace": "default"},
	  "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "2"}}}]}}');
});
my $cycle = $node->background_psql('postgres');
my $writer = $node->background_psql('postgres');
$cycle->query_safe('BEGIN');
is($cycle->query_safe("SELECT result FROM schedule_pending()"), 'unschedulable', 'the cycle rejects the pod (not committed yet)');
send_query($writer, q{SELECT scheduler.apply('{"kind": "Node", "metadata": {"name": "large"},
  "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "110"}}}');});
ok($node->poll_query_until('postgres', q{
		SELECT count(*) = 1 FROM pg_stat_activity
		WHERE wait_event_type = 'Lock' AND query LIKE '%scheduler.apply%'}),
	'a node that fits arrives during the cycle and waits for it');
$cycle->query_safe('COMMIT');
collect($writer);
is($node->safe_psql('postgres', q{
		SELECT q.state || ' ' || q.moved_by FROM scheduler.queue q JOIN scheduler.pods p ON p.uid = q.pod_uid
		WHERE p.name = 'big'}),
	'backoff NodeAdd (NodeResourcesFit)', 'then moves the rejected pod back (to backoff: its 1 s has not passed): the event was not lost');
$cycle->quit;
$writer->quit;

done_testing();
