// Issue 22: the ini.* states (systemd-formula's resolved/journald/timesyncd config) on real files.
// Every expected file text, changes and comment below is what Salt 3007's salt/states/ini_manage.py
// and salt/modules/ini_manage.py produced on the same input (run from Salt's source).

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from './file-fixture.js';
import { registryWith, runState } from './state-ctx.js';

const dir = tempDir('brine-ini-');
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const RESOLVED = `#  This file is part of systemd.
#
# See resolved.conf(5) for details

[Resolve]
#DNS=
#FallbackDNS=1.1.1.1 8.8.8.8
#Domains=
LLMNR=no
#MulticastDNS=no
Cache=yes
  continued line

[Other]
a = 1
; semicolon comment
garbage line
`;

let n = 0;
function file(text: string | undefined): string {
  const p = path.join(dir, `f${n++}.conf`);
  if (text !== undefined) fs.writeFileSync(p, text);
  return p;
}

const STRICT = { sections: { Resolve: { DNS: '192.0.2.1', LLMNR: false, Cache: 'yes' }, top: '1' }, strict: true };

describe('ini.options_present (salt/states/ini_manage.py)', () => {
  it('test=True: one line per key, result None, the file untouched', async () => {
    const p = file(RESOLVED);
    assert.deepEqual(await runState('ini.options_present', { name: p, ...STRICT }, { test: true }), {
      name: p,
      result: null,
      changes: {},
      comment: 'Changed key top.\nChanged key DNS in section Resolve.\nChanged key LLMNR in section Resolve.\nChanged key Cache in section Resolve.\n',
    });
    assert.equal(fs.readFileSync(p, 'utf8'), RESOLVED);
  });

  it('sets options in place of their commented-out lines, rewrites with " = ", reports before/after', async () => {
    const p = file(RESOLVED);
    assert.deepEqual(await runState('ini.options_present', { name: p, ...STRICT }), {
      name: p,
      result: true,
      changes: {
        top: { before: null, after: '1' },
        Resolve: {
          DNS: { before: null, after: '192.0.2.1' },
          LLMNR: { before: 'no', after: 'False' },
          Cache: { before: 'yes\n  continued line', after: 'yes' },
        },
      },
      comment: 'Changes take effect',
    });
    assert.equal(
      fs.readFileSync(p, 'utf8'),
      '#  This file is part of systemd.\n#\n# See resolved.conf(5) for details\ntop = 1\n\n[Resolve]\nDNS = 192.0.2.1\n#FallbackDNS=1.1.1.1 8.8.8.8\n#Domains=\nLLMNR = False\n#MulticastDNS=no\nCache = yes\n\n[Other]\na = 1\n; semicolon comment\ngarbage line\n',
    );
    // Applied again: nothing to do, in both modes
    assert.deepEqual(await runState('ini.options_present', { name: p, ...STRICT }), { name: p, result: true, changes: {}, comment: 'No anomaly detected' });
    const again = await runState('ini.options_present', { name: p, ...STRICT }, { test: true });
    assert.equal(again.result, true);
    assert.equal(again.comment, 'Unchanged key top.\nUnchanged key DNS in section Resolve.\nUnchanged key LLMNR in section Resolve.\nUnchanged key Cache in section Resolve.\n');
  });

  it('strict removes the unlisted keys of listed sections and the top level', async () => {
    const p = file('#x=1\nfoo=2\nx=3\n[A]\n#b=1\n#c=2\nb=5\n');
    const args = { name: p, sections: { A: { c: '7' }, x: '3' }, strict: true };
    const test = await runState('ini.options_present', args, { test: true });
    assert.equal(test.result, null);
    assert.equal(test.comment, 'Unchanged key x.\nRemoved key foo.\nDeleted key b in section A.\nChanged key c in section A.\n');
    assert.deepEqual(await runState('ini.options_present', args), {
      name: p,
      result: true,
      changes: { foo: { before: '2', after: null }, A: { b: { before: '5', after: null }, c: { before: null, after: '7' } } },
      comment: 'Changes take effect',
    });
    assert.equal(fs.readFileSync(p, 'utf8'), 'x = 3\n\n[A]\nc = 7\n');
  });

  it('creates a missing file; an unwritable path fails that state with the reason', async () => {
    const p = file(undefined);
    const r = await runState('ini.options_present', { name: p, sections: { S: { k: 'v' } } });
    assert.deepEqual(r.changes, { S: { before: null, after: { k: 'v' } } });
    assert.equal(fs.readFileSync(p, 'utf8'), '[S]\nk = v\n');
    const bad = await runState('ini.options_present', { name: path.join(dir, 'no', 'such', 'dir.ini'), sections: { S: { k: 'v' } } });
    assert.equal(bad.result, false);
    assert.match(bad.comment, /Unable to write file '.*dir\.ini'/);
  });
});

