# Prometheus metrics through Debian's prometheus-postgres-exporter (issue 15):
# deploy/postgres_exporter_queries.yaml, read by the exporter as a role that
# is only a member of scheduler_reader, gives kube-scheduler's metrics and
# ours, with the values the tables hold:
#   1. scheduler_pending_pods{queue}: one pod or two in each queue;
#   2. scheduler_schedule_attempts_total{result,profile}: scheduled and
#      unschedulable attempts of default-scheduler, an error of another
#      profile;
#   3. scheduler_scheduling_attempt_duration_seconds{result,profile}: a
#      histogram with kube-scheduler's buckets, each bucket what the
#      history's cycle times say;
#   4. scheduler_pod_scheduling_sli_duration_seconds{attempts}: pods that
#      entered the queue a known time before their placement (2.6 s, 12 s,
#      100 s; attempts 1 and 2) fall in the buckets that says;
#   5. ours: the outbox's backlog by kind and the age of its oldest request,
#      the watch's lag and the age of the last list per resource (times set
#      back by a known amount);
#   6. no query failed: pg_up 1, pg_exporter_last_scrape_error 0, the file
#      loaded (pg_exporter_user_queries_load_error 0), and no error in the
#      exporter's log (a column it cannot read is only logged);
#   7. the history pruned (history_retention 0), a second scrape gives the
#      same counters and histograms: they never go down.
# The exporter listens on 127.0.0.1 and a free port, and is stopped at the
# end whatever happens.  Without the exporter the test fails (test/setup
# installs it).
use strict;
use warnings;
use Cwd qw(abs_path);
use File::Basename qw(dirname);
use HTTP::Tiny;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);

my $EXPORTER = '/usr/bin/prometheus-postgres-exporter';
my $QUERIES = abs_path(dirname(__FILE__) . '/../../deploy/postgres_exporter_queries.yaml');
my $exporter;					# the exporter's IPC::Run harness

END
{
	if ($exporter)
	{
		$exporter->signal('TERM') if $exporter->pumpable;
		eval { $exporter->finish; };
		$exporter->kill_kill if $exporter->pumpable;
	}
}

ok(-x $EXPORTER, "$EXPORTER is installed (test/setup installs prometheus-postgres-exporter)")
  or BAIL_OUT("no $EXPORTER");
ok(-r $QUERIES, 'deploy/postgres_exporter_queries.yaml is there') or BAIL_OUT("no $QUERIES");

# No workers (the library is not preloaded); an API server named but never
# reached, so that schedule_pending() writes the outbox; a moved pod is
# active at once.
my $node = PostgreSQL::Test::Cluster->new('exporter');
$node->init;
$node->append_conf('postgresql.conf', qq{scheduler.kube_api_url = 'https://127.0.0.1:9'
scheduler.pod_initial_backoff = 0
});
$node->start;
sub q1 { $node->safe_psql('postgres', $_[0]) }
q1(q{CREATE EXTENSION scheduler;
	CREATE ROLE scheduler_metrics LOGIN;
	GRANT scheduler_reader TO scheduler_metrics});

sub node_json
{
	my ($name, $cpu) = @_;
	return qq{{"kind": "Node", "metadata": {"name": "$name", "labels": {"kubernetes.io/hostname": "$name"}},
		"status": {"allocatable": {"cpu": "$cpu", "memory": "16Gi", "pods": "110"}}}};
}

sub pod_json
{
	my ($name, $cpu, $extra) = @_;
	$extra //= '';
	return qq{{"kind": "Pod", "metadata": {"name": "$name", "namespace": "default"},
		"spec": {$extra "containers": [{"name": "c", "resources": {"requests": {"cpu": "$cpu"}}}]}}};
}

sub apply { q1("SELECT scheduler.apply(\$j\$$_[0]\$j\$)") }

# a pod as if it had entered the queue secs ago
sub queued
{
	my ($pod, $secs) = @_;
	q1(qq{UPDATE scheduler.queue q SET first_enqueued_at = now() - make_interval(secs => $secs)
		FROM scheduler.pods p WHERE p.uid = q.pod_uid AND p.name = '$pod'});
}

sub schedule
{
	my ($settings) = @_;
	$settings //= '';
	return q1(qq{$settings SELECT string_agg(name || ' ' || coalesce(node, '-') || ' ' || result, ',' ORDER BY name)
		FROM schedule_pending()});
}

