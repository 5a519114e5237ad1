# Status back to the API server, as kube-scheduler's failure handler sends it.
# kube-scheduler's behaviour pinned here:
#   * an unschedulable pod gets the condition PodScheduled=False, reason
#     Unschedulable, message the FitError's "0/N nodes are available: ..."
#     (patched on the pod's status), and a Warning event FailedScheduling with
#     the same message, reportingComponent and source the scheduler's name;
#   * a retry that fails with the same message patches nothing (the
#     condition is unchanged) and posts no second event within
#     scheduler.event_interval (kube-scheduler's event recorder aggregates);
#   * once the pod is bound, PodScheduled is True (the binding sets it) and
#     no stale Unschedulable condition overwrites it; a Normal Scheduled
#     event says "Successfully assigned <ns>/<pod> to <node>";
#   * conditions and events are rate-limited (scheduler.status_qps) and never
#     hold a binding up: bindings go first.
use strict;
use warnings;
use JSON::PP;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use StandIn;
use Test::More;
use Time::HiRes qw(time usleep);

my $api = StandIn->new('apiserver_007');
sub kreq { $api->kjson(@_) }
my $deadline;
sub bulk { kreq('POST', '/debug/bulk', $_[0]) }

my $node = PostgreSQL::Test::Cluster->new('main');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'scheduler'
scheduler.database = 'postgres'
scheduler.unschedulable_timeout = '1s'
scheduler.pod_initial_backoff = 0
scheduler.pod_max_backoff = 0
});
$node->append_conf('postgresql.conf', $api->conf);
$node->start;
sub q1 { $node->safe_psql('postgres', $_[0]) }
q1('CREATE EXTENSION scheduler');

bulk('{"generate": {"nodes": {"count": 2, "cpu": "1"}}}');
# the nodes first (two watches: a pod could otherwise be tried before them)
ok($node->poll_query_until('postgres', 'SELECT count(*) = 2 FROM scheduler.nodes'), 'the two nodes are mirrored');
bulk('{"generate": {"pods": {"count": 1, "prefix": "big-", "cpu": "2"}}}');

sub pod_condition
{
	my ($name) = @_;
	my $pod = kreq('GET', "/api/v1/namespaces/default/pods/$name");
	my ($c) = grep { $_->{type} eq 'PodScheduled' } @{ $pod->{status}{conditions} // [] };
	return $c;
}
sub events_for
{
	my ($name) = @_;
	return grep { $_->{involvedObject}{name} eq $name }
	  @{ kreq('GET', '/api/v1/namespaces/default/events')->{items} };
}

# --- the condition and the event
my $cond;
$deadline = time + 30;
until (($cond = pod_condition('big-0')) && $cond->{status} eq 'False') { last if time > $deadline; usleep(200_000) }
my $message = q1(q{SELECT message FROM scheduler.pod_attempts a JOIN scheduler.pods p ON p.uid = a.pod_uid WHERE p.name = 'big-0'});
like($message, qr{^0/2 nodes are available: 2 Insufficient cpu\.}, "the FitError message: $message");
is($cond->{status}, 'False', 'the pod has PodScheduled=False');
is($cond->{reason}, 'Unschedulable', 'reason Unschedulable');
is($cond->{message}, $message, 'message: the FitError message');
my @ev;
$deadline = time + 30;
until ((@ev = events_for('big-0')) > 0) { last if time > $deadline; usleep(200_000) }
is(scalar @ev, 1, 'one event for the pod');
is($ev[0]{reason}, 'FailedScheduling', 'reason FailedScheduling');
is($ev[0]{type}, 'Warning', 'type Warning');
is($ev[0]{message}, $message, 'the same message');
is($ev[0]{reportingComponent}, 'default-scheduler', 'reported by default-scheduler');
is($ev[0]{source}{component}, 'default-scheduler', 'source default-scheduler');

# --- tried again (the unschedulable timeout is 1 s), same message: nothing new
ok($node->poll_query_until('postgres', q{SELECT count(*) >= 3 FROM scheduler.attempt_history WHERE name = 'big-0'}),
	'the pod is tried again and again');
usleep(500_000);
is(q1(q{SELECT count(*) FROM scheduler.outbox WHERE name = 'big-0' AND kind = 'condition'}), '1',
	'an unchanged message is not patched again');
is(q1(q{SELECT count(*) FROM scheduler.outbox WHERE name = 'big-0' AND kind = 'event'}), '1',
	'and no second event within event_interval');
is(scalar(events_for('big-0')), 1, 'the API server has one event');

# --- room comes: bound, PodScheduled True
bulk('{"generate": {"nodes": {"count": 1, "prefix": "large-", "cpu": "4"}}}');
ok($node->poll_query_until('postgres', q{SELECT node_name = 'large-0' FROM scheduler.pods WHERE name = 'big-0'}),
	'a node with room: the pod is bound there');
is(pod_condition('big-0')->{status}, 'True', 'PodScheduled=True in the API');
# kube-scheduler's record of the binding: Normal Scheduled, "Successfully
# assigned default/big-0 to large-0" (what `kubectl describe pod` shows first)
my @sched;
$deadline = time + 30;
until ((@sched = grep { $_->{reason} eq 'Scheduled' } events_for('big-0')) > 0) { last if time > $deadline; usleep(200_000) }
is(scalar @sched, 1, 'one Scheduled event for the bound pod');
is($sched[0]{type} . ' ' . $sched[0]{message}, 'Normal Successfully assigned default/big-0 to large-0',
	'Normal: Successfully assigned default/big-0 to large-0');
is($sched[0]{action} // '', 'Binding', 'action Binding');
is($sched[0]{reportingComponent}, 'default-scheduler', 'reported by default-scheduler');

# --- rate limit, bindings first: 20 pods that cannot fit (40 status
# requests, at 10/s after a burst of 20), then one that fits
q1(q{ALTER SYSTEM SET scheduler.status_qps = 10; SELECT pg_reload_conf();});
usleep(300_000);
bulk('{"generate": {"pods": {"count": 20, "prefix": "huge-", "cpu": "16"}}}');
ok($node->poll_query_until('postgres', q{SELECT count(*) = 40 FROM scheduler.outbox WHERE name LIKE 'huge-%'}),
	'20 unschedulable pods: 20 conditions and 20 events queued');
bulk('{"generate": {"pods": {"count": 1, "prefix": "small-", "cpu": "100m"}}}');
ok($node->poll_query_until('postgres', q{SELECT count(*) = 0 FROM scheduler.outbox WHERE state = 'pending'}),
	'all sent in the end');
my $spread = q1(q{SELECT extract(epoch FROM max(finished_at) - min(finished_at)) FROM scheduler.outbox WHERE name LIKE 'huge-%'});
cmp_ok($spread, '>=', 1.5, "40 status requests at 10/s, burst 20, take at least 1.5 s (took $spread s)");
is(q1(q{SELECT b.finished_at < (SELECT max(finished_at) FROM scheduler.outbox WHERE name LIKE 'huge-%')
	FROM scheduler.outbox b WHERE b.name = 'small-0' AND b.kind = 'binding'}), 't',
	'the binding that came after them went out before the queued status requests');
is(q1(q{SELECT string_agg(DISTINCT last_status::text, ',') FROM scheduler.outbox WHERE name LIKE 'huge-%'}),
	'200,201', 'conditions answered 200, events 201');

$node->stop;
done_testing();
