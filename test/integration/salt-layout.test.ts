// Issue 22 point 1: a Salt layout, root_dir in one place and file_roots/pillar_roots in another,
// works as in Salt. Salt's prepend_root_dir does not touch file_roots or pillar_roots, so the
// master serves the tree where the config says it is and a masterless call finds it too; before,
// brine looked under root_dir, found no top file and show_lowstate said [] with exit 0.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, runCli, type Proc } from '../helpers/cluster.js';

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

describe('a Salt layout: root_dir here, file_roots and pillar_roots elsewhere', () => {
  let cluster: Cluster;
  let trees: string;
  let out: string;
  let minion: Proc;

  before(async () => {
    cluster = await Cluster.create();
    // the trees lie outside every root_dir of the test
    trees = path.join(cluster.root, 'elsewhere');
    out = path.join(cluster.root, 'out');
    write(path.join(trees, 'states', 'top.sls'), "base:\n  '*':\n    - motd\n");
    write(path.join(trees, 'states', 'motd.sls'), `motd:\n  file.managed:\n    - name: ${out}/motd\n    - contents: {{ pillar['greeting'] }}\n    - makedirs: True\n`);
    write(path.join(trees, 'pillar', 'top.sls'), "base:\n  '*':\n    - common\n");
    write(path.join(trees, 'pillar', 'common.sls'), 'greeting: hello from elsewhere\n');
    const layout = {
      file_roots: { base: [path.join(trees, 'states')] },
      // a second directory that does not exist: named in a start-up warning
      pillar_roots: { base: [path.join(trees, 'pillar'), path.join(trees, 'no-pillar')] },
    };
    const master = await cluster.startMaster({ auto_accept: true, ...layout, ext_job_cache: 'mysql' });
    minion = cluster.startMinion('web1');
    await minion.waitForOutput(/ready to receive requests/, 30_000);
    // both warnings are in the master's start-up log, naming what they are about
    assert.match(master.output, new RegExp(`pillar_roots directory ${path.join(trees, 'no-pillar')} \\(environment base\\) does not exist`));
    assert.match(master.output, /option 'ext_job_cache' is a Salt option brine does not implement and is ignored/);
    cluster.writeMinionConfig('solo', { file_client: 'local', ...layout });
  });
  after(() => cluster.cleanup());

  it('brine config show prints the trees as configured, not under root_dir', async () => {
    const r = await cluster.brine(['config', 'show', '--role', 'master', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const shown = JSON.parse(r.stdout) as Record<string, unknown>;
    assert.deepEqual(shown.file_roots, { base: [path.join(trees, 'states')] });
    assert.equal(shown.pki_dir, path.join(cluster.root, 'master', 'etc', 'brine', 'pki', 'master'), 'pki_dir is still under root_dir');
  });

  it('the master serves the tree: show_lowstate finds the top file, test=True changes nothing, apply writes the pillar value', async () => {
    const low = await cluster.brine(['run', 'web1', 'state.show_lowstate', '--out', 'json']);
    assert.equal(low.code, 0, low.stderr);
    const chunks = (JSON.parse(low.stdout) as Record<string, Array<Record<string, unknown>>>).web1!;
    assert.deepEqual(
      chunks.map((c) => [c.__id__, c.state, c.fun, c.name]),
      [['motd', 'file', 'managed', `${out}/motd`]],
    );
    const dry = await cluster.brine(['run', 'web1', 'state.apply', 'test=True', '--out', 'json']);
    assert.equal(dry.code, 0, dry.stderr);
    assert.equal(fs.existsSync(path.join(out, 'motd')), false);
    const real = await cluster.brine(['run', 'web1', 'state.apply', '--out', 'json']);
    assert.equal(real.code, 0, real.stdout + real.stderr);
    assert.equal(fs.readFileSync(path.join(out, 'motd'), 'utf8'), 'hello from elsewhere\n');
  });

  it('brine call --local finds the same tree and pillar, and warns about the missing pillar directory', async () => {
    fs.rmSync(out, { recursive: true, force: true });
    const call = (args: string[]) => runCli(['call', '--local', '-c', cluster.minionConfigDir('solo'), ...args]);
    const low = await call(['state.show_lowstate', '--out', 'json']);
    assert.equal(low.code, 0, low.stderr);
    assert.deepEqual(
      (JSON.parse(low.stdout) as { local: Array<Record<string, unknown>> }).local.map((c) => c.__id__),
      ['motd'],
    );
    assert.match(low.stderr, new RegExp(`\\[WARNING \\] pillar_roots directory ${path.join(trees, 'no-pillar')} \\(environment base\\) does not exist`));
    const applied = await call(['state.apply', '--out', 'json']);
    assert.equal(applied.code, 0, applied.stdout + applied.stderr);
    assert.equal(fs.readFileSync(path.join(out, 'motd'), 'utf8'), 'hello from elsewhere\n');
  });
});
