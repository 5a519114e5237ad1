# DefaultPreemption against the API server: a high-priority pod that fits
# nowhere has lower-priority pods deleted through the API (their uid a
# precondition), each after a DisruptionTarget condition (reason
# PreemptionByScheduler, "<scheduler>: preempting to accommodate a higher
# priority pod"), as kube-scheduler's preemption sets it first, is nominated (status.nominatedNodeName), and is bound once
# the victims are gone; a PodDisruptionBudget the API server reports as
# allowing no disruption keeps its pods, even where taking them would be
# cheaper by priority (kube-scheduler's pickOneNodeForPreemption: fewest
# budget violations first).
use strict;
use warnings;
use JSON::PP;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use StandIn;
use Test::More;

# Against a real kube-apiserver (StandIn->real), the harness's
# real_controllers.py plays the disruption controller, and a kubelet that
# finishes a victim's deletion 2 s after it.

my $api = StandIn->new('apiserver_011');
sub k { $api->kjson(@_) }

for my $n ('node-a', 'node-b')
{
	k('POST', '/api/v1/nodes', { kind => 'Node', apiVersion => 'v1',
		metadata => { name => $n, labels => { 'kubernetes.io/hostname' => $n } },
		status => { capacity => { cpu => '2', memory => '8Gi', pods => '110' } } });
}
# node-a: two web pods of priority 5, of ReplicaSet web (2 replicas);
# node-b: two db pods of priority 0, with no controller.  Taking a db pod
# would be cheaper (lower priority), but the db budget allows no
# disruption; the web budget allows one.  (As kube-controller-manager's
# disruption controller counts: a maxUnavailable budget expects its pods'
# controllers' replicas -- over pods with no controller it would allow
# none -- and a pod is healthy when Ready.)
my $rs = k('POST', '/apis/apps/v1/namespaces/default/replicasets', { kind => 'ReplicaSet', apiVersion => 'apps/v1',
	metadata => { name => 'web' },
	spec => { replicas => 2, selector => { matchLabels => { app => 'web' } },
		template => { metadata => { labels => { app => 'web' } },
			spec => { containers => [ { name => 'c', image => 'pause' } ] } } } });
my %uid;
for my $p (['web-1', 'node-a', 5, 'web'], ['web-2', 'node-a', 5, 'web'],
	['db-1', 'node-b', 0, 'db'], ['db-2', 'node-b', 0, 'db'])
{
	my ($name, $nodename, $prio, $app) = @$p;
	my $o = k('POST', '/api/v1/namespaces/default/pods', { kind => 'Pod', apiVersion => 'v1',
		metadata => { name => $name, labels => { app => $app },
			($app eq 'web' ? (ownerReferences => [ { apiVersion => 'apps/v1', kind => 'ReplicaSet', name => 'web',
				uid => $rs->{metadata}{uid}, controller => JSON::PP::true } ]) : ()) },
		spec => { nodeName => $nodename, priority => $prio,
			containers => [ { name => 'c', image => 'pause', resources => { requests => { cpu => '1' } } } ] } });
	$uid{$name} = $o->{metadata}{uid};
	k('PATCH', "/api/v1/namespaces/default/pods/$name/status",
		{ status => { phase => 'Running', conditions => [ { type => 'Ready', status => 'True' } ] } });
}
k('POST', '/apis/policy/v1/namespaces/default/poddisruptionbudgets', { kind => 'PodDisruptionBudget',
	apiVersion => 'policy/v1', metadata => { name => 'db' },
	spec => { minAvailable => 2, selector => { matchLabels => { app => 'db' } } } });
k('POST', '/apis/policy/v1/namespaces/default/poddisruptionbudgets', { kind => 'PodDisruptionBudget',
	apiVersion => 'policy/v1', metadata => { name => 'web' },
	spec => { maxUnavailable => 1, selector => { matchLabels => { app => 'web' } } } });
