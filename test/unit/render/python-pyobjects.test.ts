// Salt's #!pyobjects renderer (issue 22) in a real python3: state factories named after state
// modules, requisites by reference and by `with` block, include/extend, the salt/pillar/grains
// helpers calling back, `from salt://x.sls import` and Map, with Salt's high data order (states
// in the order made, each state's arguments sorted by name, include then extend last).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { renderSls } from '../../../src/render/index.js';
import { type Calls, fails, pyEnv } from '../../helpers/py-render.js';

const lines = (...l: string[]) => `${l.join('\n')}\n`;

describe('#!pyobjects', () => {
  test('states in the order made, arguments sorted, requisites given as references, multi-word module names', async () => {
    const text = lines(
      '#!pyobjects',
      "Pkg.installed('nginx', version='1.2', fromrepo='main')",
      "File.managed('/etc/nginx/nginx.conf', source='salt://nginx/nginx.conf', require=Pkg('nginx'), mode='0644')",
      "Service.running('nginx', enable=True, watch=[File('/etc/nginx/nginx.conf')], require_in=Cmd('reload'))",
      "SshAuth.present('deploy-key', user='root', names=['k1'])",
      "Cmd.run('reload', name='nginx -s reload', onchanges=Service('nginx', 'watch'))",
    );
    const data = await renderSls(text, pyEnv());
    assert.deepEqual(Object.keys(data as object), ['nginx', '/etc/nginx/nginx.conf', 'deploy-key', 'reload']);
    assert.deepEqual(data, {
      nginx: {
        'pkg.installed': [{ fromrepo: 'main' }, { version: '1.2' }],
        'service.running': [{ enable: true }, { require_in: [{ cmd: 'reload' }] }, { watch: [{ file: '/etc/nginx/nginx.conf' }] }],
      },
      '/etc/nginx/nginx.conf': { 'file.managed': [{ mode: '0644' }, { require: [{ pkg: 'nginx' }] }, { source: 'salt://nginx/nginx.conf' }] },
      'deploy-key': { 'ssh_auth.present': [{ names: ['k1'] }, { user: 'root' }] },
      reload: { 'cmd.run': [{ name: 'nginx -s reload' }, { onchanges: [{ service: 'nginx' }] }] },
    });
  });

  test('a with block adds its requisite to every state made inside it, nested blocks add both', async () => {
    const text = lines(
      '#!pyobjects',
      "with Pkg.installed('postgresql'):",
      "    Service.running('postgresql')",
      "    with Service('postgresql', 'watch'):",
      "        File.managed('/etc/postgresql/pg.conf', require=Pkg('locales'))",
      "File.absent('/tmp/after')",
    );
    assert.deepEqual(await renderSls(text, pyEnv()), {
      postgresql: { 'pkg.installed': [], 'service.running': [{ require: [{ pkg: 'postgresql' }] }] },
      '/etc/postgresql/pg.conf': { 'file.managed': [{ require: [{ pkg: 'locales' }, { pkg: 'postgresql' }] }, { watch: [{ service: 'postgresql' }] }] },
      '/tmp/after': { 'file.absent': [] },
    });
  });

  test('include() and extend(): include and extend come after the states', async () => {
    const text = lines('#!pyobjects', "include('apache', 'php')", "Service.running(extend('apache'), watch=[File('/etc/php.ini')])", "File.managed('/etc/php.ini', contents='x')");
    const data = await renderSls(text, pyEnv());
    assert.deepEqual(Object.keys(data as object), ['/etc/php.ini', 'include', 'extend']);
    assert.deepEqual(data, {
      '/etc/php.ini': { 'file.managed': [{ contents: 'x' }] },
      include: ['apache', 'php'],
      extend: { apache: { 'service.running': [{ watch: [{ file: '/etc/php.ini' }] }] } },
    });
  });

  test('salt.mod.fn() calls back; pillar(), grains() and config() are answered from the render data', async () => {
    const calls: Calls = { made: [] };
    const text = lines(
      '#!pyobjects',
      "Cmd.run(salt.cmd.run('hostname'), port=pillar('app:port'), os=grains('os'), fc=config('file_client'), missing=pillar('nope', 'dflt'))",
      "Test.nop('dunders', sls=__sls__, pillar_port=__pillar__['app']['port'], grain=__grains__['id'])",
    );
    assert.deepEqual(await renderSls(text, pyEnv(calls)), {
      'ran hostname': { 'cmd.run': [{ fc: 'remote' }, { missing: 'dflt' }, { os: 'Debian' }, { port: 8080 }] },
      dunders: { 'test.nop': [{ grain: 'web01' }, { pillar_port: 8080 }, { sls: 'web' }] },
    });
    assert.deepEqual(calls.made, [['cmd.run', ['hostname'], {}]]);
  });

  test('from salt://x.sls import and import salt://x.sls take names (Map classes too) without the states of that file', async () => {
    const files = {
      'lib/map.sls': lines(
        '#!pyobjects',
        "Pkg.installed('not-kept')",
        'class Nginx(Map):',
        '    class Debian:',
        "        pkg = 'nginx-full'",
        '    class RedHat:',
        "        pkg = 'nginx'",
        "    merge = 'nginx:lookup'",
        'PORT = 8080',
      ),
    };
    const env = pyEnv(undefined, {}, files);
    env.context.pillar = { nginx: { lookup: { conf: '/etc/nginx/custom.conf' } } };
    const text = lines('#!pyobjects', 'from salt://lib/map.sls import Nginx as N, PORT', 'import salt://lib/map.sls', 'Pkg.installed(N.pkg, port=PORT)', 'File.managed(map.Nginx.conf)');
    assert.deepEqual(await renderSls(text, env), {
      'nginx-full': { 'pkg.installed': [{ port: 8080 }] },
      '/etc/nginx/custom.conf': { 'file.managed': [] },
    });
    const missing = await fails(renderSls(lines('#!pyobjects', 'from salt://lib/map.sls import Nope'), env));
    assert.match(missing.message, /^salt:\/\/web\/init\.sls:2: Python error in the '#!pyobjects' renderer: ImportError: 'Nope' was not found in 'salt:\/\/lib\/map\.sls'/);
    const absent = await fails(renderSls(lines('#!pyobjects', 'import salt://lib/none.sls'), env));
    assert.match(absent.message, /ImportError: Could not find the file 'salt:\/\/lib\/none\.sls'/);
  });

  test("the same function twice for one ID is Salt's DuplicateState, with the line; builtins stay builtins", async () => {
    const err = await fails(renderSls(lines('#!pyobjects', "Pkg.installed('vim')", "Pkg.installed('vim')"), pyEnv()));
    assert.equal(err.code, 'RENDER_FAILED');
    assert.match(err.message, /^salt:\/\/web\/init\.sls:3: Python error in the '#!pyobjects' renderer: DuplicateState: A state with id 'vim', type 'pkg.installed' exists/);
    const text = lines('#!pyobjects', 'try:', "    raise ValueError('x')", 'except ValueError as e:', '    Test.nop(str(e), kind=type(e).__name__)');
    assert.deepEqual(await renderSls(text, pyEnv()), { x: { 'test.nop': [{ kind: 'ValueError' }] } });
  });
});
