// Masterless pillar (issue 10 item 1): with file_client: local (or --local), `brine call`
// renders the machine's own pillar_roots with its grains; pillar.* and states see it, and a
// pillar that does not render shows under _errors with file and line.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, runCli, type CliResult } from '../helpers/cluster.js';

function write(file: string, data: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data);
}

describe('masterless pillar: brine call renders its own pillar_roots', () => {
  let cluster: Cluster;
  let call: (args: string[]) => Promise<CliResult>;
  let pillarDir: string;

  before(async () => {
    cluster = await Cluster.create();
    cluster.writeMinionConfig('ml', { id: 'ml-pillar', file_client: 'local', grains: { role: 'builder' } });
    const home = path.join(cluster.root, 'minions', 'ml');
    pillarDir = path.join(home, 'srv', 'pillar');
    write(path.join(pillarDir, 'top.sls'), "base:\n  'G@role:builder':\n    - match: compound\n    - build\n");
    write(path.join(pillarDir, 'build.sls'), `include:\n  - .paths\nowner: {{ grains['id'] }}\nout_dir: ${cluster.root}\n`);
    write(path.join(pillarDir, 'paths.sls'), 'paths:\n  - /opt/a\n');
    write(path.join(home, 'srv', 'salt', 'out.sls'), "out:\n  file.managed:\n    - name: {{ pillar['out_dir'] }}/out.txt\n    - contents: {{ pillar['owner'] }} {{ salt['pillar.get']('paths:0') }}\n");
    call = (args) => runCli(['call', ...args, '--out', 'json', '-c', cluster.minionConfigDir('ml')]);
  });
  after(() => cluster.cleanup());

  it('pillar.items renders pillar_roots with the top file, grains and include', async () => {
    const r = await call(['pillar.items']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { local: { paths: ['/opt/a'], owner: 'ml-pillar', out_dir: cluster.root } });
    const refreshed = await call(['saltutil.refresh_pillar']);
    assert.deepEqual(JSON.parse(refreshed.stdout), { local: true });
  });

  it('state.apply renders with the pillar (pillar and salt[pillar.get]) and pillar= overrides it', async () => {
    const r = await call(['state.apply', 'out']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(fs.readFileSync(path.join(cluster.root, 'out.txt'), 'utf8'), 'ml-pillar /opt/a\n');
    const o = await call(['state.apply', 'out', 'pillar={"owner": "override", "paths": ["/x"]}']);
    assert.equal(o.code, 0, o.stdout + o.stderr);
    assert.equal(fs.readFileSync(path.join(cluster.root, 'out.txt'), 'utf8'), 'override /x\n');
  });

  it('a pillar SLS that does not render is reported under _errors with the file and line', async () => {
    write(path.join(pillarDir, 'paths.sls'), 'paths:\n  - /opt/a\n bad: [\n');
    const r = await call(['pillar.items']);
    assert.equal(r.code, 0, r.stderr);
    const items = (JSON.parse(r.stdout) as { local: Record<string, unknown> }).local;
    assert.equal(items.owner, 'ml-pillar', 'the SLS that rendered is still there');
    assert.match((items._errors as string[])[0]!, /paths\.sls:\d+/);
  });
});
