// Salt's #!pydsl renderer (issue 22) in a real python3: state declarations in the order made,
// the first positional argument as `name`, requisite methods, the ordered option, include and
// extend, and the `_slsmod_<sls>` stateconf.set state Salt adds last.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { renderSls } from '../../../src/render/index.js';
import { fails, pyEnv } from '../../helpers/py-render.js';

const lines = (...l: string[]) => `${l.join('\n')}\n`;
const MODULE = "<module 'web' from 'salt://web/init.sls'>";
const SLSMOD = { _slsmod_web: { stateconf: ['set', { slsmod: MODULE }] } };

describe('#!pydsl', () => {
  test("the corpus's form: a file.managed declared with its function as first argument, built from pillar and grains", async () => {
    const env = pyEnv();
    env.context.pillar = { auth: { users: { alice: { email: 'a@example.org' } }, groups: { web01: { sudo: ['alice', 'bob'] } } } };
    const text = lines(
      '#!pydsl',
      'root = __pillar__["auth"]["groups"][__grains__["id"]]["sudo"]',
      'lines = ["{0}: {1}".format(n, u["email"]) for n, u in __pillar__["auth"]["users"].items()]',
      'lines.append("root: " + ", ".join(root))',
      "state('/etc/aliases').file('managed', contents='\\n'.join(lines), user='root', mode=644)",
    );
    assert.deepEqual(await renderSls(text, env), {
      '/etc/aliases': { file: ['managed', { contents: 'alice: a@example.org\nroot: alice, bob' }, { user: 'root' }, { mode: 644 }] },
      ...SLSMOD,
    });
  });

  test('name as first argument, requisite methods, __salt__ calls; include and extend come first', async () => {
    const text = lines(
      '#!pydsl',
      "include('base.users', 'nginx')",
      "extend(state('nginx').service.watch(file='/etc/nginx/site'))",
      "pkg = state('tools').pkg.installed(names=['vim', 'git'])",
      "state('hello').cmd.run(__salt__['cmd.run']('echo x'), cwd='/').require(pkg.mod).watch(file='/etc/motd')",
    );
    const data = await renderSls(text, pyEnv());
    assert.deepEqual(Object.keys(data as object), ['include', 'extend', 'tools', 'hello', '_slsmod_web']);
    assert.deepEqual(data, {
      include: [{ base: 'base.users' }, { base: 'nginx' }],
      extend: { nginx: { service: [{ watch: [{ file: '/etc/nginx/site' }] }] } },
      tools: { pkg: ['installed', { names: ['vim', 'git'] }] },
      hello: { cmd: ['run', { name: 'ran echo x' }, { cwd: '/' }, { require: [{ pkg: 'tools' }] }, { watch: [{ file: '/etc/motd' }] }] },
      ...SLSMOD,
    });
  });

  test('__pydsl__.set(ordered=True) makes each state require the one declared before it', async () => {
    const text = lines('#!pydsl', '__pydsl__.set(ordered=True)', "state('a').cmd.run('true')", "state('b').cmd.run('true')", "state('c').file.absent('/tmp/c')");
    assert.deepEqual(await renderSls(text, pyEnv()), {
      a: { cmd: ['run', { name: 'true' }] },
      b: { cmd: ['run', { require: [{ cmd: 'a' }] }, { name: 'true' }] },
      c: { file: ['absent', { require: [{ cmd: 'b' }] }, { name: '/tmp/c' }] },
      _slsmod_web: { stateconf: ['set', { require: [{ file: 'c' }] }, { slsmod: MODULE }] },
    });
  });

  test("running a state while rendering, two functions in one module and a module without a function are Salt's PyDslError, with the line", async () => {
    const run = await fails(renderSls(lines('#!pydsl', "s = state('x')", 's.cmd.run("true")', 's()'), pyEnv()));
    assert.match(run.message, /^salt:\/\/web\/init\.sls:4: Python error in the '#!pydsl' renderer: PyDslError: state\('x'\)\(\) runs a state while rendering/);
    const two = await fails(renderSls(lines('#!pydsl', "state('x').pkg.installed()", "state('x').pkg.removed()"), pyEnv()));
    assert.match(two.message, /:3: .*PyDslError: Multiple state functions\(removed\) not allowed in a state module\(pkg\)!/);
    const none = await fails(renderSls(lines('#!pydsl', "state('x').pkg.require(file='/a')"), pyEnv()));
    assert.match(none.message, /PyDslError: No state function specified for module: pkg/);
  });
});
