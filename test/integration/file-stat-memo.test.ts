// Issue 27: a state run asks the master for each salt:// file's stat once, not once per state
// that uses it (48 file.managed from one template were 48 file_stat requests). A real master
// at log_level trace logs every file server request; a real minion applies a tree whose five
// file.managed share one template. The memo lives for one job: a template changed on the master
// between runs is what the next run writes.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, type Proc, waitUntil } from '../helpers/cluster.js';

const STATES = 5;

describe('file server requests of a state run (file_stat once per file per job)', () => {
  let cluster: Cluster;
  let master: Proc;
  let srv: string;
  let out: string;

  /** The master's file server requests during one state.apply of `many`, by type and path. */
  const applyCounting = async (): Promise<Record<string, number>> => {
    const returns = (master.output.match(/Got return from m for job/g) ?? []).length;
    const from = master.output.length;
    const r = await cluster.brine(['run', 'm', 'state.apply', 'many', '--out', 'json', '-t', '60'], { timeoutMs: 90_000 });
    const states = Object.values((JSON.parse(r.stdout) as Record<string, Record<string, { result: boolean }>>).m ?? {});
    assert.equal(states.length, STATES, r.stdout + r.stderr);
    assert.ok(
      states.every((s) => s.result === true),
      r.stdout,
    );
    // the master logs the return after every file request of the job
    await waitUntil(() => (master.output.match(/Got return from m for job/g) ?? []).length > returns, 10_000, 'the master to log the return');
    const counts: Record<string, number> = {};
    for (const m of master.output.slice(from).matchAll(/file server request (\w+) from m id=m req=(\{.*\})/g)) {
      const key = `${m[1]} ${(JSON.parse(m[2]!) as { path?: string }).path}`;
      counts[key] = (counts[key] ?? 0) + 1;
    }
    return counts;
  };
  const written = () => Array.from({ length: STATES }, (_, i) => fs.readFileSync(path.join(out, `f${i}`), 'utf8'));

  before(async () => {
    cluster = await Cluster.create();
    srv = path.join(cluster.root, 'master', 'srv', 'salt');
    out = path.join(cluster.root, 'out');
    fs.mkdirSync(srv, { recursive: true });
    fs.writeFileSync(path.join(srv, 'conf.j2'), 'n={{ n }} v=1\n');
    let sls = '';
    for (let i = 0; i < STATES; i++) {
      sls += `f${i}:\n  file.managed:\n    - name: ${out}/f${i}\n    - makedirs: True\n    - source: salt://conf.j2\n    - template: jinja\n    - context:\n        n: ${i}\n`;
    }
    fs.writeFileSync(path.join(srv, 'many.sls'), sls);
    master = await cluster.startMaster({ auto_accept: true, log_level: 'trace' });
    await cluster.startMinion('m').waitForOutput(/ready to receive requests/);
  });
  after(() => cluster.cleanup());

  it('five file.managed from one template: one file_stat of it per run; a change on the master is seen by the next run', async () => {
    const first = await applyCounting();
    assert.deepEqual(written(), ['n=0 v=1\n', 'n=1 v=1\n', 'n=2 v=1\n', 'n=3 v=1\n', 'n=4 v=1\n']);
    assert.equal(first['file_stat conf.j2'], 1, JSON.stringify(first));
    assert.equal(first['file_stat many.sls'], 1, JSON.stringify(first));
    assert.equal(first['file_read conf.j2'], 1, JSON.stringify(first));

    fs.writeFileSync(path.join(srv, 'conf.j2'), 'n={{ n }} v=2\n');
    const second = await applyCounting();
    assert.deepEqual(written(), ['n=0 v=2\n', 'n=1 v=2\n', 'n=2 v=2\n', 'n=3 v=2\n', 'n=4 v=2\n']);
    assert.equal(second['file_stat conf.j2'], 1, JSON.stringify(second));
    assert.equal(second['file_read conf.j2'], 1, JSON.stringify(second));

    // nothing changed: the run asks for each file's stat once and reads nothing
    const third = await applyCounting();
    assert.deepEqual(third, { 'file_stat many.sls': 1, 'file_stat conf.j2': 1 });
  });
});
