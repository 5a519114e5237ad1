#!/usr/bin/env python3
"""Write the seed corpus of the libFuzzer harnesses (test/fuzz/harness.c) to
test/fuzz/corpus/<target>/, one input per file, from the SQL fuzzer's
realistic cluster (sqlfuzz.py) and the fixtures.  The corpus is committed;
run this again after changing the seeds:  test/fuzz/make_corpus.py
"""
import hashlib
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import sqlfuzz  # noqa: E402

OUT = os.path.join(HERE, 'corpus')

# the harness's plugin order (args: the first byte picks the plugin)
PLUGINS = [name for name, _, _ in sqlfuzz.read_plugins_def()]
# the harness's status codes (http: the first byte picks the code, and streaming)
CODES = [200, 201, 400, 403, 404, 409, 410, 422, 429, 500, 503, 504]


def js(o):
    return json.dumps(o, separators=(',', ':'), sort_keys=True).encode()


def write(target, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)


def status(code, reason, message):
    return {'kind': 'Status', 'apiVersion': 'v1', 'metadata': {}, 'status': 'Failure',
            'message': message, 'reason': reason, 'code': code}


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    base = sqlfuzz.build_base()
    pods, nodes = base['Pod'], base['Node']
    stor = base['Storage']
    others = base['Namespace'] + base['PodDisruptionBudget'] + base['Workload'] + stor

    # quantity
    for q in ['0', '1', '100m', '1.5', '1.5Gi', '250Mi', '2k', '1Ki', '5Ei', '8Ei', '7.999Ei', '1E3', '1e3',
              '12e-3', '1n', '500u', '.5', '5.', '+1', '-1', '-0.5m', '9223372036854775807',
              '9223372036854775808', '0.000000001', '1.2.3', '1 Gi', 'Gi', '', '1Mi ', '0x10', '1_000',
              '123456789012345678901234567890', '1e-9', '1e18', '1E', '1PiB']:
        write('quantity', q.encode())

    # selector: label selectors, affinity, tolerations, node selectors
    for sel in [{}, {'matchLabels': {'app': 'web'}},
                {'matchExpressions': [{'key': 'app', 'operator': 'In', 'values': ['web', 'db']}]},
                {'matchExpressions': [{'key': 'tier', 'operator': 'NotIn', 'values': ['front']},
                                      {'key': 'zone', 'operator': 'Exists'},
                                      {'key': 'gpu', 'operator': 'DoesNotExist'}]},
                {'matchLabels': {'app': 'web'}, 'matchExpressions': [{'key': 'x', 'operator': 'Exists'}]}]:
        write('selector', js(sel))
    for p in pods:
        spec = p.get('spec', {})
        for key in ('affinity', 'tolerations', 'nodeSelector'):
            if key in spec:
                write('selector', js(spec[key]))
    write('selector', js({'nodeAffinity': {'requiredDuringSchedulingIgnoredDuringExecution': {
        'nodeSelectorTerms': [{'matchExpressions': [{'key': 'gpu', 'operator': 'Gt', 'values': ['3']}]},
                              {'matchFields': [{'key': 'metadata.name', 'operator': 'In', 'values': ['n1']}]}]}}}))
    write('selector', js({'podAntiAffinity': {'requiredDuringSchedulingIgnoredDuringExecution': [
        {'labelSelector': {'matchLabels': {'app': 'web'}}, 'topologyKey': 'kubernetes.io/hostname',
         'namespaceSelector': {'matchLabels': {'team': 'a'}}, 'matchLabelKeys': ['pod-template-hash']}]}}))

    # object: every kind, events, Lists
    for o in pods + nodes + others:
        write('object', js(o))
        write('object', js({'type': 'MODIFIED', 'object': o}))
    write('object', js({'type': 'DELETED', 'object': pods[0]}))
    write('object', js({'type': 'ERROR', 'object': status(410, 'Expired', 'too old resource version')}))
    write('object', js({'kind': 'PodList', 'apiVersion': 'v1', 'metadata': {'resourceVersion': '7'},
                        'items': pods[:3]}))
    write('object', js({'kind': 'NodeList', 'apiVersion': 'v1', 'metadata': {'resourceVersion': '7'},
                        'items': nodes[:2]}))
    for kind in sorted({o['kind'] for o in stor}):
        write('object', js({'kind': kind + 'List', 'apiVersion': next(o['apiVersion'] for o in stor
                                                                       if o['kind'] == kind),
                            'metadata': {'resourceVersion': '8'}, 'items': [o for o in stor if o['kind'] == kind]}))
    write('object', js({'type': 'DELETED', 'object': stor[-1]}))

    # watch: byte 0 picks pods (even) or nodes (odd), byte 1 the chunk size
    def stream(events):
        return b'\n'.join(js(e) for e in events) + b'\n'
    write('watch', b'\x00\x07' + stream([{'type': 'ADDED', 'object': p} for p in pods[:4]]))
    write('watch', b'\x01\x20' + stream([{'type': 'MODIFIED', 'object': n} for n in nodes[:3]]))
    write('watch', b'\x00\x01' + stream([{'type': 'BOOKMARK', 'object': {'kind': 'Pod', 'metadata': {
        'resourceVersion': '12'}}}, {'type': 'DELETED', 'object': pods[1]}]))
    write('watch', b'\x00\x3f' + stream([{'type': 'ADDED', 'object': pods[2]},
                                         {'type': 'ERROR', 'object': status(410, 'Expired', 'too old')}]))
    write('watch', b'\x01\x05' + b'{"type":"ADDED","object":{"kind":"Node"\n' + stream([{'type': 'ADDED',
                                                                                           'object': nodes[0]}]))

    # args: byte 0 picks the plugin
    for name, argss in sqlfuzz.PROFILE_ARGS.items():
        for a in argss:
            write('args', bytes([PLUGINS.index(name)]) + js(a))
    for i in range(len(PLUGINS)):
        write('args', bytes([i]) + b'{}')

    # http: byte 0 picks the status (and, past len(CODES), a streamed body)
    for code in CODES:
        write('http', bytes([CODES.index(code)]) + js(status(code, 'Conflict', 'Operation cannot be fulfilled')))
    write('http', bytes([0]) + js({'kind': 'PodList', 'apiVersion': 'v1', 'metadata': {'resourceVersion': '9'},
                                   'items': pods[:2]}))
    write('http', bytes([len(CODES)]) + stream([{'type': 'ADDED', 'object': pods[3]},
                                                {'type': 'BOOKMARK', 'object': {'kind': 'Pod', 'metadata': {
                                                    'resourceVersion': '13'}}}]))
    write('http', bytes([CODES.index(500)]) + b'<html>internal error</html>')

    # rows: as the tables hold them and the hints read them
    write('rows', js({'name': 'n1', 'labels': {'zone': 'a'}, 'unschedulable': False,
                      'taints': [{'key': 'k', 'value': 'v', 'effect': 'NoSchedule'}],
                      'allocatable': {'cpu': 4000, 'memory': 8589934592, 'pods': 110, 'nvidia.com/gpu': 2}}))
    write('rows', js({'uid': 'u1', 'node': 'n1', 'namespace': 'default', 'labels': {'app': 'web'},
                      'requests': {'cpu': 500, 'memory': 1073741824},
                      'host_ports': [{'port': 80, 'protocol': 'TCP', 'ip': '0.0.0.0'}],
                      'affinity': pods[0].get('spec', {}).get('affinity', {}), 'terminating': False,
                      'counts': True}))
    write('rows', js({'cpu': 9223372036854775807, 'memory': 1}))
    write('rows', js([{'port': 8080}, {'port': 443, 'protocol': 'UDP', 'ip': '10.0.0.1'}]))
    # the storage objects as the volume catalog reads their rows, and the
    # pods' volumes column as the cycle decodes it
    for o in stor:
        write('rows', js(o))
    for p in pods:
        vols = p.get('spec', {}).get('volumes')
        if vols:
            write('rows', js(vols))

    # cycle: small clusters with a pending pod
    def by_name(objs, *names):
        return [o for o in objs if o['metadata']['name'] in names]
    write('cycle', js({'nodes': by_name(nodes, 'zone-a-1', 'zone-b-1', 'small-1'),
                       'pods': by_name(pods, 'cache-0', 'web-a', 'rich-0')}))
    write('cycle', js({'nodes': by_name(nodes, 'zone-a-1', 'zone-b-1'),
                       'pods': by_name(pods, 'batch-low-0', 'batch-low-1', 'batch-low-2', 'preemptor')}))
    write('cycle', js({'nodes': by_name(nodes, 'gpu-1', 'cordoned-1', 'small-1'),
                       'pods': by_name(pods, 'gpu-job', 'db-0', 'never-preempt')}))
    write('cycle', js({'nodes': nodes[:3], 'pods': pods[:6]}))
    # with the storage objects first ("objects": the harness takes 32), and
    # pods with volumes
    def objects_for(ps):
        claims = {(p['metadata']['namespace'], v['persistentVolumeClaim']['claimName'] if 'persistentVolumeClaim' in v
                   else p['metadata']['name'] + '-' + v['name'])
                  for p in ps for v in p['spec'].get('volumes', [])
                  if 'persistentVolumeClaim' in v or 'ephemeral' in v}
        return [o for o in stor if o['kind'] != 'PersistentVolumeClaim' or
                (o['metadata']['namespace'], o['metadata']['name']) in claims][:32]
    zoned = by_name(nodes, 'zone-a-1', 'zone-b-1', 'small-1', 'gpu-1')
    for names in [('local-user', 'dyn-user', 'big-user'), ('fast-user', 'gold-user', 'selected-user', 'half-user'),
                  ('rwop-holder', 'rwop-wanter', 'missing-user'), ('eph-web', 'eph-stolen', 'eph-missing'),
                  ('gce-holder', 'gce-wanter', 'rbd-holder', 'rbd-wanter'),
                  ('iscsi-holder', 'iscsi-wanter', 'inline-csi', 'legacy-user'),
                  ('db-vol-holder', 'db-vol-0', 'train-user')]:
        write('cycle', js({'objects': objects_for(by_name(pods, *names)), 'nodes': zoned,
                           'pods': by_name(pods, *names)}))
    # kubeconfig: what kubectl, kind and the cloud CLIs write, as YAML and JSON
    kc = {'apiVersion': 'v1', 'kind': 'Config', 'current-context': 'a', 'preferences': {},
          'clusters': [{'name': 'c', 'cluster': {'server': 'https://127.0.0.1:6443',
                                                  'certificate-authority-data': 'LS0tLS1CRUdJTg=='}}],
          'contexts': [{'name': 'a', 'context': {'cluster': 'c', 'user': 'u', 'namespace': 'kube-system'}}],
          'users': [{'name': 'u', 'user': {'client-certificate-data': 'LS0t', 'client-key-data': 'LS0t'}}]}
    write('kubeconfig', json.dumps(kc, indent=2).encode())
    write('kubeconfig', b"""apiVersion: v1
clusters:
- cluster:
    certificate-authority: ca.crt   # relative
    server: https://10.0.0.1:6443/
  name: prod
contexts:
- context: {cluster: prod, user: "sa@prod"}
  name: prod
current-context: prod
kind: Config
users:
- name: 'sa@prod'
  user:
    token: "abc\u00e9"
    tokenFile: token
""")
    write('kubeconfig', b"""---
current-context: eks
clusters: [{name: e, cluster: {server: 'https://x', insecure-skip-tls-verify: true}}]
contexts:
  - name: eks
    context:
      cluster: e
      user: aws
users:
  - name: aws
    user:
      exec:
        command: aws
        args: [eks, get-token]
""")
    write('kubeconfig', b'x: [[{a: b}, "c", \'d\'\'e\']]\n- bad\n\tkey: v\n')
    total = sum(len(os.listdir(os.path.join(OUT, t))) for t in os.listdir(OUT))
    print('make_corpus: %d inputs in %s' % (total, OUT))


if __name__ == '__main__':
    main()
