# Volumes against the API server, one pod of each case through to its
# Binding, as kube-scheduler's VolumeBinding, VolumeRestrictions and
# NodeVolumeLimits take them:
#   - a claim bound to a volume in zone b: the pod goes to zone b, with a
#     binding alone (allBound: PreBind has nothing to do);
#   - a WaitForFirstConsumer claim and an Available volume: PreBind patches
#     the volume's claimRef, the PV controller binds the claim, and only then
#     is the Binding sent;
#   - a WaitForFirstConsumer claim to provision: PreBind annotates it
#     volume.kubernetes.io/selected-node, the provisioner makes a volume in
#     the node's zone, then the Binding;
#   - a provisioner that refuses and removes selected-node: the binding
#     fails ("provisioning failed for PVC"), the pod is forgotten and
#     requeued, and it is never bound;
#   - a ReadWriteOncePod claim used by a bound pod: the second pod is
#     unschedulable (VolumeRestrictions);
#   - a CSI driver's allocatable.count reached on every node: the pod is
#     unschedulable (NodeVolumeLimits);
# the bind worker killed between a PreBind write and the Binding loses
# nothing: the pod is bound once, after its claim; and a waiting binding
# whose pod or claim is deleted fails at once, with checkBindings' words.
use strict;
use warnings;
use JSON::PP;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use StandIn;
use Test::More;

plan skip_all => "a real kube-apiserver alone has no PV controller and no provisioner to bind and make volumes" if StandIn->real;
use Time::HiRes qw(time);

my $api = StandIn->new('apiserver_015');
sub k { $api->kjson(@_) }

my $LIMITED = 'limited.csi.example.com';
for my $n (['node-a', 'a'], ['node-b', 'b'])
{
	my ($name, $zone) = @$n;
	k('POST', '/api/v1/nodes', { kind => 'Node', apiVersion => 'v1',
		metadata => { name => $name, labels => { 'kubernetes.io/hostname' => $name,
			'topology.kubernetes.io/zone' => $zone } },
		status => { capacity => { cpu => '8', memory => '16Gi', pods => '110' } } });
	k('POST', '/apis/storage.k8s.io/v1/csinodes', { kind => 'CSINode', apiVersion => 'storage.k8s.io/v1',
		metadata => { name => $name },
		spec => { drivers => [ { name => $LIMITED, nodeID => $name, allocatable => { count => 1 } } ] } });
}
sub storage_class
{
	my ($name, $provisioner, $mode) = @_;
	k('POST', '/apis/storage.k8s.io/v1/storageclasses', { kind => 'StorageClass', apiVersion => 'storage.k8s.io/v1',
		metadata => { name => $name }, provisioner => $provisioner, volumeBindingMode => $mode });
}
storage_class('static', 'kubernetes.io/no-provisioner', 'WaitForFirstConsumer');
storage_class('immediate', 'kubernetes.io/no-provisioner', 'Immediate');
storage_class('fast', 'disk.example.com', 'WaitForFirstConsumer');

