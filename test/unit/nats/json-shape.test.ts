// Values brine reads back from NATS (job records from the BRINE stream, minion-data entries)
// go through a declared shape: a value of another shape is a coded MESSAGE_INVALID that names
// the first bad field, never an object of the wrong type passed on.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isBrineError } from '../../../src/util/errors.js';
import { s } from '../../../src/protocol/index.js';
import { asShape, fits, readShape } from '../../../src/nats/json-shape.js';
import { readPublishedJob } from '../../../src/nats/brine-stream.js';

const ENTRY = s.object({ v: s.int({ min: 1, max: 1 }), fingerprint: s.string(), data: s.record(s.json()) });

const invalid = (what: RegExp) => (err: unknown) => isBrineError(err, 'MESSAGE_INVALID') && what.test(err.message);

/** The two fields readPublishedJob reads of a JetStream message. */
const streamMessage = (value: unknown) => ({ subject: 'brine.jobs.20261207031500123456', data: Buffer.from(JSON.stringify(value)) });

const job = {
  jid: '20261207031500123456',
  fun: 'test.ping',
  arg: [],
  kwarg: {},
  tgt: ['m1', 'm2'],
  tgtType: 'list',
  user: 'root',
  minions: ['m1', 'm2'],
  startedAt: 1_796_000_000_000,
  sentTo: ['m1'],
};

describe('nats json shapes', () => {
  it('reads a value that fits, with its fields', () => {
    const entry = readShape(ENTRY, Buffer.from('{"v":1,"fingerprint":"ab:cd","data":{"os":"Debian"}}'), 'minion data entry');
    assert.deepEqual(entry, { v: 1, fingerprint: 'ab:cd', data: { os: 'Debian' } });
    assert.equal(fits(ENTRY, entry), true);
  });

  it('refuses bad JSON and a wrong shape with MESSAGE_INVALID naming the field', () => {
    assert.throws(() => readShape(ENTRY, '{"v":1,', 'minion data entry'), invalid(/minion data entry is not valid JSON/));
    assert.throws(() => readShape(ENTRY, '{"v":2,"fingerprint":"x","data":{}}', 'minion data entry'), invalid(/minion data entry\.v must be <= 1/));
    assert.throws(() => asShape(ENTRY, { v: 1, fingerprint: 'x', data: [] }, 'minion data entry'), invalid(/minion data entry\.data must be an object/));
    assert.equal(fits(ENTRY, null), false);
  });

  it('reads a job record from the stream, and refuses one without its sentTo list', () => {
    assert.deepEqual(readPublishedJob(streamMessage(job)), job);
    assert.deepEqual(readPublishedJob(streamMessage({ ...job, tgt: 'm*', schedule: 'nightly' })).schedule, 'nightly');
    const { sentTo: _dropped, ...withoutSentTo } = job;
    assert.throws(() => readPublishedJob(streamMessage(withoutSentTo)), invalid(/job record on brine\.jobs\.20261207031500123456\.sentTo is required/));
    assert.throws(() => readPublishedJob(streamMessage({ ...job, minions: 'm1' })), invalid(/\.minions must be an array/));
  });
});
