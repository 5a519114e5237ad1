# scheduler.simulate() blocks nobody and is blocked by nobody (issue: "it
# runs while another session's schedule_pending() and the watch worker are
# busy; it blocks neither, and is blocked by neither beyond a snapshot
# refresh"):
#   1. while session A holds scheduler.cycle_lock EXCLUSIVE (BEGIN;
#      schedule_pending(); not committed), session B's simulate(), with and
#      without hypothetical changes, returns at once with the right rows
#      (without changes: exactly the rows A's call returned, as the same
#      call would), and A still holds its lock when B is done; a writer, by
#      contrast, waits for A (the control: lock_timeout catches a wait);
#   2. while B holds a transaction open after a simulate(), schedule_pending()
#      and a writer (apply() of a node) in other sessions go through;
#   3. B's transaction has written nothing: no transaction id, no tuple
#      inserted, updated or deleted, no lock but AccessShareLock on any
#      relation, every scheduler table as it was;
#   4. the watch worker applying a stream of events from the stand-in API
#      server (the scheduler and bind workers running too): simulate() in a
#      loop keeps returning the right rows, the watch worker's writes keep
#      landing while another session holds a transaction open after a
#      simulate(), and nobody ever waits for a simulating session;
#   5. it works in a READ ONLY transaction, and for a role granted only
#      scheduler_reader.
# Parts 1, 2, 3 and 5 run on a cluster with no workers, part 4 on a second
# one with the workers and the stand-in.  Every session that must not wait
# runs with lock_timeout, so a lock wait fails the test instead of slowing
# it.  Timings are printed (diag), not asserted: the machine is shared,
# speed belongs in test/bench.
use strict;
use warnings;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use StandIn;
use Test::More;
use Time::HiRes qw(time);

my $LOCK_TIMEOUT = '2s';

# a background session with lock_timeout set (errors do not stop it)
sub session
{
	my ($node) = @_;
	my $s = $node->background_psql('postgres', on_error_stop => 0);
	$s->query_safe("SET lock_timeout = '$LOCK_TIMEOUT'");
	return $s;
}

# run(SESSION, SQL): (output, error text or '', elapsed ms); the session's
# stderr is cleared for the next statement
sub run
{
	my ($s, $sql) = @_;
	my $t0 = time;
	my ($out) = $s->query($sql);
	my $ms = (time - $t0) * 1000;
	my $err = $s->{stderr};
	$s->{stderr} = '';
	return ($out, $err, $ms);
}

sub ms { sprintf('%.0f ms', $_[0]) }

# --- the cluster of parts 1, 2, 3 and 5: no workers, an API server named
# (never reached) so that schedule_pending() writes bindings to the outbox
my $node = PostgreSQL::Test::Cluster->new('main');
$node->init;
$node->append_conf('postgresql.conf', "scheduler.kube_api_url = 'https://127.0.0.1:9'\n");
$node->start;
sub q1 { $node->safe_psql('postgres', $_[0]) }
q1('CREATE EXTENSION scheduler');

# 300 nodes of 2 cpu, 700 pending pods of 1 cpu: 600 fit, 100 do not
q1(q{
	SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', (
		SELECT jsonb_agg(jsonb_build_object('kind', 'Node',
			'metadata', jsonb_build_object('name', 'n' || i, 'labels', jsonb_build_object('kubernetes.io/hostname', 'n' || i)),
			'status', '{"allocatable": {"cpu": "2", "memory": "16Gi", "pods": "110"}}'::jsonb))
		FROM generate_series(1, 300) i)));
	SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', (
		SELECT jsonb_agg(jsonb_build_object('kind', 'Pod',
			'metadata', jsonb_build_object('name', 'p' || i, 'namespace', 'default',
				'creationTimestamp', to_char(timestamptz '2024-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')),
			'spec', '{"containers": [{"name": "c", "resources": {"requests": {"cpu": "1", "memory": "100Mi"}}}]}'::jsonb))
		FROM generate_series(1, 700) i)));
});
is(q1(q{SELECT count(*) FROM scheduler.queue WHERE state = 'active'}), '700', '700 pods wait, active');