# a volume of 10Gi: in a zone (label and node affinity), pre-bound to a
# claim, or a CSI volume of a driver
sub volume
{
	my ($name, %o) = @_;
	my $spec = { storageClassName => $o{class}, accessModes => [ $o{mode} // 'ReadWriteOnce' ],
		capacity => { storage => '10Gi' } };
	if ($o{driver}) { $spec->{csi} = { driver => $o{driver}, volumeHandle => "h-$name" }; }
	else { $spec->{hostPath} = { path => "/data/$name" }; }
	$spec->{claimRef} = { namespace => 'default', name => $o{claim} } if $o{claim};
	my $labels = {};
	if ($o{zone})
	{
		$labels->{'topology.kubernetes.io/zone'} = $o{zone};
		$spec->{nodeAffinity} = { required => { nodeSelectorTerms => [ { matchExpressions => [
			{ key => 'topology.kubernetes.io/zone', operator => 'In', values => [ $o{zone} ] } ] } ] } };
	}
	k('POST', '/api/v1/persistentvolumes', { kind => 'PersistentVolume', apiVersion => 'v1',
		metadata => { name => $name, labels => $labels }, spec => $spec });
}
sub claim
{
	my ($name, %o) = @_;
	my $spec = { storageClassName => $o{class}, accessModes => [ $o{mode} // 'ReadWriteOnce' ],
		resources => { requests => { storage => '5Gi' } } };
	$spec->{volumeName} = $o{volume} if $o{volume};
	k('POST', '/api/v1/namespaces/default/persistentvolumeclaims', { kind => 'PersistentVolumeClaim',
		apiVersion => 'v1', metadata => { name => $name }, spec => $spec });
}
sub pod
{
	my ($name, @claims) = @_;
	my $i = 0;
	k('POST', '/api/v1/namespaces/default/pods', { kind => 'Pod', apiVersion => 'v1',
		metadata => { name => $name },
		spec => { containers => [ { name => 'c', image => 'pause' } ],
			volumes => [ map { { name => 'v' . $i++, persistentVolumeClaim => { claimName => $_ } } } @claims ] } });
}
sub node_of { k('GET', "/api/v1/namespaces/default/pods/$_[0]")->{spec}{nodeName} // '' }
sub wait_bound
{
	my ($name, $secs) = @_;
	for (1 .. ($secs // 60) * 10)
	{
		my $n = node_of($name);
		return $n if $n ne '';
		select(undef, undef, undef, 0.1);
	}
	return '';
}
# the API requests the scheduler made for pod NAME, its claims and volumes
# (PATCHes and the binding), in order: "METHOD path code"
sub requests_for
{
	my (@paths) = @_;
	my @r;
	for my $q (@{ k('GET', '/debug/requests') })
	{
		next unless $q->{method} eq 'PATCH' || $q->{method} eq 'POST';
		next unless grep { index($q->{path}, $_) >= 0 } @paths;
		push @r, $q;
	}
	return @r;
}
sub show { join(', ', map { "$_->{method} $_->{path} $_->{code}" } @_) }

# setup: a claim bound to a volume in zone b; an RWOP claim bound; a volume
# for the static claim in zone a; three CSI volumes of the limited driver,
# bound to three claims
volume('pv-bound', class => 'immediate', zone => 'b', claim => 'bound');
claim('bound', class => 'immediate', volume => 'pv-bound');
volume('pv-single', class => 'immediate', claim => 'single', mode => 'ReadWriteOncePod');
claim('single', class => 'immediate', volume => 'pv-single', mode => 'ReadWriteOncePod');
volume('pv-static', class => 'static', zone => 'a');
claim('static', class => 'static');
for my $i (1 .. 3)
{
	volume("pv-lim-$i", class => 'immediate', driver => $LIMITED, claim => "lim-$i");
	claim("lim-$i", class => 'immediate', volume => "pv-lim-$i");
}
for my $c ('bound', 'single', 'lim-1', 'lim-2', 'lim-3')
{
	ok($api->pvc('default', $c)->{metadata}{annotations}{'pv.kubernetes.io/bind-completed'},
		"the stand-in's PV controller bound claim $c");
}

my $node = PostgreSQL::Test::Cluster->new('main');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'scheduler'\nscheduler.database = 'postgres'\n"
	  . "scheduler.pod_initial_backoff = '200ms'\nscheduler.pod_max_backoff = '1s'\nrestart_after_crash = on\n"
	  . $api->conf);
$node->start;
sub q1 { $node->safe_psql('postgres', $_[0]) }
q1('CREATE EXTENSION scheduler');
ok($node->poll_query_until('postgres',
	q{SELECT (SELECT count(*) FROM scheduler.persistent_volume_claims WHERE bound) = 5
	   AND (SELECT count(*) FROM scheduler.csi_nodes) = 2 AND (SELECT count(*) FROM scheduler.storage_classes) = 3}),
	'claims, volumes, CSINodes and classes are mirrored');

# 1. a bound claim in zone b: a binding alone, to zone b
pod('p-bound', 'bound');
is(wait_bound('p-bound'), 'node-b', 'a pod whose claim is bound to a volume in zone b goes to zone b');
is(q1(q{SELECT string_agg(kind, ',' ORDER BY id) FROM scheduler.outbox WHERE name = 'p-bound' AND kind <> 'event'}),
	'binding', 'all its claims bound: a binding alone');

# 2. a static volume the scheduler binds: PATCH the volume, then the binding
pod('p-static', 'static');
is(wait_bound('p-static'), 'node-a', 'a WaitForFirstConsumer claim goes where its only volume is');
is(q1(q{SELECT string_agg(kind || ' ' || CASE kind WHEN 'binding' THEN node ELSE object END || ' ' || state, ', ' ORDER BY id)
	FROM scheduler.outbox WHERE name = 'p-static' AND kind <> 'event'}), 'volume pv-static done, binding node-a done',
	'outbox: the volume\'s claimRef (PreBind), then the binding');
my @r = requests_for('/persistentvolumes/pv-static', '/pods/p-static/binding');
is(show(@r), 'PATCH /api/v1/persistentvolumes/pv-static 200, POST /api/v1/namespaces/default/pods/p-static/binding 201',
	'the API server got the PATCH of the volume, then the binding');
my $pv = $api->pv('pv-static');
is($pv->{spec}{claimRef}{name} . ' ' . $pv->{metadata}{annotations}{'pv.kubernetes.io/bound-by-controller'}, 'static yes',
	'the volume\'s claimRef names the claim, bound-by-controller');
is($api->pvc('default', 'static')->{spec}{volumeName}, 'pv-static', 'and the PV controller bound the claim to it');

# 3. a claim to provision: selected-node, then the binding
claim('dyn', class => 'fast');
pod('p-dyn', 'dyn');
my $dyn_node = wait_bound('p-dyn');
ok($dyn_node ne '', 'a pod whose claim is provisioned is bound');
is(q1(q{SELECT string_agg(kind || ' ' || CASE kind WHEN 'binding' THEN '-' ELSE coalesce(object, '-') END || ' ' || state, ', ' ORDER BY id)
	FROM scheduler.outbox WHERE name = 'p-dyn' AND kind <> 'event'}), 'claim dyn done, binding - done',
	'outbox: the claim\'s selected-node (PreBind), then the binding');
@r = requests_for('/persistentvolumeclaims/dyn', '/pods/p-dyn/binding');
is(show(@r), 'PATCH /api/v1/namespaces/default/persistentvolumeclaims/dyn 200, POST /api/v1/namespaces/default/pods/p-dyn/binding 201',
	'the API server got the PATCH of the claim, then the binding');
my $dyn = $api->pvc('default', 'dyn');
is($dyn->{metadata}{annotations}{'volume.kubernetes.io/selected-node'}, $dyn_node, 'selected-node is the pod\'s node');
ok($dyn->{metadata}{annotations}{'pv.kubernetes.io/bind-completed'} && $dyn->{spec}{volumeName},
	'the provisioner made a volume and the claim is bound to it');

# 4. the provisioner refuses: forgotten and requeued, never bound
$api->provision_fail(1, '/persistentvolumeclaims/refused');
claim('refused', class => 'fast');
pod('p-refused', 'refused');
ok($node->poll_query_until('postgres',
	q{SELECT count(*) >= 2 FROM scheduler.outbox WHERE name = 'p-refused' AND kind = 'binding' AND state = 'failed'}),
	'the refused pod\'s bindings fail, attempt after attempt');
is(q1(q{SELECT last_error FROM scheduler.outbox WHERE name = 'p-refused' AND kind = 'binding' ORDER BY id LIMIT 1}),
	'running PreBind plugin "VolumeBinding": binding volumes: provisioning failed for PVC "refused"',
	'with kube-scheduler\'s PreBind error');
is(q1(q{SELECT count(*) FROM scheduler.outbox WHERE name = 'p-refused' AND kind = 'binding' AND last_status IS NOT NULL}),
	0, 'none of them was sent');
ok(scalar(grep { $_->{reason} eq 'FailedScheduling' && $_->{involvedObject}{name} eq 'p-refused'
	&& $_->{message} =~ /provisioning failed for PVC "refused"/ } @{ k('GET', '/api/v1/namespaces/default/events')->{items} }),
	'a FailedScheduling event says so');
# (each failed binding forgot the pod: it was tried again, and failed again)
ok($node->poll_query_until('postgres',
	q{SELECT q.state = 'backoff' AND q.attempts >= 2 FROM scheduler.queue q
	  JOIN scheduler.pods p ON p.uid = q.pod_uid WHERE p.name = 'p-refused'}),
	'each failure hands it back in backoff, its attempts counted (kube-scheduler\'s failed binding cycle)');
is(q1(q{SELECT node_name IS NULL FROM scheduler.pods WHERE name = 'p-refused'}), 't', 'the pod is pending');
ok($node->poll_query_until('postgres',
	q{SELECT queue = 'backoff' AND message = 'running PreBind plugin "VolumeBinding": binding volumes: provisioning failed for PVC "refused"'
	  FROM scheduler.pending_pods WHERE name = 'p-refused'}),
	'pending_pods shows its latest attempt: the failure, while it backs off');
is(node_of('p-refused'), '', 'and never bound');

# 5. ReadWriteOncePod: the second user of the claim is unschedulable
pod('rwop-1', 'single');
ok(wait_bound('rwop-1') ne '', 'the first pod of the ReadWriteOncePod claim is bound');
ok($node->poll_query_until('postgres', q{SELECT node_name IS NOT NULL FROM scheduler.pods WHERE name = 'rwop-1'}),
	'its binding is mirrored');
pod('rwop-2', 'single');
ok($node->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM scheduler.outbox WHERE name = 'rwop-2' AND kind = 'condition' AND state = 'done'}),
	'the second one\'s condition was sent');
my ($c) = grep { $_->{type} eq 'PodScheduled' }
  @{ k('GET', '/api/v1/namespaces/default/pods/rwop-2')->{status}{conditions} // [] };
like($c->{message}, qr/^0\/2 nodes are available: 2 node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode\./,
	'unschedulable: VolumeRestrictions\' ReadWriteOncePod conflict');
is(node_of('rwop-2'), '', 'never bound');

# 6. a CSINode limit reached on both nodes: the third pod is unschedulable
pod('lim-1', 'lim-1');
pod('lim-2', 'lim-2');
my @lim = sort(wait_bound('lim-1'), wait_bound('lim-2'));
is("@lim", 'node-a node-b', 'one CSI volume of the limited driver on each node');
ok($node->poll_query_until('postgres',
	q{SELECT count(*) = 2 FROM scheduler.pods WHERE name IN ('lim-1', 'lim-2') AND node_name IS NOT NULL}),
	'their bindings are mirrored');
pod('lim-3', 'lim-3');
ok($node->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM scheduler.outbox WHERE name = 'lim-3' AND kind = 'condition' AND state = 'done'}),
	'the third one\'s condition was sent');
($c) = grep { $_->{type} eq 'PodScheduled' }
  @{ k('GET', '/api/v1/namespaces/default/pods/lim-3')->{status}{conditions} // [] };
like($c->{message}, qr/^0\/2 nodes are available: 2 node\(s\) exceed max volume count\./,
	'unschedulable: NodeVolumeLimits\' volume count');
is(node_of('lim-3'), '', 'never bound');

# 7. the bind worker killed between PreBind's write and the Binding
$api->provision_hold(1, '/persistentvolumeclaims/held');
claim('held', class => 'fast');
pod('p-held', 'held');
ok($node->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM scheduler.outbox r JOIN scheduler.outbox b ON b.pod_uid = r.pod_uid
	  WHERE r.name = 'p-held' AND r.kind = 'claim' AND r.state = 'done' AND b.kind = 'binding' AND b.state = 'pending'}),
	'the claim is annotated, and the binding waits for it');
