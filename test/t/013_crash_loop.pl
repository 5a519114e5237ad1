# No crash loop (issue #11): a server process that crashes while it
# schedules a pod restarts the whole server; the next cycle must not meet
# that pod again and crash again.  The pod whose cycle was running is set
# aside, with a WARNING naming it, until it changes; every other pod is
# scheduled as before.
#
# A crash is made here from outside: the process is stopped inside the
# pod's cycle (InterPodAffinity reads scheduler.namespaces for a
# namespaceSelector, and a session holds that table locked), then sent
# SIGSEGV, as a fault in the cycle would raise it.  The pids crashed on
# purpose are listed beside the server log (<log>.planted), so that
# test/run's scan for crash signs takes no other crash for planted.
#
# kube-scheduler has no such case (a panic ends its own process only); the
# behaviour pinned from it is that of an internal error: the pod is not
# scheduled, the others are.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $node = PostgreSQL::Test::Cluster->new('main');
$node->init;
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'scheduler'
scheduler.database = 'postgres'
scheduler.worker_interval = '10min'
scheduler.pod_initial_backoff = 0
scheduler.pod_max_backoff = 0
scheduler.unschedulable_timeout = 300
restart_after_crash = on
});
$node->start;

my @planted;
sub plant_crash
{
	my ($pid) = @_;
	push @planted, $pid;
	open(my $f, '>>', $node->logfile . '.planted') or die "cannot note the planted crash: $!";
	print $f "$pid\n";
	close $f;
	kill 'SEGV', $pid;
}
sub wait_restarted
{
	my ($db) = @_;
	# a fresh connection works once the postmaster has reinitialized
	for (1 .. 600)
	{
		my ($ret) = $node->psql($db, 'SELECT 1');
		return 1 if $ret == 0;
		usleep(100_000);
	}
	return 0;
}
sub q1 { my ($db, $sql) = @_; $node->safe_psql($db, $sql) }
sub node_json
{
	my ($name) = @_;
	return qq({"kind": "Node", "metadata": {"name": "$name", "labels": {"kubernetes.io/hostname": "$name"}},
	  "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}});
}
sub pod_json
{
	my ($name, $extra_label) = @_;
	my $labels = qq("app": "$name") . ($extra_label ? qq(, "rev": "$extra_label") : '');
	return qq({"kind": "Pod", "metadata": {"name": "$name", "namespace": "default", "labels": {$labels}},
	  "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "100m"}}}]}});
}
# a pod whose PreFilter reads scheduler.namespaces (a namespaceSelector)
sub reader_json
{
	my ($name, $extra_label) = @_;
	my $labels = qq("app": "$name") . ($extra_label ? qq(, "rev": "$extra_label") : '');
	return qq({"kind": "Pod", "metadata": {"name": "$name", "namespace": "default", "labels": {$labels}},
	  "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "100m"}}}],
	    "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
	      {"labelSelector": {"matchLabels": {"app": "other"}},
	       "namespaceSelector": {"matchLabels": {"team": "a"}},
	       "topologyKey": "kubernetes.io/hostname"}]}}}});
}
sub apply { my ($db, $json) = @_; q1($db, "SELECT scheduler.apply('$json')") }
sub queue_of
{
	my ($db, $name) = @_;
	return q1($db, "SELECT q.state || '/' || (q.unschedulable_since = 'infinity') FROM scheduler.queue q"
		  . " JOIN scheduler.pods p ON p.uid = q.pod_uid WHERE p.name = '$name'");
}
sub marker_of
{
	my ($db) = @_;
	my $oid = q1('postgres', "SELECT oid FROM pg_database WHERE datname = '$db'");
	my $path = $node->data_dir . "/pg_stat_tmp/scheduler.$oid.cycle";
	open(my $f, '<', $path) or return '';
	local $/;
	my $s = <$f>;
	close $f;
	$s =~ s/\0.*//s;
	return $s;
}
sub crash_lines { scalar(() = slurp_file($node->logfile) =~ /terminated by signal/g) }

