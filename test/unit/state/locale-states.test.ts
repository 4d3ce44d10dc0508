// locale.system and locale.present. test=True reads this host; the real changes run in a child
// process inside its own mount namespace, with a copy of /etc over /etc and an empty directory
// over /usr/lib/locale, so the real locale-gen writes there and never on this host.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { normalizeLocale } from '../../../src/modules/locale-module.js';
import { privilegedSkip } from '../../helpers/privileged.js';
import { runState } from './state-ctx.js';
import { onPath } from '../../helpers/paths.js';

const stateCtxModule = path.join(path.dirname(fileURLToPath(import.meta.url)), 'state-ctx.js');
const tools = onPath('locale-gen') && onPath('locale') && fs.existsSync('/usr/share/i18n/SUPPORTED');
const skipHere = privilegedSkip('locale states (test mode)', tools ? false : 'locale-gen and /usr/share/i18n/SUPPORTED are needed (Debian: apt-get install locales)');
const skipNs = privilegedSkip(
  'locale states (mount namespace)',
  !tools ? 'locales is needed' : process.getuid?.() !== 0 ? 'needs root for a mount namespace' : spawnSync('unshare', ['-m', 'true']).status !== 0 ? 'unshare -m is not permitted here' : false,
);

describe('locale names (pure)', () => {
  it("normalizes as Salt's normalize_locale: territory upper, codeset lower without '-', charmap dropped", () => {
    assert.equal(normalizeLocale('en_us.UTF-8 UTF-8'), 'en_US.utf8');
    assert.equal(normalizeLocale('ca_ES.UTF-8@valencia'), 'ca_ES.utf8@valencia');
    assert.equal(normalizeLocale('C.UTF-8'), 'C.utf8');
  });
});

describe('locale states on this host, test=True', { skip: skipHere }, () => {
  it("a generated locale is 'already present'; another 'needs to be generated'; locale.system needs to be set", async () => {
    assert.deepEqual(await runState('locale.present', { name: 'C.UTF-8' }, { test: true }), { name: 'C.UTF-8', result: true, changes: {}, comment: 'Locale C.UTF-8 is already present' });
    assert.deepEqual(await runState('locale.present', { name: 'tlh_XX.UTF-8' }, { test: true }), {
      name: 'tlh_XX.UTF-8',
      result: null,
      changes: {},
      comment: 'Locale tlh_XX.UTF-8 needs to be generated',
    });
    assert.deepEqual(await runState('locale.system', { name: 'tlh_XX.UTF-8' }, { test: true }), {
      name: 'tlh_XX.UTF-8',
      result: null,
      changes: {},
      comment: 'System locale tlh_XX.UTF-8 needs to be set',
    });
  });
});

describe('locale states changing a private copy of /etc', { skip: skipNs }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-locale-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('present generates with the real locale-gen ({locale: name}); system writes LANG; unknown locales fail; reruns are no-ops', () => {
    spawnSync('cp', ['-a', '/etc', path.join(dir, 'etc')]);
    fs.mkdirSync(path.join(dir, 'locale'));
    fs.cpSync('/usr/lib/locale', path.join(dir, 'locale'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'etc', 'locale.gen'), '# de_DE.UTF-8 UTF-8\n');
    const script = `
      import { runState } from ${JSON.stringify(stateCtxModule)};
      import fs from 'node:fs';
      const out = [];
      out.push(await runState('locale.present', { name: 'de_DE.UTF-8' }));
      out.push(await runState('locale.present', { name: 'de_DE.UTF-8' }));
      out.push(await runState('locale.present', { name: 'tlh_XX.UTF-8' }));
      out.push(await runState('locale.system', { name: 'de_DE.UTF-8' }));
      out.push(await runState('locale.system', { name: 'de_DE.UTF-8' }));
      out.push({ gen: fs.readFileSync('/etc/locale.gen', 'utf8'), def: fs.readFileSync('/etc/default/locale', 'utf8') });
      process.stdout.write(JSON.stringify(out));
    `;
    const sh = `mount --bind ${dir}/etc /etc && mount --bind ${dir}/locale /usr/lib/locale && exec ${process.execPath} --input-type=module -e "$0"`;
    const r = spawnSync('unshare', ['-m', '--propagation', 'private', 'sh', '-c', sh, script], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const [gen, again, bad, sys, sysAgain, files] = JSON.parse(r.stdout) as [unknown, unknown, unknown, unknown, unknown, { gen: string; def: string }];
    // salt/states/locale.py present() / system()
    assert.deepEqual(gen, { name: 'de_DE.UTF-8', result: true, changes: { locale: 'de_DE.UTF-8' }, comment: 'Generated locale de_DE.UTF-8' });
    assert.deepEqual(again, { name: 'de_DE.UTF-8', result: true, changes: {}, comment: 'Locale de_DE.UTF-8 is already present' });
    assert.deepEqual(bad, { name: 'tlh_XX.UTF-8', result: false, changes: {}, comment: 'Failed to generate locale tlh_XX.UTF-8' });
    assert.deepEqual(sys, { name: 'de_DE.UTF-8', result: true, changes: { locale: 'de_DE.UTF-8' }, comment: 'Set system locale de_DE.UTF-8' });
    assert.deepEqual(sysAgain, { name: 'de_DE.UTF-8', result: true, changes: {}, comment: 'System locale de_DE.UTF-8 already set' });
    assert.equal(files.gen, 'de_DE.UTF-8 UTF-8\n');
    assert.match(files.def, /^LANG=de_DE\.UTF-8$/m);
    assert.equal(fs.existsSync('/usr/lib/locale/de_DE.utf8'), false, "the host's locales are untouched");
  });
});