my $bind_pid = q1(q{SELECT pid FROM pg_stat_activity WHERE backend_type = 'scheduler bind'});
ok($bind_pid =~ /^\d+$/ && kill('KILL', $bind_pid), 'SIGKILL of the bind worker');
ok($node->poll_query_until('postgres',
	qq{SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'scheduler bind' AND pid <> $bind_pid}),
	'a bind worker is back');
sleep 2;
is(node_of('p-held'), '', 'the pod is not bound while its claim is not');
my $released = time;
$api->provision_hold(0);
ok(wait_bound('p-held') ne '', 'the claim provisioned, the pod is bound');
@r = requests_for('/pods/p-held/binding');
is(scalar(@r), 1, 'its binding was sent once');
ok($r[0]{time} >= $released, 'after the claim was bound');
is(q1(q{SELECT string_agg(kind || ' ' || state, ', ' ORDER BY id) FROM scheduler.outbox WHERE name = 'p-held' AND kind <> 'event'}),
	'claim done, binding done', 'outbox: the claim, then the binding, each once');
my $held = $api->pvc('default', 'held');
is($held->{spec}{volumeName} ? 'bound' : 'unbound', 'bound', 'the claim is bound');

# 8. what checkBindings finds gone while the binding waits, with its words:
# the pod deleted, then a claim to provision deleted
$api->provision_hold(1, '/persistentvolumeclaims/gone-');
claim('gone-1', class => 'fast');
pod('p-gone', 'gone-1');
claim('gone-2', class => 'fast');
pod('p-claim-gone', 'gone-2');
ok($node->poll_query_until('postgres',
	q{SELECT count(*) = 2 FROM scheduler.outbox r JOIN scheduler.outbox b ON b.pod_uid = r.pod_uid
	  WHERE r.name IN ('p-gone', 'p-claim-gone') AND r.kind = 'claim' AND r.state = 'done'
	  AND b.kind = 'binding' AND b.state = 'pending'}),
	'both claims annotated, both bindings waiting');
