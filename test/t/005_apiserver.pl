# The three background workers against an API server: the stand-in of
# test/apiserver (kube_apiserver.py, over TLS with a bearer token), driven
# with test/apiserver/kreq.py since this Perl has no TLS.
# kube-scheduler's behaviour pinned here, as its informers and binder have it:
#   * list then watch: every node and every pod that is not Succeeded/Failed
#     is mirrored, and stays so through watch drops, torn lines, a line that
#     is not JSON, 410 Expired mid-stream and on reconnect (relist), and 500s
#     on lists; a relist deletes the rows of objects that went away while the
#     watch was down;
#   * the binder: every pod is bound exactly once (one successful binding,
#     to a node where it fits: the sum of the requests bound there stays
#     within allocatable cpu, memory and pods), through 500s on bindings,
#     SIGKILLed workers (the postmaster then restarts every backend) and a
#     postmaster restart; the mirror ends equal to the API (same pods, same
#     nodeName) with no pod left in the queue;
#   * a client that cannot authenticate (401) or verify the server's
#     certificate says so once in the log and retries quietly with backoff,
#     without crash-looping, and picks up fixed settings on reload.
# Scale: 5000 nodes, 20000 pods, then 20000 more under faults.  Set
# SCHEDULER_TEST_SEED to replay the random kill moments.
use strict;
use warnings;
use IPC::Run;
use JSON::PP;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use StandIn;
use Test::More;
use Time::HiRes qw(time usleep);

my $t_begin = time;
my $seed = $ENV{SCHEDULER_TEST_SEED} // (time() ^ $$) % 1_000_000;
srand($seed);
diag("random seed $seed (SCHEDULER_TEST_SEED=$seed replays it)");

my $api = StandIn->new('apiserver');
my $api_url = $api->url;
my $work = $api->work;
my $certdir = $api->certdir;
my $server = $api->server;
my $server_json = $api->server_json;
my $kreq = StandIn->kreq_py;
my $json = JSON::PP->new->canonical;
diag("stand-in API server at $api_url");

sub kreq { $api->kreq(@_) }
sub kjson { $api->kjson(@_) }

sub faults { kjson('POST', '/debug/faults', $_[0]) }

# Every fault injected so far was served (none left waiting for a request).
sub faults_served
{
	my ($desc) = @_;
	my $left = '';
	my $ok = wait_until("$desc: faults served", 120, sub {
		my $f = kjson('GET', '/debug/faults');
		my @left = (@{ $f->{http_errors} }, @{ $f->{watch_faults} }, @{ $f->{malformed_line_next_watch} });
		$left = $json->encode(\@left);
		return @left == 0;
	});
	ok($ok, "$desc: every fault injected was served") or diag("left: $left");
}

# ------------------------------------------------------------------ helpers
my $node;
my @killed;

sub q1 { $node->safe_psql('postgres', $_[0]) }

