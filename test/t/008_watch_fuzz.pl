# The watch stream parser against hostile input (a fuzz test of the C that
# reads outside input: curl's bytes split into lines, lines into JSON, JSON
# into events).  The stand-in's fuzz_watches fault makes each of the next
# watches start with random lines -- JSON that is no applicable event (a
# wrong or missing type, an object of the wrong shape or kind, an invalid
# quantity, effect or name), then sometimes one that is not JSON at all
# (binary, torn, 5000 levels deep), one jsonb cannot hold (a lone
# surrogate), or an ERROR event -- and write every line in random pieces of 1 byte and up, each its
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
use JSON::PP;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use StandIn;
use Test::More;
use Time::HiRes qw(time usleep);

plan skip_all => 'every step here is a fault of the stand-in\'s: a real kube-apiserver runs' if StandIn->real;

my $seed = $ENV{SCHEDULER_TEST_SEED} // (time() ^ $$) % 1_000_000;
diag("fuzz seed $seed (SCHEDULER_TEST_SEED=$seed replays it)");

my $api = StandIn->new('apiserver_008', '--bookmark-interval', '1');
sub kreq { $api->kjson(@_) }
my $deadline;
sub bulk { kreq('POST', '/debug/bulk', $_[0]) }
sub faults { kreq('POST', '/debug/faults', encode_json($_[0])) }

my $node = PostgreSQL::Test::Cluster->new('main');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'scheduler'
scheduler.database = 'postgres'
log_min_messages = warning
});
$node->append_conf('postgresql.conf', $api->conf);
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

# --- a relist resumes from the list's resourceVersion: one 410, one relist.
# With no bookmarks, a node created leaves the pods watch's stored version
# behind; compacted, the pods watch reconnects into a 410 and relists.  (It
# once resumed from the version read before relist() stored the list's,
# got a second 410 here, and without compaction would have replayed older
# events over newer rows.)
faults({ bookmark_interval_seconds => 600 });
faults({ close_watches => JSON::PP::true });
usleep(500_000);
bulk('{"generate": {"nodes": {"count": 1, "prefix": "lonely-"}}}');
ok($node->poll_query_until('postgres', q{SELECT count(*) = 1 FROM scheduler.nodes WHERE name = 'lonely-0'}),
	'a node created, with no bookmarks');
my $mark = -s $node->logfile;
faults({ compact => JSON::PP::true, close_watches => JSON::PP::true });
bulk('{"generate": {"pods": {"count": 3, "prefix": "after-compaction-"}}}');
ok($node->poll_query_until('postgres', q{SELECT count(*) = 3 FROM scheduler.pods WHERE name LIKE 'after-compaction-%'}),
	'compacted: the pods created afterwards arrive');
usleep(1_000_000);
my @expired = slurp_file($node->logfile, $mark) =~ /(the watch of pods expired \(410 Gone\))/g;
is(scalar(@expired), 1, 'the pods watch expired once: relisted, it resumed from the list\'s resourceVersion');
faults({ bookmark_interval_seconds => 1 });

# --- a \u0000 in a string (JSON allows it, the API server keeps it, text
# cannot hold it): mirrored with U+FFFD, not refused again and again
bulk('{"pods": [{"metadata": {"name": "nul-annotation", "namespace": "default", "annotations": {"example.com/x": "a\\u0000b"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}}]}');
ok($node->poll_query_until('postgres', q{SELECT object #>> '{metadata,annotations,example.com/x}' = E'a\\uFFFDb' FROM scheduler.pods WHERE name = 'nul-annotation'}),
	'a pod with \\u0000 in an annotation is mirrored, the NUL as U+FFFD');

# --- a refused watch: its Status body (newline-terminated, as the real
# server's) is the error, not an event
$mark = -s $node->logfile;
faults({ http_500_next => 1, match => '/api/v1/pods?watch', method => 'GET' });
faults({ close_watches => JSON::PP::true });
bulk('{"generate": {"pods": {"count": 1, "prefix": "after-500-"}}}');
ok($node->poll_query_until('postgres', q{SELECT count(*) = 1 FROM scheduler.pods WHERE name = 'after-500-0'}),
	'a watch refused with 500 is opened again');
my $since = slurp_file($node->logfile, $mark);
like($since, qr/watch of pods failed: HTTP 500: Internal error occurred: injected fault/, 'the log has the Status message');
unlike($since, qr/skipped a pods event/, 'and the Status was not taken for an event');

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

# --- an object the API server took but our parser refuses (a quantity past
# int64: apimachinery caps it, we refuse it): skipped on the watch, left out
# of a list, which is applied all the same
# (large, and the last event of its batch, with a resourceVersion: the
# version read from it once lived in memory freed with the rolled-back
# subtransaction, and a crash loop followed where that memory was reused;
# this exercises the path, though on a build without CLOBBER_FREED_MEMORY
# it cannot be sure to catch the old fault)
bulk(encode_json({ pods => [ { metadata => { name => 'out-of-range', namespace => 'default',
	labels => { map { ("l$_" => "v$_") } 1 .. 20000 } },
	spec => { containers => [ { name => 'c', image => 'x', resources => { requests => { cpu => '1e30' } } } ] } } ] }));
$deadline = time + 30;
until (slurp_file($node->logfile) =~ /skipped a pods event that cannot be applied: pod default\/out-of-range: spec\.containers\[0\]\.resources\.requests\[cpu\]: quantity "1e30" is out of range/)
{
	last if time > $deadline;
	usleep(200_000);
}
like(slurp_file($node->logfile), qr/skipped a pods event that cannot be applied: pod default\/out-of-range/,
	'on the watch: skipped, with a WARNING naming the field');
$mark = -s $node->logfile;
# the worker stopped first, then its resourceVersion of pods dropped (it comes
# back after bgw_restart_time, 5 s): dropped first, the version was stored again
# by the worker before it stopped, in one CI run, and its successor resumed
q1(q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'scheduler watch'});
$node->poll_query_until('postgres', q{SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'scheduler watch'})
  or die 'the watch worker did not stop';
q1(q{DELETE FROM scheduler.watch_state WHERE resource = 'pods'});
ok($node->poll_query_until('postgres', q{SELECT count(*) = 1 FROM scheduler.watch_state WHERE resource = 'pods'}),
	'with no resourceVersion stored, the restarted worker lists the pods');
my $relist_log = slurp_file($node->logfile, $mark);
ok($relist_log =~ /the list of pods cannot be applied whole: pod default\/out-of-range/
	  && $relist_log =~ /left out of the list of pods: pod default\/out-of-range/,
	'the list cannot be applied whole: the refused item is left out, with a WARNING');
bulk('{"generate": {"pods": {"count": 2, "prefix": "after-list-"}}}');
ok($node->poll_query_until('postgres', q{SELECT count(*) = 2 FROM scheduler.pods WHERE name LIKE 'after-list-%'}),
	'and the rest was applied: the watch goes on from the list');
is(q1(q{SELECT count(*) FROM scheduler.pods}), scalar(@{ kreq('GET', '/api/v1/pods')->{items} }) - 1,
	'the tables hold every pod but the refused one');

$node->stop;
done_testing();
