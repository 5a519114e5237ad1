# The queue, QueueingHints and the background worker on a real server.
# kube-scheduler's behaviour pinned here: a pod rejected for cpu
# (NodeResourcesFit) moves back only on an event the plugin registered for
# whose hint says Queue -- a node added that fits it, or a pod leaving a
# node -- never on an unrelated label change; the scheduler then places it
# without being asked (the worker, woken through its latch at the commit; its
# safety timer is set to 10 minutes so it cannot be that), and a LISTEN
# client hears scheduler_wakeup.  Backoff and the unschedulable timeout are
# checked with shortened settings.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);

my $node = PostgreSQL::Test::Cluster->new('main');
$node->init;
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'scheduler'
scheduler.database = 'postgres'
scheduler.worker_interval = '10min'
scheduler.pod_initial_backoff = 0
scheduler.pod_max_backoff = 0
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION scheduler');
ok($node->poll_query_until('postgres',
		q{SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'scheduler worker'}),
	'the scheduler worker runs');

sub apply { $node->safe_psql('postgres', "SELECT scheduler.apply('$_[0]')") }
sub node_json
{
	my ($name, $cpu, $labels) = @_;
	$labels //= '{}';
	return qq({"kind": "Node", "metadata": {"name": "$name", "labels": $labels},
	  "status": {"allocatable": {"cpu": "$cpu", "memory": "8Gi", "pods": "110"}}});
}
sub pod_json
{
	my ($name, $cpu, $node) = @_;
	my $bind = $node ? qq(, "nodeName": "$node") : '';
	return qq({"kind": "Pod", "metadata": {"name": "$name", "namespace": "default"},
	  "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "$cpu", "memory": "100Mi"}}}]$bind}});
}
sub q1 { $node->safe_psql('postgres', $_[0]) }
sub state_of { q1("SELECT q.state || '/' || q.attempts FROM scheduler.queue q JOIN scheduler.pods p ON p.uid = q.pod_uid WHERE p.name = '$_[0]'") }
sub node_of { q1("SELECT coalesce(assumed_node, node_name, '') FROM scheduler.pods WHERE name = '$_[0]'") }

my $listener = $node->background_psql('postgres');
$listener->query_safe('LISTEN scheduler_wakeup');

# --- A new pod is scheduled by the worker, unasked; one too big waits.
apply(node_json('small', '1'));
apply(pod_json('fits', '500m'));
ok($node->poll_query_until('postgres', q{SELECT assumed_node = 'small' FROM scheduler.pods WHERE name = 'fits'}),
	'a new pod is placed by the worker without a call');
apply(pod_json('big', '2'));
ok($node->poll_query_until('postgres', q{
		SELECT state = 'unschedulable' FROM scheduler.queue q JOIN scheduler.pods p ON p.uid = q.pod_uid
		WHERE p.name = 'big'}),
	'a pod too big for every node becomes unschedulable');
is(q1(q{SELECT array_to_string(rejected_by, ',') FROM scheduler.queue q JOIN scheduler.pods p ON p.uid = q.pod_uid WHERE p.name = 'big'}),
	'NodeResourcesFit', 'rejected by NodeResourcesFit');

# --- Unrelated changes do not move it: a label, a node that is too small.
q1(q{SELECT scheduler.apply(jsonb_set(object, '{metadata,labels}', '{"team": "a"}')) FROM scheduler.nodes WHERE name = 'small'});
apply(node_json('tiny', '100m'));
usleep(500_000);
is(state_of('big'), 'unschedulable/1', 'a label change and a too-small node leave it unschedulable, untried');

# --- A node that fits it: moved, and placed by the worker.
my $t0 = time;
apply(node_json('large', '8'));
ok($node->poll_query_until('postgres', q{SELECT assumed_node = 'large' FROM scheduler.pods WHERE name = 'big'}),
	'a node that fits is added: the worker places the pod');
my $latency = time - $t0;
like(q1(q{SELECT string_agg(result, ',' ORDER BY id) FROM scheduler.attempt_history WHERE name = 'big'}),
	qr/^unschedulable,scheduled$/, 'tried exactly twice: before and after the node came');
diag(sprintf('node added -> placed: %.0f ms', $latency * 1000));

# --- A pod leaving a node frees room: moved and placed.
apply(pod_json('filler', '7', 'large'));
apply(pod_json('late', '2'));
ok($node->poll_query_until('postgres', q{
		SELECT state = 'unschedulable' FROM scheduler.queue q JOIN scheduler.pods p ON p.uid = q.pod_uid
		WHERE p.name = 'late'}),
	'another pod waits for room');
q1(q{SELECT scheduler.apply(jsonb_build_object('type', 'DELETED', 'object', object)) FROM scheduler.pods WHERE name = 'filler'});
ok($node->poll_query_until('postgres', q{SELECT assumed_node = 'large' FROM scheduler.pods WHERE name = 'late'}),
	'a pod leaves the node: the worker places the waiting one');

# --- The LISTEN client heard the wake-ups.
my ($out) = $listener->query('SELECT 1');
like($listener->{stderr} . $listener->{stdout} . ($out // ''), qr/Asynchronous notification "scheduler_wakeup"/,
	'a LISTEN client received scheduler_wakeup');
$listener->quit;

# --- Backoff, shortened: a pod moved back while backing off waits it out.
$node->safe_psql('postgres', q{
	ALTER SYSTEM SET scheduler.pod_initial_backoff = '1500ms';
	ALTER SYSTEM SET scheduler.pod_max_backoff = '10s';
	SELECT pg_reload_conf();});
usleep(300_000);
apply(pod_json('patient', '20'));
ok($node->poll_query_until('postgres', q{
		SELECT state = 'unschedulable' FROM scheduler.queue q JOIN scheduler.pods p ON p.uid = q.pod_uid
		WHERE p.name = 'patient'}),
	'a pod waits for a node with 20 cpu');
apply(node_json('huge', '32'));
like(state_of('patient'), qr{^backoff/1$}, 'the node that fits moves it to backoff: its backoff has not expired');
ok($node->poll_query_until('postgres', q{SELECT assumed_node = 'huge' FROM scheduler.pods WHERE name = 'patient'}),
	'the worker places it when the backoff expires');
my $waited = q1(q{SELECT extract(epoch FROM max(attempted_at) - min(attempted_at)) FROM scheduler.attempt_history WHERE name = 'patient'});
cmp_ok($waited, '>=', 1.4, "and not before: ${waited}s between the two attempts, backoff 1.5 s");

# --- The unschedulable timeout, shortened: tried again with no event.
$node->safe_psql('postgres', q{
	ALTER SYSTEM SET scheduler.unschedulable_timeout = '2s';
	ALTER SYSTEM SET scheduler.pod_initial_backoff = 0;
	SELECT pg_reload_conf();});
usleep(300_000);
apply(pod_json('forgotten', '64'));
ok($node->poll_query_until('postgres', q{
		SELECT attempts >= 2 FROM scheduler.queue q JOIN scheduler.pods p ON p.uid = q.pod_uid
		WHERE p.name = 'forgotten'}),
	'an unschedulable pod is tried again after the timeout, with no event');
is(q1(q{SELECT moved_by IS NULL AND state = 'unschedulable' FROM scheduler.queue q JOIN scheduler.pods p ON p.uid = q.pod_uid WHERE p.name = 'forgotten'}),
	't', 'and waits again after failing');

# --- A gated pod is never attempted until its gates are removed.
apply(q({"kind": "Pod", "metadata": {"name": "gated", "namespace": "default"},
  "spec": {"schedulingGates": [{"name": "example.com/hold"}], "containers": [{"name": "c"}]}}));
usleep(500_000);
is(q1(q{SELECT count(*) FROM scheduler.attempt_history WHERE name = 'gated'}), '0', 'a gated pod is never attempted');
q1(q{SELECT scheduler.apply(jsonb_set(object, '{spec,schedulingGates}', '[]')) FROM scheduler.pods WHERE name = 'gated'});
ok($node->poll_query_until('postgres', q{SELECT assumed_node IS NOT NULL FROM scheduler.pods WHERE name = 'gated'}),
	'once its gates are removed the worker places it');

# --- Idle when nothing waits: with no pod in backoff or unschedulable, the
# worker sleeps until its latch or its 10-minute safety timer (it once spun
# at 1 ms: greatest(0, NULL) is 0).  Every run reports the worker idle again,
# which moves state_change.
q1(q{DELETE FROM scheduler.pods WHERE name = 'forgotten'});
ok($node->poll_query_until('postgres', q{SELECT count(*) = 0 FROM scheduler.queue WHERE state IN ('backoff', 'unschedulable', 'active')}),
	'nothing waits in the queue');
usleep(2_500_000);	# past the wake-up the worker had set for the deleted pod's timeout
my $before = q1(q{SELECT state_change FROM pg_stat_activity WHERE backend_type = 'scheduler worker'});
usleep(1_000_000);
is(q1(q{SELECT state_change FROM pg_stat_activity WHERE backend_type = 'scheduler worker'}), $before,
	'with nothing waiting the worker does not run for a second');

# --- The worker's writes reach the cumulative statistics, as a session's do
# when it goes idle: attempt_history is written by the worker alone here, and
# unless the worker reports its counts, autovacuum never sees the table
# change (never analyzes it, never vacuums it), however long it runs.
ok($node->poll_query_until('postgres',
		q{SELECT n_tup_ins > 0 FROM pg_stat_user_tables WHERE relid = 'scheduler.attempt_history'::regclass}),
	"the worker's inserts are counted in pg_stat_user_tables, where autovacuum reads them");

$node->stop;
done_testing();
