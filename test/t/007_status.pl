# Status back to the API server, as kube-scheduler's failure handler sends it.
# kube-scheduler's behaviour pinned here:
#   * an unschedulable pod gets the condition PodScheduled=False, reason
#     Unschedulable, message the FitError's "0/N nodes are available: ..."
#     (patched on the pod's status), and a Warning event FailedScheduling with
#     the same note, written as kube-scheduler's recorder writes it: through
#     events.k8s.io/v1 (client-go's EventBroadcaster), action Scheduling,
#     reportingController the scheduler's name, reportingInstance
#     "<scheduler>-<host>", eventTime set, no deprecated source or count;
#   * a retry that fails with the same message patches no condition (it is
#     unchanged), and its event is a repeat: client-go's broadcaster folds it
#     into the same Event, whose series it patches (count 2) at the second
#     occurrence, and then every 30 minutes (here the table's clock is
#     wound on) and a last time 6 minutes after the last occurrence: one
#     FailedScheduling Event whose count grows, as `kubectl describe pod`
#     shows it ("(xN over ...)", From default-scheduler);
#   * once the pod is bound, PodScheduled is True (the binding sets it) and
#     no stale Unschedulable condition overwrites it; a Normal Scheduled
#     event (action Binding) says "Successfully assigned <ns>/<pod> to <node>";
#   * an Event seen once is forgotten 6 minutes after it was made, without
#     a request;
#   * conditions and events are rate-limited (scheduler.status_qps) and never
#     hold a binding up: bindings go first;
#   * a failed binding tells the pod why: PodScheduled=False SchedulerError
#     and a FailedScheduling event, "running Bind plugin "DefaultBinder": ...".
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
# the same Events as events.k8s.io/v1 shows them (kube-scheduler's API)
sub new_events_for
{
	my ($name) = @_;
	return grep { $_->{regarding}{name} eq $name }
	  @{ kreq('GET', '/apis/events.k8s.io/v1/namespaces/default/events')->{items} };
}
# What `kubectl describe pod` prints for an Event (kubectl's DescribeEvents,
# v1.23 on): its From is source.component, else reportingController; a
# series shows "(x<count> over <age of eventTime>)" after the age of its
# last observation; the message is trimmed.  Ages are left out here.
sub describe_line
{
	my ($e) = @_;
	my $from = ($e->{source} && $e->{source}{component}) || $e->{reportingComponent} // '';
	my $count = $e->{series} ? $e->{series}{count} : ($e->{count} // 0);
	my $times = $count > 1 ? "(x$count)" : '';
	(my $msg = $e->{message} // '') =~ s/^\s+|\s+$//g;
	return join('  ', grep { $_ ne '' } $e->{type}, $e->{reason}, $times, $from, $msg);
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
is($ev[0]{source}{component} // '', '', 'no deprecated source (events.k8s.io/v1 refuses one)');
my ($new) = new_events_for('big-0');
ok($new, 'the Event, seen through events.k8s.io/v1');
is($new->{reportingController} . ' ' . $new->{action} . ' ' . $new->{note},
	"default-scheduler Scheduling $message", 'reportingController, action Scheduling, the note');
like($new->{reportingInstance}, qr/^default-scheduler-.+/, "reportingInstance <scheduler>-<host>: $new->{reportingInstance}");
like($new->{eventTime} // '', qr/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/, 'eventTime, a MicroTime');
like($new->{metadata}{name}, qr/^big-0\.[0-9a-f]{16}$/, 'named <pod>.<hex nanoseconds>, as client-go names it');
is($new->{regarding}{uid}, q1(q{SELECT uid FROM scheduler.pods WHERE name = 'big-0'}), 'regarding the pod, by uid');

# --- tried again (the unschedulable timeout is 1 s), same message: no new
# condition; the event's repeats fold into its series
ok($node->poll_query_until('postgres', q{SELECT count(*) >= 4 FROM scheduler.attempt_history WHERE name = 'big-0'}),
	'the pod is tried again and again');
usleep(500_000);
is(q1(q{SELECT count(*) FROM scheduler.outbox WHERE name = 'big-0' AND kind = 'condition'}), '1',
	'an unchanged message is not patched again');
is(q1(q{SELECT count(*) FROM scheduler.outbox WHERE name = 'big-0' AND kind = 'event' AND NOT body ? 'series'}), '1',
	'one Event made');
is(q1(q{SELECT count(*) || ' ' || min(body #>> '{series,count}') FROM scheduler.outbox
	WHERE name = 'big-0' AND kind = 'event' AND body ? 'series'}), '1 2',
	'its series written once, at the second occurrence (count 2), as client-go writes it');
my $counted = q1(q{SELECT count FROM scheduler.event_series WHERE reason = 'FailedScheduling'});
cmp_ok($counted, '>=', 4, "every occurrence counted ($counted)");
$deadline = time + 30;
until ((@ev = events_for('big-0')) == 1 && $ev[0]{series}) { last if time > $deadline; usleep(200_000) }
is(scalar(@ev), 1, 'the API server has one Event for the pod');
is($ev[0]{series}{count}, 2, 'with a series of 2');
is(describe_line($ev[0]), "Warning  FailedScheduling  (x2)  default-scheduler  $message",
	'kubectl describe pod: Warning FailedScheduling (x2 over ...) default-scheduler <message>');
# client-go writes every series again 30 minutes after it last did: wound on
q1(q{UPDATE scheduler.event_series SET refreshed_at = refreshed_at - interval '31 minutes'});
$deadline = time + 40;
until ((@ev = events_for('big-0')) == 1 && ($ev[0]{series}{count} // 0) > 2) { last if time > $deadline; usleep(300_000) }
cmp_ok($ev[0]{series}{count} // 0, '>', 2, "the count grows on the API server ($ev[0]{series}{count}), one Event still");
like(describe_line($ev[0]), qr/^Warning  FailedScheduling  \(x(\d+)\)  default-scheduler  \Q$message\E$/,
	'kubectl describe pod: one line, its count grown');

# the Event gone from the API server (its TTL, or deleted): the series'
# patch finds none (404) and the whole Event is created, series and all, as
# client-go's recordEvent falls back
my $ename = (new_events_for('big-0'))[0]{metadata}{name};
kreq('DELETE', "/apis/events.k8s.io/v1/namespaces/default/events/$ename");
is(scalar(events_for('big-0')), 0, 'the Event deleted on the API server');
q1(q{UPDATE scheduler.event_series SET refreshed_at = refreshed_at - interval '31 minutes'});
$deadline = time + 40;
until ((@ev = events_for('big-0')) == 1) { last if time > $deadline; usleep(300_000) }
is(scalar(@ev) . ' ' . $ev[0]{metadata}{name}, "1 $ename", 'made again under its name, after the patch found none');
cmp_ok($ev[0]{series}{count} // 0, '>', 2, "with its series ($ev[0]{series}{count})");
is(q1(q{SELECT last_status FROM scheduler.outbox WHERE name = 'big-0' AND kind = 'event' AND body ? 'series'
	ORDER BY id DESC LIMIT 1}), '201', 'the refresh answered by the create (201)');

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
is(describe_line($sched[0]), 'Normal  Scheduled  default-scheduler  Successfully assigned default/big-0 to large-0',
	'kubectl describe pod: Normal Scheduled default-scheduler Successfully assigned ...');

# --- the series ends 6 minutes after its last occurrence: its final count
# written, and forgotten; an Event seen once is forgotten 6 minutes after it
# was made, with no request (client-go's finishSeries)
my $final = q1(q{SELECT count FROM scheduler.event_series WHERE reason = 'FailedScheduling'});
my $before = q1(q{SELECT max(id) FROM scheduler.outbox});
q1(q{UPDATE scheduler.event_series SET last_observed = last_observed - interval '7 minutes',
	event_time = event_time - interval '7 minutes'});
ok($node->poll_query_until('postgres', q{SELECT count(*) = 0 FROM scheduler.event_series}),
	'the ended series and the single Event leave the cache');
ok($node->poll_query_until('postgres', q{SELECT count(*) = 0 FROM scheduler.outbox WHERE state = 'pending'}), 'sent');
is(q1(qq{SELECT string_agg(kind || ' ' || (body #>> '{series,count}') || ' ' || state, ', ')
	FROM scheduler.outbox WHERE id > $before}), "event $final done",
	"one request: the series' last count ($final); none for the single Event");
@ev = grep { $_->{reason} eq 'FailedScheduling' } events_for('big-0');
is($ev[0]{series}{count}, $final, "the API server holds the final count ($final)");

# --- rate limit, bindings first: 20 pods that cannot fit (40 status
# requests, at 10/s after a burst of 20), then one that fits
q1(q{ALTER SYSTEM SET scheduler.status_qps = 10; SELECT pg_reload_conf();});
usleep(300_000);
bulk('{"generate": {"pods": {"count": 20, "prefix": "huge-", "cpu": "16"}}}');
ok($node->poll_query_until('postgres', q{SELECT count(*) = 40 FROM scheduler.outbox WHERE name LIKE 'huge-%'
	AND NOT body ? 'series'}),
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

# --- a binding that fails: kube-scheduler's failed binding cycle
# (handleSchedulingFailure, its test "error bind forget pod") tells the pod
# why, PodScheduled=False, reason SchedulerError, and a Warning
# FailedScheduling event, both "running Bind plugin \"DefaultBinder\":
# <error>"; the pod goes back to the queue and is bound on a later try.
# Here its Binding is answered 500 twice, with 2 attempts allowed.
# (The stand-in's faults answer the 500s: a real kube-apiserver has none.)
if ($api->real)
{
	$node->stop;
	done_testing();
	exit 0;
}
q1(q{ALTER SYSTEM SET scheduler.outbox_max_attempts = 2; SELECT pg_reload_conf();});
usleep(300_000);
$api->faults({ http_500_next => 2, match => '/pods/refused-0/binding', method => 'POST' });
bulk('{"generate": {"pods": {"count": 1, "prefix": "refused-", "cpu": "100m"}}}');
ok($node->poll_query_until('postgres', q{SELECT node_name IS NOT NULL FROM scheduler.pods WHERE name = 'refused-0'}),
	'a binding refused twice: the pod is bound on its next try');
# (sent, or closed unsent once the pod is bound: True must not be overwritten)
my $told = q1(q{SELECT string_agg((body #>> '{status,conditions,0,reason}') || ': '
	|| (body #>> '{status,conditions,0,message}'), ', ') FROM scheduler.outbox WHERE name = 'refused-0' AND kind = 'condition'});
like($told, qr/^SchedulerError: running Bind plugin "DefaultBinder": gave up after 2 attempts: /,
	'PodScheduled=False, SchedulerError, the Bind plugin\'s error');
my @refused;
$deadline = time + 30;
until ((@refused = events_for('refused-0')) >= 2) { last if time > $deadline; usleep(200_000) }
is(join(', ', map { "$_->{type} $_->{reason}" } sort { $a->{eventTime} cmp $b->{eventTime} } @refused),
	'Warning FailedScheduling, Normal Scheduled', 'the API server has its FailedScheduling event, then Scheduled (by eventTime)');
is(q1(q{SELECT count(*) FROM scheduler.outbox WHERE name = 'refused-0' AND kind = 'condition'}), '1',
	'one condition told');
my ($fs) = grep { $_->{reason} eq 'FailedScheduling' } @refused;
like(describe_line($fs), qr/^Warning  FailedScheduling  default-scheduler  running Bind plugin "DefaultBinder": gave up after 2 attempts: /,
	'kubectl describe pod: Warning FailedScheduling default-scheduler running Bind plugin "DefaultBinder": ...');
is(scalar(grep { ($_->{code} // 0) == 201 } @{ kreq('GET', '/debug/bindings?pod=default/refused-0') }), 1,
	'bound once');

$node->stop;
done_testing();
