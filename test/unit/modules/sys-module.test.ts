import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createDefaultRegistry, globToRegExp } from '../../../src/modules/index.js';
import { makeCtx } from './context.js';

const registry = createDefaultRegistry();
const call = async (fun: string, arg: unknown[] = []) => (await registry.call(fun, arg, {}, makeCtx())).return;

describe('sys module', () => {
  it('list_functions lists every registered function, sorted', async () => {
    const all = (await call('sys.list_functions')) as string[];
    assert.deepEqual(all, registry.list());
    assert.deepEqual(all, [...all].sort());
    for (const name of ['test.ping', 'cmd.run', 'cmd.run_all', 'cmd.retcode', 'grains.items', 'grains.get', 'sys.doc', 'sys.list_functions']) {
      assert.ok(all.includes(name), name);
    }
  });

  it('list_functions filters by module name, glob or exact name', async () => {
    assert.deepEqual(await call('sys.list_functions', ['cmd']), ['cmd.has_exec', 'cmd.retcode', 'cmd.run', 'cmd.run_all', 'cmd.run_bg', 'cmd.shell', 'cmd.which']);
    assert.deepEqual(await call('sys.list_functions', ['cmd.run*']), ['cmd.run', 'cmd.run_all', 'cmd.run_bg']);
    assert.deepEqual(await call('sys.list_functions', ['test.ping', 'grains.l?']), ['grains.ls', 'test.ping']);
    assert.deepEqual(await call('sys.list_functions', ['te']), [], 'a bare word is a whole module name, not a prefix');
  });

  it('list_modules lists module names', async () => {
    // Derived from the registry so that adding a module does not break this test.
    const modules = [...new Set(registry.list().map((n) => n.split('.')[0]!))].sort();
    assert.deepEqual(await call('sys.list_modules'), modules);
    for (const m of ['cmd', 'file', 'grains', 'network', 'pkg', 'service', 'status', 'sys', 'test', 'user', 'group']) assert.ok(modules.includes(m), m);
    assert.deepEqual(
      await call('sys.list_modules', ['[cg]*']),
      modules.filter((m) => /^[cg]/.test(m)),
    );
    assert.deepEqual(await call('sys.list_modules', ['gr*']), ['grains', 'group']);
  });

  it('doc maps each name to "signature\\n\\ndoc"', async () => {
    const doc = (await call('sys.doc', ['test.sleep'])) as Record<string, string>;
    assert.deepEqual(doc, {
      'test.sleep': 'test.sleep(length: number)\n\nSleep for the given number of seconds, then return true; stops when the job is cancelled.',
    });
    const cmd = (await call('sys.doc', ['cmd'])) as Record<string, string>;
    assert.deepEqual(Object.keys(cmd), ['cmd.has_exec', 'cmd.retcode', 'cmd.run', 'cmd.run_all', 'cmd.run_bg', 'cmd.shell', 'cmd.which']);
    assert.match(
      cmd['cmd.run']!,
      /^cmd\.run\(cmd: any, cwd\?: string, stdin\?: string, shell: string = "\/bin\/sh", python_shell: bool = true, env\?: map, rstrip: bool = true, timeout\?: number, \*, runas\?: string\)\n\n/,
    );
    const item = (await call('sys.doc', ['grains.item'])) as Record<string, string>;
    assert.match(item['grains.item']!, /^grains\.item\(\*args, default: any = "", delimiter: string = ":"\)/);
    // Salt's sys.doc takes 'sys.' as the module sys, without matching sysctl
    assert.deepEqual(Object.keys((await call('sys.doc', ['sys.'])) as object), ['sys.doc', 'sys.list_functions', 'sys.list_modules']);
    const all = (await call('sys.doc')) as Record<string, string>;
    assert.deepEqual(Object.keys(all), registry.list());
  });

  it('globs match like fnmatch', () => {
    assert.ok(globToRegExp('a.[!b]*').test('a.cx'));
    assert.ok(!globToRegExp('a.[!b]*').test('a.bx'));
    assert.ok(!globToRegExp('a.b').test('axb'), 'a dot is literal');
    assert.ok(globToRegExp('[x').test('[x'), 'an unclosed bracket is literal');
  });
});
