# The watch stream parser against hostile input (a fuzz test of the C that
# reads outside input: curl's bytes split into lines, lines into JSON, JSON
# into events).  The stand-in's fuzz_watches fault makes each of the next
# watches start with random lines -- JSON that is no applicable event (a
# wrong or missing type, an object of the wrong shape or kind, an invalid
# quantity, effect or name), then sometimes one that is not JSON at all
# (binary, torn, 5000 levels deep, a lone surrogate, \u0000) or an ERROR
# event -- and write every line in random pieces of 1 byte and up, each its
# own HTTP chunk.  Also: a 2 MB object, and a stream that stalls.
# What a client-go informer does, and what is pinned here:
#   * an event that cannot be applied is skipped with a WARNING that names
#     the field, and the stream goes on; nothing of it reaches the tables;
#   * a line that is not JSON is logged, cut short and escaped, and the
#     watch reopened from the last applied resourceVersion: nothing is lost;
#   * the worker never crashes (same process throughout), and in the end the
#     tables hold exactly what the API server holds.
use strict;
use warnings;
use Cwd qw(abs_path);
use File::Basename qw(dirname);
use File::Path qw(make_path);
use IPC::Run;
use JSON::PP;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);

my $seed = $ENV{SCHEDULER_TEST_SEED} // (time() ^ $$) % 1_000_000;
diag("fuzz seed $seed (SCHEDULER_TEST_SEED=$seed replays it)");

my $apidir = abs_path(dirname(__FILE__) . '/../apiserver');
my $work = abs_path($PostgreSQL::Test::Utils::tmp_check) . '/apiserver_008';
my $certdir = "$work/certs";
make_path($certdir);

my $api_h = IPC::Run::start(
	[ 'python3', "$apidir/kube_apiserver.py", '--port', '0', '--cert-dir', $certdir, '--bookmark-interval', '1' ],
	'>', "$work/stdout", '2>', "$work/stderr");
my $api_url;
my $deadline = time + 60;
until ($api_url)
{
	($api_url) = (-e "$work/stdout" ? slurp_file("$work/stdout") : '') =~ /^READY (\S+)/m;
	die "the stand-in API server did not start: " . slurp_file("$work/stderr")
	  if !$api_url && (time > $deadline || !$api_h->pumpable);
	usleep(50_000) unless $api_url;
}
END { if ($api_h) { $api_h->signal('TERM') if $api_h->pumpable; eval { $api_h->finish } } }

sub kreq
{
	my ($method, $path, $body) = @_;
	my ($out, $err) = ('', '');
	# the body on standard input: a 2 MB one is too long for an argument
	IPC::Run::run([ 'python3', "$apidir/kreq.py", "$certdir/server.json", $method, $path,
		(defined $body ? ('@-') : ()) ], '<', \($body // ''), '>', \$out, '2>', \$err)
	  or die "kreq $method $path failed: $err";
	return decode_json($out);
}
sub bulk { kreq('POST', '/debug/bulk', $_[0]) }
sub faults { kreq('POST', '/debug/faults', encode_json($_[0])) }

my $node = PostgreSQL::Test::Cluster->new('main');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'scheduler'
scheduler.database = 'postgres'
scheduler.kube_api_url = '$api_url'
scheduler.kube_token_file = '$certdir/token'
scheduler.kube_ca_file = '$certdir/ca.crt'
log_min_messages = warning
});
$node->start;
sub q1 { $node->safe_psql('postgres', $_[0]) }
q1('CREATE EXTENSION scheduler');

bulk('{"generate": {"nodes": {"count": 20}, "pods": {"count": 100}}}');
ok($node->poll_query_until('postgres', 'SELECT count(*) = 100 FROM scheduler.pods WHERE node_name IS NOT NULL'),
	'100 pods mirrored and bound');
my $watch_pid = q1(q{SELECT pid FROM pg_stat_activity WHERE backend_type = 'scheduler watch'});

