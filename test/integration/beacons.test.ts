// Issue 25 point 6, beacons end to end: a real master and minion over loopback TLS. The minion's
// beacons: inotify on a temp dir (a real file change fires salt/beacon/<id>/inotify/<dir> on
// `brine events`), diskusage/memusage/load with thresholds that fire (and a second diskusage under
// beacon_module: with one that cannot), beacons.add/list/save/delete with real effects (events start,
// minion.d/beacons.conf written, events stop), an invalid add refused, and disable_during_state_run
// holding inotify's events while a state runs.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Cluster, waitUntil } from '../helpers/cluster.js';
import { runJson } from '../helpers/run-json.js';
import { openEventStream, type EventTail } from '../helpers/event-tail.js';

describe('beacons: inotify, thresholds, beacons.*, disable_during_state_run', () => {
  let cluster: Cluster;
  let stream: EventTail;
  let watched: string;
  let quiet: string;

  const run = (args: string[]) => runJson(cluster, 'm1', args);

  before(async () => {
    cluster = await Cluster.create();
    watched = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-beacon-'));
    quiet = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-beacon-state-'));
    await cluster.startMaster({ auto_accept: true });
    const srv = path.join(cluster.root, 'master', 'srv', 'salt');
    fs.mkdirSync(srv, { recursive: true });
    // the touch comes a second into the run, so the beacon's 0.2 s loop has closed its watch by then
    fs.writeFileSync(path.join(srv, 'touchy.sls'), `touch_during_state:\n  cmd.run:\n    - name: sleep 1; touch ${quiet}/during-state; sleep 1\n`);
    const m1 = cluster.startMinion('m1', {
      loop_interval: 0.2,
      beacons: {
        inotify: [{ files: { [watched]: { mask: ['create', 'modify'] } } }],
        inotify_state: [{ beacon_module: 'inotify' }, { files: { [quiet]: {} } }, { disable_during_state_run: true }],
        diskusage: [{ '/': '0%' }, { interval: 1 }],
        disk_never: [{ beacon_module: 'diskusage' }, { '/': '100.1%' }, { interval: 1 }],
        memusage: [{ percent: '0%' }, { interval: 1 }],
        load: [{ averages: { '1m': [1000, 2000] } }, { interval: 1 }],
      },
    });
    await m1.waitForOutput(/ready to receive requests/);
    stream = await openEventStream(cluster, 'm1');
  });
  after(async () => {
    await stream?.close();
    await cluster?.cleanup();
    fs.rmSync(watched, { recursive: true, force: true });
    fs.rmSync(quiet, { recursive: true, force: true });
  });

  it('inotify fires on a real file change with Salt tag and data', async () => {
    const file = path.join(watched, 'motd');
    // the watch is set up at the first poll after start: write until an event for this file shows
    await waitUntil(
      () => {
        fs.writeFileSync(file, `changed ${Date.now()}\n`);
        return stream.lines(`salt/beacon/m1/inotify/${watched}`).some((e) => e.data.path === file);
      },
      20_000,
      `an inotify event for ${file}\n${stream.proc.output.slice(-3000)}`,
    );
    const e = stream.lines(`salt/beacon/m1/inotify/${watched}`).find((l) => l.data.path === file)!;
    assert.equal(e.tag, `salt/beacon/m1/inotify/${watched}`);
    assert.equal(e.data.id, 'm1');
    assert.match(String(e.data.change), /^IN_(CREATE|MODIFY)$/);
    assert.match(String(e.data._stamp), /^\d{4}-\d\d-\d\dT/);
  });

  it('diskusage, memusage and load fire over their thresholds; a threshold not reached stays silent', async () => {
    const [disk] = await stream.waitFor('salt/beacon/m1/diskusage/', 2, 20_000);
    assert.equal(disk!.tag, 'salt/beacon/m1/diskusage/');
    assert.equal(disk!.data.mount, '/');
    assert.equal(typeof disk!.data.diskusage, 'number');
    const [mem] = await stream.waitFor('salt/beacon/m1/memusage/', 1, 20_000);
    assert.ok(Number(mem!.data.memusage) > 0 && Number(mem!.data.memusage) <= 100, JSON.stringify(mem));
    const [load] = await stream.waitFor('salt/beacon/m1/load/', 1, 20_000);
    assert.deepEqual(
      Object.keys(load!.data)
        .filter((k) => !k.startsWith('_'))
        .sort(),
      ['15m', '1m', '5m', 'id'],
    );
    assert.equal(stream.lines('salt/beacon/m1/disk_never/').length, 0);
  });

  it('beacons.add starts a beacon, list and save show it, delete stops it', async () => {
    const bad = await run(['beacons.add', 'mem_bad', '[{"beacon_module": "memusage"}, {"percent": "lots"}]']);
    assert.equal(bad.code, 1, bad.raw);
    assert.match(String((bad.ret as { comment: string }).comment), /^Beacon mem_bad configuration invalid, not adding\.\n/);

    const added = await run(['beacons.add', 'mem2', '[{"beacon_module": "memusage"}, {"percent": "0%"}, {"interval": 1}]']);
    assert.deepEqual(added.ret, { comment: 'Added beacon: mem2.', result: true }, added.raw);
    await stream.waitFor('salt/beacon/m1/mem2/', 1, 20_000);
    const listed = await run(['beacons.list', 'return_yaml=False']);
    assert.deepEqual((listed.ret as Record<string, unknown>).mem2, [{ beacon_module: 'memusage' }, { percent: '0%' }, { interval: 1 }]);

    const saved = await run(['beacons.save']);
    const conf = path.join(cluster.minionConfigDir('m1'), 'minion.d', 'beacons.conf');
    assert.deepEqual(saved.ret, { comment: `Beacons saved to ${conf}.`, result: true }, saved.raw);
    const text = fs.readFileSync(conf, 'utf8');
    assert.match(text, /^beacons:\n/);
    assert.match(text, /\n {2}mem2:\n {2}- beacon_module: memusage\n/);

    const deleted = await run(['beacons.delete', 'mem2']);
    assert.deepEqual(deleted.ret, { comment: 'Deleted beacon: mem2.', result: true });
    // at most one poll was under way when it went; after three more diskusage events none follow
    const before = stream.lines('salt/beacon/m1/mem2/').length;
    const disks = stream.lines('salt/beacon/m1/diskusage/').length;
    await stream.waitFor('salt/beacon/m1/diskusage/', disks + 3, 20_000);
    assert.ok(stream.lines('salt/beacon/m1/mem2/').length <= before + 1, 'mem2 stopped firing');
    const again = await run(['beacons.delete', 'mem2']);
    assert.equal(again.code, 1);
    assert.deepEqual(again.ret, { comment: 'Beacon mem2 is not configured.', result: false });
  });

  it('disable_during_state_run: a change during a state run is not reported, one after it is', async () => {
    // the beacon's watch is up: a change now fires
    await waitUntil(
      () => {
        fs.writeFileSync(path.join(quiet, 'warmup'), String(Date.now()));
        return stream.lines(`salt/beacon/m1/inotify_state/${quiet}`).some((e) => e.data.path === path.join(quiet, 'warmup'));
      },
      20_000,
      'the inotify_state beacon to watch',
    );
    const r = await run(['state.apply', 'touchy']);
    assert.equal(r.code, 0, r.raw);
    const after = path.join(quiet, 'after-state');
    await waitUntil(
      () => {
        fs.writeFileSync(after, String(Date.now()));
        return stream.lines(`salt/beacon/m1/inotify_state/${quiet}`).some((e) => e.data.path === after);
      },
      20_000,
      'an event after the state run',
    );
    assert.equal(stream.lines(`salt/beacon/m1/inotify_state/${quiet}`).filter((e) => e.data.path === path.join(quiet, 'during-state')).length, 0, 'the change during the state run was not reported');
  });
});