# wait_until(DESC, TIMEOUT, SUB): polls SUB every 0.5 s; returns true when
# it returned true, false on timeout (with a diag).
sub wait_until
{
	my ($desc, $timeout, $sub) = @_;
	my $deadline = time + $timeout;
	my $last;
	while (1)
	{
		my $ok = eval { $last = $sub->(); $last };
		$last = "died: $@" if $@;
		return 1 if $ok;
		if (time > $deadline)
		{
			diag("timed out after ${timeout}s waiting for: $desc; last: " . ($last // 'undef'));
			return 0;
		}
		usleep(500_000);
	}
}

# A query that may fail while the server restarts: undef then.
sub try_sql
{
	my ($sql) = @_;
	my ($out, $err) = ('', '');
	my $rc = $node->psql('postgres', $sql, stdout => \$out, stderr => \$err);
	return $rc == 0 ? $out : undef;
}

sub wait_sql
{
	my ($desc, $timeout, $sql) = @_;
	my $last;
	return wait_until($desc, $timeout, sub {
		$last = try_sql($sql);
		return 1 if defined $last && $last eq 't';
		return 0;
	});
}

my @worker_types = ('scheduler worker', 'scheduler watch', 'scheduler bind');
my $workers_in = "('" . join("', '", @worker_types) . "')";

sub worker_pid
{
	my ($type) = @_;
	my $pid = try_sql("SELECT pid FROM pg_stat_activity WHERE backend_type = '$type'");
	return defined $pid && $pid =~ /^\d+$/ ? $pid : undef;
}

# All three workers up, none of them one of @gone (pids of killed ones).
sub wait_workers
{
	my ($desc, @gone) = @_;
	my $not_gone = @gone ? 'AND bool_and(pid NOT IN (' . join(',', @gone) . '))' : '';
	return wait_sql($desc, 120, qq{
		SELECT count(DISTINCT backend_type) = 3 $not_gone
		FROM pg_stat_activity WHERE backend_type IN $workers_in});
}

sub kill9
{
	my ($type) = @_;
	my $pid = worker_pid($type);
	if (!$pid)
	{
		diag("no '$type' to kill");
		return;
	}
	kill 'KILL', $pid;
	diag(sprintf('%.1fs: SIGKILL %s (pid %d)', time - $t_begin, $type, $pid));
	return $pid;
}
sub kill9_noted { my $pid = kill9(@_); push @killed, $pid if $pid; }

my $log_offset = 0;
sub log_mark { $log_offset = -s $node->logfile; }

# Lines of the server log since the mark that match RE, statements excluded.
sub log_lines
{
	my ($re, $from) = @_;
	my $text = slurp_file($node->logfile, $from // $log_offset);
	return grep { /$re/ && !/\b(statement|STATEMENT):/ } split /\n/, $text;
}

sub write_file
{
	my ($path, $content) = @_;
	open my $fh, '>', $path or die "$path: $!";
	print $fh $content;
	close $fh;
}

# ------------------------------------------------------------------ the cluster
write_file("$certdir/bad_token", "not-the-token\n");
# another self-signed CA: the server's certificate does not chain to it
{
	my ($out, $err);
	IPC::Run::run([ 'openssl', 'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1',
			'-nodes', '-keyout', "$work/other_ca.key", '-out', "$work/other_ca.crt", '-subj', '/CN=some other CA',
			'-days', '2' ], '<', \'', '>', \$out, '2>', \$err)
	  or die "openssl req failed: $err";
}

$node = PostgreSQL::Test::Cluster->new('main');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'scheduler'
scheduler.database = 'postgres'
# a SIGKILLed backend must lead to a restart of all, not a shutdown
restart_after_crash = on
# the log is searched for the workers' lines
log_statement = none
shared_buffers = 256MB
max_wal_size = 4GB
scheduler.kube_api_url = '$api_url'
scheduler.kube_ca_file = '$server->{ca}'
# wrong to begin with: see c. below
scheduler.kube_token_file = '$certdir/bad_token'
});
# the connection settings that change go in postgresql.auto.conf, via ALTER SYSTEM
sub set_conn
{
	my (%set) = @_;
	my $sql = join('', map { "ALTER SYSTEM SET scheduler.$_ = '$set{$_}';\n" } sort keys %set);
	q1($sql . 'SELECT pg_reload_conf();');
}

# ================================================================== c. bad credentials
# A wrong token first: 401 for the watch, said once.
$node->start;
log_mark();
q1('CREATE EXTENSION scheduler');
ok(wait_workers('the three workers run'), 'the three workers run: ' . join(', ', @worker_types));
my $t0 = time;
my @l401;
ok(wait_until('a 401 line', 30, sub { @l401 = log_lines(qr/HTTP 401\b/); @l401 > 0 }),
	'a wrong token: the log says 401');
my $t401 = time - $t0;
cmp_ok($t401, '<=', 10, sprintf('and within a few seconds (%.1f s)', $t401));
diag("401 line: $_") for @l401;
my $watch_pid = worker_pid('scheduler watch');
sleep 5;
is(worker_pid('scheduler watch'), $watch_pid, 'the watch worker stays up over 5 s (same pid: no crash loop)');
my @l401_after = log_lines(qr/HTTP 401\b/);
is(scalar(@l401_after), 1, 'exactly one line with 401 in 6 s and more: retries are quiet')
  or diag("401 lines:\n" . join("\n", @l401_after));
ok(scalar(grep { /scheduler watch/ } @l401_after), 'and it is the watch\'s')
  or diag(join("\n", @l401_after));
is(scalar(log_lines(qr/terminated by signal|exited with exit code/)), 0, 'no worker died');

# Then the right token but a CA that does not sign the server's certificate:
# picked up on reload, one line about certificate verification.
log_mark();
set_conn(kube_token_file => "$certdir/token", kube_ca_file => "$work/other_ca.crt");
$t0 = time;
my @lcert;
ok(wait_until('a certificate line', 60, sub { @lcert = log_lines(qr/certificate/i); @lcert > 0 }),
	'a wrong CA, on reload: the log says the certificate could not be verified');
diag(sprintf('%.1f s after the reload: %s', time - $t0, $_)) for @lcert;
like($lcert[0] // '', qr/verif|certificate problem|self.signed|issuer/i, 'the line is about verifying the certificate');
sleep 5;
is(worker_pid('scheduler watch'), $watch_pid, 'the watch worker stays up (same pid since the start)');
my @lcert_after = log_lines(qr/certificate/i);
is(scalar(@lcert_after), 1, 'exactly one line about the certificate in 5 s and more')
  or diag("certificate lines:\n" . join("\n", @lcert_after));
is(scalar(log_lines(qr/HTTP 401\b/)), 0, 'no 401 any more: the new token file was read');

# Fixed: the watch lists (the stand-in is empty) without a restart.
set_conn(kube_ca_file => $server->{ca});
$t0 = time;
ok(wait_sql('watch_state has nodes and pods', 120,
		q{SELECT count(*) = 2 FROM scheduler.watch_state WHERE resource IN ('nodes', 'pods')}),
	'settings fixed, on reload: the watch lists nodes and pods');
diag(sprintf('recovered %.1f s after the reload', time - $t0));
is(worker_pid('scheduler watch'), $watch_pid, 'still the same watch worker');
diag(sprintf('%.1fs: bad credentials done', time - $t_begin));

# ================================================================== verification
# Everything the stand-in knows, loaded into schema apicheck, compared with
# the mirror tables.  Quantities parsed here, independently of the extension.
q1(q{
CREATE SCHEMA apicheck;
CREATE FUNCTION apicheck.qty(q text) RETURNS numeric LANGUAGE sql IMMUTABLE AS $$
	SELECT (m[1])::numeric * CASE m[2]
		WHEN '' THEN 1 WHEN 'm' THEN 0.001 WHEN 'k' THEN 1e3 WHEN 'M' THEN 1e6 WHEN 'G' THEN 1e9
		WHEN 'Ki' THEN 1024 WHEN 'Mi' THEN 1048576 WHEN 'Gi' THEN 1073741824 WHEN 'Ti' THEN 1099511627776 END
	FROM regexp_match(q, '^([0-9]+(?:\.[0-9]*)?)(m|k|M|G|Ki|Mi|Gi|Ti|)$') m
$$;
CREATE TABLE apicheck.deleted (uid text PRIMARY KEY, name text);
});

sub verify
{
	my ($label, $expect_pods) = @_;
	my $f = "$work/check";
	my ($c1) = kreq('GET', '/api/v1/pods', undef, "$f-pods.json");
	my ($c2) = kreq('GET', '/api/v1/nodes', undef, "$f-nodes.json");
	my ($c3) = kreq('GET', '/debug/bindings?summary=1', undef, "$f-bindings.json");
	die "verify: HTTP $c1 $c2 $c3" unless "$c1 $c2 $c3" eq '200 200 200';
	q1(qq{
DROP TABLE IF EXISTS apicheck.pods, apicheck.nodes, apicheck.bindings;
CREATE TABLE apicheck.pods AS
SELECT i #>> '{metadata,uid}' AS uid, i #>> '{metadata,namespace}' AS ns, i #>> '{metadata,name}' AS name,
	i #>> '{spec,nodeName}' AS node, i #>> '{status,phase}' AS phase,
	(SELECT coalesce(sum(apicheck.qty(coalesce(c #>> '{resources,requests,cpu}', '0'))), 0)
	 FROM jsonb_array_elements(i #> '{spec,containers}') c) AS cpu,
	(SELECT coalesce(sum(apicheck.qty(coalesce(c #>> '{resources,requests,memory}', '0'))), 0)
	 FROM jsonb_array_elements(i #> '{spec,containers}') c) AS mem
FROM jsonb_array_elements(pg_read_file('$f-pods.json')::jsonb -> 'items') i;
CREATE TABLE apicheck.nodes AS
SELECT i #>> '{metadata,name}' AS name,
	apicheck.qty(i #>> '{status,allocatable,cpu}') AS cpu,
	apicheck.qty(i #>> '{status,allocatable,memory}') AS mem,
	apicheck.qty(i #>> '{status,allocatable,pods}') AS pods
FROM jsonb_array_elements(pg_read_file('$f-nodes.json')::jsonb -> 'items') i;
CREATE TABLE apicheck.bindings AS
SELECT key, (value ->> 'attempts')::int AS attempts, (value ->> 'succeeded')::int AS succeeded,
	value -> 'nodes' AS nodes, value -> 'podUIDs' AS uids
FROM jsonb_each(pg_read_file('$f-bindings.json')::jsonb);
ANALYZE apicheck.pods; ANALYZE apicheck.nodes; ANALYZE apicheck.bindings;
});
	my $one = sub { q1($_[0]) };
	my $sample = sub { q1("SELECT string_agg(x, ', ') FROM (SELECT x FROM ($_[0]) s(x) LIMIT 5) t") };

	is($one->('SELECT count(*) FROM apicheck.pods'), $expect_pods, "$label: the API has $expect_pods pods");
	is($one->(q{SELECT count(*) FROM apicheck.pods WHERE cpu IS NULL OR mem IS NULL}) .
		$one->(q{SELECT count(*) FROM apicheck.nodes WHERE cpu IS NULL OR mem IS NULL OR pods IS NULL}),
		'00', "$label: (every quantity parsed)");
	is($one->('SELECT count(*) FROM apicheck.pods WHERE node IS NULL'), '0', "$label: every pod in the API is bound");
	my $q = q{SELECT p.ns || '/' || p.name || ' succeeded=' || coalesce(b.succeeded::text, 'none')
		FROM apicheck.pods p LEFT JOIN apicheck.bindings b ON b.key = p.ns || '/' || p.name
		WHERE coalesce(b.succeeded, 0) <> 1};
	is($one->("SELECT count(*) FROM ($q) s"), '0', "$label: every pod has exactly 1 successful binding")
	  or diag($sample->($q));
	$q = q{SELECT p.name || ' api ' || coalesce(p.node, '-') || '/' || p.uid || ' binding ' || (b.nodes ->> 0) || '/' || (b.uids ->> 0)
		FROM apicheck.pods p JOIN apicheck.bindings b ON b.key = p.ns || '/' || p.name
		WHERE b.succeeded = 1 AND (p.node IS DISTINCT FROM b.nodes ->> 0 OR p.uid IS DISTINCT FROM b.uids ->> 0)};
	is($one->("SELECT count(*) FROM ($q) s"), '0', "$label: that binding is the pod's (same uid) and its nodeName")
	  or diag($sample->($q));
	$q = q{SELECT key || ' succeeded=' || succeeded FROM apicheck.bindings WHERE succeeded > 1};
	is($one->("SELECT count(*) FROM ($q) s"), '0', "$label: no pod name was ever bound twice (deleted pods included)")
	  or diag($sample->($q));
	$q = q{SELECT p.name || ' on ' || p.node FROM apicheck.pods p
		WHERE p.node IS NOT NULL AND NOT EXISTS (SELECT FROM apicheck.nodes n WHERE n.name = p.node)};
	is($one->("SELECT count(*) FROM ($q) s"), '0', "$label: every pod is bound to an existing node")
	  or diag($sample->($q));
	$q = q{SELECT n.name || ': cpu ' || u.cpu || '/' || n.cpu || ' memory ' || u.mem || '/' || n.mem || ' pods ' || u.pods || '/' || n.pods
		FROM apicheck.nodes n
		JOIN (SELECT node, sum(cpu) AS cpu, sum(mem) AS mem, count(*) AS pods FROM apicheck.pods
			  WHERE node IS NOT NULL AND coalesce(phase, '') NOT IN ('Succeeded', 'Failed') GROUP BY node) u
		  ON u.node = n.name
		WHERE u.cpu > n.cpu OR u.mem > n.mem OR u.pods > n.pods};
	is($one->("SELECT count(*) FROM ($q) s"), '0', "$label: every pod fits where it is bound (requests within allocatable cpu, memory, pods)")
	  or diag($sample->($q));
	diag("$label: pods per node (API): " . $one->(q{
		SELECT min(c) || '..' || max(c) FROM (SELECT count(p.node) c FROM apicheck.nodes n
		LEFT JOIN apicheck.pods p ON p.node = n.name GROUP BY n.name) s}));
	diag("$label: binding attempts per pod (API record): " . $one->(q{
		SELECT string_agg(attempts || ': ' || n, ', ' ORDER BY attempts)
		FROM (SELECT attempts, count(*) n FROM apicheck.bindings GROUP BY 1) s}));

	# the mirror equals the API
	is($one->(q{SELECT count(*) FROM scheduler.nodes n FULL JOIN apicheck.nodes a ON a.name = n.name
		WHERE a.name IS NULL OR n.name IS NULL}), '0', "$label: the nodes table holds the API's nodes");
	$q = q{SELECT 'api only ' || a.name FROM apicheck.pods a
		WHERE coalesce(a.phase, '') NOT IN ('Succeeded', 'Failed')
		  AND NOT EXISTS (SELECT FROM scheduler.pods t WHERE t.uid = a.uid)
		UNION ALL
		SELECT 'table only ' || t.name FROM scheduler.pods t WHERE NOT EXISTS (SELECT FROM apicheck.pods a WHERE a.uid = t.uid)};
	is($one->("SELECT count(*) FROM ($q) s"), '0', "$label: the pods table holds the API's pods (same uids)")
	  or diag($sample->($q));
	$q = q{SELECT t.name || ' table ' || coalesce(t.node_name, '-') || ' api ' || coalesce(a.node, '-')
		FROM scheduler.pods t JOIN apicheck.pods a ON a.uid = t.uid WHERE t.node_name IS DISTINCT FROM a.node};
	is($one->("SELECT count(*) FROM ($q) s"), '0', "$label: pods.node_name equals the API's nodeName for every pod")
	  or diag($sample->($q));
	$q = q{SELECT p.name || ' ' || q.state FROM scheduler.queue q LEFT JOIN scheduler.pods p ON p.uid = q.pod_uid};
	is($one->("SELECT count(*) FROM ($q) s"), '0', "$label: no pod left in the queue")
	  or diag($sample->($q));
	is($one->(q{SELECT count(*) FROM scheduler.outbox WHERE kind = 'binding' AND state = 'pending'}), '0',
		"$label: no binding left pending in the outbox");
	# kube-scheduler counts a pod scheduled once its binding succeeded: the
	# counter is the API's successful bindings, each once
	is($one->(q{SELECT coalesce(sum(attempts), 0) FROM scheduler.attempt_totals WHERE result = 'scheduled'}),
		$one->(q{SELECT coalesce(sum(succeeded), 0) FROM apicheck.bindings}),
		"$label: scheduler_schedule_attempts_total{result=scheduled} counts each binding the API made, once");
	# a binding refused for a pod that still exists (409: bound elsewhere)
	# would mean it was placed twice
	$q = q{SELECT o.name || ' -> ' || o.node || ': ' || coalesce(o.last_status::text, '-') || ' ' || coalesce(o.last_error, '')
		FROM scheduler.outbox o WHERE o.kind = 'binding' AND o.state = 'failed'
		  AND NOT EXISTS (SELECT FROM apicheck.deleted d WHERE d.uid = o.pod_uid)};
	is($one->("SELECT count(*) FROM ($q) s"), '0', "$label: no binding failed, but for deleted pods")
	  or diag($sample->($q));
	diag("$label: outbox: " . $one->(q{SELECT string_agg(kind || '/' || state || coalesce('/' || last_status, '') || ': ' || n, ', ')
		FROM (SELECT kind, state, last_status, count(*) n FROM scheduler.outbox GROUP BY 1, 2, 3 ORDER BY 1, 2, 3) s}));
}

# Both sides settled: the API has N pods, all bound; the tables have them.
sub wait_settled
{
	my ($desc, $n, $timeout) = @_;
	my $t = time;
	my $ok = wait_until("$desc: the API has $n pods, all bound", $timeout, sub {
		my ($pods, $unbound) = $api->pod_counts;
		return "api pods=$pods unbound=$unbound" unless $pods == $n && $unbound == 0;
		return 1;
	});
	ok($ok, sprintf('%s: every pod bound in the API (%.1f s)', $desc, time - $t));
	$ok = wait_sql("$desc: the tables caught up", $timeout, qq{
		SELECT count(*) = $n AND count(node_name) = $n FROM scheduler.pods});
	ok($ok, sprintf('%s: the pods table has the %d pods with their node (%.1f s)', $desc, $n, time - $t));
	return $ok;
}

# ================================================================== a. happy path, full scale
log_mark();
my $t_a = time;
my $r = kjson('POST', '/debug/bulk', { generate => {
	nodes => { count => 5000, cpu => '4', memory => '16Gi', pods => '110' },
	pods => { count => 20000, prefix => 'w1-', cpu => '100m', memory => '128Mi', labels => { wave => '1' } } } });
is($r->{created}, 25000, 'bulk: 5000 nodes and 20000 pods created in the API');
ok(wait_sql('5000 nodes and 20000 pods in the tables', 300,
		q{SELECT (SELECT count(*) FROM scheduler.nodes) = 5000 AND (SELECT count(*) FROM scheduler.pods) = 20000}),
	sprintf('the tables hold 5000 nodes and 20000 pods (%.1f s)', time - $t_a));
wait_settled('wave 1', 20000, 300);
my $dt_a = time - $t_a;
diag(sprintf('wave 1: 20000 pods listed, scheduled, bound and watched back in %.1f s (%.0f pods/s)', $dt_a, 20000 / $dt_a));
verify('wave 1', 20000);

# ================================================================== b. faults
# A second wave of 20000 pods in 8 chunks, each with faults.  A real
# kube-apiserver has no faults to inject: there, b' below instead.
log_mark();
my $log_b = $log_offset;
my $t_b = time;
my $chunk = 2500;
my $deleted = 0;
my $n_final;
goto REAL_WAVE_2 if $api->real;
sub chunk_of
{
	my ($i) = @_;
	my $r = kjson('POST', '/debug/bulk', { generate => { pods => {
		count => $chunk, start => $i * $chunk, prefix => 'w2-', cpu => '100m', memory => '128Mi',
		labels => { wave => '2', chunk => "$i" } } } });
	die "bulk chunk $i: created $r->{created}" unless $r->{created} == $chunk;
	diag(sprintf('%.1fs: chunk %d created', time - $t_begin, $i));
}
sub pause_rand { usleep(int(rand($_[0]) * 1_000_000)); }

# 0: a watch torn mid-line after some events
faults({ drop_watch_after_events => 200 + int(rand(1500)), match => '/api/v1/pods' });
chunk_of(0);
pause_rand(2);

# 1: 410 Expired mid-stream, and the relist's list gets 500 twice (the
# match is the list's path: this client's watches start "?watch=1")
faults({ expire_watch_after_events => 200 + int(rand(1500)), match => '/api/v1/pods' });
faults({ http_500_next => 2, match => '/api/v1/pods?fieldSelector', method => 'GET' });
chunk_of(1);
pause_rand(2);

# 2: 500s on bindings, and the bind worker SIGKILLed at a random moment
faults({ http_500_next => 300, match => 'binding' });
chunk_of(2);
pause_rand(1.5);
kill9_noted('scheduler bind');
ok(wait_workers('workers back after SIGKILL of the bind worker', @killed), 'SIGKILL of the bind worker: all workers back');

# 3: a line that is not JSON on the next pods watch (watches closed to make
# one), and the watch worker SIGKILLed at a random moment after it read the
# line: a worker killed between the stand-in's sending it and its reading it
# would take the line with it (the fault is used up when the watch starts)
faults({ malformed_line_next_watch => JSON::PP::true, close_watches => JSON::PP::true, match => '/api/v1/pods' });
chunk_of(3);
wait_until('the malformed line read', 120, sub { scalar(log_lines(qr/malformed line in watch stream/, $log_b)) });
pause_rand(2);
kill9_noted('scheduler watch');
ok(wait_workers('workers back after SIGKILL of the watch worker', @killed), 'SIGKILL of the watch worker: all workers back');

# 4: the postmaster restarted mid-stream
chunk_of(4);
pause_rand(1.5);
diag(sprintf('%.1fs: restart', time - $t_begin));
$node->restart;
ok(wait_workers('workers back after a restart'), 'postmaster restart: all workers back');

# 5: pods deleted while the pods watch is down: its lists and watches fail
# (500) from before its worker is killed until after the deletions are
# compacted away, so only a relist can learn of them.  New pods come too.
ok(wait_sql('chunks 0-4 in the tables', 300, q{SELECT count(*) = 32500 FROM scheduler.pods}),
	'chunks 0-4 are in the pods table');
# The 410 of 1 may have gone out in a batch that a SIGKILL or the restart cut
# before its commit: the worker then resumed from before it and the server
# does not send it again, so no relist used up the list's 500s.  Force one
# (a 410 on reconnect) so that every fault is seen to be served.
if (grep { $_->{match} eq '/api/v1/pods?fieldSelector' } @{ kjson('GET', '/debug/faults')->{http_errors} })
{
	diag('the mid-stream 410 was cut by a kill before its commit: forcing a relist');
	# the pods watch, reopened, is answered 410 at once (compaction would
	# not do: a bookmark may have moved the watch to the newest version,
	# which compaction keeps)
	faults({ expire_watch_after_events => 0, match => '/api/v1/pods?', close_watches => JSON::PP::true });
}
faults_served('chunks 0-4');
log_mark();
faults({ http_500_next => 1_000_000, match => '/api/v1/pods', method => 'GET' });
kill9_noted('scheduler watch');
ok(wait_workers('workers back after SIGKILL of the watch worker', @killed), 'SIGKILL of the watch worker again: all workers back');
q1(q{INSERT INTO apicheck.deleted SELECT uid, name FROM (
	(SELECT uid, name FROM scheduler.pods WHERE name LIKE 'w1-%' ORDER BY random() LIMIT 150)
	UNION ALL
	(SELECT uid, name FROM scheduler.pods WHERE name LIKE 'w2-%' ORDER BY random() LIMIT 150)) s});
my @paths = map { "/api/v1/namespaces/default/pods/$_" } split /\n/, q1('SELECT name FROM apicheck.deleted ORDER BY name');
write_file("$work/delete.paths", join("\n", @paths) . "\n");
{
	my ($out, $err);
	IPC::Run::run([ 'python3', $kreq, '--paths', "$work/delete.paths", $server_json, 'DELETE' ], '>', \$out, '2>', \$err)
	  or die "kreq DELETE: $err";
	$deleted = () = $out =~ /^200 /mg;
	is($deleted, 300, '300 pods deleted in the API while the pods watch is down');
}
chunk_of(5);
is(q1('SELECT count(*) FROM scheduler.pods p JOIN apicheck.deleted d USING (uid)'), '300',
	'the deleted pods are still in the table (the watch could not see it)');
faults({ compact => JSON::PP::true });
faults({ clear => JSON::PP::true });
my $t_relist = time;
ok(wait_sql('the deleted pods vanish', 180, q{SELECT count(*) = 0 FROM scheduler.pods p JOIN apicheck.deleted d USING (uid)}),
	'after the relist their rows vanish');
ok(scalar(log_lines(qr/scheduler watch: .*pods.*410.*relisting/)), 'and it was a relist, after a 410 for the compacted resourceVersion');
ok(wait_sql('chunk 5 in the table', 180, q{SELECT count(*) = 2500 FROM scheduler.pods WHERE name LIKE 'w2-%' AND (object #>> '{metadata,labels,chunk}') = '5'}),
	sprintf('and the pods created meanwhile are there (%.1f s after the faults were cleared)', time - $t_relist));

# 6: compaction and every watch closed (410 on reconnect: relist), 500s on
# the nodes list and watch; the bind worker killed again
faults({ http_500_next => 2, match => '/api/v1/nodes', method => 'GET' });
faults({ compact => JSON::PP::true, close_watches => JSON::PP::true });
chunk_of(6);
pause_rand(2);
kill9_noted('scheduler bind');
ok(wait_workers('workers back after SIGKILL of the bind worker', @killed), 'SIGKILL of the bind worker again: all workers back');

# 7: 410 mid-stream, then a torn line on the watch after the relist; the
# watch worker killed again
faults({ expire_watch_after_events => 50 + int(rand(450)), match => '/api/v1/pods' });
faults({ drop_watch_after_events => 500 + int(rand(500)), match => '/api/v1/pods' });
chunk_of(7);
faults_served('chunks 6-7');
pause_rand(2);
kill9_noted('scheduler watch');
ok(wait_workers('workers back after SIGKILL of the watch worker', @killed), 'SIGKILL of the watch worker a third time: all workers back');

$n_final = 40000 - $deleted;
goto WAVE_2_SENT;

# ================================================================== b'. kills
# Against a real kube-apiserver: 10000 pods in 4 chunks, with the bind
# worker, then the watch worker SIGKILLed, the postmaster restarted, and
# 300 pods deleted (at once: no kubelet would finish a graceful deletion).
REAL_WAVE_2:
chunk_of(0);
pause_rand(1.5);
kill9_noted('scheduler bind');
ok(wait_workers('workers back after SIGKILL of the bind worker', @killed), 'SIGKILL of the bind worker: all workers back');
chunk_of(1);
pause_rand(2);
kill9_noted('scheduler watch');
ok(wait_workers('workers back after SIGKILL of the watch worker', @killed), 'SIGKILL of the watch worker: all workers back');
chunk_of(2);
pause_rand(1.5);
$node->restart;
ok(wait_workers('workers back after a restart'), 'postmaster restart: all workers back');
ok(wait_sql('chunks 0-2 in the tables', 300, q{SELECT count(*) = 27500 FROM scheduler.pods}),
	'chunks 0-2 are in the pods table');
q1(q{INSERT INTO apicheck.deleted SELECT uid, name FROM (
	(SELECT uid, name FROM scheduler.pods WHERE name LIKE 'w1-%' ORDER BY random() LIMIT 150)
	UNION ALL
	(SELECT uid, name FROM scheduler.pods WHERE name LIKE 'w2-%' ORDER BY random() LIMIT 150)) s});
write_file("$work/delete.paths", join("\n", map { "/api/v1/namespaces/default/pods/$_?gracePeriodSeconds=0" }
	split /\n/, q1('SELECT name FROM apicheck.deleted ORDER BY name')) . "\n");
{
	my ($out, $err);
	IPC::Run::run([ 'python3', $kreq, '--paths', "$work/delete.paths", $server_json, 'DELETE' ], '>', \$out, '2>', \$err)
	  or die "kreq DELETE: $err";
	$deleted = () = $out =~ /^200 /mg;
	is($deleted, 300, '300 pods deleted in the API');
}
kill9_noted('scheduler watch');
chunk_of(3);
ok(wait_sql('the deleted pods vanish', 180, q{SELECT count(*) = 0 FROM scheduler.pods p JOIN apicheck.deleted d USING (uid)}),
	'the deleted pods\' rows vanish');
$n_final = 30000 - $deleted;

WAVE_2_SENT:
wait_settled('wave 2', $n_final, 300);
diag(sprintf('wave 2 with faults: settled %.1f s after its first chunk', time - $t_b));
verify('after the faults', $n_final);

# the log
my @lines = log_lines(qr/./, $log_b);
my @panic = grep { /PANIC|segfault|Segmentation fault|terminated by signal (?!9:)\d+|was terminated by exception|TRAP:/ } @lines;
is(scalar(@panic), 0, 'the log has no PANIC and no worker terminated by a signal other than our SIGKILLs')
  or diag(join("\n", @panic[0 .. ($#panic < 20 ? $#panic : 19)]));
unless ($api->real)
{
	my @malformed = grep { /malformed line in watch stream/ } @lines;
	ok(@malformed >= 1, 'the log mentions the malformed line in the watch stream');
	diag("malformed: $_") for @malformed[0 .. ($#malformed < 3 ? $#malformed : 2)];
	ok(!grep({ length($_) > 2000 } @malformed), 'with the line cut short');
	my @bind500 = grep { /scheduler bind: .*HTTP 500/ } @lines;
	cmp_ok(scalar(@bind500), '<=', 10, '300 bindings answered 500: a few log lines, not one per request')
	  or diag(join("\n", @bind500[0 .. 4]));
}
diag('log lines since wave 2, by kind:');
my %kinds;
for (@lines)
{
	next unless /\b(LOG|WARNING|ERROR|FATAL):\s+(.{0,60})/;
	my ($lvl, $msg) = ($1, $2);
	next if $msg =~ /^(connection|disconnection)/;
	$msg =~ s/\d+/N/g;
	$kinds{"$lvl: $msg"}++;
}
diag(sprintf('  %5d  %s', $kinds{$_}, $_)) for sort { $kinds{$b} <=> $kinds{$a} } keys %kinds;

# no secret is ever logged: neither the token nor the wrong one tried first
my $whole_log = slurp_file($node->logfile);
my $token = $server->{token};
ok(index($whole_log, $token) < 0 && index($whole_log, 'not-the-token') < 0, 'no token ever appears in the log');

my $total = time - $t_begin;
diag(sprintf('total %.1f s', $total));

$node->stop;
done_testing();