# --- 1. A session's call, after ERRORs it caught: each ERROR takes the fault
# handler down, so the crash is a crash (the process ends) and is traced.
$node->safe_psql('postgres', 'CREATE DATABASE calls');
q1('calls', 'CREATE EXTENSION scheduler');
apply('calls', node_json('n1'));
apply('calls', reader_json('reader'));
my $uid = q1('calls', "SELECT uid FROM scheduler.pods WHERE name = 'reader'");

my $locker = $node->background_psql('calls');
$locker->query_safe('BEGIN; LOCK scheduler.namespaces IN ACCESS EXCLUSIVE MODE;');
my $caller = $node->background_psql('calls', on_error_stop => 0);
for my $try (1 .. 2)
{
	my $out = $caller->query(q{SET statement_timeout = '200ms';
DO $$ BEGIN PERFORM count(*) FROM schedule_pending();
EXCEPTION WHEN query_canceled THEN RAISE NOTICE 'caught the cancel'; END $$;
RESET statement_timeout;});
	like($caller->{stderr}, qr/caught the cancel/, "call $try: cancelled inside the pod's cycle, and the caller caught it");
	$caller->{stderr} = '';
}
is(marker_of('calls'), '', 'the marker is emptied by each ERROR');
$caller->query_until(qr/calling/, "\\echo calling\nSELECT count(*) FROM schedule_pending();\n");
my $pid;
ok($node->poll_query_until('calls', q{SELECT count(*) = 1 FROM pg_stat_activity
	WHERE datname = 'calls' AND wait_event_type = 'Lock' AND query LIKE '%schedule_pending%'}),
	'the third call waits inside the cycle of pod "reader"');
$pid = q1('calls', q{SELECT pid FROM pg_stat_activity
	WHERE datname = 'calls' AND wait_event_type = 'Lock' AND query LIKE '%schedule_pending%'});
# (the uid of the pod whose cycle runs is kept in memory, written by the
# fault handler alone: nothing is written per pod)
is(marker_of('calls'), '', 'the marker stays empty while the cycle runs');
plant_crash($pid);
eval { $caller->quit };
eval { $locker->quit };
ok(wait_restarted('calls'), 'the server restarts after the crash');
like(slurp_file($node->logfile), qr/\(PID $pid\) was terminated by signal 11/,
	'the process ended: the handler passed the fault on though ERRORs were caught before (not installed twice)');
is(marker_of('calls'), "C$uid", 'the marker names the pod, marked crashed');
q1('calls', 'SELECT count(*) FROM schedule_pending()');
is(queue_of('calls', 'reader'), 'unschedulable/true', 'the next call sets the pod aside');
like(slurp_file($node->logfile),
	qr/WARNING:  scheduler: pod default\/reader: a server process ended abnormally while scheduling this pod\n.*DETAIL:  It is set aside, not tried again until it changes\./,
	'with a WARNING naming it');
is(q1('calls', q{SELECT message FROM scheduler.pod_attempts a JOIN scheduler.pods p ON p.uid = a.pod_uid WHERE p.name = 'reader'}),
	'a server process ended abnormally while scheduling this pod', 'and the reason in its attempt');

# --- 2. The worker: crashed in a pod's cycle, it restarts, sets the pod aside
# and goes on scheduling the others.
ok($node->poll_query_until('postgres',
		q{SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'scheduler worker'}),
	'the scheduler worker runs');
q1('postgres', 'CREATE EXTENSION scheduler');
apply('postgres', node_json('n1'));
apply('postgres', pod_json('before'));
ok($node->poll_query_until('postgres', q{SELECT assumed_node = 'n1' FROM scheduler.pods WHERE name = 'before'}),
	'a pod is placed by the worker');
$locker = $node->background_psql('postgres');
$locker->query_safe('BEGIN; LOCK scheduler.namespaces IN ACCESS EXCLUSIVE MODE;');
apply('postgres', reader_json('reader'));
$uid = q1('postgres', "SELECT uid FROM scheduler.pods WHERE name = 'reader'");
ok($node->poll_query_until('postgres', q{SELECT count(*) = 1 FROM pg_stat_activity
	WHERE backend_type = 'scheduler worker' AND wait_event_type = 'Lock'}),
	'the worker waits inside the cycle of pod "reader"');
