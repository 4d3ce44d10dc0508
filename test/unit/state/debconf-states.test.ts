// debconf.set with Debian's real debconf-set-selections / debconf-get-selections on a temp
// debconf database (DEBCONF_SYSTEMRC points debconf at it), holding a test package's questions
// loaded with debconf-loadtemplate; the host's answers are never touched.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseSelections } from '../../../src/modules/debconf-module.js';
import { privilegedSkip } from '../../helpers/privileged.js';
import { runState } from './state-ctx.js';
import { onPath } from '../../helpers/paths.js';

const skip = privilegedSkip(
  'debconf states',
  !onPath('debconf-get-selections') || !onPath('debconf-loadtemplate') ? 'debconf-get-selections is needed (Debian: apt-get install debconf-utils; .ci/run installs it)' : false,
);

const TEMPLATES = `Template: brine-test/color
Type: string
Default: red
Description: Favourite colour?

Template: brine-test/enable
Type: boolean
Default: false
Description: Enable it?

Template: brine-test/secret
Type: password
Description: Secret?
`;

describe('debconf selections (pure)', () => {
  it("parses debconf-get-selections' lines, skipping comments; fetchempty=False drops unanswered questions", () => {
    const out = '# Favourite colour?\nbrine-test\tbrine-test/color\tstring\tdark blue\n# Secret?\nbrine-test\tbrine-test/secret\tpassword\t\n';
    assert.deepEqual(parseSelections(out), {
      'brine-test': [
        ['brine-test/color', 'string', 'dark blue'],
        ['brine-test/secret', 'password', ''],
      ],
    });
    assert.deepEqual(parseSelections(out, false), { 'brine-test': [['brine-test/color', 'string', 'dark blue']] });
  });
});

describe('debconf.set on a temp debconf database', { skip }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-debconf-'));
  const saved = process.env.DEBCONF_SYSTEMRC;
  const selections = () => execFileSync('debconf-get-selections', { encoding: 'utf8' });
  before(() => {
    const rc = ['Config: configdb', 'Templates: templatedb', '']
      .concat(['configdb', 'passwords', 'templatedb'].flatMap((n) => [`Name: ${n}`, 'Driver: File', `Filename: ${path.join(dir, `${n}.dat`)}`, '']))
      .join('\n');
    fs.writeFileSync(path.join(dir, 'debconf.conf'), rc);
    fs.writeFileSync(path.join(dir, 'templates'), TEMPLATES);
    process.env.DEBCONF_SYSTEMRC = path.join(dir, 'debconf.conf');
    execFileSync('debconf-loadtemplate', ['brine-test', path.join(dir, 'templates')]);
  });
  after(() => {
    if (saved === undefined) delete process.env.DEBCONF_SYSTEMRC;
    else process.env.DEBCONF_SYSTEMRC = saved;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("test=True lists 'New value: ...' per question; the run sets them (booleans lowercased, passwords hidden); a rerun changes nothing", async () => {
    const data = { 'brine-test/color': { type: 'string', value: 'dark blue' }, 'brine-test/enable': { type: 'boolean', value: true }, 'brine-test/secret': { type: 'password', value: 's3cret' } };
    // salt/states/debconfmod.py set(): test -> result None, changes {key: "New value: <value>"}, comment ''
    const dry = await runState('debconf.set', { name: 'brine-test', data }, { test: true });
    assert.deepEqual(dry, {
      name: 'brine-test',
      result: null,
      changes: { 'brine-test/color': 'New value: dark blue', 'brine-test/enable': 'New value: true', 'brine-test/secret': 'New value: s3cret' },
      comment: '',
    });
    assert.match(selections(), /brine-test\/color\tstring\tred/, 'test=True set nothing');
    const r = await runState('debconf.set', { name: 'brine-test', data });
    assert.deepEqual(r, {
      name: 'brine-test',
      result: true,
      changes: { 'brine-test/color': 'dark blue', 'brine-test/enable': 'true', 'brine-test/secret': '(password hidden)' },
      comment: '',
    });
    const now = selections();
    assert.match(now, /brine-test\tbrine-test\/color\tstring\tdark blue\n/);
    assert.match(now, /brine-test\tbrine-test\/enable\tboolean\ttrue\n/);
    assert.deepEqual(await runState('debconf.set', { name: 'brine-test', data }), { name: 'brine-test', result: true, changes: {}, comment: 'All specified answers are already set' });
  });

  it("one answer set, one changed: 'Unchanged answers: <key> ' with the change; an unknown package has no answers yet", async () => {
    const r = await runState('debconf.set', { name: 'brine-test', data: { 'brine-test/color': { type: 'string', value: 'dark blue' }, 'brine-test/enable': { type: 'boolean', value: false } } });
    assert.deepEqual(r, { name: 'brine-test', result: true, changes: { 'brine-test/enable': 'false' }, comment: 'Unchanged answers: brine-test/color ' });
    const dry = await runState('debconf.set', { name: 'no-such-pkg', data: { 'no-such-pkg/q': { type: 'string', value: 'x' } } }, { test: true });
    assert.deepEqual(dry.changes, { 'no-such-pkg/q': 'New value: x' });
  });

  it('without debconf-get-selections the state fails naming debconf-utils', async () => {
    const savedPath = process.env.PATH;
    process.env.PATH = dir;
    try {
      const r = await runState('debconf.set', { name: 'brine-test', data: {} });
      assert.equal(r.result, false);
      assert.match(r.comment, /debconf-get-selections is not installed on this host; install it with apt-get install debconf-utils/);
    } finally {
      process.env.PATH = savedPath;
    }
  });
});
