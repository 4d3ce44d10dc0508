// Salt's #!py renderer (issue 22): the SLS file's run() runs in a real python3 with the names
// Salt injects, its __salt__ calls come back to the caller's functions (or are answered from the
// render's own data, as Jinja's salt[...] is), and every failure is a coded error naming the
// file and the Python line, or a timeout that kills the process group.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { renderSls } from '../../../src/render/index.js';
import { BrineError } from '../../../src/util/errors.js';
import { waitUntil } from '../../helpers/cluster.js';
import { type Calls, fails, pyEnv } from '../../helpers/py-render.js';

describe('#!py', () => {
  test("run() sees Salt's names; the order of the dict it returns is the high data's order", async () => {
    const text = [
      '#!py',
      'from collections import OrderedDict',
      'def run():',
      '    ret = OrderedDict()',
      "    ret['zz-first'] = {'test.nop': [{'names': [__sls__, sls, __env__, saltenv, __opts__['id']]}]}",
      "    ret['aa-second'] = {'pkg.installed': [{'name': __grains__['os'] + '/' + grains['id']}, {'port': __pillar__['app']['port']}, {'same': pillar is __pillar__}]}",
      "    ret['mm-third'] = {'file.managed': [{'name': '/tmp/' + __name__}]}",
      '    return ret',
      '',
    ].join('\n');
    const data = await renderSls(text, pyEnv());
    assert.deepEqual(Object.keys(data as object), ['zz-first', 'aa-second', 'mm-third']);
    assert.deepEqual(data, {
      'zz-first': { 'test.nop': [{ names: ['web', 'web', 'base', 'base', 'web01'] }] },
      'aa-second': { 'pkg.installed': [{ name: 'Debian/web01' }, { port: 8080 }, { same: true }] },
      // Salt loads the file as a module named after the file (init.sls -> init)
      'mm-third': { 'file.managed': [{ name: '/tmp/init' }] },
    });
  });

  test("__salt__['mod.fn'], __salt__.mod.fn and salt.mod.fn call the caller's functions with args and kwargs", async () => {
    const calls: Calls = { made: [] };
    const text = [
      '#!py',
      'def run():',
      "    a = __salt__['cmd.run']('hostname', python_shell=False)",
      "    b = __salt__.test.echo('dotted')",
      "    c = salt.cmd.run('uptime')",
      "    return {'out': {'test.nop': [{'a': a}, {'b': b}, {'c': c}]}}",
      '',
    ].join('\n');
    assert.deepEqual(await renderSls(text, pyEnv(calls)), { out: { 'test.nop': [{ a: 'ran hostname' }, { b: 'dotted' }, { c: 'ran uptime' }] } });
    assert.deepEqual(calls.made, [
      ['cmd.run', ['hostname'], { python_shell: false }],
      ['test.echo', ['dotted'], {}],
      ['cmd.run', ['uptime'], {}],
    ]);
  });

  test("pillar.get, grains.get, config.get and grains.filter_by are answered from the render's data, as in a Jinja template", async () => {
    const calls: Calls = { made: [] };
    const text = [
      '#!py',
      'def run():',
      '    return {',
      "        'p': __salt__['pillar.get']('app:name', 'none'),",
      "        'g': __salt__['grains.get']('os'),",
      "        'c': __salt__['config.get']('file_client'),",
      "        'f': __salt__['grains.filter_by']({'Debian': {'pkg': 'apache2'}, 'RedHat': {'pkg': 'httpd'}}),",
      '    }',
      '',
    ].join('\n');
    assert.deepEqual(await renderSls(text, pyEnv(calls)), { p: 'shop', g: 'Debian', c: 'remote', f: { pkg: 'apache2' } });
    assert.deepEqual(calls.made, [], 'none of them reached the minion');
  });

  test("the file's print() and stdin reads do not disturb the protocol, and module-level code runs before Salt's names are set (as in Salt)", async () => {
    const text = [
      '#!py',
      'print(\'{"op": "done", "data": {"forged": 1}}\')',
      'try:',
      '    __salt__',
      '    EARLY = True',
      'except NameError:',
      '    EARLY = False',
      'import sys, subprocess',
      'def run():',
      "    print('chatter')",
      "    stolen = sys.stdin.read() + subprocess.run(['cat'], capture_output=True, text=True).stdout",
      "    return {'early': EARLY, 'cmd': __salt__['cmd.run']('x'), 'stolen': stolen}",
      '',
    ].join('\n');
    // the file's stdin reads (and a child's) see nothing of brine's answers, which stay its own
    assert.deepEqual(await renderSls(text, pyEnv()), { early: false, cmd: 'ran x', stolen: '' });
  });

  test('a failed call back raises in the file: caught, the render goes on; uncaught, its code and the line are in the error', async () => {
    const caught = ['#!py', 'def run():', '    try:', "        __salt__['nosuch.fn']()", '    except Exception as exc:', "        return {'msg': str(exc)}", ''].join('\n');
    assert.deepEqual(await renderSls(caught, pyEnv()), { msg: "'nosuch.fn' is not available on this minion" });
    const err = await fails(renderSls(['#!py', 'def run():', '    x = 1', "    return __salt__['nosuch.fn'](x)", ''].join('\n'), pyEnv()));
    assert.equal(err.code, 'RENDER_FAILED');
    assert.match(err.message, /^salt:\/\/web\/init\.sls:4: Python error in the '#!py' renderer: CommandExecutionError: UNKNOWN_FUNCTION: 'nosuch\.fn' is not available/);
    assert.match(err.message, /\n {2}4 \| {5}return __salt__\['nosuch\.fn'\]\(x\)$/);
    assert.ok(err.cause instanceof BrineError && err.cause.code === 'UNKNOWN_FUNCTION');
  });

  test("an exception names the file's line of the last frame in the file, the whole traceback is in the details", async () => {
    const text = ['#!py', 'def helper(v):', "    raise ValueError('bad value %r' % v)", '', 'def run():', "    return helper('x')", ''].join('\n');
    const err = await fails(renderSls(text, pyEnv()));
    assert.equal(err.code, 'RENDER_FAILED');
    assert.match(err.message, /^salt:\/\/web\/init\.sls:3: Python error in the '#!py' renderer: ValueError: bad value 'x'\n {2}3 \| {5}raise ValueError/);
    assert.equal(err.details.line, 3);
    assert.match(String(err.details.traceback), /line 6, in run[\s\S]*line 3, in helper/);
  });

  test('a syntax error, a missing run() and data that is not SLS data are coded errors with the line', async () => {
    const syntax = await fails(renderSls('#!py\n\ndef run(:\n    return {}\n', pyEnv()));
    assert.equal(syntax.code, 'RENDER_FAILED');
    assert.match(syntax.message, /^salt:\/\/web\/init\.sls:3: Python error in the '#!py' renderer: SyntaxError: /);
    const norun = await fails(renderSls('#!py\nX = 1\n', pyEnv()));
    assert.match(norun.message, /AttributeError: module 'init' has no attribute 'run': a #!py file defines run\(\)/);
    const odd = await fails(renderSls("#!py\ndef run():\n    return {'a': object()}\n", pyEnv()));
    assert.match(odd.message, /TypeError: a value of type object cannot be SLS data/);
  });

  test('sys.exit() in the file is an error with its line; python3 dying outright is RENDER_FAILED with how it ended', async () => {
    const exit = await fails(renderSls("#!py\nimport sys\ndef run():\n    sys.exit('leaving')\n", pyEnv()));
    assert.match(exit.message, /^salt:\/\/web\/init\.sls:4: Python error in the '#!py' renderer: SystemExit: leaving/);
    const died = await fails(renderSls("#!py\nimport os, sys\ndef run():\n    sys.stderr.write('about to die\\n')\n    os._exit(5)\n", pyEnv()));
    assert.equal(died.code, 'RENDER_FAILED');
    assert.match(died.message, /^salt:\/\/web\/init\.sls: python3 exited with code 5 before the '#!py' render ended:\nabout to die$/);
  });

  test('run() returning None is an empty mapping, as Salt skips an SLS that renders to nothing', async () => {
    assert.deepEqual(await renderSls("#!py\ndef run():\n    assert 'app' in __pillar__\n", pyEnv()), {});
  });

  test('a file that runs too long is killed with its process group: RENDER_TIMEOUT, never a hang', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-py-'));
    try {
      const pidFile = path.join(dir, 'child.pid');
      const text = [
        '#!py',
        'import subprocess, time',
        'def run():',
        "    child = subprocess.Popen(['sleep', '300'])",
        `    open(${JSON.stringify(pidFile)}, 'w').write(str(child.pid))`,
        '    time.sleep(300)',
        '',
      ].join('\n');
      const started = Date.now();
      const err = await fails(renderSls(text, pyEnv(undefined, { python: { timeoutMs: 1500 } })));
      assert.equal(err.code, 'RENDER_TIMEOUT');
      assert.match(err.message, /^salt:\/\/web\/init\.sls: the '#!py' renderer's Python code did not finish within 1\.5 s and was killed/);
      assert.ok(Date.now() - started < 10_000);
      const pid = Number(fs.readFileSync(pidFile, 'utf8'));
      await waitUntil(
        () => {
          try {
            process.kill(pid, 0);
            return false;
          } catch {
            return true;
          }
        },
        5000,
        'the sleep the file started to be killed',
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('no python3 on the host: RENDERER_NEEDS_PYTHON saying to install it', async () => {
    const err = await fails(renderSls('#!py\ndef run():\n    return {}\n', pyEnv(undefined, { python: { interpreter: '/nonexistent/bin/python3' } })));
    assert.equal(err.code, 'RENDERER_NEEDS_PYTHON');
    assert.match(
      err.message,
      /^salt:\/\/web\/init\.sls: the '#!py' renderer runs the file's Python code with python3, and there is no \/nonexistent\/bin\/python3 on this host: install it \(apt-get install python3\)$/,
    );
  });
});
