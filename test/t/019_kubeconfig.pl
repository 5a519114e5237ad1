# scheduler.kubeconfig (issue 15): the workers connect as a kubeconfig says,
# as kubectl and client-go would with the same file: a bearer token (inline
# or tokenFile), a client certificate and key (files, relative to the
# kubeconfig's folder, or inline base64 data, which never touches the disk),
# the CA as a file or inline; scheduler.kube_context picks another context.
# An exec credential plugin is refused with a log line that names it, and
# the file is read again after a SIGHUP (a change of file or context).
# The stand-in authenticates a client certificate its CA signed as
# kube-apiserver's --client-ca-file does, and records how each request
# authenticated (/debug/requests).
use strict;
use warnings;
use File::Copy qw(copy);
use File::Path qw(make_path);
use JSON::PP;
use MIME::Base64 qw(encode_base64);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use StandIn;
use Test::More;

my $api = StandIn->new('apiserver_019');
my $url = $api->url;
my $dir = $api->work . '/kube';
make_path($dir);
copy($api->ca_file, "$dir/ca.crt") or die;
copy($api->client_cert_file, "$dir/client.crt") or die;
copy($api->client_key_file, "$dir/client.key") or die;
copy($api->token_file, "$dir/token") or die;
chmod 0600, "$dir/client.key", "$dir/token";
my $token = slurp_file($api->token_file);
chomp $token;
sub b64 { my $s = encode_base64(slurp_file($_[0]), ''); return $s }

sub write_file
{
	my ($name, $text) = @_;
	open(my $f, '>', "$dir/$name") or die "$name: $!";
	print $f $text;
	close $f;
	chmod 0600, "$dir/$name";
	return "$dir/$name";
}

# one file, several contexts: each a way to authenticate
my $kc = write_file('config', <<"EOF");
apiVersion: v1
kind: Config
clusters:
- name: files
  cluster:
    server: $url
    certificate-authority: ca.crt
- name: inline
  cluster:
    server: $url/
    certificate-authority-data: @{[ b64("$dir/ca.crt") ]}
contexts:
- name: token
  context: {cluster: files, user: token}
- name: token-file
  context: {cluster: inline, user: token-file}
- name: cert-files
  context: {cluster: files, user: cert-files}
- name: cert-inline
  context: {cluster: inline, user: cert-inline}
- name: eks
  context: {cluster: files, user: aws}
current-context: token
users:
- name: token
  user:
    token: "$token"
- name: token-file
  user:
    tokenFile: token
- name: cert-files
  user:
    client-certificate: client.crt
    client-key: ./client.key
- name: cert-inline
  user:
    client-certificate-data: @{[ b64("$dir/client.crt") ]}
    client-key-data: @{[ b64("$dir/client.key") ]}
- name: aws
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: aws
      args: [eks, get-token, --cluster-name, prod]
EOF

my $node = PostgreSQL::Test::Cluster->new('main');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'scheduler'
scheduler.database = 'postgres'
scheduler.kubeconfig = '$kc'
});
$node->start;
sub q1 { $node->safe_psql('postgres', $_[0]) }
q1('CREATE EXTENSION scheduler');

is(q1(q{SELECT scheduler.kube_connection() - 'kubeconfig'}),
	qq({"ca": "$dir/ca.crt", "user": "token", "token": "inline", "server": "$url", "source": "kubeconfig", "cluster": "files", "context": "token", "client_certificate": null}),
	'kube_connection() shows what the workers use: the current-context, its cluster and user, no secret');

sub requests { return @{ $api->kjson('GET', '/debug/requests') } }