# --- the cluster: two nodes listed (watch_state: nodes), pods of every kind
q1('SELECT scheduler.relist($j$ {"kind": "NodeList", "metadata": {"resourceVersion": "100"}, "items": ['
	  . node_json('n1', '2') . ',' . node_json('n2', '2') . ']} $j$)');
apply(pod_json("web-$_", '500m')) for 1 .. 3;
apply(pod_json('huge', '64'));			# fits nowhere, ever
apply(pod_json('retry', '3'));			# fits once n3 comes
apply(pod_json('gated', '1', q{"schedulingGates": [{"name": "wait"}],}));
# (2.6 s: the SLI runs until the binding is done, a few statements later,
# which leaves 2.5 s before the next bucket's bound, 5.12, on a loaded
# machine and a sanitized build; 1.5 s left 1.06 s, and once that was not
# enough)
queued('web-1', 2.6);
queued('web-2', 2.6);
queued('web-3', 12);
like(schedule(), qr/^huge - unschedulable,retry - unschedulable,web-1 n\d scheduled,web-2 n\d scheduled,web-3 n\d scheduled$/,
	'first call: three pods placed, two that do not fit');

apply(node_json('n3', '8'));
is(q1(q{SELECT q.state FROM scheduler.queue q JOIN scheduler.pods p ON p.uid = q.pod_uid WHERE p.name = 'retry'}),
	'active', 'the new node moves the pod that fits it back to active');
queued('retry', 100);
is(schedule(), 'retry n3 scheduled', 'second call: placed at its second attempt');

# The bind worker's answers (201 Created, as the API server binds): the
# four bindings done.  kube-scheduler counts a pod scheduled after its
# binding cycle, so they count now, each attempt's time running from its
# cycle's start to the binding's end.  A third call's placement, its
# binding not sent yet, counts nothing.
is(q1(q{SELECT count(*) FROM scheduler.attempt_totals WHERE result = 'scheduled'}), '0',
	'the placements do not count before their bindings are done');
is(q1(q{SELECT string_agg(scheduler.outbox_result(id, 201), ',' ORDER BY id) FROM scheduler.outbox
	WHERE kind = 'binding' AND state = 'pending'}), 'done,done,done,done', 'the four bindings done');
apply(pod_json('new-0', '100m'));
like(schedule(), qr/^new-0 n\d scheduled$/, 'third call: placed, its binding not sent');

# an error, of another profile (Score Error: a strategy with no resources)
q1(q{INSERT INTO scheduler.profiles VALUES ('broken', NULL);
	INSERT INTO scheduler.profile_plugins (scheduler_name, plugin, position, args) VALUES
	('broken', 'NodeResourcesFit', 1, '{"scoringStrategy": {"type": "LeastAllocated", "resources": []}}')});
apply(pod_json('broke', '100m', q{"schedulerName": "broken",}));
is(schedule(q{SET scheduler.scheduler_name = 'broken';}), 'broke - unschedulable',
	'fourth call, profile broken: a plugin error (told unschedulable, counted as error)');
apply(pod_json("new-$_", '100m')) for 1 .. 2;

# the outbox's pending requests written a minute ago, the nodes' watch
# advanced 30 s ago and listed 45 s ago
q1(q{UPDATE scheduler.outbox SET created_at = now() - interval '60 s' WHERE state = 'pending';
	UPDATE scheduler.watch_state SET updated_at = now() - interval '30 s', listed_at = now() - interval '45 s'});
my $set_back_at = time;

# What the metrics must say, from the tables (before the history is pruned)
is(q1(q{SELECT string_agg(queue || '=' || pods, ',' ORDER BY queue) FROM scheduler.metrics_pending_pods}),
	'active=2,backoff=1,gated=1,unschedulable=1', 'the queues hold what the test put there');
my %outbox = map { split /=/ } split /,/, q1(q{SELECT string_agg(kind || '=' || count, ',') FROM (
	SELECT kind, count(*) FROM scheduler.outbox WHERE state = 'pending' GROUP BY kind) s});
