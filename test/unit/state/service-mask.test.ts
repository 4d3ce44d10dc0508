// service.masked / service.unmasked with the real systemctl (Debian's systemd package) acting
// offline on a temp unit tree (systemctl --root), since systemd does not run here. Shapes are
// Salt 3007's salt/states/service.py masked/unmasked; the mask is read from the unit link as
// salt/modules/systemd_service.py masked does. Without systemd and without a root, test=True still
// answers and a real run fails naming what is missing.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createServiceFunctions } from '../../../src/modules/index.js';
import { runState } from './state-ctx.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-units-'));
fs.mkdirSync(path.join(root, 'etc', 'systemd', 'system'), { recursive: true });
after(() => fs.rmSync(root, { recursive: true, force: true }));
const offline = { override: createServiceFunctions({ systemdMarker: path.join(root, 'no-systemd'), unitRoot: root }) };
const link = (dir: 'etc' | 'run', unit: string) => path.join(root, dir, 'systemd', 'system', unit);
const linkTarget = (dir: 'etc' | 'run', unit: string) =>
  fs.existsSync(path.dirname(link(dir, unit))) && fs.lstatSync(link(dir, unit), { throwIfNoEntry: false }) ? fs.readlinkSync(link(dir, unit)) : undefined;

describe('service.masked / service.unmasked', () => {
  it('masked: test=True (None, expected changes), masked by systemctl, then already masked', async () => {
    assert.deepEqual(await runState('service.masked', { name: 'ntpd' }, { ...offline, test: true }), {
      name: 'ntpd',
      result: null,
      changes: { masked: { old: false, new: true } },
      comment: 'Service ntpd would be masked',
    });
    assert.equal(linkTarget('etc', 'ntpd.service'), undefined);
    assert.deepEqual(await runState('service.masked', { name: 'ntpd' }, offline), { name: 'ntpd', result: true, changes: { masked: { old: false, new: true } }, comment: 'Service ntpd was masked' });
    assert.equal(linkTarget('etc', 'ntpd.service'), '/dev/null');
    assert.deepEqual(await runState('service.masked', { name: 'ntpd' }, offline), { name: 'ntpd', result: true, changes: {}, comment: 'Service ntpd is already masked' });
  });

  it('runtime: the /run mask is separate from the lasting one', async () => {
    assert.deepEqual(await runState('service.masked', { name: 'ntpd', runtime: true }, offline), {
      name: 'ntpd',
      result: true,
      changes: { 'runtime masked': { old: false, new: true } },
      comment: 'Service ntpd was runtime masked',
    });
    assert.equal(linkTarget('run', 'ntpd.service'), '/dev/null');
    assert.deepEqual(await runState('service.unmasked', { name: 'ntpd', runtime: true }, offline), {
      name: 'ntpd',
      result: true,
      changes: { 'runtime masked': { old: true, new: false } },
      comment: 'Service ntpd was runtime unmasked',
    });
    assert.equal(linkTarget('etc', 'ntpd.service'), '/dev/null', 'the lasting mask stays');
  });

  it('unmasked: test=True, unmasked, then already unmasked', async () => {
    assert.deepEqual(await runState('service.unmasked', { name: 'ntpd' }, { ...offline, test: true }), {
      name: 'ntpd',
      result: null,
      changes: { masked: { old: true, new: false } },
      comment: 'Service ntpd would be unmasked',
    });
    assert.deepEqual(await runState('service.unmasked', { name: 'ntpd.service' }, offline), {
      name: 'ntpd.service',
      result: true,
      changes: { masked: { old: true, new: false } },
      comment: 'Service ntpd.service was unmasked',
    });
    assert.equal(linkTarget('etc', 'ntpd.service'), undefined);
    assert.deepEqual(await runState('service.unmasked', { name: 'ntpd' }, offline), { name: 'ntpd', result: true, changes: {}, comment: 'Service ntpd was already unmasked' });
  });

  it('without systemd: test=True answers as Salt does; a real run fails saying systemd is not running', async () => {
    const none = { override: createServiceFunctions({ systemdMarker: path.join(root, 'no-systemd'), unitRoot: '/' }) };
    const unit = 'brine-test-never-installed';
    assert.deepEqual(await runState('service.masked', { name: unit }, { ...none, test: true }), {
      name: unit,
      result: null,
      changes: { masked: { old: false, new: true } },
      comment: `Service ${unit} would be masked`,
    });
    const r = await runState('service.masked', { name: unit }, none);
    assert.equal(r.result, false);
    assert.deepEqual(r.changes, {});
    assert.match(r.comment, /service\.mask: systemd is not running on this host/);
  });
});
