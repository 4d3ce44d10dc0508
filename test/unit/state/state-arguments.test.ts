// Arguments real Salt trees pass to states brine already had: service.running's restart (and
// any other key, as Salt's **kwargs), pkg.installed's hold / enablerepo / sources, cmd.run's bg,
// file.managed's backupname and show_diff (swallowed by Salt's **kwargs).

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { installFakeApt } from './fake-apt.js';
import { byId, harness } from './harness.js';
import { runState } from './state-ctx.js';
import { waitUntil } from '../../helpers/wait.js';

const apt = installFakeApt();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-args-'));
after(() => {
  apt.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('arguments that compile as in Salt', () => {
  it('service.running restart/sig/no_block, file.managed backupname/show_diff and pkg.installed enablerepo compile; test=True runs them', async () => {
    const target = path.join(dir, 'motd');
    const sls = [
      'web:',
      '  service.running:',
      '    - name: brine-no-such-service',
      '    - restart: True',
      '    - sig: nginx',
      '    - no_block: True',
      'motd:',
      '  file.managed:',
      `    - name: ${target}`,
      '    - contents: hello',
      '    - backupname: motd.old',
      '    - show_diff: False',
      'tools:',
      '  pkg.installed:',
      '    - name: curl',
      '    - enablerepo: epel',
      '    - hold: True',
    ].join('\n');
    apt.setInstalled({ curl: '7.88.1-10' });
    const r = await harness({ base: { 'args.sls': `${sls}\n` } }).call('state.sls', ['args'], { test: true });
    // a compile refusal would be success false with STATE_COMPILE_FAILED and a list of strings
    assert.notEqual(r.error?.code, 'STATE_COMPILE_FAILED', JSON.stringify(r.return));
    const ret = byId(r.return);
    assert.deepEqual(Object.keys(ret).sort(), ['motd', 'tools', 'web']);
    assert.equal(ret.motd!.result, null);
    assert.ok(ret.motd!.comment.startsWith(`The file ${target} is set to be changed`), ret.motd!.comment);
    assert.equal(fs.existsSync(target), false);
    // pkg.hold in test mode: Salt's "set to be held", result None
    assert.equal(ret.tools!.result, null);
    assert.equal(ret.tools!.comment, 'Package curl is already installed.\nPackage curl is set to be held.');
  });
});

describe('pkg.installed hold (fake apt: dpkg selections)', () => {
  it("holds an installed package with Salt's comment and {old: 'install', new: 'hold'}; then 'already set to be held'; hold: False releases it", async () => {
    apt.setInstalled({ curl: '7.88.1-10' });
    apt.setAvailable({ curl: ['7.88.1-10'], nginx: ['1.22.1-9'] });
    // salt/states/pkg.py installed(): no install targets -> the hold returns are folded in with ".\n"
    assert.deepEqual(await runState('pkg.installed', { name: 'curl', hold: true }), {
      name: 'curl',
      result: true,
      changes: { curl: { old: 'install', new: 'hold' } },
      comment: 'Package curl is already installed.\nPackage curl is now being held.',
    });
    assert.deepEqual(apt.held(), ['curl']);
    assert.deepEqual(await runState('pkg.installed', { name: 'curl', hold: true }), {
      name: 'curl',
      result: true,
      changes: {},
      comment: 'Package curl is already installed.\nPackage curl is already set to be held.',
    });
    const released = await runState('pkg.installed', { name: 'curl', hold: false });
    assert.deepEqual(released.changes, { curl: { old: 'hold', new: 'install' } });
    assert.equal(released.comment, 'Package curl is already installed.\nPackage curl is no longer being held.');
    assert.deepEqual(apt.held(), []);
  });

  it("a new package installed with hold: its changes' new carries the version and 'hold' on two lines", async () => {
    apt.setInstalled({});
    apt.setAvailable({ nginx: ['1.22.1-9'] });
    const r = await runState('pkg.installed', { name: 'nginx', hold: true });
    assert.equal(r.result, true, r.comment);
    assert.deepEqual(r.changes, { nginx: { old: 'install', new: '1.22.1-9\nhold' } });
    assert.equal(r.comment, 'The following packages were installed/updated: nginx\nPackage nginx is now being held.');
  });

  it('sources is taken (pkg-sources.test.ts installs real .deb files); a salt:// file with no file server fails saying so', async () => {
    const r = await runState('pkg.installed', { name: 'x', sources: [{ x: 'salt://x.deb' }] });
    assert.equal(r.result, false);
    assert.match(r.comment, /^Unable to cache salt:\/\/x\.deb: .*no file server is reachable/);
  });
});

describe('cmd.run bg', () => {
  it('returns at once with the pid; the command goes on running detached', async () => {
    const out = path.join(dir, 'bg-done');
    const started = Date.now();
    const r = await runState('cmd.run', { name: `sleep 0.5; echo done > ${out}`, bg: true });
    assert.ok(Date.now() - started < 450, 'did not wait for the command');
    assert.equal(r.result, true);
    assert.equal(r.comment, `Command "sleep 0.5; echo done > ${out}" run`);
    assert.equal(typeof r.changes.pid, 'number');
    assert.deepEqual({ ...r.changes, pid: 0 }, { pid: 0, retcode: null, stdout: '', stderr: '' });
    assert.equal(fs.existsSync(out), false);
    await waitUntil(() => fs.existsSync(out), 20_000, 'the detached command to write its file');
    assert.equal(fs.readFileSync(out, 'utf8'), 'done\n');
  });
});
