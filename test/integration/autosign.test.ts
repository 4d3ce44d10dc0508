// Issue 4 item 3 with a real master: autosign_file and autoreject_file (globs and regexes as in
// Salt), a refusal that says it was autoreject, and a world-writable autosign file refused.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, runCli } from '../helpers/cluster.js';

describe('autosign and autoreject files', () => {
  let cluster: Cluster;

  before(async () => {
    cluster = await Cluster.create();
    // root_dir is prepended to these options, as in Salt: the files live under the master's root
    const sign = path.join(cluster.root, 'master', 'autosign.conf');
    const reject = path.join(cluster.root, 'master', 'autoreject.conf');
    fs.mkdirSync(path.dirname(sign), { recursive: true });
    fs.writeFileSync(sign, '# trusted\nauto-*\ndb\\d+\n', { mode: 0o644 });
    fs.writeFileSync(reject, 'evil*\n', { mode: 0o644 });
    fs.chmodSync(sign, 0o644);
    fs.chmodSync(reject, 0o644);
    await cluster.startMaster({ autosign_file: '/autosign.conf', autoreject_file: '/autoreject.conf' });
  });
  after(() => cluster.cleanup());

  it('accepts IDs matching autosign globs and regexes without a pending step', async () => {
    for (const id of ['auto-1', 'db7']) {
      const m = cluster.startMinion(id);
      await m.waitForOutput(/ready to receive requests/);
      assert.doesNotMatch(m.output, /pending/);
    }
    const r = await cluster.brine(['run', '-L', 'auto-1,db7', 'test.ping', '--out', 'txt']);
    // returns print as they arrive
    assert.deepEqual(r.stdout.trim().split('\n').sort(), ['auto-1: True', 'db7: True']);
  });

  it('rejects IDs matching autoreject and says so; the minion exits 77', async () => {
    // master_finger makes the master trusted, so its refusal is believed (issue 8 item 6)
    const m = cluster.startMinion('evil1', { master_finger: (await cluster.brine(['key', '-F', 'master'])).stdout.match(/master\.pub: {2}(\S+)/)![1]! });
    assert.equal(await m.exited, 77, m.output);
    assert.match(m.output, /autoreject_file/);
    assert.match((await cluster.brine(['key', '-l', 'rej'])).stdout, /^Rejected Keys:\nevil1\n$/);
  });

  it('warns at start when a configured match file does not exist', async () => {
    const other = await Cluster.create();
    try {
      const m = await other.startMaster({ autosign_file: '/nowhere.conf' });
      await m.waitForOutput(/autosign_file \S+nowhere\.conf does not exist/);
    } finally {
      await other.cleanup();
    }
  });

  it('leaves other IDs pending', async () => {
    cluster.startMinion('plain1');
    await cluster.waitForPending(['plain1']);
  });

  it('refuses to start with a world-writable autosign file (anyone could grant trust)', async () => {
    const other = await Cluster.create();
    try {
      const sign = path.join(other.root, 'master', 'autosign.conf');
      fs.mkdirSync(path.dirname(sign), { recursive: true });
      fs.writeFileSync(sign, '*\n');
      fs.chmodSync(sign, 0o666);
      other.writeMasterConfig({ autosign_file: '/autosign.conf' });
      const r = await runCli(['master', '-c', other.masterConfigDir], { timeoutMs: 20_000 });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /^CONFIG_VALUE: .*autosign/m);
      assert.match(r.stderr, /writable/);
    } finally {
      await other.cleanup();
    }
  });
});