# (against a real kube-apiserver, a budget's status is written by another
# client, after its creation: awaited)
my $db;
for (1 .. 100)
{
	$db = k('GET', '/apis/policy/v1/namespaces/default/poddisruptionbudgets/db');
	last if ($db->{status}{observedGeneration} // 0) == 1;
	select(undef, undef, undef, 0.1);
}
is(($db->{status}{observedGeneration} // 0) . ' ' . $db->{status}{disruptionsAllowed}, '1 0',
	'the API server allows no db pod to go');
my $web_allowed;
for (1 .. 100)
{
	$web_allowed = k('GET', '/apis/policy/v1/namespaces/default/poddisruptionbudgets/web')->{status}{disruptionsAllowed};
	last if $web_allowed;
	select(undef, undef, undef, 0.1);
}
is($web_allowed, 1, 'and one web pod (of 2 replicas, 1 unavailable allowed)');

my $node = PostgreSQL::Test::Cluster->new('main');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'scheduler'\nscheduler.database = 'postgres'\n"
	  . "scheduler.pod_initial_backoff = '100ms'\n" . $api->conf);
$node->start;
sub q1 { $node->safe_psql('postgres', $_[0]) }
q1('CREATE EXTENSION scheduler');
ok($node->poll_query_until('postgres',
	q{SELECT (SELECT count(*) FROM scheduler.pods) = 4 AND (SELECT string_agg(name || '=' || disruptions_allowed, ',' ORDER BY name) FROM scheduler.pdbs) = 'db=0,web=1'}),
	'pods and budgets are mirrored, with the status the API server computed');

# a deleted victim stays (Terminating) for 2 s, so that its conditions can be read
k('POST', '/debug/faults', { graceful_delete_seconds => 2 }) unless $api->real;
k('POST', '/api/v1/namespaces/default/pods', { kind => 'Pod', apiVersion => 'v1',
	metadata => { name => 'vip' },
	spec => { priority => 1000,
		containers => [ { name => 'c', image => 'pause', resources => { requests => { cpu => '1' } } } ] } });

# the pod is bound to node-a once a web pod is gone; meanwhile, the victim
# carries kube-scheduler's DisruptionTarget condition
my $bound = 0;
my ($disruption, $waiting, $why_row);
for (1 .. 300)
{
	for my $p (@{ k('GET', '/api/v1/namespaces/default/pods')->{items} })
	{
		my ($c) = grep { $_->{type} eq 'DisruptionTarget' } @{ $p->{status}{conditions} // [] };
		$disruption //= { pod => $p->{metadata}{name}, %$c } if $c;
	}
	# while the victim terminates: what pending_pods and why() say of the preemptor
	$waiting //= q1(q{SELECT message FROM scheduler.pending_pods WHERE name = 'vip' AND message LIKE 'nominated%'}) || undef;
	$why_row //= q1(q{SELECT string_agg(node || ' | ' || plugin || ' | ' || reason, '; ')
		FROM scheduler.why('default', 'vip') WHERE plugin = 'DefaultPreemption'}) || undef;
	my $o = k('GET', '/api/v1/namespaces/default/pods/vip');
	if (($o->{spec}{nodeName} // '') ne '') { $bound = $o->{spec}{nodeName}; last; }
	select(undef, undef, undef, 0.1);
}
k('POST', '/debug/faults', { graceful_delete_seconds => 0 }) unless $api->real;
is($bound, 'node-a', 'the high-priority pod is bound where the budget allowed a victim');
my @left = sort map { $_->{metadata}{name} } @{ k('GET', '/api/v1/namespaces/default/pods')->{items} };
is(scalar(grep { /^web-/ } @left), 1, 'exactly one web pod was deleted');
is(join(',', grep { /^db-/ } @left), 'db-1,db-2', 'the db pods, under a budget allowing none, are all there');

# what the scheduler sent
is(q1(q{SELECT count(*) || ' ' || string_agg(DISTINCT state, ',') || ' ' || string_agg(DISTINCT last_status::text, ',')
	FROM scheduler.outbox WHERE kind = 'delete'}), '1 done 200', 'one DELETE, with the victim uid as a precondition, answered 200');
my $victim = q1(q{SELECT name FROM scheduler.outbox WHERE kind = 'delete'});
is(q1(q{SELECT body #>> '{preconditions,uid}' FROM scheduler.outbox WHERE kind = 'delete'}), $uid{$victim},
	'the precondition is the victim\'s uid');
# kube-scheduler's preemption: DisruptionTarget=True on the victim, then its deletion
is($disruption && join(' | ', @$disruption{qw(pod status reason message)}),
	"$victim | True | PreemptionByScheduler | default-scheduler: preempting to accommodate a higher priority pod",
	'the victim had DisruptionTarget=True, PreemptionByScheduler, with kube-scheduler\'s message');
like($waiting // '', qr/^nominated to node "node-a" by preemption: waiting for 1 victim to terminate \(0\/2 nodes are available: /,
	"pending_pods: the preemptor waits for its victim to terminate ($waiting)");
is($why_row, 'node-a | DefaultPreemption | nominated by preemption: waiting for 1 victim to terminate',
	'why(): a row for the nominated node while the victim terminates');
SKIP:
{
	skip 'only the stand-in logs the requests it answers', 1 if $api->real;
	my @calls = grep { $_->{path} =~ m{/pods/\Q$victim\E(/status)?$} && $_->{method} ne 'GET' && $_->{userAgent} =~ /^scheduler\// }
		@{ k('GET', '/debug/requests') };
	is(join(', ', map { "$_->{method} $_->{code}" } @calls), 'PATCH 200, DELETE 200',
		'the victim was patched, then deleted');
}
ok($node->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM scheduler.outbox WHERE kind = 'event' AND body->>'reason' = 'Preempted' AND state = 'done'}),
	'a Preempted event was sent');
my $vip_uid = k('GET', '/api/v1/namespaces/default/pods/vip')->{metadata}{uid};
my @preempted = grep { $_->{reason} eq 'Preempted' } @{ k('GET', '/api/v1/events')->{items} };
is(scalar(@preempted), 1, 'the API server has one Preempted event');
is($preempted[0]{involvedObject}{name} . ' ' . $preempted[0]{message}, "$victim Preempted by pod $vip_uid on node node-a",
	'on the victim, with kube-scheduler\'s message');
is(q1(q{SELECT body #>> '{status,nominatedNodeName}' FROM scheduler.outbox
	WHERE kind = 'condition' AND name = 'vip' ORDER BY id LIMIT 1}), 'node-a',
	'status.nominatedNodeName went out with the PodScheduled condition');
like(q1(q{SELECT message FROM scheduler.attempt_history WHERE name = 'vip' ORDER BY attempted_at LIMIT 1}),
	qr/^0\/2 nodes are available: 2 Insufficient cpu\.$/,
	'the preempting attempt failed with the plain FitError (preemption succeeded: no "preemption:" part)');
is(q1(q{SELECT result FROM scheduler.attempt_history WHERE name = 'vip' ORDER BY attempted_at DESC LIMIT 1}), 'scheduled',
	'and the next attempt bound it');
is(q1(q{SELECT count(*) FROM scheduler.outbox WHERE kind = 'binding' AND name = 'vip' AND state = 'done'}), 1,
	'bound exactly once');

# a pod that may not preempt stays pending with kube-scheduler's message
k('POST', '/api/v1/namespaces/default/pods', { kind => 'Pod', apiVersion => 'v1',
	metadata => { name => 'polite' },
	spec => { priority => 1000, preemptionPolicy => 'Never',
		containers => [ { name => 'c', image => 'pause', resources => { requests => { cpu => '1' } } } ] } });
ok($node->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM scheduler.outbox WHERE kind = 'condition' AND name = 'polite' AND state = 'done'}),
	'the polite pod\'s condition was sent');
my ($c) = grep { $_->{type} eq 'PodScheduled' }
  @{ k('GET', '/api/v1/namespaces/default/pods/polite')->{status}{conditions} // [] };
is($c->{message}, '0/2 nodes are available: 2 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.',
	'PodScheduled says why, preemption part included');

$node->stop;
done_testing();
