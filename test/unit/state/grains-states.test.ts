// grains.present / list_present / list_absent / absent / append / exists writing a real grains
// file in a temp config_dir; the job's grains object is shared between steps, as a state run's is,
// and the minion's grains collection reads the file back.

import { after, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { collectMinionGrains } from '../../../src/minion/minion-grains.js';
import { runState } from './state-ctx.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-grains-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const file = path.join(dir, 'grains');
let grains: Record<string, unknown> = {};
const exec = () => ({ grains: () => grains, config: { config_dir: dir } });
const run = (fun: string, args: Record<string, unknown>, test = false) => runState(fun, args, { test, exec: exec() });

beforeEach(() => {
  fs.rmSync(file, { force: true });
  grains = { id: 'web1', os: 'Debian' };
});

describe('grains.present', () => {
  it("test=True says 'set to be added' with {new: name}; the run writes the grains file; then 'Grain is already set'", async () => {
    // salt/states/grains.py present(): test + missing grain -> {"new": name}
    assert.deepEqual(await run('grains.present', { name: 'cheese', value: 'edam' }, true), { name: 'cheese', result: null, changes: { new: 'cheese' }, comment: 'Grain cheese is set to be added' });
    assert.equal(fs.existsSync(file), false);
    // the run returns grains.set's ret: changes are setvals' {key: value}
    assert.deepEqual(await run('grains.present', { name: 'cheese', value: 'edam' }), { name: 'cheese', result: true, changes: { cheese: 'edam' }, comment: 'Set grain cheese to edam' });
    assert.equal(fs.readFileSync(file, 'utf8'), 'cheese: edam\n');
    assert.equal(grains.cheese, 'edam', "the job's grains see the change");
    assert.deepEqual(await run('grains.present', { name: 'cheese', value: 'edam' }), { name: 'cheese', result: true, changes: {}, comment: 'Grain is already set' });
    assert.deepEqual(await run('grains.present', { name: 'cheese', value: 'gouda' }, true), {
      name: 'cheese',
      result: null,
      changes: { changed: { cheese: 'gouda' } },
      comment: 'Grain cheese is set to be changed',
    });
  });

  it('nested keys build a dict; replacing a list needs force; a custom delimiter becomes ":"', async () => {
    const r = await run('grains.present', { name: 'icinga,Apache SSL', delimiter: ',', value: ['check_https'] });
    assert.deepEqual(r, { name: 'icinga:Apache SSL', result: true, changes: { icinga: { 'Apache SSL': ['check_https'] } }, comment: "Set grain icinga:Apache SSL to ['check_https']" });
    const refused = await run('grains.present', { name: 'icinga:Apache SSL', value: 'x' });
    assert.deepEqual(refused, { name: 'icinga:Apache SSL', result: false, changes: {}, comment: "The key 'icinga:Apache SSL' exists but is a dict or a list. Use 'force=True' to overwrite." });
    assert.equal((await run('grains.present', { name: 'icinga:Apache SSL', value: 'x', force: true })).result, true);
    assert.equal(fs.readFileSync(file, 'utf8'), 'icinga:\n  Apache SSL: x\n');
  });
});

describe('grains.list_present / list_absent / append / absent / exists', () => {
  it('list_present creates and extends a list grain; list_absent removes values', async () => {
    // test mode on a missing grain reports grains.get's default '' as "new" (Salt's own quirk)
    assert.deepEqual(await run('grains.list_present', { name: 'roles', value: ['web', 'dev'] }, true), {
      name: 'roles',
      result: null,
      changes: { new: '' },
      comment: 'Grain roles is set to be added',
    });
    assert.deepEqual(await run('grains.list_present', { name: 'roles', value: ['web', 'dev'] }), {
      name: 'roles',
      result: true,
      changes: { new: { roles: ['web', 'dev'] } },
      comment: "Append value ['web', 'dev'] to grain roles",
    });
    assert.deepEqual(await run('grains.list_present', { name: 'roles', value: 'web' }), { name: 'roles', result: true, changes: {}, comment: 'Value web is already in grain roles' });
    assert.deepEqual(await run('grains.list_present', { name: 'roles', value: 'db' }, true), {
      name: 'roles',
      result: null,
      changes: { new: ['web', 'dev'] },
      comment: 'Value db is set to be appended to grain roles',
    });
    assert.deepEqual(await run('grains.list_absent', { name: 'roles', value: ['dev', 'db'] }), {
      name: 'roles',
      result: true,
      changes: { deleted: ['dev'] },
      comment: 'Value dev was deleted from grain roles\nValue db is absent from grain roles',
    });
    assert.equal(fs.readFileSync(file, 'utf8'), 'roles:\n  - web\n');
    assert.deepEqual(await run('grains.list_absent', { name: 'nothing', value: 'x' }), { name: 'nothing', result: true, changes: {}, comment: 'Grain nothing does not exist' });
    assert.deepEqual(await run('grains.list_present', { name: 'os', value: 'x' }), { name: 'os', result: false, changes: {}, comment: 'Grain os is not a valid list' });
  });

  it('append needs an existing list unless convert; absent sets None or deletes; exists', async () => {
    assert.deepEqual(await run('grains.append', { name: 'roles', value: 'web' }), { name: 'roles', result: false, changes: {}, comment: 'Grain roles does not exist' });
    await run('grains.present', { name: 'tier', value: 'front' });
    assert.deepEqual(await run('grains.append', { name: 'tier', value: 'back', convert: true }), {
      name: 'tier',
      result: true,
      changes: { added: 'back' },
      comment: 'Value back was added to grain tier',
    });
    assert.deepEqual(grains.tier, ['front', 'back']);
    assert.deepEqual(await run('grains.absent', { name: 'tier' }, true), {
      name: 'tier',
      result: null,
      changes: { grain: 'tier', value: null },
      comment: 'Value for grain tier is set to be deleted (None)',
    });
    assert.deepEqual(await run('grains.absent', { name: 'tier', force: true }), {
      name: 'tier',
      result: true,
      changes: { grain: 'tier', value: null },
      comment: 'Value for grain tier was set to None',
    });
    assert.deepEqual(await run('grains.absent', { name: 'tier', destructive: true }), { name: 'tier', result: true, changes: { deleted: 'tier' }, comment: 'Grain tier was deleted' });
    assert.equal('tier' in grains, false);
    assert.deepEqual(await run('grains.absent', { name: 'tier' }), { name: 'tier', result: true, changes: {}, comment: 'Grain tier does not exist' });
    assert.deepEqual(await run('grains.exists', { name: 'os' }), { name: 'os', result: true, changes: {}, comment: 'Grain exists' });
    assert.deepEqual(await run('grains.exists', { name: 'tier' }), { name: 'tier', result: false, changes: {}, comment: 'Grain does not exist' });
  });

  it("the minion's grains collection reads the file over the core grains, under the config's grains:", async () => {
    await run('grains.present', { name: 'cheese', value: 'edam' });
    await run('grains.present', { name: 'os', value: 'Plan9', force: true });
    const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
    const { grains: collected } = await collectMinionGrains({ id: 'web1', config: { config_dir: dir, grains: { os: 'FromConfig' } }, logger: quiet });
    assert.equal(collected.cheese, 'edam');
    assert.equal(collected.os, 'FromConfig', 'grains: in the config wins over the file');
  });
});
