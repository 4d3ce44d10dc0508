// Salt's Python renderers end to end (issue 22): a real master and minion. The same states written
// as Jinja+YAML, as #!py, #!pyobjects and #!pydsl compile to the same low chunks on the minion (the
// job worker runs the host script from its bundle), their __salt__ call-backs run real execution
// functions there; a #!py pillar file is rendered on the master with the minion's grains, where
// only the functions a Jinja pillar template may call are answered.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Cluster, waitUntil } from '../helpers/cluster.js';

function write(file: string, data: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data);
}

const JINJA = `nginx:
  pkg.installed:
    - version: '1.2'
    - fromrepo: main
/etc/nginx/nginx.conf:
  file.managed:
    - source: salt://nginx/nginx.conf
    - require:
      - pkg: nginx
    - mode: '0644'
nginx-svc:
  service.running:
    - name: nginx
    - watch:
      - file: /etc/nginx/nginx.conf
greeting:
  cmd.run:
    - name: echo {{ salt['cmd.run']('echo hi') }} from {{ grains['id'] }}
    - unless: test -e /nonexistent-{{ salt['grains.get']('id') }}
`;

const PY = `#!py
def run():
    me = __grains__['id']
    return {
        'nginx': {'pkg.installed': [{'version': '1.2'}, {'fromrepo': 'main'}]},
        '/etc/nginx/nginx.conf': {'file.managed': [
            {'source': 'salt://nginx/nginx.conf'}, {'require': [{'pkg': 'nginx'}]}, {'mode': '0644'}]},
        'nginx-svc': {'service.running': [{'name': 'nginx'}, {'watch': [{'file': '/etc/nginx/nginx.conf'}]}]},
        'greeting': {'cmd.run': [
            {'name': 'echo %s from %s' % (__salt__['cmd.run']('echo hi'), me)},
            {'unless': 'test -e /nonexistent-' + salt.grains.get('id')}]},
    }
`;

const PYOBJECTS = `#!pyobjects
Pkg.installed('nginx', version='1.2', fromrepo='main')
File.managed('/etc/nginx/nginx.conf', source='salt://nginx/nginx.conf', require=Pkg('nginx'), mode='0644')
Service.running('nginx-svc', name='nginx', watch=[File('/etc/nginx/nginx.conf')])
Cmd.run('greeting', name='echo %s from %s' % (salt.cmd.run('echo hi'), grains('id')), unless='test -e /nonexistent-' + __grains__['id'])
`;

const PYDSL = `#!pydsl
state('nginx').pkg.installed(version='1.2', fromrepo='main')
state('/etc/nginx/nginx.conf').file.managed(source='salt://nginx/nginx.conf', mode='0644').require(pkg='nginx')
state('nginx-svc').service.running(name='nginx').watch(file='/etc/nginx/nginx.conf')
me = __grains__['id']
state('greeting').cmd.run('echo %s from %s' % (__salt__['cmd.run']('echo hi'), me), unless='test -e /nonexistent-' + me)
`;

const PILLAR = `#!py
from collections import OrderedDict

def run():
    try:
        __salt__['cmd.run']('id')
        refused = 'ran'
    except Exception as exc:
        refused = str(exc)
    data = OrderedDict()
    data['zeta'] = __grains__['id']
    data['alpha'] = __salt__['grains.get']('id') + '/' + sls
    data['refused'] = refused
    return {'from_py': data}
`;

describe('Python renderers (#!py, #!pyobjects, #!pydsl) on a real master and minion', () => {
  let cluster: Cluster;

  const low = async (sls: string): Promise<Array<Record<string, unknown>>> => {
    const r = await cluster.brine(['run', 'py1', 'state.show_low_sls', sls, '--out', 'json', '-t', '60'], { timeoutMs: 90_000 });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    return (JSON.parse(r.stdout) as Record<string, Array<Record<string, unknown>>>).py1!;
  };

  before(async () => {
    cluster = await Cluster.create();
    const root = path.join(cluster.root, 'master', 'srv');
    write(path.join(root, 'salt', 'web_jinja.sls'), JINJA);
    write(path.join(root, 'salt', 'web_py.sls'), PY);
    write(path.join(root, 'salt', 'web_pyobjects', 'init.sls'), PYOBJECTS);
    write(path.join(root, 'salt', 'web_pydsl.sls'), PYDSL);
    write(path.join(root, 'salt', 'broken.sls'), "#!py\ndef run():\n    return {'a': {'test.nop': []}}[\n");
    write(path.join(root, 'pillar', 'top.sls'), "base:\n  '*':\n    - data\n");
    write(path.join(root, 'pillar', 'data.sls'), PILLAR);
    await cluster.startMaster({ auto_accept: true });
    const minion = cluster.startMinion('py1');
    await minion.waitForOutput(/ready to receive requests/, 30_000);
  });
  after(() => cluster.cleanup());

  it('the same states as Jinja+YAML, #!py, #!pyobjects and #!pydsl give the same low chunks, call-backs run on the minion', async () => {
    const strip = (chunks: Array<Record<string, unknown>>) => chunks.map(({ __sls__, ...rest }) => rest);
    const jinja = await low('web_jinja');
    assert.equal(jinja.length, 4);
    const greeting = jinja.find((c) => c.__id__ === 'greeting');
    assert.equal(greeting?.name, 'echo hi from py1', 'cmd.run ran on the minion');
    assert.deepEqual(strip(await low('web_py')), strip(jinja));
    assert.deepEqual(strip(await low('web_pyobjects')), strip(jinja));
    // pydsl adds Salt's `_slsmod_<sls>` stateconf.set state last
    const pydsl = await low('web_pydsl');
    assert.deepEqual(pydsl.at(-1)?.__id__, '_slsmod_web_pydsl');
    assert.deepEqual(pydsl.at(-1)?.fun, 'set');
    assert.deepEqual(strip(pydsl.slice(0, -1)), strip(jinja));
  });

  it('a Python syntax error in a state file is reported with the file and line, and nothing runs', async () => {
    const r = await cluster.brine(['run', 'py1', 'state.show_low_sls', 'broken', '--out', 'json', '-t', '60'], { timeoutMs: 90_000 });
    assert.notEqual(r.code, 0);
    assert.match(r.stdout + r.stderr, /salt:\/\/broken\.sls:3: Python error in the '#!py' renderer: SyntaxError/);
  });

  it("a #!py pillar file is rendered on the master with the minion's grains; only a template's local functions answer there", async () => {
    const pillar = await waitUntil(
      async () => {
        const r = await cluster.brine(['run', 'py1', 'pillar.items', '--out', 'json', '-t', '30'], { timeoutMs: 60_000 });
        const items = r.stdout.trim() === '' ? undefined : (JSON.parse(r.stdout) as Record<string, Record<string, unknown>>).py1;
        return items?.from_py ? items : undefined;
      },
      60_000,
      'the #!py pillar of py1',
    );
    const data = pillar.from_py as Record<string, unknown>;
    assert.deepEqual(Object.keys(data), ['zeta', 'alpha', 'refused']);
    assert.equal(data.zeta, 'py1');
    assert.equal(data.alpha, 'py1/data');
    assert.match(String(data.refused), /salt\['cmd\.run'\] cannot run in a pillar SLS/);
    assert.equal(pillar._errors, undefined);
  });
});