k('DELETE', '/api/v1/namespaces/default/pods/p-gone');
k('DELETE', '/api/v1/namespaces/default/persistentvolumeclaims/gone-2');
ok($node->poll_query_until('postgres',
	q{SELECT count(*) = 2 FROM scheduler.outbox WHERE name IN ('p-gone', 'p-claim-gone')
	  AND kind = 'binding' AND state = 'failed'}),
	'both bindings fail before their deadline');
is(q1(q{SELECT last_error FROM scheduler.outbox WHERE name = 'p-gone' AND kind = 'binding'}),
	'running PreBind plugin "VolumeBinding": binding volumes: pod does not exist any more: pod "p-gone" not found',
	'the pod deleted: kube-scheduler\'s "pod does not exist any more"');
is(q1(q{SELECT last_error FROM scheduler.outbox WHERE name = 'p-claim-gone' AND kind = 'binding' ORDER BY id LIMIT 1}),
	'running PreBind plugin "VolumeBinding": binding volumes: failed to check provisioning pvc: '
	  . 'could not find v1.PersistentVolumeClaim "default/gone-2"',
	'the claim deleted: the assume cache\'s "could not find"');
is(join(',', map { $_->{path} } requests_for('/pods/p-gone/binding', '/pods/p-claim-gone/binding')), '',
	'neither binding was sent');