# --- 30 fuzzed pod watches and 10 fuzzed node watches, while objects come
faults({ fuzz_watches => 30, fuzz_lines => 20, seed => $seed, match => '/api/v1/pods?watch' });
faults({ fuzz_watches => 10, fuzz_lines => 20, seed => $seed + 1, match => '/api/v1/nodes?watch' });
for my $i (1 .. 60)
{
	faults({ close_watches => JSON::PP::true });
	bulk(sprintf('{"generate": {"pods": {"count": 5, "start": %d}}}', 1000 + 5 * $i));
	bulk(sprintf('{"generate": {"nodes": {"count": 1, "start": %d}}}', 100 + $i)) if $i % 6 == 0;
	usleep(100_000);
	last if !@{ kreq('GET', '/debug/faults')->{fuzz_watches} };
}
$deadline = time + 120;
while (@{ kreq('GET', '/debug/faults')->{fuzz_watches} } && time < $deadline)
{
	faults({ close_watches => JSON::PP::true });
	usleep(300_000);
}
is(scalar @{ kreq('GET', '/debug/faults')->{fuzz_watches} }, 0, 'all 40 fuzzed watches were served');

# --- a 2 MB object
my $big = 'x' x (2 * 1024 * 1024);
bulk(encode_json({ pods => [ { metadata => { name => 'big-annotation', namespace => 'default',
	annotations => { 'example.com/blob' => $big } },
	spec => { containers => [ { name => 'c', image => 'registry.k8s.io/pause:3.9' } ] } } ] }));
ok($node->poll_query_until('postgres',
		q{SELECT length(object #>> '{metadata,annotations,example.com/blob}') = 2097152 FROM scheduler.pods WHERE name = 'big-annotation'}),
	'a pod with a 2 MB annotation is mirrored whole');

# --- a stall: nothing for 3 s, then the events
faults({ stall_watch_seconds => 3 });
bulk('{"generate": {"pods": {"count": 10, "prefix": "after-stall-"}}}');
ok($node->poll_query_until('postgres', q{SELECT count(*) = 10 FROM scheduler.pods WHERE name LIKE 'after-stall-%'}),
	'after a 3 s stall the events arrive');

# --- the end: the tables are the API server's truth
sub api_names
{
	my ($res) = @_;
	my $list = kreq('GET', "/api/v1/$res");
	return join("\n", sort map { $_->{metadata}{name} . ' ' . ($_->{spec}{nodeName} // '') } @{ $list->{items} });
}
my $want_pods = api_names('pods');
my $want_nodes = api_names('nodes');
$deadline = time + 120;
my ($pods, $nodes) = ('', '');
while (time < $deadline)
{
	$pods = q1(q{SELECT string_agg(name || ' ' || coalesce(node_name, ''), E'\n' ORDER BY name || ' ' || coalesce(node_name, '') COLLATE "C") FROM scheduler.pods});
	$nodes = q1(q{SELECT string_agg(name || ' ', E'\n' ORDER BY name || ' ' COLLATE "C") FROM scheduler.nodes});
	$want_pods = api_names('pods');
	last if $pods eq $want_pods && $nodes eq $want_nodes;
	usleep(500_000);
}
is($pods, $want_pods, 'the pods table is the API\'s pods, with their nodeName');
is($nodes, $want_nodes, 'the nodes table is the API\'s nodes');
is(q1(q{SELECT count(*) FROM scheduler.pods WHERE name LIKE 'fuzz-%'}) + q1(q{SELECT count(*) FROM scheduler.nodes WHERE name LIKE 'fuzz-%'}),
	0, 'no fuzzed object reached the tables');
is(q1(q{SELECT pid FROM pg_stat_activity WHERE backend_type = 'scheduler watch'}), $watch_pid,
	'the watch worker is the same process: it never crashed');

my $log = slurp_file($node->logfile);
my $skipped = () = $log =~ /WARNING:  scheduler watch: skipped a (?:pods|nodes) event that cannot be applied: \S/g;
cmp_ok($skipped, '>=', 40 * 20, "every bad event was skipped with a WARNING naming why ($skipped)");
like($log, qr/skipped a pods event that cannot be applied: pod default\/fuzz-\d+: spec\.\S+/,
	'the WARNING names the object and the field');
my @torn = $log =~ /(malformed line in watch stream of \w+: .*)/g;
ok(@torn > 0, scalar(@torn) . ' lines that were not JSON were logged');
ok(!(grep { length($_) > 400 || /[^\x20-\x7e]/ } @torn), 'each logged cut short and escaped (printable ASCII)');
unlike($log, qr/PANIC|terminated by signal|server process .* was terminated/, 'no crash in the log');

$node->stop;
done_testing();