$pid = q1('postgres', q{SELECT pid FROM pg_stat_activity WHERE backend_type = 'scheduler worker'});
is(marker_of('postgres'), '', 'the marker stays empty while it runs');
my $crashes = crash_lines();
plant_crash($pid);
eval { $locker->quit };
ok(wait_restarted('postgres'), 'the server restarts after the crash');
ok($node->poll_query_until('postgres', q{SELECT q.state = 'unschedulable' AND q.unschedulable_since = 'infinity'
	FROM scheduler.queue q JOIN scheduler.pods p ON p.uid = q.pod_uid WHERE p.name = 'reader'}),
	'the restarted worker sets the pod aside');
is(scalar(() = slurp_file($node->logfile) =~
		  /WARNING:  scheduler: pod default\/reader: a server process ended abnormally while scheduling this pod/g),
	2, 'the worker names it in a WARNING (the second, after the session\'s)');
apply('postgres', pod_json('after'));
ok($node->poll_query_until('postgres', q{SELECT assumed_node = 'n1' FROM scheduler.pods WHERE name = 'after'}),
	'the worker goes on scheduling the other pods');

# set aside: past the unschedulable timeout (300 ms here) and after a node
# event its hint would queue it for, it is not tried again
apply('postgres', node_json('n2'));
ok($node->poll_query_until('postgres', q{SELECT count(*) = 2 FROM scheduler.nodes}), 'a node is added');
sleep(1);
q1('postgres', 'SELECT count(*) FROM schedule_pending()');
is(queue_of('postgres', 'reader'), 'unschedulable/true', 'the pod stays set aside past the timeout and a node event');
is(q1('postgres', q{SELECT count(*) FROM scheduler.attempt_history h JOIN scheduler.pods p
	ON p.namespace = h.namespace AND p.name = h.name WHERE p.name = 'reader'}),
	'1', 'one attempt recorded: the crashed one');

# until it changes
apply('postgres', reader_json('reader', 'two'));
ok($node->poll_query_until('postgres',
		q{SELECT assumed_node IS NOT NULL FROM scheduler.pods WHERE name = 'reader'}),
	'changed, it is tried again, and placed');
is(crash_lines(), $crashes + 1, 'one crash, no loop');

# --- a mark the next call cannot act on: the pod's queue row cannot be
# written (a trigger a superuser planted refuses it).  The mark is let go
# with a WARNING and the call goes on, the pod scheduled as any other;
# before, every later call failed on it.  The mark is written by hand, as a
# crash leaves it.
apply('calls', pod_json('stuck'));
my $stuck = q1('calls', q{SELECT uid FROM scheduler.pods WHERE name = 'stuck'});
q1('calls', qq{CREATE FUNCTION public.refuse() RETURNS trigger LANGUAGE plpgsql AS \$\$
BEGIN RAISE EXCEPTION 'planted refusal'; END \$\$;
CREATE TRIGGER refuse BEFORE UPDATE ON scheduler.queue FOR EACH ROW
	WHEN (OLD.pod_uid = '$stuck') EXECUTE FUNCTION public.refuse();});
{
	my $oid = q1('postgres', q{SELECT oid FROM pg_database WHERE datname = 'calls'});
	open(my $f, '>', $node->data_dir . "/pg_stat_tmp/scheduler.$oid.cycle") or die "marker: $!";
	print $f "C$stuck\0";
	close $f;
}
is(marker_of('calls'), "C$stuck", 'a mark naming the pod');
my ($rc, $out, $err) = $node->psql('calls', 'SELECT count(*) FROM schedule_pending()');
is($rc, 0, 'the call that cannot set the pod aside goes on');
like($err, qr/WARNING:  scheduler: could not set aside pod \Q$stuck\E, whose cycle crashed a server process: planted refusal/,
	'with a WARNING saying why');
is(q1('calls', q{SELECT assumed_node IS NOT NULL FROM scheduler.pods WHERE name = 'stuck'}), 't',
	'the pod is scheduled as any other');
is(marker_of('calls'), '', 'the mark is let go');
q1('calls', 'DROP TRIGGER refuse ON scheduler.queue; DROP FUNCTION public.refuse()');

# every crash in the log is one this test planted
my @pids = slurp_file($node->logfile) =~ /\(PID (\d+)\) was terminated by signal/g;
is_deeply([ sort @pids ], [ sort @planted ], 'no crash but the planted ones');

done_testing();
