import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { CRON_TAG, parseCrontab, renderCrontab, withJob, withoutJob } from '../../../src/modules/index.js';
import { privilegedSkip } from '../../helpers/privileged.js';
import { runState } from './state-ctx.js';
import { onPath } from '../../helpers/paths.js';

const reason =
  process.getuid?.() !== 0 ? 'needs root to create a user and edit its crontab' : !onPath('crontab') ? 'crontab is not installed (Debian: apt-get install cron; .ci/run installs it)' : false;
const skip = privilegedSkip('cron states', reason);

describe('crontab format (pure)', () => {
  it("keeps lines above Salt's marker, round-trips jobs, specials, env, comments, identifiers and disabled jobs", () => {
    const text = [
      'MAILTO=me',
      '5 * * * * /usr/bin/unmanaged',
      CRON_TAG,
      'PATH=/usr/bin:/bin',
      '# nightly SALT_CRON_IDENTIFIER:backup',
      '30 2 * * * /usr/local/bin/backup --quiet',
      '#DISABLED#0 * * * * /bin/old',
      '@reboot /bin/warm',
      '',
    ].join('\n');
    const tab = parseCrontab(text);
    assert.deepEqual(tab.pre, ['MAILTO=me', '5 * * * * /usr/bin/unmanaged']);
    assert.deepEqual(tab.env, [{ name: 'PATH', value: '/usr/bin:/bin' }]);
    assert.deepEqual(tab.crons[0], {
      minute: '30',
      hour: '2',
      daymonth: '*',
      month: '*',
      dayweek: '*',
      cmd: '/usr/local/bin/backup --quiet',
      comment: 'nightly',
      commented: false,
      identifier: 'backup',
    });
    assert.equal(tab.crons[1]!.commented, true);
    assert.deepEqual(tab.special, [{ spec: '@reboot', cmd: '/bin/warm', comment: null, commented: false, identifier: null }]);
    assert.deepEqual(parseCrontab(renderCrontab(tab)), tab);
  });

  it('an identified job is updated in place when its command changes; removal by identifier', () => {
    const tab = parseCrontab(renderCrontab({ pre: [], env: [], special: [], crons: [] }));
    const job = { minute: '1', hour: '*', daymonth: '*', month: '*', dayweek: '*', cmd: '/bin/a', comment: null, commented: false, identifier: 'x' };
    const added = withJob(tab, job);
    assert.equal(added.status, 'new');
    assert.equal(withJob(added.tab, job).status, 'present');
    const moved = withJob(added.tab, { ...job, cmd: '/bin/b' });
    assert.equal(moved.status, 'updated');
    assert.equal(moved.tab.crons.length, 1);
    assert.equal(withoutJob(moved.tab, { cmd: 'whatever', identifier: 'x' }).tab.crons.length, 0);
    assert.equal(withoutJob(moved.tab, { cmd: '/bin/b', identifier: null, hour: '3' }).removed, false, 'time fields narrow the match');
  });
});

describe('cron.present / cron.absent with a real crontab', { skip }, () => {
  const user = `brinet${randomBytes(3).toString('hex')}`;
  const crontab = () => {
    const r = spawnSync('crontab', ['-u', user, '-l'], { encoding: 'utf8' });
    return r.status === 0 ? r.stdout : '';
  };
  before(() => {
    execFileSync('useradd', ['-M', user]);
    // A line the operator wrote by hand, above Salt's section: it must survive every change.
    execFileSync('crontab', ['-u', user, '-'], { input: '# hand-written\n15 4 * * * /usr/bin/handmade\n' });
  });
  after(() => {
    spawnSync('crontab', ['-u', user, '-r'], { stdio: 'ignore' });
    spawnSync('userdel', [user], { stdio: 'ignore' });
  });

  it('adds a job, is idempotent, updates it by identifier, test=True writes nothing', async () => {
    const args = { name: '/usr/local/bin/backup --quiet', user, minute: 30, hour: 2, identifier: 'nightly', comment: 'nightly backup' };
    const dry = await runState('cron.present', args, { test: true });
    assert.deepEqual(dry, { name: args.name, result: null, changes: { [user]: args.name }, comment: `Cron ${args.name} is set to be added` });
    assert.doesNotMatch(crontab(), /backup/);

    const r = await runState('cron.present', args);
    assert.deepEqual(r, { name: args.name, result: true, changes: { [user]: args.name }, comment: `Cron ${args.name} added to ${user}'s crontab` });
    const text = crontab();
    assert.match(text, /^# hand-written\n15 4 \* \* \* \/usr\/bin\/handmade\n/);
    assert.match(text, /# nightly backup SALT_CRON_IDENTIFIER:nightly\n30 2 \* \* \* \/usr\/local\/bin\/backup --quiet\n/);

    const again = await runState('cron.present', args);
    assert.deepEqual(again.changes, {});
    assert.equal(again.comment, `Cron ${args.name} already present`);

    const moved = await runState('cron.present', { ...args, name: '/usr/local/bin/backup --verbose', hour: 3 });
    assert.equal(moved.comment, 'Cron /usr/local/bin/backup --verbose updated');
    const after_ = crontab();
    assert.match(after_, /30 3 \* \* \* \/usr\/local\/bin\/backup --verbose/);
    assert.doesNotMatch(after_, /--quiet/, 'the identified job was replaced, not duplicated');
  });

  it('special jobs, then cron.absent removes and reports absent; the hand-written line stays', async () => {
    const sp = await runState('cron.present', { name: '/bin/warm-cache', user, special: '@reboot' });
    assert.equal(sp.result, true, sp.comment);
    assert.match(crontab(), /\n@reboot \/bin\/warm-cache\n/);
    const gone = await runState('cron.absent', { name: '/usr/local/bin/backup --verbose', user, identifier: 'nightly' });
    assert.deepEqual(gone, {
      name: '/usr/local/bin/backup --verbose',
      result: true,
      changes: { [user]: '/usr/local/bin/backup --verbose' },
      comment: `Cron /usr/local/bin/backup --verbose removed from ${user}'s crontab`,
    });
    assert.doesNotMatch(crontab(), /backup/);
    const again = await runState('cron.absent', { name: '/usr/local/bin/backup --verbose', user, identifier: 'nightly' });
    assert.equal(again.comment, `Cron /usr/local/bin/backup --verbose already absent from ${user}'s crontab`);
    assert.match(crontab(), /15 4 \* \* \* \/usr\/bin\/handmade/);
  });

  it('a time field with shell syntax or a multi-line command is refused before the crontab is touched', async () => {
    const beforeText = crontab();
    const bad = await runState('cron.present', { name: '/bin/x', user, minute: '* ; rm -rf /' });
    assert.equal(bad.result, false);
    assert.match(bad.comment, /minute '\* ; rm -rf \/' is not a crontab time field/);
    const multi = await runState('cron.present', { name: '/bin/x\n* * * * * /bin/evil', user });
    assert.equal(multi.result, false);
    assert.match(multi.comment, /the command must be one line/);
    assert.equal(crontab(), beforeText);
  });
});
