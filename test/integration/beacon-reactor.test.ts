// Issue 25's done-when for beacons and the reactor together, as Salt's docs show it: a minion's
// inotify beacon notices a real change to a guarded file, the master's reactor maps
// salt/beacon/*/inotify/* to a state run on that minion, and the state puts the file back.
// disable_during_state_run keeps the state's own write from firing the beacon again.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Cluster, waitUntil, type Proc } from '../helpers/cluster.js';

const GUARDED = 'guarded by brine\n';

describe('an inotify beacon and the reactor revert a changed file', () => {
  let cluster: Cluster;
  let master: Proc;
  let watched: string;
  let file: string;

  before(async () => {
    cluster = await Cluster.create();
    watched = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-guard-'));
    file = path.join(watched, 'motd');
    fs.writeFileSync(file, GUARDED);
    const srv = path.join(cluster.root, 'master', 'srv', 'salt');
    fs.mkdirSync(path.join(srv, 'reactor'), { recursive: true });
    fs.writeFileSync(path.join(srv, 'guard.sls'), `${file}:\n  file.managed:\n    - contents: ${JSON.stringify(GUARDED.trimEnd())}\n`);
    // Salt's reactor docs: revert the file on the minion the beacon fired on
    fs.writeFileSync(
      path.join(srv, 'reactor', 'revert.sls'),
      "{% if data['path'].endswith('/motd') %}\nrevert_{{ data['id'] }}:\n  local.state.apply:\n    - tgt: {{ data['id'] }}\n    - args:\n      - mods: guard\n{% endif %}\n",
    );
    master = await cluster.startMaster({ auto_accept: true, reactor: [{ 'salt/beacon/*/inotify/*': ['salt://reactor/revert.sls'] }] });
    const m1 = cluster.startMinion('m1', {
      loop_interval: 0.2,
      beacons: { inotify: [{ files: { [watched]: { mask: ['modify'] } } }, { disable_during_state_run: true }] },
    });
    await m1.waitForOutput(/ready to receive requests/);
  });
  after(async () => {
    await cluster?.cleanup();
    fs.rmSync(watched, { recursive: true, force: true });
  });

  it('a real write to the file is undone by the state the reactor applies', async () => {
    // the beacon watches from its first pass after start, and not while a state runs (a change
    // then is not reported, as in Salt): the change is made again every 3 s until it is undone
    const tamperUntilRestored = async (what: string): Promise<void> => {
      let tamperedAt = 0;
      await waitUntil(
        () => {
          if (fs.readFileSync(file, 'utf8') === GUARDED && tamperedAt > 0) return true;
          if (Date.now() - tamperedAt > 3000) {
            fs.writeFileSync(file, `tampered ${Date.now()}\n`);
            tamperedAt = Date.now();
          }
          return false;
        },
        60_000,
        `the reactor to restore ${file} (${what}; now ${JSON.stringify(fs.readFileSync(file, 'utf8'))})\n${master.output.slice(-3000)}`,
      );
    };
    await tamperUntilRestored('first change');
    assert.match(master.output, /reactor salt:\/\/reactor\/revert\.sls published state\.apply as job \d+ for tag salt\/beacon\/m1\/inotify\//);
    const reactions = () => master.output.split('published state.apply').length - 1;
    const before = reactions();
    await tamperUntilRestored('second change');
    assert.ok(reactions() > before, 'the second change was undone by another reaction');
    const jobs = await cluster.brine(['jobs', 'list']);
    assert.match(jobs.stdout, /state\.apply/, jobs.stdout);
  });
});
