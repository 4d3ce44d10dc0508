// Beacon configuration as Salt reads it, validation of each beacon, and beacons.* answers on the
// store (issue 25 point 6): list-of-dicts merged, hidden options split off, Salt's comments.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BEACONS, listToDict, mergeBeaconSources, splitBeaconConfig } from '../../../src/beacons/index.js';
import { BeaconStore, beaconProblem } from '../../../src/minion/beacons/beacon-store.js';

test("listToDict: Salt's list of one-key mappings, merged in order; a mapping as is; anything else refused", () => {
  assert.deepEqual(listToDict([{ a: 1 }, { b: 2 }, { a: 3 }]), { a: 3, b: 2 });
  assert.deepEqual(listToDict({ a: 1 }), { a: 1 });
  assert.equal(listToDict('x'), undefined);
  assert.equal(listToDict([{ a: 1 }, 'b']), undefined);
});

test('splitBeaconConfig: interval, enabled, disable_during_state_run, beacon_module, run_once are not passed to the beacon', () => {
  const s = splitBeaconConfig('disk2', [{ beacon_module: 'diskusage' }, { '/': '60%' }, { interval: 5 }, { disable_during_state_run: true }, { enabled: false }, { run_once: true }]);
  assert.ok(typeof s !== 'string');
  assert.deepEqual(s.options, { module: 'diskusage', enabled: false, interval: 5, disableDuringStateRun: true, runOnce: true });
  assert.deepEqual(s.config, { '/': '60%' });
  assert.match(String(splitBeaconConfig('x', [{ interval: 'soon' }])), /interval must be a number/);
});

test('pillar beacons win over config beacons of the same name', () => {
  assert.deepEqual(mergeBeaconSources({ a: [1], b: [2] }, { b: [3] }), { a: [1], b: [3] });
  assert.deepEqual(mergeBeaconSources(undefined, 'junk'), {});
});

test("each beacon's validate says what is wrong", async () => {
  assert.equal(await beaconProblem('inotify', [{ files: { '/etc/motd': { mask: ['modify'] } } }]), undefined);
  assert.match(String(await beaconProblem('inotify', [{ files: { '/etc': { mask: ['open'] } } }])), /cannot be observed/);
  assert.match(String(await beaconProblem('inotify', [{ nofiles: 1 }])), /must include files/);
  assert.match(String(await beaconProblem('load', [{ averages: { '1m': [1] } }])), /two items/);
  assert.match(String(await beaconProblem('memusage', [{}])), /requires percent/);
  assert.match(String(await beaconProblem('diskusage', [{ '/': 'full' }])), /must be a percentage/);
  assert.match(String(await beaconProblem('service', [{ services: ['nginx'] }])), /must be a dictionary/);
  assert.match(String(await beaconProblem('nosuch', [{}])), /Beacon "nosuch" is not available/);
  assert.match(String(await beaconProblem('journald', [{ services: { sshd: 'sshd' } }])), /^Services configuration for journald beacon must be a list of dictionaries\.$/);
  assert.deepEqual([...BEACONS.keys()].sort(), ['diskusage', 'inotify', 'journald', 'load', 'memusage', 'network_info', 'ps', 'service', 'status']);
});

test("beacons.* on the store: Salt's comments, pillar listed but not saved, reset", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-beacon-store-'));
  try {
    const store = new BeaconStore({ memusage: [{ percent: '90%' }] }, () => ({ beacons: { load: [{ averages: { '1m': [0, 5] } }] } }), dir);
    assert.deepEqual(await store.add('memusage', [{ percent: '1%' }], false), { comment: 'Beacon memusage is already configured.', result: false });
    assert.deepEqual(await store.add('disk', [{ beacon_module: 'diskusage' }, { '/': '90%' }], true), { comment: 'Beacon: disk would be added.', result: true });
    assert.equal('disk' in store.merged(), false, 'test=True changed nothing');
    assert.deepEqual(await store.add('disk', [{ beacon_module: 'diskusage' }, { '/': '90%' }], false), { comment: 'Added beacon: disk.', result: true });
    assert.deepEqual(await store.list({ include_pillar: true, include_opts: true, return_yaml: false }), {
      memusage: [{ percent: '90%' }],
      disk: [{ beacon_module: 'diskusage' }, { '/': '90%' }],
      load: [{ averages: { '1m': [0, 5] } }],
    });
    assert.equal(
      await store.list({ include_pillar: true, include_opts: true, return_yaml: true }),
      'beacons:\n  disk:\n  - beacon_module: diskusage\n  - /: 90%\n  load:\n  - averages:\n      1m:\n      - 0\n      - 5\n  memusage:\n  - percent: 90%\n',
    );
    assert.deepEqual(store.enableBeacon('disk', false), { comment: 'Disabled beacon disk on minion.', result: true });
    assert.deepEqual(store.enableBeacon('nope', false), { comment: 'Beacon nope is not currently configured.', result: false });
    assert.deepEqual(await store.save(), { comment: `Beacons saved to ${path.join(dir, 'minion.d', 'beacons.conf')}.`, result: true });
    const saved = fs.readFileSync(path.join(dir, 'minion.d', 'beacons.conf'), 'utf8');
    assert.match(saved, /- enabled: false/);
    assert.doesNotMatch(saved, /load:/, 'pillar beacons are not saved');
    assert.deepEqual(await store.delete('load'), { comment: 'Beacon load is configured in pillar; remove it there.', result: false });
    assert.deepEqual(await store.reset(), { comment: 'Beacon configuration reset.', result: true });
    assert.deepEqual(Object.keys(store.merged()).sort(), ['load', 'memusage']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