describe('ini.options_absent, sections_present, sections_absent', () => {
  it('options_absent: test comments per key, then the removed values', async () => {
    const p = file(RESOLVED);
    const args = { name: p, sections: { Resolve: ['LLMNR', 'nope'], Other: ['a'] } };
    assert.deepEqual(await runState('ini.options_absent', args, { test: true }), {
      name: p,
      result: null,
      changes: {},
      comment: 'Deleted key LLMNR in section Resolve.\nKey nope in section Resolve does not exist.\nDeleted key a in section Other.\n',
    });
    assert.deepEqual(await runState('ini.options_absent', args), { name: p, result: true, changes: { Resolve: { LLMNR: 'no' }, Other: { a: '1' } }, comment: 'Changes take effect' });
    assert.doesNotMatch(fs.readFileSync(p, 'utf8'), /LLMNR|^a = 1/m);
    assert.deepEqual(await runState('ini.options_absent', args, { test: true }), {
      name: p,
      result: true,
      changes: {},
      comment: 'Key LLMNR in section Resolve does not exist.\nKey nope in section Resolve does not exist.\nKey a in section Other does not exist.\n',
    });
  });

  it('sections_present creates empty sections; sections_absent removes them (an empty one unreported, as Salt)', async () => {
    const p = file('a=1\nb = 2\n\n\n[s1]\n\n  x=1\n\tcont\ny: 2\n[s1]\nz=3\n[empty]\n');
    assert.deepEqual(await runState('ini.sections_present', { name: p, sections: ['s1', 'B'] }, { test: true }), {
      name: p,
      result: null,
      changes: {},
      comment: 'Section unchanged s1.\nCreated new section B.\n',
    });
    assert.deepEqual(await runState('ini.sections_present', { name: p, sections: ['s1', 'B'] }), {
      name: p,
      result: true,
      changes: { B: { before: null, after: {} } },
      comment: 'Changes take effect',
    });
    assert.deepEqual(await runState('ini.sections_absent', { name: p, sections: ['s1', 'empty', 'nope'] }, { test: true }), {
      name: p,
      result: null,
      changes: {},
      comment: 'Deleted section s1.\nDeleted section empty.\nSection nope does not exist.\n',
    });
    assert.deepEqual(await runState('ini.sections_absent', { name: p, sections: ['s1', 'empty', 'B'] }), {
      name: p,
      result: true,
      changes: { s1: { z: '3' } },
      comment: 'Changes take effect',
    });
    assert.equal(fs.readFileSync(p, 'utf8'), 'a = 1\nb = 2\n');
  });
});

describe('ini execution functions (salt/modules/ini_manage.py)', () => {
  const registry = registryWith();
  const call = async (fun: string, kwarg: Record<string, unknown>): Promise<unknown> => {
    const ctx = { grains: () => ({}), minionId: 'm', config: {}, signal: new AbortController().signal, jid: '1' };
    const r = await registry.call(fun, [], kwarg, ctx);
    if (!r.success) throw new Error(r.error?.message);
    return r.return;
  };

  it('get_option, get_section and get_ini read what set_option wrote; a space separator is kept bare', async () => {
    const p = file('key value\n# key other\n[x]\nfoo bar baz\n');
    assert.deepEqual(await call('ini.set_option', { file_name: p, sections: { key: 'v2', x: { foo: 'qux', new: 'n' } }, separator: ' ' }), {
      key: { before: 'value', after: 'v2' },
      x: { foo: { before: 'bar baz', after: 'qux' }, new: { before: null, after: 'n' } },
    });
    assert.equal(fs.readFileSync(p, 'utf8'), 'key v2\n# key other\n\n[x]\nfoo qux\nnew n\n');
    assert.equal(await call('ini.get_option', { file_name: p, section: 'x', option: 'new', separator: ' ' }), 'n');
    assert.equal(await call('ini.get_option', { file_name: p, section: null, option: 'missing', separator: ' ' }), null);
    assert.deepEqual(await call('ini.get_section', { file_name: p, section: 'x', separator: ' ' }), { foo: 'qux', new: 'n' });
    assert.deepEqual(await call('ini.get_ini', { file_name: p, separator: ' ' }), { key: 'v2', x: { foo: 'qux', new: 'n' } });
    assert.equal(await call('ini.remove_option', { file_name: p, section: 'x', option: 'foo', separator: ' ' }), 'qux');
    assert.deepEqual(await call('ini.remove_section', { file_name: p, section: 'x', separator: ' ' }), { new: 'n' });
    assert.equal(fs.readFileSync(p, 'utf8'), 'key v2\n# key other\n');
  });

  it('sections that are not a mapping get a coded error naming what was given', async () => {
    await assert.rejects(call('ini.set_option', { file_name: file(''), sections: ['a'] }), /sections must be a mapping.*\["a"\]/);
  });
});