$api->provision_hold(0);

# 9. two pods of one WaitForFirstConsumer claim, placed in one call: the
# first one's PreBind annotates the claim, the second follows it to that
# node (no request of its own) and waits for the claim as the first does;
# neither fails while the provisioner has not got to the claim
$api->provision_hold(1, '/persistentvolumeclaims/shared');
claim('shared', class => 'fast', mode => 'ReadWriteMany');
ok($node->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM scheduler.persistent_volume_claims WHERE name = 'shared'}), 'the shared claim is mirrored');
# created together (the stand-in publishes a bulk create at once): mirrored
# in one batch, and placed in one call
k('POST', '/debug/bulk', { pods => [ map { { kind => 'Pod', apiVersion => 'v1',
	metadata => { name => $_, namespace => 'default' },
	spec => { containers => [ { name => 'c', image => 'pause' } ],
		volumes => [ { name => 'v0', persistentVolumeClaim => { claimName => 'shared' } } ] } } } ('share-1', 'share-2') ] });
ok($node->poll_query_until('postgres',
	q{SELECT count(*) = 2 FROM scheduler.outbox WHERE name IN ('share-1', 'share-2') AND kind = 'binding'}),
	'both pods placed, their bindings written');
sleep 3;
is(q1(q{SELECT count(*) FROM scheduler.outbox WHERE name IN ('share-1', 'share-2') AND kind = 'binding' AND state = 'failed'}),
	0, 'neither binding fails while the claim waits for its volume');
