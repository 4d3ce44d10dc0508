// timezone.system. test=True reads this host's real zone; the real changes run in a child
// process inside its own mount namespace (unshare -m) with a copy of /etc bind-mounted over
// /etc, so /etc/localtime, /etc/timezone and /etc/adjtime really change there and never here.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getZone } from '../../../src/modules/timezone-module.js';
import { privilegedSkip } from '../../helpers/privileged.js';
import { runState } from './state-ctx.js';

const stateCtxModule = path.join(path.dirname(fileURLToPath(import.meta.url)), 'state-ctx.js');
const zoneinfo = fs.existsSync('/usr/share/zoneinfo/Europe/Paris') && fs.existsSync('/etc/localtime');
const skipHere = privilegedSkip('timezone states (test mode)', zoneinfo ? false : 'tzdata (/usr/share/zoneinfo) and /etc/localtime are needed');
const skipNs = privilegedSkip(
  'timezone states (mount namespace)',
  !zoneinfo ? 'tzdata is needed' : process.getuid?.() !== 0 ? 'needs root for a mount namespace' : spawnSync('unshare', ['-m', 'true']).status !== 0 ? 'unshare -m is not permitted here' : false,
);

describe('timezone.system on this host, test=True', { skip: skipHere }, () => {
  it("the current zone is 'already set'; another zone 'needs to be set'; an unknown one fails to compare", async () => {
    const zone = getZone();
    // salt/states/timezone.py system(): both checks pass -> result True, messages joined by ', '
    assert.deepEqual(await runState('timezone.system', { name: zone }, { test: true }), { name: zone, result: true, changes: {}, comment: `Timezone ${zone} already set, UTC already set to ${zone}` });
    const other = zone === 'Europe/Paris' ? 'Asia/Tokyo' : 'Europe/Paris';
    assert.deepEqual(await runState('timezone.system', { name: other }, { test: true }), { name: other, result: null, changes: {}, comment: `Timezone ${other} needs to be set` });
    assert.deepEqual(await runState('timezone.system', { name: 'Nowhere/Atlantis' }, { test: true }), {
      name: 'Nowhere/Atlantis',
      result: false,
      changes: {},
      comment: `Unable to compare desired timezone 'Nowhere/Atlantis' to system timezone: Can't find a local timezone "Nowhere/Atlantis"`,
    });
  });
});

describe('timezone.system changing a private copy of /etc', { skip: skipNs }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-tz-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("sets the zone ({timezone}) and the hardware clock ({utc}) with Salt's comments; a rerun is already set", () => {
    spawnSync('cp', ['-a', '/etc', path.join(dir, 'etc')]);
    fs.rmSync(path.join(dir, 'etc', 'adjtime'), { force: true });
    fs.writeFileSync(path.join(dir, 'etc', 'adjtime'), '0.0 0 0.0\n0\nLOCAL\n');
    const script = `
      import { runState } from ${JSON.stringify(stateCtxModule)};
      import fs from 'node:fs';
      const out = [];
      out.push(await runState('timezone.system', { name: 'Europe/Paris' }));
      out.push(await runState('timezone.system', { name: 'Europe/Paris' }));
      out.push({ link: fs.readlinkSync('/etc/localtime'), tz: fs.readFileSync('/etc/timezone', 'utf8'), adj: fs.readFileSync('/etc/adjtime', 'utf8') });
      process.stdout.write(JSON.stringify(out));
    `;
    const sh = `mount --bind ${dir}/etc /etc && exec ${process.execPath} --input-type=module -e "$0"`;
    const r = spawnSync('unshare', ['-m', '--propagation', 'private', 'sh', '-c', sh, script], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const [set, again, files] = JSON.parse(r.stdout) as [Record<string, unknown>, Record<string, unknown>, { link: string; tz: string; adj: string }];
    assert.deepEqual(set, { name: 'Europe/Paris', result: true, changes: { timezone: 'Europe/Paris', utc: true }, comment: 'Set timezone Europe/Paris, Set UTC to True' });
    assert.deepEqual(again, { name: 'Europe/Paris', result: true, changes: {}, comment: 'Timezone Europe/Paris already set, UTC already set to Europe/Paris' });
    assert.deepEqual(files, { link: '/usr/share/zoneinfo/Europe/Paris', tz: 'Europe/Paris\n', adj: '0.0 0 0.0\n0\nUTC\n' });
    assert.notEqual(fs.readFileSync('/etc/timezone', 'utf8'), 'Europe/Paris\n', "the host's /etc is untouched");
  });
});
