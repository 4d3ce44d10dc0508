// Salt's reactor engine in `engines:` (salt/engines/reactor.py): its settings replace the
// reactor_* options on a minion's reactor, bad settings are CONFIG_VALUE naming what to write, and
// an engines list holding only the reactor is no start-up warning while any other engine still is.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { configWarnings } from '../../../src/config/start-warnings.js';
import { reactorEngineSettings } from '../../../src/reactor/index.js';
import type { BrineError } from '../../../src/util/errors.js';

test("the reactor engine's settings in both spellings; no reactor engine is undefined", () => {
  assert.deepEqual(reactorEngineSettings(['reactor']), {});
  assert.deepEqual(reactorEngineSettings([{ reactor: { refresh_interval: 60, worker_threads: 2, worker_hwm: 0 } }]), { refresh_interval: 60, worker_threads: 2, worker_hwm: 0 });
  assert.deepEqual(reactorEngineSettings([{ reactor: null }]), {});
  assert.equal(reactorEngineSettings([{ logstash: {} }]), undefined);
  assert.equal(reactorEngineSettings(undefined), undefined);
});

test('a bad reactor engine setting is CONFIG_VALUE naming the setting and an example', () => {
  const bad = (v: unknown, re: RegExp) =>
    assert.throws(
      () => reactorEngineSettings([{ reactor: v }]),
      (e: BrineError) => e.code === 'CONFIG_VALUE' && re.test(e.message) && e.message.includes('engines: [{reactor: {worker_threads: 10'),
    );
  bad({ worker_threads: 0 }, /worker_threads must be a whole number of at least 1/);
  bad({ worker_hwm: 1.5 }, /worker_hwm must be a whole number of at least 0/);
  bad({ workers: 2 }, /has no setting 'workers'; it takes refresh_interval, worker_threads, worker_hwm/);
  bad([1], /settings must be a mapping/);
});

test('engines listing only the reactor is no warning; another engine is named as ignored', () => {
  const warned = (engines: unknown) => configWarnings({ engines }, { role: 'minion', localTrees: false }).map((w) => w.option);
  assert.deepEqual(warned(['reactor']), []);
  assert.deepEqual(warned([{ reactor: { worker_threads: 2 } }]), []);
  assert.deepEqual(warned([{ reactor: {} }, { logstash: { host: 'x' } }]), ['engines']);
  assert.match(
    configWarnings({ engines: [{ logstash: {} }] }, { role: 'master', localTrees: false })[0]!.message,
    /option 'engines' is a Salt option brine does not implement and is ignored: brine starts no engines but the reactor/,
  );
});