is($outbox{binding}, 1, 'the outbox holds the third call\'s binding, unsent');
# per result, profile and bound: the attempts of at most that time: the
# failures', their cycle times (the history; the profile broken's are its
# errors), the placements', from their cycles' start to their bindings' end
my %duration = map { my ($k, $v) = split /\|/; ($k => $v) } split /\n/, q1(q{
	WITH h AS (
		SELECT CASE WHEN p.scheduler_name = 'broken' THEN 'error' ELSE h.result END AS result,
		       p.scheduler_name AS profile, h.cycle_time
		FROM scheduler.attempt_history h JOIN scheduler.pods p ON p.uid = h.pod_uid
		WHERE h.result <> 'scheduled'
		UNION ALL
		SELECT 'scheduled', o.object, o.finished_at - o.cycle_started_at
		FROM scheduler.outbox o WHERE o.kind = 'binding' AND o.state = 'done')
	SELECT 'profile=' || profile || ',result=' || result || ',le=' || b.le, count(*) FILTER (WHERE h.cycle_time <= b.bound)
	FROM h, (SELECT (0.001 * 2 ^ i)::text, make_interval(secs => 0.001 * 2 ^ i) FROM generate_series(0, 14) i) b(le, bound)
	GROUP BY 1
	UNION ALL
	SELECT 'profile=' || profile || ',result=' || result || ',sum', sum(extract(epoch FROM h.cycle_time))
	FROM h GROUP BY 1});

# --- the exporter, on a free port of 127.0.0.1, as scheduler_metrics
my $port = PostgreSQL::Test::Cluster::get_free_port();
my $log = "${PostgreSQL::Test::Utils::tmp_check}/exporter.log";
{
	local $ENV{DATA_SOURCE_NAME} = 'host=' . $node->host . ' port=' . $node->port
	  . ' user=scheduler_metrics dbname=postgres sslmode=disable';
	$exporter = IPC::Run::start(
		[ $EXPORTER, "--web.listen-address=127.0.0.1:$port", "--extend.query-path=$QUERIES",
		  '--disable-default-metrics', '--disable-settings-metrics',
		  '--no-collector.database', '--no-collector.bgwriter' ],
		'<', \undef, '>', $log, '2>&1');
}
my $http = HTTP::Tiny->new(timeout => 10);
my $url = "http://127.0.0.1:$port/metrics";
my $deadline = time + 60;
my $res;
until (($res = $http->get($url))->{success})
{
	BAIL_OUT("the exporter did not answer: $res->{status} $res->{content}\n" . slurp_file($log))
	  if time > $deadline || !$exporter->pumpable;
	usleep(100_000);
}