# a node created in the API, mirrored; then a pod, bound through the API
my $n = 0;
sub round_trip
{
	my ($how) = @_;
	$n++;
	$api->kjson('POST', '/api/v1/nodes',
		qq({"metadata": {"name": "n$n", "labels": {"round": "n$n"}}, "status": {"allocatable": {"cpu": "4", "memory": "4Gi", "pods": "10"}}}));
	$api->kjson('POST', '/api/v1/namespaces/default/pods',
		qq({"metadata": {"name": "p$n"}, "spec": {"nodeSelector": {"round": "n$n"},
		    "containers": [{"name": "c", "image": "x"}]}}));
	ok($node->poll_query_until('postgres',
			qq{SELECT node_name = 'n$n' FROM scheduler.pods WHERE name = 'p$n'}),
		"$how: the node and the pod are mirrored, and the pod bound through the API");
	my ($bind) = grep { $_->{path} =~ m{/pods/p$n/binding$} } requests();
	return $bind ? ($bind->{auth} // 'none') : 'no binding';
}

sub use_context
{
	my ($ctx) = @_;
	$node->append_conf('postgresql.conf', "scheduler.kube_context = '$ctx'\n");
	$node->reload;
	$node->poll_query_until('postgres', "SELECT current_setting('scheduler.kube_context') = '$ctx'");
}

is(round_trip('inline token'), 'token', 'the binding went with the bearer token');

use_context('token-file');
like(q1(q{SELECT scheduler.kube_connection()}), qr{"ca": "inline".*"token": "\Q$dir\E/token"},
	'token-file: the CA inline, the token file relative to the kubeconfig');
is(round_trip('tokenFile and inline CA'), 'token', 'the binding went with the token of the file');

use_context('cert-files');
like(q1(q{SELECT scheduler.kube_connection()}), qr{"token": null.*"client_certificate": "\Q$dir\E/client.crt"},
	'cert-files: no token, the client certificate file');
is(round_trip('client certificate files'), 'certificate', 'the binding went with the client certificate');

use_context('cert-inline');
like(q1(q{SELECT scheduler.kube_connection()}), qr{"ca": "inline".*"client_certificate": "inline"},
	'cert-inline: everything inline');
is(round_trip('inline certificate and key'), 'certificate',
	'the binding went with the inline client certificate');

# inline data never touches the disk: no file in the data directory or /tmp
# holds the key's base64 or PEM text
my $pem = slurp_file("$dir/client.key");
my ($keyline) = grep { length > 20 && !/-----/ } split /\n/, $pem;
my $found = '';
for my $f (glob($node->data_dir . '/* ' . $node->data_dir . '/*/* /tmp/*'))
{
	next unless -f $f && -r $f && -s $f < 10_000_000;
	my $text = eval { slurp_file($f) } // '';
	$found .= "$f " if index($text, $keyline) >= 0;
}
is($found, '', 'the inline key was written to no file');

# exec: refused, named, logged once; nothing sent
my $log_at = -s $node->logfile;
use_context('eks');
ok($node->wait_for_log(qr/user "aws" uses an exec credential plugin \(command "aws"\), which the scheduler does not run/, $log_at),
	'exec: the workers log that the plugin is not run, naming its command');
my $err = $node->psql('postgres', 'SELECT scheduler.kube_connection()', stderr => \my $stderr);
like($stderr, qr/kubeconfig "\Q$kc\E": user "aws" uses an exec credential plugin/, 'kube_connection() says the same');
sleep 2;
my @exec_lines = (slurp_file($node->logfile, $log_at) =~ /scheduler (?:watch|bind): cannot connect: .*exec credential plugin/g);
is(scalar @exec_lines, 2, 'one line per worker (watch and bind), not one per retry');

# both ways set: refused, named
$log_at = -s $node->logfile;
$node->append_conf('postgresql.conf', "scheduler.kube_context = ''\nscheduler.kube_api_url = '$url'\n");
$node->reload;
ok($node->wait_for_log(qr/scheduler.kubeconfig and scheduler.kube_api_url are both set: set one or the other/, $log_at),
	'scheduler.kubeconfig with scheduler.kube_api_url: refused by name');

# a context without a kubeconfig: refused by name, not ignored
$log_at = -s $node->logfile;
$node->append_conf('postgresql.conf', "scheduler.kube_api_url = '$url'\nscheduler.kubeconfig = ''\nscheduler.kube_context = 'prod'\n");
$node->reload;
ok($node->wait_for_log(qr/scheduler.kube_context is set, but scheduler.kubeconfig is not/, $log_at),
	'scheduler.kube_context without scheduler.kubeconfig: refused by name');
$node->append_conf('postgresql.conf', "scheduler.kube_context = ''\nscheduler.kubeconfig = '$kc'\n");

# back to the current context: it works again after the SIGHUP
$node->append_conf('postgresql.conf', "scheduler.kube_api_url = ''\n");
$node->reload;
is(round_trip('after SIGHUP, the current-context again'), 'token', 'the kubeconfig is read again after a reload');

$node->stop;
done_testing();
