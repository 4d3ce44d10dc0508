// cron.env_present / cron.env_absent with the real crontab program and a throwaway user.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { CRON_TAG } from '../../../src/modules/index.js';
import { privilegedSkip } from '../../helpers/privileged.js';
import { runState } from './state-ctx.js';
import { onPath } from '../../helpers/paths.js';

const skip = privilegedSkip(
  'cron env states',
  process.getuid?.() !== 0 ? 'needs root to create a user and edit its crontab' : !onPath('crontab') ? 'crontab is not installed (Debian: apt-get install cron; .ci/run installs it)' : false,
);

describe('cron.env_present / cron.env_absent with a real crontab', { skip }, () => {
  const user = `brinee${randomBytes(3).toString('hex')}`;
  const crontab = () => spawnSync('crontab', ['-u', user, '-l'], { encoding: 'utf8' }).stdout;
  before(() => {
    execFileSync('useradd', ['-M', user]);
    execFileSync('crontab', ['-u', user, '-'], { input: '# hand-written\n15 4 * * * /usr/bin/handmade\n' });
  });
  after(() => {
    spawnSync('crontab', ['-u', user, '-r'], { stdio: 'ignore' });
    spawnSync('userdel', [user], { stdio: 'ignore' });
  });

  it('env_present: test=True, added with {user: name}, already present, updated; the hand-written lines stay', async () => {
    // salt/states/cron.py env_present()
    assert.deepEqual(await runState('cron.env_present', { name: 'MAILTO', value: 'ops@example.com', user }, { test: true }), {
      name: 'MAILTO',
      result: null,
      changes: {},
      comment: 'Cron env MAILTO is set to be added',
    });
    assert.doesNotMatch(crontab(), /MAILTO/);
    assert.deepEqual(await runState('cron.env_present', { name: 'MAILTO', value: 'ops@example.com', user }), {
      name: 'MAILTO',
      result: true,
      changes: { [user]: 'MAILTO' },
      comment: `Cron env MAILTO added to ${user}'s crontab`,
    });
    assert.ok(crontab().startsWith(`# hand-written\n15 4 * * * /usr/bin/handmade\n${CRON_TAG}\nMAILTO=ops@example.com\n`), crontab());
    assert.deepEqual(await runState('cron.env_present', { name: 'MAILTO', value: 'ops@example.com', user }), { name: 'MAILTO', result: true, changes: {}, comment: 'Cron env MAILTO already present' });
    assert.deepEqual(await runState('cron.env_present', { name: 'MAILTO', value: 'root', user }, { test: true }), {
      name: 'MAILTO',
      result: null,
      changes: {},
      comment: 'Cron env MAILTO is set to be updated',
    });
    assert.deepEqual(await runState('cron.env_present', { name: 'MAILTO', value: 'root', user }), { name: 'MAILTO', result: true, changes: { [user]: 'MAILTO' }, comment: 'Cron env MAILTO updated' });
    assert.match(crontab(), /^MAILTO=root$/m);
  });

  it('env_absent: test=True, removed with {user: name}, then already absent', async () => {
    assert.deepEqual(await runState('cron.env_absent', { name: 'MAILTO', user }, { test: true }), { name: 'MAILTO', result: null, changes: {}, comment: 'Cron env MAILTO is set to be removed' });
    assert.deepEqual(await runState('cron.env_absent', { name: 'MAILTO', user }), {
      name: 'MAILTO',
      result: true,
      changes: { [user]: 'MAILTO' },
      comment: `Cron env MAILTO removed from ${user}'s crontab`,
    });
    assert.doesNotMatch(crontab(), /MAILTO/);
    assert.match(crontab(), /handmade/);
    assert.deepEqual(await runState('cron.env_absent', { name: 'MAILTO', user }), { name: 'MAILTO', result: true, changes: {}, comment: 'Cron env MAILTO already absent' });
    assert.deepEqual(await runState('cron.env_absent', { name: 'MAILTO', user }, { test: true }), { name: 'MAILTO', result: true, changes: {}, comment: 'Cron env MAILTO is absent' });
  });
});
