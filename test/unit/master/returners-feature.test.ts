// The master's returners feature with a real event bus and a postgres returner pointed at a port
// nothing listens on: unknown event_return and master_job_cache names are logged at start with
// RETURNER_UNKNOWN naming the option; a store that is down gives RETURNER_FAILED for the job load
// and return copies (naming the jid) and for an event batch (naming the count), and stop() waits
// for every copy in flight.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { asMasterOptions, loadConfig } from '../../../src/config/index.js';
import { EventBus } from '../../../src/master/event-bus.js';
import { Returners } from '../../../src/master/features/returners.js';
import { FakeClock } from '../../../src/util/clock.js';
import { createLogger } from '../../../src/util/logger.js';
import { freePort } from '../../helpers/ports.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-mret-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

function feature(overrides: Record<string, unknown>) {
  const opts = asMasterOptions(loadConfig('master', { configDir: root, env: {}, overrides: { id: 'm_master', ...overrides } }));
  const lines: string[] = [];
  const logger = createLogger({ name: 'master', level: 'info', write: (l) => lines.push(l) });
  const clock = new FakeClock();
  const events = new EventBus(clock);
  return { returners: new Returners({ opts, events, logger, clock }), events, lines };
}

test('unknown returner names are logged at start with RETURNER_UNKNOWN and the option; the master goes on', async () => {
  const { returners, events, lines } = feature({ event_return: ['nosuch', 'local_cache'], master_job_cache: 'mongo_future' });
  returners.start();
  events.fire('custom/tag', { a: 1 });
  await returners.stop();
  assert.equal(lines.length, 2, lines.join('\n'));
  assert.match(lines[0] as string, /event_return: there is no returner 'nosuch'.*code=RETURNER_UNKNOWN/);
  assert.match(lines[1] as string, /master_job_cache: there is no returner 'mongo_future'.*code=RETURNER_UNKNOWN/);
});

test('with the store down, job copies and event batches are RETURNER_FAILED naming the returner; stop waits for them', async () => {
  const port = await freePort();
  const pg = { 'returner.postgres.host': '127.0.0.1', 'returner.postgres.port': port };
  const { returners, events, lines } = feature({ master_job_cache: 'postgres', event_return: 'postgres', event_return_queue: 3, event_return_blacklist: ['salt/job/*/new'], ...pg });
  returners.start();
  const jid = '20261207063000000001';
  events.emit({ kind: 'job_published', jid, fun: 'test.ping', arg: [], kwarg: {}, tgt: '*', tgtType: 'glob', user: 'root', minions: ['a'], missing: [], notConnected: [], at: 0 });
  events.emit({ kind: 'job_return', jid, minion: 'a', fun: 'test.ping', funArgs: [], ret: true, retcode: 0, success: true, at: 0 });
  await returners.stop();
  const failed = lines.filter((l) => l.includes('RETURNER_FAILED'));
  assert.equal(failed.filter((l) => l.includes(`master_job_cache: job ${jid} not copied to postgres`)).length, 2, lines.join('\n'));
  // the blacklisted salt/job/<jid>/new is not sent; the bare <jid> event and the ret are, flushed at stop
  assert.equal(failed.filter((l) => /event_return: 2 event\(s\) not stored by postgres/.test(l)).length, 1, lines.join('\n'));
  assert.ok(
    failed.every((l) => l.includes(`127.0.0.1:${port}`)),
    'each line says where it tried',
  );
});