# everything a call could write, as one digest (and counts to read)
my $written = q{
	SELECT (SELECT count(*) FROM scheduler.pods WHERE assumed_node IS NOT NULL) || ' assumed, '
		|| (SELECT count(*) FROM scheduler.pod_attempts) || ' attempts, '
		|| (SELECT count(*) FROM scheduler.outbox) || ' outbox, '
		|| md5(string_agg(x, '|' ORDER BY x))
	FROM (SELECT 'n' || t::text x FROM scheduler.nodes t UNION ALL
		SELECT 'p' || t::text FROM scheduler.pods t UNION ALL
		SELECT 'q' || t::text FROM scheduler.queue t UNION ALL
		SELECT 'a' || t::text FROM scheduler.pod_attempts t UNION ALL
		SELECT 'h' || t::text FROM scheduler.attempt_history t UNION ALL
		SELECT 'o' || t::text FROM scheduler.outbox t UNION ALL
		SELECT 'c' || t::text FROM scheduler.cycle_lock t UNION ALL
		SELECT 'l' || t::text FROM scheduler.changes t UNION ALL
		SELECT 'z' || t::text FROM scheduler.changes_horizon t UNION ALL
		SELECT 'w' || t::text FROM scheduler.watch_state t) s};

# a call's rows as one line: how many of each result, and a digest of them all
sub rows_of
{
	my ($call) = @_;
	return qq{SELECT count(*) FILTER (WHERE result = 'scheduled') || ' scheduled, '
		|| count(*) FILTER (WHERE result = 'unschedulable') || ' unschedulable, '
		|| md5(string_agg(namespace || '/' || name || '=' || coalesce(node, '-') || ':' || result || ':' || message,
			',' ORDER BY namespace, name))
	FROM $call};
}

