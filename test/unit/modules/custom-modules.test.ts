// Custom execution modules from module_dirs: the contract, the documented example, and files that
// are broken in every way a file can be.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDefaultRegistry, loadModuleDirs, type ModuleLoadLogger } from '../../../src/modules/index.js';
import { makeCtx } from './context.js';
import { repoRoot } from '../../helpers/cluster.js';

interface Logged {
  level: string;
  obj: object;
  msg: string;
}

function recorder(): { logger: ModuleLoadLogger; lines: Logged[] } {
  const lines: Logged[] = [];
  const at = (level: string) => (obj: object, msg: string) => void lines.push({ level, obj, msg });
  return { logger: { info: at('info'), warn: at('warn'), error: at('error') }, lines };
}

let root: string;
before(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-'));
});
after(() => fs.rmSync(root, { recursive: true, force: true }));

function dirWith(name: string, files: Record<string, string>): string {
  const d = path.join(root, name);
  fs.mkdirSync(d, { recursive: true });
  for (const [f, body] of Object.entries(files)) fs.writeFileSync(path.join(d, f), body);
  return d;
}

describe('loadModuleDirs', () => {
  it('loads the complete example from docs/modules.md; its functions run and appear in sys.doc', async () => {
    const doc = fs.readFileSync(path.join(repoRoot(), 'docs', 'modules.md'), 'utf8');
    const example = /`\/srv\/brine\/modules\/motd\.mjs`:\n\n```js\n([\s\S]*?)```/.exec(doc)?.[1];
    assert.ok(example, 'the example module is in the doc');
    const motd = path.join(root, 'motd');
    assert.ok(example.includes("const MOTD = '/etc/motd';"));
    const d = dirWith('docs-example', { 'motd.mjs': example.replace("const MOTD = '/etc/motd';", `const MOTD = ${JSON.stringify(motd)};`) });

    const registry = createDefaultRegistry();
    const { logger, lines } = recorder();
    const report = await loadModuleDirs(registry, [d], logger);
    assert.deepEqual(report, { loaded: [{ file: path.join(d, 'motd.mjs'), functions: ['motd.get', 'motd.set'] }], skipped: [] });
    assert.equal(lines[0]?.level, 'info');

    const ctx = makeCtx({ minionId: 'web7' });
    assert.deepEqual(await registry.call('motd.set', ['Maintenance at 22:00'], { with_id: 'true' }, ctx), { return: 'web7: Maintenance at 22:00', retcode: 0, success: true });
    assert.equal(fs.readFileSync(motd, 'utf8'), 'web7: Maintenance at 22:00\n');
    assert.equal((await registry.call('motd.get', [], {}, ctx)).return, 'web7: Maintenance at 22:00');
    // The same argument checks as built-ins.
    const bad = await registry.call('motd.set', [], {}, ctx);
    assert.equal(bad.error?.code, 'BAD_ARGUMENTS');
    assert.match(String(bad.error?.message), /missing required argument 'text'/);
    const docs = (await registry.call('sys.doc', ['motd'], {}, ctx)).return as Record<string, string>;
    assert.equal(docs['motd.set'], 'motd.set(text: string, with_id: bool = false)\n\nSet the message of the day, optionally prefixed with the minion ID; returns the new text.');
  });

  it('accepts a default export and CommonJS module.exports; a throwing function is EXEC_FAILED', async () => {
    const d = dirWith('forms', {
      'a.mjs': "export default [{ name: 'forma.hi', doc: 'Say hi.', params: [], run: () => 'hi' }];",
      'b.js': "module.exports = { functions: [{ name: 'formb.boom', doc: 'Fail.', params: [], run: () => { throw new Error('it broke: check the widget'); } }] };",
      'notes.txt': 'not a module',
    });
    const registry = createDefaultRegistry();
    const report = await loadModuleDirs(registry, [d], recorder().logger);
    assert.deepEqual(
      report.loaded.map((l) => l.functions),
      [['forma.hi'], ['formb.boom']],
    );
    assert.equal((await registry.call('forma.hi', [], {}, makeCtx())).return, 'hi');
    const boom = await registry.call('formb.boom', [], {}, makeCtx());
    assert.deepEqual(boom.error, { code: 'EXEC_FAILED', message: 'it broke: check the widget' });
  });

  it('refuses a duplicate of a built-in name, naming the file, and registers nothing from it', async () => {
    const d = dirWith('dupe', {
      'ping.mjs': "export const functions = [{ name: 'mine.ok', doc: 'Fine.', params: [], run: () => 1 }, { name: 'test.ping', doc: 'Evil.', params: [], run: () => 'hijacked' }];",
    });
    const registry = createDefaultRegistry();
    const { logger, lines } = recorder();
    const report = await loadModuleDirs(registry, [d], logger);
    const file = path.join(d, 'ping.mjs');
    assert.deepEqual(report.loaded, []);
    assert.equal(report.skipped[0]?.file, file);
    assert.match(report.skipped[0]!.reason, /'test\.ping' is already registered as a built-in function/);
    assert.equal((await registry.call('test.ping', [], {}, makeCtx())).return, true, 'the built-in is untouched');
    assert.equal(registry.get('mine.ok'), undefined, 'the file is all or nothing');
    assert.equal(lines[0]?.level, 'error');
    assert.ok(lines[0]!.msg.includes(file));
  });

  it('a second file reusing a custom name is refused naming the first file', async () => {
    const d = dirWith('twice', {
      '1.mjs': "export const functions = [{ name: 'twice.f', doc: 'One.', params: [], run: () => 1 }];",
      '2.mjs': "export const functions = [{ name: 'twice.f', doc: 'Two.', params: [], run: () => 2 }];",
    });
    const registry = createDefaultRegistry();
    const report = await loadModuleDirs(registry, [d], recorder().logger);
    assert.match(report.skipped[0]!.reason, new RegExp(`already registered by ${path.join(d, '1.mjs').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
    assert.equal((await registry.call('twice.f', [], {}, makeCtx())).return, 1);
  });

  it('files that throw on import, export the wrong shape or break the naming rules are logged and skipped; the rest load', async () => {
    const d = dirWith('broken', {
      'a-throws.mjs': "throw new Error('cannot find config /etc/x');",
      'b-syntax.mjs': 'export const functions = [;',
      'c-shape.mjs': "export const functions = { name: 'x.y' };",
      'd-noname.mjs': "export const functions = [{ doc: 'x', params: [], run: () => 1 }];",
      'e-badname.mjs': "export const functions = [{ name: 'Bad.Name', doc: 'x', params: [], run: () => 1 }];",
      'f-multiline.mjs': "export const functions = [{ name: 'ml.f', doc: 'two\\nlines', params: [], run: () => 1 }];",
      'g-good.mjs': "export const functions = [{ name: 'good.f', doc: 'Works.', params: [{ name: 'n', type: 'int', required: true }], run: (_c, a) => a.named.n * 2 }];",
    });
    const registry = createDefaultRegistry();
    const { logger, lines } = recorder();
    const report = await loadModuleDirs(registry, [d, path.join(root, 'does-not-exist')], logger);
    assert.deepEqual(
      report.loaded.map((l) => path.basename(l.file)),
      ['g-good.mjs'],
    );
    const reasons = new Map(report.skipped.map((s) => [path.basename(s.file), s.reason]));
    assert.match(reasons.get('a-throws.mjs')!, /cannot find config \/etc\/x/);
    assert.ok(reasons.has('b-syntax.mjs'));
    assert.match(reasons.get('c-shape.mjs')!, /must export `functions`/);
    assert.match(reasons.get('d-noname.mjs')!, /no string name/);
    assert.match(reasons.get('e-badname.mjs')!, /cannot register execution function 'Bad\.Name'/);
    assert.match(reasons.get('f-multiline.mjs')!, /the doc must be one non-empty line/);
    assert.ok(reasons.has('does-not-exist'));
    assert.equal(lines.filter((l) => l.level === 'warn').length, 1, 'the unreadable directory is a warning');
    assert.equal(lines.filter((l) => l.level === 'error').length, 6);
    assert.equal((await registry.call('good.f', ['21'], {}, makeCtx())).return, 42);
  });
});
