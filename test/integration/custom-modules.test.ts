// Custom execution modules from module_dirs (issue 5 item 4) in a real minion: a module file's
// functions are callable by `brine run`, documented by sys.doc, and a broken file is skipped.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster } from '../helpers/cluster.js';

describe('custom modules from module_dirs', () => {
  let cluster: Cluster;

  before(async () => {
    cluster = await Cluster.create();
    const dir = path.join(cluster.root, 'modules');
    fs.mkdirSync(dir);
    fs.writeFileSync(
      path.join(dir, 'greet.mjs'),
      `export const functions = [{
  name: 'greet.hello',
  doc: 'Greet someone by name.',
  params: [{ name: 'who', type: 'string', required: true }],
  run: (ctx, args) => 'hello ' + args.named.who + ' from ' + ctx.minionId,
}];\n`,
    );
    fs.writeFileSync(path.join(dir, 'broken.mjs'), 'throw new Error("broken on purpose");\n');
    await cluster.startMaster({ auto_accept: true });
    const m = cluster.startMinion('custom1', { module_dirs: [dir] });
    await m.waitForOutput(/ready to receive requests/);
  });
  after(() => cluster.cleanup());

  it('runs a custom function and documents it', async () => {
    const r = await cluster.brine(['run', 'custom1', 'greet.hello', 'world', '--out', 'json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { custom1: 'hello world from custom1' });
    const doc = await cluster.brine(['run', 'custom1', 'sys.doc', 'greet.hello', '--out', 'json']);
    assert.match(doc.stdout, /Greet someone by name\./);
  });

  it('a broken module file is skipped; built-ins still work', async () => {
    const r = await cluster.brine(['run', 'custom1', 'test.ping', '--out', 'txt']);
    assert.equal(r.stdout, 'custom1: True\n');
  });
});