# 60 hypothetical nodes of 2 cpu (room for 119 more pods of 1 cpu), and a
# hypothetical pod that only the hypothetical node x-1 can take (its
# nodeSelector), of a priority that has it tried first
my $changes = q{(SELECT jsonb_agg(jsonb_build_object('kind', 'Node',
		'metadata', jsonb_build_object('name', 'x-' || i, 'labels', jsonb_build_object('kubernetes.io/hostname', 'x-' || i)),
		'status', '{"allocatable": {"cpu": "2", "memory": "16Gi", "pods": "110"}}'::jsonb))
	FROM generate_series(1, 60) i)
	|| jsonb_build_array(jsonb_build_object('kind', 'Pod', 'metadata', '{"name": "probe", "namespace": "default"}'::jsonb,
		'spec', '{"priority": 1000, "nodeSelector": {"kubernetes.io/hostname": "x-1"},
			"containers": [{"name": "c", "resources": {"requests": {"cpu": "100m"}}}]}'::jsonb))};
my $with_changes = qq{
	SELECT count(*) FILTER (WHERE result = 'scheduled') || ' scheduled, '
		|| count(*) FILTER (WHERE result = 'unschedulable') || ' unschedulable, probe on '
		|| coalesce(max(node) FILTER (WHERE name = 'probe'), '-')
	FROM scheduler.simulate($changes)};

my $before = q1($written);
note("before: $before");

# --- 1. A holds cycle_lock EXCLUSIVE; B simulates meanwhile
my $sa = session($node);
my $sb = session($node);
my $a_pid = $sa->query_safe('SELECT pg_backend_pid()');
$sa->query_safe('SET scheduler.random_seed = 1');
$sa->query_safe('BEGIN');
my ($a_rows, $a_err, $a_ms) = run($sa, rows_of('schedule_pending()'));
is($a_err, '', 'A: schedule_pending() in an open transaction');
like($a_rows, qr/^600 scheduled, 100 unschedulable, /, 'A: 600 placed, 100 do not fit (not committed)');
diag("A: schedule_pending() of 700 pods on 300 nodes: " . ms($a_ms));
my $a_holds = "SELECT count(*) FROM pg_locks WHERE pid = $a_pid AND relation = 'scheduler.cycle_lock'::regclass
	AND mode = 'ExclusiveLock' AND granted";
is(q1($a_holds), '1', 'A holds scheduler.cycle_lock EXCLUSIVE');

# the control: a writer waits for A, and its lock_timeout says so
my $sw = session($node);
my (undef, $w_err, $w_ms) = run($sw, q{SELECT scheduler.apply('{"kind": "Node", "metadata": {"name": "blocked"},
	"status": {"allocatable": {"cpu": "2", "memory": "16Gi", "pods": "110"}}}')});
like($w_err, qr/canceling statement due to lock timeout/, 'control: a writer with lock_timeout fails while A holds the lock');
diag("control: the writer gave up after " . ms($w_ms));

$sb->query_safe('SET scheduler.random_seed = 1');	# the same ties broken alike
my ($b_rows, $b_err, $b_ms) = run($sb, rows_of('scheduler.simulate()'));
is($b_err, '', 'B: simulate() while A holds the lock: no lock wait, no error');
is($b_rows, $a_rows, 'B: simulate() returns exactly the rows A\'s call returned (B sees the cluster as before A)');
diag("B: simulate() of 700 pods, A holding the lock (first call: the snapshot built): " . ms($b_ms));
($b_rows, $b_err, $b_ms) = run($sb, $with_changes);
is($b_err, '', 'B: simulate(changes) while A holds the lock: no lock wait, no error');
is($b_rows, '701 scheduled, 0 unschedulable, probe on x-1', 'B: with 60 nodes added every pod fits, the probe on x-1');
diag("B: simulate(60 nodes and a pod) of 701 pods, A holding the lock: " . ms($b_ms));
$sb->query_safe('SET scheduler.random_seed = 1');
($b_rows, $b_err, $b_ms) = run($sb, rows_of('scheduler.simulate()'));
is($b_err . $b_rows, $a_rows, 'B: and again without changes: the view of the changes was discarded');
diag("B: simulate() again (the snapshot rebuilt after the what-if): " . ms($b_ms));
is(q1($a_holds), '1', 'A still holds its lock when B is done');
is(q1("SELECT count(*) FROM pg_locks WHERE NOT granted"), '0', 'and nobody waits for a lock');
$sa->query_safe('ROLLBACK');
is(q1($written), $before, 'A rolled back: the tables are as before');

# --- 2 and 3. B holds a transaction open after a simulate(); others go on
my $b_pid = $sb->query_safe('SELECT pg_backend_pid()');
$sb->query_safe('BEGIN');
is($sb->query_safe($written), $before, 'B: the tables, in its transaction');
($b_rows, $b_err, $b_ms) = run($sb, $with_changes);
is($b_err . $b_rows, '701 scheduled, 0 unschedulable, probe on x-1', 'B: simulate(changes) in an open transaction');
diag("B: simulate(60 nodes and a pod) in its transaction: " . ms($b_ms));
is($sb->query_safe('SELECT pg_current_xact_id_if_assigned() IS NULL'), 't',
	'B: no transaction id was assigned (no row written, not even in a subtransaction)');
is($sb->query_safe(q{SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0) FROM pg_stat_xact_all_tables}), '0',
	'B: no tuple inserted, updated or deleted in its transaction, in any table');
is($sb->query_safe(q{SELECT string_agg(locktype || ' ' || coalesce(relation::regclass::text, '') || ' ' || mode, ', ')
		FROM pg_locks WHERE pid = pg_backend_pid() AND locktype <> 'virtualxid'
		AND NOT (locktype = 'relation' AND mode = 'AccessShareLock')}), '',
	'B: it holds no lock but AccessShareLock on relations (and its virtual xid)');
is($sb->query_safe(q{SELECT mode FROM pg_locks WHERE pid = pg_backend_pid() AND relation = 'scheduler.cycle_lock'::regclass}),
	'AccessShareLock', 'B: on scheduler.cycle_lock, the read of where the search starts only');
is($sb->query_safe($written), $before, 'B: every scheduler table as it was (nodes, pods, queue, attempts, history, outbox, changes)');

my $sc = session($node);
my ($c_rows, $c_err, $c_ms) = run($sc, rows_of('schedule_pending()'));
is($c_err, '', 'C: schedule_pending() with lock_timeout while B holds its transaction open');
like($c_rows, qr/^600 scheduled, 100 unschedulable, /, 'C: places the 600 and commits');
diag("C: schedule_pending() of 700 pods beside B's open transaction: " . ms($c_ms));
is(q1(q{SELECT count(*) FROM scheduler.outbox WHERE kind = 'binding'}), '600', 'C: its 600 bindings are in the outbox');
my ($w_out);
($w_out, $w_err, $w_ms) = run($sw, q{SELECT scheduler.apply('{"kind": "Node", "metadata": {"name": "late",
	"labels": {"kubernetes.io/hostname": "late"}}, "status": {"allocatable": {"cpu": "2", "memory": "16Gi", "pods": "110"}}}')});
is($w_err . $w_out, '1', 'a writer with lock_timeout applies a node while B holds its transaction open');
diag("writer: apply() of a node beside B's open transaction: " . ms($w_ms));
my $after_c = q1($written);
($b_rows, $b_err, $b_ms) = run($sb, q{SELECT count(*) || ' pods, ' || count(*) FILTER (WHERE node = 'late') || ' on late'
	FROM scheduler.simulate()});
is($b_err . $b_rows, '100 pods, 2 on late', 'B, still in its transaction: simulate() sees their commits (2 of the 100 fit the new node)');
is($sb->query_safe($written), $after_c, 'B: and wrote nothing (the outbox holding 600 bindings, the pods assumed)');
diag("B: simulate() of the 100 left, after their commits (a snapshot refresh): " . ms($b_ms));
is($sb->query_safe('SELECT pg_current_xact_id_if_assigned() IS NULL'), 't', 'B: still no transaction id');
is(q1("SELECT count(*) FROM pg_locks WHERE NOT granted OR $b_pid = ANY (pg_blocking_pids(pid))"), '0',
	'nobody waits, nobody for B');
$sb->query_safe('COMMIT');
$_->quit for ($sa, $sb, $sc, $sw);

# --- 5. a READ ONLY transaction, and a role granted scheduler_reader only
q1(q{CREATE ROLE sim_reader LOGIN; GRANT scheduler_reader TO sim_reader});
my ($ro_out, $ro_err) = ('', '');
$node->psql('postgres', qq{SET lock_timeout = '$LOCK_TIMEOUT';
	BEGIN READ ONLY;
	SELECT current_user || ' ' || current_setting('transaction_read_only');
	SELECT count(*) || ' pods, ' || count(*) FILTER (WHERE node = 'late') || ' on late' FROM scheduler.simulate();
	$with_changes;
	SELECT pg_current_xact_id_if_assigned() IS NULL;
	COMMIT;},
	stdout => \$ro_out, stderr => \$ro_err, extra_params => [ '-U', 'sim_reader' ]);
is($ro_err, '', 'scheduler_reader, READ ONLY: no error');
is($ro_out, "sim_reader on\n100 pods, 2 on late\n101 scheduled, 0 unschedulable, probe on x-1\nt",
	'scheduler_reader, READ ONLY: simulate() with and without changes (the 100 left and the probe go to the new nodes), no xid');
$node->psql('postgres', 'SELECT count(*) FROM schedule_pending()', stderr => \$ro_err,
	extra_params => [ '-U', 'sim_reader' ]);
like($ro_err, qr/must have the privileges of role "scheduler_admin"/, 'the control: scheduler_reader may not call schedule_pending()');

# --- 4. the watch worker busy: a second cluster, with the workers, against
# the stand-in API server: 300 nodes of 4 cpu, and 200 pods that fit
# nowhere (64 cpu), which every simulate() tries
my $api = StandIn->new('apiserver_016');
$api->kjson('POST', '/debug/bulk', '{"generate": {"nodes": {"count": 300, "cpu": "4"},
	"pods": {"count": 200, "prefix": "huge-", "cpu": "64"}}}');
my $wn = PostgreSQL::Test::Cluster->new('watched');
$wn->init;
$wn->append_conf('postgresql.conf', "shared_preload_libraries = 'scheduler'\nscheduler.database = 'postgres'\n"
	  . "scheduler.watch_batch_delay = 20\n" . $api->conf);
$wn->start;
$wn->safe_psql('postgres', 'CREATE EXTENSION scheduler');
ok($wn->poll_query_until('postgres', q{SELECT (SELECT count(*) FROM scheduler.nodes) = 300
		AND (SELECT count(*) FROM scheduler.queue q JOIN scheduler.pods p ON p.uid = q.pod_uid
			WHERE p.name LIKE 'huge-%' AND q.state = 'unschedulable') = 200}),
	'listed: 300 nodes; the 200 huge pods tried and unschedulable');

# D: a transaction held open after a simulate(), for the whole stream
my $sd = session($wn);
my $d_pid = $sd->query_safe('SELECT pg_backend_pid()');
$sd->query_safe('BEGIN');
my ($d_rows, $d_err, $d_ms) = run($sd, $with_changes);
is($d_err . $d_rows, '1 scheduled, 200 unschedulable, probe on x-1',
	'D: simulate(changes) in a transaction it keeps open: the probe on x-1, the huge pods fit no 2-cpu x node');
diag("D: simulate(60 nodes and a pod) of the 200 huge pods, then kept open: " . ms($d_ms));

# the stream: 30 waves, each of 5 nodes and 20 pods that fit (the scheduler
# places them, the bind worker binds them, the watch reports them bound)
my $waves = 30;
my $script = join(' && ', map {
	my $body = sprintf('{"generate": {"nodes": {"count": 5, "start": %d, "prefix": "w-node-", "cpu": "4"},'
		  . ' "pods": {"count": 20, "start": %d, "prefix": "w-pod-", "cpu": "100m"}}}', 5 * $_, 20 * $_);
	"python3 " . StandIn->kreq_py . " --fail " . $api->server_json . " POST /debug/bulk '$body' >/dev/null 2>&1"
} 0 .. $waves - 1);
my $se = session($wn);
my $e_pid = $se->query_safe('SELECT pg_backend_pid()');
# its rows (how many, the probe's node, the huge pods unschedulable) and
# how long it took, measured by the server
my $probe = qq{SELECT count(*) || ' ' || coalesce(max(node) FILTER (WHERE name = 'probe'), '-')
	|| ' ' || count(*) FILTER (WHERE name LIKE 'huge-%' AND result = 'unschedulable')
	|| ' ' || round(1000 * extract(epoch FROM clock_timestamp() - statement_timestamp()))
	FROM scheduler.simulate($changes)};
my $landed = q{SELECT count(*) FROM scheduler.nodes WHERE name LIKE 'w-node-%'};
my $t_stream = time;
my $stream = IPC::Run::start([ 'bash', '-c', $script ]);
my (@sim_ms, @errors, @wrong, %seen_landed);
my ($during, $waits_for_us) = (0, 0);
while (1)
{
	my $streaming = $stream->pumpable;
	# E's call sent, and while it runs: which w- nodes have landed, and
	# whether anybody waits for E or D
	$se->{stdin} .= "$probe;\n\\echo __sim_done__\n\\warn __sim_done__\n";
	$se->{run}->pump_nb while length $se->{stdin};
	$seen_landed{ $wn->safe_psql('postgres', $landed) } = 1;
	$waits_for_us += $wn->safe_psql('postgres', qq{SELECT count(*) FROM pg_stat_activity
		WHERE pg_blocking_pids(pid) && ARRAY[$d_pid, $e_pid]});
	$se->{run}->pump until $se->{stdout} =~ /__sim_done__\n/ && $se->{stderr} =~ /__sim_done__\n/;
	my ($out) = $se->{stdout} =~ /^(.*?)\n?__sim_done__/s;
	(my $err = $se->{stderr}) =~ s/__sim_done__\n//;
	$se->{stdout} = $se->{stderr} = '';
	$during++ if $streaming;
	push @errors, $err if $err ne '';
	# every pod tried, once: the 200 huge ones (unschedulable: the x nodes
	# have 2 cpu), the probe on x-1, and the w- pods pending now, any number
	if ($err eq '' && $out =~ /^(\d+ x-1 200) (\d+)$/) { push @sim_ms, $2; }
	elsif ($err eq '') { push @wrong, $out; }
	last unless $streaming;
}
ok($stream->finish, "the stream of $waves waves was served by the stand-in");
my @sorted = sort { $a <=> $b } @sim_ms;
diag(sprintf('E: %d simulate() calls, %d of them started while the events streamed in (%.1f s): '
	  . 'min %.0f, median %.0f, max %.0f ms (by the server)',
	scalar(@sim_ms), $during, time - $t_stream, @sorted ? ($sorted[0], $sorted[ $#sorted / 2 ], $sorted[-1]) : (0, 0, 0)));
ok($during >= 1, "E: $during simulate() calls while the events streamed in");
is(join(' | ', @errors), '', 'E: every simulate() call beside the streaming watch worker went through (lock_timeout set)');
is(join(' | ', @wrong), '', 'E: each returned the right rows (the 200 huge pods unschedulable, the probe on x-1)');
ok(scalar(keys %seen_landed) > 1, 'the watch worker\'s writes landed during the simulate() calls: '
	  . join(',', sort { $a <=> $b } keys %seen_landed) . ' w-nodes seen');
is($waits_for_us, 0, 'nobody ever waited for a simulating session (pg_blocking_pids, sampled during each call)');

my $t_land = time;
ok($wn->poll_query_until('postgres', sprintf(q{SELECT (SELECT count(*) FROM scheduler.nodes WHERE name LIKE 'w-node-%%') = %d
		AND (SELECT count(*) FROM scheduler.pods WHERE name LIKE 'w-pod-%%' AND node_name IS NOT NULL) = %d},
		5 * $waves, 20 * $waves)),
	'with D still open: every node of the stream landed, and every pod is bound and reported bound by the watch');
diag(sprintf('the last of the stream landed %.1f s after the stream ended', time - $t_land));
is($sd->query_safe("SELECT pg_current_xact_id_if_assigned() IS NULL"), 't', 'D: its transaction, still open, has no xid');
my $last_node = 'w-node-' . (5 * $waves - 1);
($d_rows, $d_err, $d_ms) = run($sd, qq{SELECT node FROM scheduler.simulate('[{"kind": "Pod",
	"metadata": {"name": "probe2", "namespace": "default"}, "spec": {"priority": 1000,
	"nodeSelector": {"kubernetes.io/hostname": "$last_node"}, "containers": [{"name": "c"}]}}]') WHERE name = 'probe2'});
is($d_err . $d_rows, $last_node, "D: simulate() again in its open transaction sees the stream (a pod pinned to $last_node fits there)");
diag("D: simulate() again, after the stream (a snapshot refresh): " . ms($d_ms));
$sd->query_safe('COMMIT');
$_->quit for ($sd, $se);

# --- 6. the queue's order, in a database whose collation orders names
# otherwise than byte by byte (ICU, punctuation shifted: 'ab' before 'a-c'):
# pods alike (priority, time queued) go by namespace and name byte by byte
# in schedule_pending(), as simulate() tries them ('a-c' first)
SKIP:
{
	# (asked first: a CREATE DATABASE that fails would log an ERROR)
	skip('this server has no ICU collations', 3)
	  unless q1(q{SELECT EXISTS (SELECT FROM pg_collation WHERE collprovider = 'i')}) eq 't';
	q1(q{CREATE DATABASE shifted LOCALE_PROVIDER icu ICU_LOCALE 'en-u-ka-shifted' LOCALE 'C' ENCODING 'UTF8'
		TEMPLATE template0});
	my $sq = sub { $node->safe_psql('shifted', $_[0]) };
	$sq->('CREATE EXTENSION scheduler');
	is($sq->(q{SELECT 'ab' < 'a-c'}), 't', 'the database orders ab before a-c');
	$sq->(q{SELECT scheduler.apply('{"kind": "Node", "metadata": {"name": "n1"},
		"status": {"allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110"}}}')});
	$sq->(q{SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_agg(jsonb_build_object('kind', 'Pod',
		'metadata', jsonb_build_object('name', n, 'namespace', 'default', 'creationTimestamp', '2024-01-01T00:00:00Z'),
		'spec', '{"containers": [{"name": "c"}]}'::jsonb))))
		FROM unnest(ARRAY['ab', 'a-c', 'a-b', 'aa']) n});
	$sq->(q{UPDATE scheduler.queue SET enqueued_at = '2024-01-01'});
	is($sq->(q{SELECT string_agg(name, ',') FROM scheduler.simulate()}), 'a-b,a-c,aa,ab', 'simulate() tries them byte by byte');
	is($sq->(q{SELECT string_agg(name, ',') FROM schedule_pending()}), 'a-b,a-c,aa,ab',
		'schedule_pending() pops them in the same order');
}

# the server logs: no crash, no error but those the control provoked
for my $n ($node, $wn)
{
	my $log = slurp_file($n->logfile);
	unlike($log, qr/terminated by signal|server process .* was terminated|TRAP:|PANIC:/,
		$n->name . ': no backend crashed');
}
my @log_errors = grep { !/lock timeout|must have the privileges of role "scheduler_admin" to run schedule_pending/ }
	(slurp_file($node->logfile) =~ /^.*ERROR:.*$/mg);
is(join("\n", @log_errors), '', 'main: no ERROR but the controls\'');
is(join("\n", slurp_file($wn->logfile) =~ /^.*(?:ERROR|FATAL):.*$/mg), '', 'watched: no ERROR');
# a worker's WARNING (a slow API answer on a loaded machine) is not
# simulate()'s doing: shown, not failed
diag("watched: $_") for slurp_file($wn->logfile) =~ /^.*WARNING:.*$/mg;

$wn->stop;
$node->stop;
done_testing();