# scrape(): (values by "name{label=value,...}", labels sorted, the server
# label left out; TYPE by family; the text)
sub scrape
{
	my $r = $http->get($url);
	die "scrape failed: $r->{status}" unless $r->{success};
	my (%v, %type);
	for my $line (split /\n/, $r->{content})
	{
		if ($line =~ /^# TYPE (\S+) (\S+)$/) { $type{$1} = $2; next; }
		next if $line =~ /^#/ || $line eq '';
		my ($name, $labels, $value) = $line =~ /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/
		  or die "unreadable line: $line";
		my @l = grep { !/^server=/ } map { /^(\w+)="(.*)"$/ ? "$1=$2" : die "label $_" }
		  split /,(?=\w+=")/, $labels // '';
		$v{ $name . '{' . join(',', sort @l) . '}' } = $value;
	}
	return (\%v, \%type, $r->{content});
}

# k(NAME, LABEL=VALUE...): the key scrape() gives that series
sub k
{
	my ($name, @labels) = @_;
	return $name . '{' . join(',', sort map { split /,/ } @labels) . '}';
}

# the le bounds of a histogram's series (the others of its labels given), +Inf left out
sub bounds
{
	my ($v, $family, @labels) = @_;
	my %want = map { $_ => 1 } map { split /,/ } @labels;
	my @le;
	for my $key (keys %$v)
	{
		next unless $key =~ /^\Q${family}_bucket\E\{(.*)\}$/;
		my @l = split /,/, $1;
		my ($le) = map { /^le=(.*)$/ ? $1 : () } @l;
		next if scalar(grep { !/^le=/ && !$want{$_} } @l) || scalar(grep { !/^le=/ } @l) != scalar(keys %want);
		push @le, $le unless $le eq '+Inf';
	}
	return join(' ', sort { $a <=> $b } @le);
}

# the series of a family (the labels part of their keys)
sub series
{
	my ($v, $family) = @_;
	return join(' ', sort map { /^\Q$family\E\{(.*)\}$/ ? $1 : () } keys %$v);
}

my ($m, $type, $text) = scrape();
my $elapsed = time - $set_back_at + 1;
note "first scrape:\n" . join("\n", grep { /^(# TYPE )?(scheduler_|pg_up|pg_exporter_last_scrape_error)/ } split /\n/, $text);

# 6. no query failed
is($m->{'pg_up{}'}, 1, 'pg_up 1');
is($m->{'pg_exporter_last_scrape_error{}'}, 0, 'pg_exporter_last_scrape_error 0: no query failed');
is(join(',', map { $m->{$_} } grep { /^pg_exporter_user_queries_load_error\{/ } sort keys %$m), '0',
	'the queries file loaded');

# 1. pending pods
is($type->{scheduler_pending_pods}, 'gauge', 'scheduler_pending_pods is a gauge');
is(join(',', map { "$_=" . $m->{"scheduler_pending_pods{queue=$_}"} } qw(active backoff unschedulable gated)),
	'active=2,backoff=1,unschedulable=1,gated=1', 'scheduler_pending_pods{queue}');
is(series($m, 'scheduler_pending_pods'), 'queue=active queue=backoff queue=gated queue=unschedulable',
	'one series per queue');

# 2. attempts
is($type->{scheduler_schedule_attempts_total}, 'counter', 'scheduler_schedule_attempts_total is a counter');
my $attempts = join(' ', map { "$_=" . $m->{"scheduler_schedule_attempts_total{$_}"} }
	  split / /, series($m, 'scheduler_schedule_attempts_total'));
is($attempts, 'profile=broken,result=error=1 profile=default-scheduler,result=scheduled=4 '
	  . 'profile=default-scheduler,result=unschedulable=2', 'scheduler_schedule_attempts_total{result,profile}');

# 3. attempt durations: kube-scheduler's bounds, the history's counts
my @bounds = qw(0.001 0.002 0.004 0.008 0.016 0.032 0.064 0.128 0.256 0.512 1.024 2.048 4.096 8.192 16.384);
is($type->{scheduler_scheduling_attempt_duration_seconds}, 'histogram', 'the attempt duration is a histogram');
for my $set ('profile=broken,result=error', 'profile=default-scheduler,result=scheduled',
	'profile=default-scheduler,result=unschedulable')
{
	my $f = 'scheduler_scheduling_attempt_duration_seconds';
	my ($count) = $attempts =~ /\Q$set\E=(\d+)/;
	is(bounds($m, $f, $set), join(' ', @bounds), "$set: kube-scheduler's 15 buckets");
	is(join(' ', map { $m->{ k("${f}_bucket", $set, "le=$_") } } @bounds),
		join(' ', map { $duration{"$set,le=$_"} } @bounds), "$set: each bucket counts the cycles of at most its bound");
	is($m->{ k("${f}_bucket", $set, 'le=+Inf') }, $count, "$set: +Inf holds every attempt");
	is($m->{ k("${f}_count", $set) }, $count, "$set: _count is the counter's");
	ok(abs($m->{ k("${f}_sum", $set) } - $duration{"$set,sum"}) < 1e-6, "$set: _sum is the cycle times summed")
	  or diag($m->{ k("${f}_sum", $set) } . ' <> ' . $duration{"$set,sum"});
}

# 4. the SLI: web-1 and web-2 2.6 s, web-3 12 s (attempts 1), retry 100 s
# (attempts 2), each plus the time until its binding was done
my @sli = qw(0.01 0.02 0.04 0.08 0.16 0.32 0.64 1.28 2.56 5.12 10.24 20.48 40.96 81.92 163.84 327.68 655.36 1310.72 2621.44 5242.88);
my $f = 'scheduler_pod_scheduling_sli_duration_seconds';
is($type->{$f}, 'histogram', 'the SLI duration is a histogram');
is(bounds($m, $f, 'attempts=1'), join(' ', @sli), "kube-scheduler's 20 buckets");
is(join(' ', map { $m->{"${f}_bucket{attempts=1,le=$_}"} } @sli, '+Inf'),
	'0 0 0 0 0 0 0 0 0 2 2 3 3 3 3 3 3 3 3 3 3', 'attempts 1: 2.6 s twice (le 5.12 on), 12 s (le 20.48 on)');
is(join(' ', map { $m->{"${f}_bucket{attempts=2,le=$_}"} } @sli, '+Inf'),
	'0 0 0 0 0 0 0 0 0 0 0 0 0 0 1 1 1 1 1 1 1', 'attempts 2: 100 s (le 163.84 on)');
is($m->{"${f}_count{attempts=1}"} . ' ' . $m->{"${f}_count{attempts=2}"}, '3 1', 'their counts');
ok($m->{"${f}_sum{attempts=1}"} >= 17.2 && $m->{"${f}_sum{attempts=1}"} < 20.2, 'attempts 1: the sum, 17.2 s and the calls');
ok($m->{"${f}_sum{attempts=2}"} >= 100 && $m->{"${f}_sum{attempts=2}"} < 103, 'attempts 2: the sum, 100 s and the calls until its binding');
is(series($m, "${f}_count"), 'attempts=1 attempts=2', 'no other attempts label');

# 5. ours
is(join(' ', map { "$_=" . $m->{"scheduler_outbox_pending{kind=$_}"} } qw(binding condition event delete volume claim)),
	join(' ', map { "$_=" . ($outbox{$_} // 0) } qw(binding condition event delete volume claim)),
	'scheduler_outbox_pending{kind}: the pending requests, every kind');
for my $kind (qw(binding condition event delete volume claim))
{
	my $age = $m->{"scheduler_outbox_oldest_pending_age_seconds{kind=$kind}"};
	if ($outbox{$kind})
	{
		ok($age >= 60 && $age < 60 + $elapsed, "outbox: the oldest $kind waits since a minute ago ($age)");
	}
	else
	{
		is($age, 0, "outbox: no $kind, age 0");
	}
}
my $lag = $m->{'scheduler_watch_lag_seconds{resource=nodes}'};
ok(defined $lag && $lag >= 30 && $lag < 30 + $elapsed, "scheduler_watch_lag_seconds{resource=nodes}: 30 s ($lag)");
my $list = $m->{'scheduler_watch_list_age_seconds{resource=nodes}'};
ok(defined $list && $list >= 45 && $list < 45 + $elapsed, "scheduler_watch_list_age_seconds{resource=nodes}: 45 s ($list)");
is(series($m, 'scheduler_watch_lag_seconds') . ' / ' . series($m, 'scheduler_watch_list_age_seconds'),
	'resource=nodes / resource=nodes', 'only the resource listed (apply() stores no resourceVersion)');
is($type->{$_}, 'gauge', "$_ is a gauge") for qw(scheduler_outbox_pending scheduler_outbox_oldest_pending_age_seconds
	scheduler_watch_lag_seconds scheduler_watch_list_age_seconds);

# 7. the history pruned: the counters and histograms stay
my $history = q1('SELECT count(*) FROM scheduler.attempt_history');
is(schedule(q{SET scheduler.history_retention = 0; SET scheduler.scheduler_name = 'nobody';}), '',
	'a call that attempts nothing prunes the history');
cmp_ok(q1('SELECT count(*) FROM scheduler.attempt_history'), '<', $history,
	"the history lost attempts (it had $history)");
my ($m2) = scrape();
my @kept = grep { /^scheduler_(schedule_attempts_total|scheduling_attempt_duration_seconds|pod_scheduling_sli_duration_seconds)/ } sort keys %$m;
is(join("\n", map { "$_ $m2->{$_}" } @kept), join("\n", map { "$_ $m->{$_}" } @kept),
	'the counters and histograms read the same after the pruning');
is(scalar(@kept), scalar(grep { /^scheduler_(schedule_attempts_total|scheduling_attempt_duration_seconds|pod_scheduling_sli_duration_seconds)/ } keys %$m2),
	'and no series came or went');
is($m2->{'pg_exporter_last_scrape_error{}'}, 0, 'the second scrape failed no query either');

# the exporter stopped; its log tells no error (a column it cannot read is
# logged, not counted in pg_exporter_last_scrape_error)
$exporter->signal('TERM');
$exporter->finish;
$exporter = undef;
my @errors = grep { /level=(error|warn)|\berr=/ } split /\n/, slurp_file($log);
is(join("\n", @errors), '', 'the exporter logged no error');

$node->stop;
done_testing();
