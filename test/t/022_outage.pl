# An API server outage (issue 16, item 4): each worker logs one line per
# kind of failure, however many times it retries and whatever the numbers
# in the error change (curl's "after N ms", an HTTP/2 stream's number),
# and one line when the API server answers again.  The stand-in is stopped
# for 20 seconds while the watch worker watches and the bind worker has
# bindings to send, then started again on the same port.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use StandIn;
use Test::More;

my $api = StandIn->new('apiserver_022');
my $node = PostgreSQL::Test::Cluster->new('main');
$node->init;
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'scheduler'
scheduler.database = 'postgres'
scheduler.pod_initial_backoff = 0
scheduler.pod_max_backoff = 0
});
$node->append_conf('postgresql.conf', $api->conf);
$node->start;
sub q1 { $node->safe_psql('postgres', $_[0]) }
q1('CREATE EXTENSION scheduler');
$api->kjson('POST', '/debug/bulk', '{"generate": {"nodes": {"count": 3}, "pods": {"count": 3}}}');
ok($node->poll_query_until('postgres', q{SELECT count(*) = 3 FROM scheduler.pods WHERE node_name IS NOT NULL}),
	'before: the pods are bound through the API');

my $log_at = -s $node->logfile;
$api->stop;
# pods the scheduler places meanwhile: bindings the bind worker cannot send
q1(q{SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', jsonb_agg(jsonb_build_object(
    'kind', 'Pod', 'metadata', jsonb_build_object('name', 'during-' || i, 'namespace', 'default', 'uid', 'during-' || i),
    'spec', '{"containers": [{"name": "c", "resources": {"requests": {"cpu": "10m"}}}]}'::jsonb))))
  FROM generate_series(1, 5) i});
ok($node->poll_query_until('postgres', q{SELECT count(*) > 0 FROM scheduler.outbox WHERE kind = 'binding' AND attempts > 0 AND state = 'pending'}),
	'during: the bindings are tried and fail');
sleep 20;
$api->start;
ok($node->wait_for_log(qr/scheduler watch: the API server answers again/, $log_at), 'after: the watch worker says it answers again');
ok($node->wait_for_log(qr/scheduler bind: the API server answers again/, $log_at), 'after: the bind worker too');
sleep 2;

# the lines of the outage, per worker: failures (those a "Retrying" DETAIL
# follows) and recoveries
my @lines = split /\n/, slurp_file($node->logfile, $log_at);
my (%failures, %recoveries);
for my $i (0 .. $#lines)
{
	next unless $lines[$i] =~ /LOG:  scheduler (watch|bind): (.*)$/;
	my ($who, $text) = ($1, $2);
	$recoveries{$who}++ if $text eq 'the API server answers again';
	push @{ $failures{$who} }, $text if ($lines[$i + 1] // '') =~ /DETAIL:  Retrying with backoff/;
}
for my $who (qw(watch bind))
{
	my @f = @{ $failures{$who} // [] };
	note("$who: $_") for @f;
	cmp_ok(scalar @f, '>=', 1, "$who: the outage was logged");
	# a kind: the failure without the request it came from, numbers made #
	my %kinds;
	for (@f)
	{
		(my $k = $_) =~ s/^[^:]*: //;
		$k =~ s/\d+/#/g;
		$kinds{$k}++;
	}
	is(scalar(grep { $_ > 1 } values %kinds), 0, "$who: no kind of failure logged twice (" . scalar(@f) . ' lines)');
	cmp_ok(scalar @f, '<=', 3, "$who: at most three kinds of failure in all");
	is($recoveries{$who}, 1, "$who: one line when it answers again");
}
$node->stop;
done_testing();