$api->provision_hold(0);
my @share = (wait_bound('share-1'), wait_bound('share-2'));
ok($share[0] ne '' && $share[0] eq $share[1], 'both bound, on the node the claim was provisioned for');
is($api->pvc('default', 'shared')->{metadata}{annotations}{'volume.kubernetes.io/selected-node'}, $share[0],
	'the claim\'s selected-node is that node');

# 10. a PreBind PATCH the server is slow to answer, past the binding's
# deadline (VolumeBinding's bindTimeoutSeconds, 2 s here): the binding fails
# ("context deadline exceeded"), and the PATCH, sent, is recorded with its
# answer when it comes, not closed as "not sent".  The bind worker claims
# nothing new while a PreBind PATCH is out (the claim settles the waiting
# bindings, and a failed one closes its pod's PreBind requests still
# pending), even when another pod's binding falls due meanwhile (p-plain).
q1(q{UPDATE scheduler.profile_plugins SET args = '{"bindTimeoutSeconds": 2}'
	WHERE scheduler_name = 'default-scheduler' AND plugin = 'VolumeBinding'});
$api->faults({ latency_ms => 5000, match => '/persistentvolumeclaims/slow-b', method => 'PATCH' });
claim('slow-a', class => 'fast');
claim('slow-b', class => 'fast');
ok($node->poll_query_until('postgres',
	q{SELECT count(*) = 2 FROM scheduler.persistent_volume_claims WHERE name IN ('slow-a', 'slow-b')}),
	'the two claims are mirrored');
pod('p-slow', 'slow-a', 'slow-b');
ok($node->poll_query_until('postgres',
	q{SELECT count(*) = 2 FROM scheduler.outbox WHERE name = 'p-slow' AND kind = 'claim'}),
	'p-slow placed: a selected-node PATCH for each of its claims');
select(undef, undef, undef, 2.5);	# slow-b's sent, held 5 s by the server; the deadline passed
pod('p-plain');
ok(wait_bound('p-plain') ne '', 'a pod made meanwhile is bound');
ok($node->poll_query_until('postgres',
	q{SELECT state = 'failed' FROM scheduler.outbox WHERE name = 'p-slow' AND kind = 'binding' ORDER BY id LIMIT 1}),
	'p-slow\'s binding fails');
is(q1(q{SELECT last_error FROM scheduler.outbox WHERE name = 'p-slow' AND kind = 'binding' ORDER BY id LIMIT 1}),
	'running PreBind plugin "VolumeBinding": binding volumes: context deadline exceeded', 'past its deadline');
is(q1(q{SELECT string_agg(object || ' ' || state || ' ' || coalesce(last_status::text, '-'), ', ' ORDER BY object)
		FROM (SELECT * FROM scheduler.outbox WHERE name = 'p-slow' AND kind = 'claim' ORDER BY id LIMIT 2) r}),
	'slow-a done 200, slow-b done 200', 'both PATCHes recorded with their answers, the slow one too');
$api->faults({ clear => JSON::PP::true });
q1(q{UPDATE scheduler.profile_plugins SET args = '{}' WHERE scheduler_name = 'default-scheduler' AND plugin = 'VolumeBinding'});
k('DELETE', '/api/v1/namespaces/default/pods/p-slow');

# every pod bound at most once; the server log has no crash
my %bindings;
$bindings{$1}++ for map { $_->{path} =~ m{/pods/([^/]+)/binding$} ? $1 : () }
  grep { $_->{code} == 201 } @{ k('GET', '/debug/requests') };
my @twice = sort grep { $bindings{$_} > 1 } keys %bindings;
is(join(',', @twice), '', 'no pod bound twice');
diag(show(requests_for(map { "/pods/$_/binding" } @twice))) if @twice;
$node->stop;
my $log = slurp_file($node->logfile);
unlike($log, qr/terminated by signal (?!9)|TRAP:|PANIC/, 'no crash in the server log');
done_testing();
