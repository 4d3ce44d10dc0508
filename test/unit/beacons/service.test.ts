// The service beacon's onchangeonly, emitatstartup and delay (issue 25 point 6), on a fake clock;
// service.status is the injected call (the real one needs systemd, which a unit test cannot start).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serviceBeacon } from '../../../src/beacons/service.js';
import { FakeClock } from '../../../src/util/clock.js';
import { silentLogger } from '../../../src/util/logger.js';

function beaconWith(status: { up: boolean }, clock = new FakeClock()) {
  const asked: unknown[][] = [];
  const inst = serviceBeacon.create({
    id: 'm1',
    clock,
    logger: silentLogger(),
    call: async (fun, arg) => {
      asked.push([fun, ...arg]);
      return status.up;
    },
  });
  return { inst, asked, clock };
}

test('service: every poll without onchangeonly, in Salt shape and tag', async () => {
  const s = { up: true };
  const { inst, asked } = beaconWith(s);
  const config = { services: { nginx: null } };
  assert.equal(serviceBeacon.validate(config), undefined);
  assert.deepEqual(await inst.poll(config), [{ nginx: { running: true }, service_name: 'nginx', tag: 'nginx' }]);
  assert.deepEqual(await inst.poll(config), [{ nginx: { running: true }, service_name: 'nginx', tag: 'nginx' }]);
  assert.deepEqual(asked[0], ['service.status', 'nginx']);
});

test('service: onchangeonly fires at startup (unless emitatstartup: False) and then on changes only', async () => {
  const s = { up: true };
  const { inst } = beaconWith(s);
  const config = { services: { nginx: { onchangeonly: true } } };
  assert.equal((await inst.poll(config)).length, 1, 'emitatstartup defaults to True');
  assert.equal((await inst.poll(config)).length, 0);
  s.up = false;
  assert.deepEqual(await inst.poll(config), [{ nginx: { running: false }, service_name: 'nginx', tag: 'nginx' }]);
  assert.equal((await inst.poll(config)).length, 0);
  const quiet = beaconWith({ up: true }).inst;
  assert.equal((await quiet.poll({ services: { nginx: { onchangeonly: true, emitatstartup: false } } })).length, 0);
});

test('service: delay holds a change until it has lasted longer than delay seconds', async () => {
  const s = { up: true };
  const { inst, clock } = beaconWith(s);
  const config = { services: { nginx: { onchangeonly: true, delay: 10 } } };
  assert.equal((await inst.poll(config)).length, 0, 'with a delay the startup event waits too');
  clock.advance(11_000);
  assert.equal((await inst.poll(config)).length, 1);
  s.up = false;
  assert.equal((await inst.poll(config)).length, 0, 'the change waits');
  clock.advance(5000);
  assert.equal((await inst.poll(config)).length, 0);
  clock.advance(6000);
  assert.deepEqual(await inst.poll(config), [{ nginx: { running: false }, service_name: 'nginx', tag: 'nginx' }]);
  assert.equal((await inst.poll(config)).length, 0);
});
