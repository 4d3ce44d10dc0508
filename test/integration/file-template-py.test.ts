// file.managed `template: py` through the real `brine call --local` (issue 22): the state runs in
// its job worker, so the template's __salt__ calls come back over the host thread as a #!py SLS's do.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Cluster, runCli } from '../helpers/cluster.js';

describe('file.managed template: py (brine call --local)', () => {
  let cluster: Cluster;
  let srv: string;
  before(async () => {
    cluster = await Cluster.create();
    cluster.writeMinionConfig('pyhost', { file_client: 'local' });
    srv = path.join(cluster.root, 'minions', 'pyhost', 'srv', 'salt');
    fs.mkdirSync(path.join(srv, 'web'), { recursive: true });
    fs.writeFileSync(path.join(srv, 'web', 'motd.py'), 'def run():\n    return "echo=%s id=%s port=%s\\n" % (__salt__["test.echo"]("hi"), grains["id"], context["port"])\n');
  });
  after(async () => {
    await cluster.cleanup();
  });

  it('writes what run() returns, with salt functions, grains and context', async () => {
    const out = path.join(cluster.root, 'motd');
    const args = ['state.single', 'file.managed', `name=${out}`, 'source=salt://web/motd.py', 'template=py', 'context={port: 8080}'];
    const r = await runCli(['call', '--local', ...args, '--out', 'json', '-c', cluster.minionConfigDir('pyhost')]);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const ret = Object.values(JSON.parse(r.stdout).local as Record<string, { result: boolean; comment: string }>)[0]!;
    assert.equal(ret.result, true, ret.comment);
    assert.equal(fs.readFileSync(out, 'utf8'), 'echo=hi id=pyhost port=8080\n');
  });
});
