// The codec at the trust boundary: every byte sequence the peer can send either becomes a
// validated message of an allowed type or a coded error (never a throw of something else).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CONTROL_REPLIES,
  CONTROL_REQUESTS,
  MINION_CONTROL_REPLIES,
  MINION_CONTROL_REQUESTS,
  FRAME_HEADER_BYTES,
  MASTER_MESSAGES,
  MAX_DEPTH,
  MINION_MESSAGES,
  decodeMessage,
  encodeMessage,
  prepareMessage,
  parsePayload,
  type Schema,
} from '../../../src/protocol/index.js';
import { isBrineError, type ErrorCode } from '../../../src/util/errors.js';
import { CONTROL_REPLY_SAMPLES, CONTROL_REQUEST_SAMPLES, JID, MASTER_SAMPLES, MINION_CONTROL_REPLY_SAMPLES, MINION_CONTROL_REQUEST_SAMPLES, MINION_SAMPLES, type Sample } from './samples.js';

type Schemas = ReadonlyMap<string, Schema<unknown>>;

const payloadOf = (message: object): Buffer => encodeMessage(message).subarray(FRAME_HEADER_BYTES);
const text = (s: string): Buffer => Buffer.from(s, 'utf8');

function rejects(payload: Uint8Array, schemas: Schemas, code: ErrorCode, label: string): void {
  assert.throws(
    () => decodeMessage(payload, schemas),
    (err: unknown) => isBrineError(err, code),
    label,
  );
}

const DIRECTIONS: Array<[string, Schemas, Sample[]]> = [
  ['MINION_MESSAGES', MINION_MESSAGES, MINION_SAMPLES],
  ['MASTER_MESSAGES', MASTER_MESSAGES, MASTER_SAMPLES],
  ['CONTROL_REQUESTS', CONTROL_REQUESTS, CONTROL_REQUEST_SAMPLES],
  ['CONTROL_REPLIES', CONTROL_REPLIES, CONTROL_REPLY_SAMPLES],
  ['MINION_CONTROL_REQUESTS', MINION_CONTROL_REQUESTS, MINION_CONTROL_REQUEST_SAMPLES],
  ['MINION_CONTROL_REPLIES', MINION_CONTROL_REPLIES, MINION_CONTROL_REPLY_SAMPLES],
];

test('the samples cover every message type of every allow-list', () => {
  for (const [name, schemas, samples] of DIRECTIONS) {
    assert.deepEqual(samples.map((s) => s.message.t).sort(), [...schemas.keys()].sort(), name);
  }
});

test('every message type round-trips through encode and decode', () => {
  for (const [name, schemas, samples] of DIRECTIONS) {
    for (const { message, optional } of samples) {
      assert.deepEqual(decodeMessage(payloadOf(message), schemas), message, `${name} ${String(message.t)}`);
      // and with every optional field left out
      const minimal = Object.fromEntries(Object.entries(message).filter(([k]) => !optional.includes(k)));
      assert.deepEqual(decodeMessage(payloadOf(minimal), schemas), minimal, `${name} minimal ${String(message.t)}`);
    }
  }
});

test('every required field, when missing, is MESSAGE_INVALID naming the field', () => {
  for (const [name, schemas, samples] of DIRECTIONS) {
    for (const { message, optional, anyJson = [] } of samples) {
      for (const field of Object.keys(message)) {
        if (field === 't' || optional.includes(field)) continue;
        const without = { ...message };
        delete without[field];
        assert.throws(
          () => decodeMessage(payloadOf(without), schemas),
          (err: unknown) => isBrineError(err, 'MESSAGE_INVALID') && err.message.includes(field),
          `${name} ${String(message.t)} without ${field}`,
        );
        // null is not "absent"
        if (anyJson.includes(field)) continue;
        rejects(payloadOf({ ...message, [field]: null }), schemas, 'MESSAGE_INVALID', `${name} ${String(message.t)} ${field}: null`);
      }
    }
  }
});

test('every field with a value of the wrong type or range is MESSAGE_INVALID', () => {
  let checked = 0;
  for (const [name, schemas, samples] of DIRECTIONS) {
    for (const { message, bad } of samples) {
      for (const [field, values] of Object.entries(bad)) {
        for (const value of values) {
          rejects(payloadOf({ ...message, [field]: value }), schemas, 'MESSAGE_INVALID', `${name} ${String(message.t)}.${field} = ${JSON.stringify(value).slice(0, 40)}`);
          checked++;
        }
      }
    }
  }
  assert.ok(checked > 80, `only ${checked} bad values checked`);
});

test('a message type of the other direction is refused (per-direction allow-list)', () => {
  rejects(payloadOf(MINION_SAMPLES[0]!.message), MASTER_MESSAGES, 'MESSAGE_INVALID', 'hello sent to a minion');
  rejects(payloadOf({ t: 'job', jid: JID, fun: 'test.ping', arg: [], kwarg: {}, tgt: '*', tgtType: 'glob' }), MINION_MESSAGES, 'MESSAGE_INVALID', 'job sent to the master');
  rejects(payloadOf({ t: 'auth', status: 'accepted', minVersion: 1, message: '', masterFingerprint: '' }), CONTROL_REQUESTS, 'MESSAGE_INVALID', 'auth on the control socket');
});

test('invalid UTF-8 is FRAME_MALFORMED, also inside an otherwise valid JSON string', () => {
  const cases = [
    Buffer.from([0xff, 0xfe]),
    Buffer.from([0xc0, 0xaf]), // overlong "/"
    Buffer.from([0xed, 0xa0, 0x80]), // an encoded surrogate
    Buffer.concat([text('{"t":"ping","seq":1,"x":"'), Buffer.from([0xe2, 0x82]), text('"}')]), // truncated sequence
  ];
  for (const payload of cases) {
    assert.throws(
      () => parsePayload(payload),
      (err: unknown) => isBrineError(err, 'FRAME_MALFORMED'),
      payload.toString('hex'),
    );
    rejects(payload, MINION_MESSAGES, 'FRAME_MALFORMED', payload.toString('hex'));
  }
});

test('invalid JSON is FRAME_MALFORMED', () => {
  for (const s of ['', '{', '{"t":"ping",}', "{'t':'ping'}", 'NaN', '{"t":"ping"} x', '\u0000']) {
    rejects(text(s), MINION_MESSAGES, 'FRAME_MALFORMED', JSON.stringify(s));
  }
});

test('a JSON value that is not an object is MESSAGE_INVALID', () => {
  for (const s of ['null', '[]', '[{"t":"ping","seq":1}]', '"ping"', '42', 'true']) {
    rejects(text(s), MINION_MESSAGES, 'MESSAGE_INVALID', s);
  }
});

test('unknown or missing type tags are MESSAGE_INVALID, including Object.prototype names', () => {
  for (const t of ['nope', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'PING', ' ping', '']) {
    rejects(text(JSON.stringify({ t, seq: 1 })), MINION_MESSAGES, 'MESSAGE_INVALID', `t=${t}`);
    rejects(text(JSON.stringify({ t })), CONTROL_REQUESTS, 'MESSAGE_INVALID', `control t=${t}`);
  }
  for (const t of [null, 5, true, {}, ['ping'], { t: 'ping' }]) {
    rejects(text(JSON.stringify({ t, seq: 1 })), MINION_MESSAGES, 'MESSAGE_INVALID', `t=${JSON.stringify(t)}`);
  }
  rejects(text('{"seq":1}'), MINION_MESSAGES, 'MESSAGE_INVALID', 'no t');
  // a type inherited through a "__proto__" key must not count as the message's own type
  rejects(text('{"__proto__":{"t":"ping","seq":1}}'), MINION_MESSAGES, 'MESSAGE_INVALID', '__proto__ carrying t');
});

test('the error for a strange type tag stays short (it is sent back to the peer)', () => {
  const huge = { t: ['x'.repeat(100_000)], seq: 1 };
  assert.throws(
    () => decodeMessage(payloadOf(huge), MINION_MESSAGES),
    (err: unknown) => isBrineError(err, 'MESSAGE_INVALID') && err.message.length < 200,
    'array type tag',
  );
  assert.throws(
    () => decodeMessage(payloadOf({ t: 'y'.repeat(100_000) }), MINION_MESSAGES),
    (err: unknown) => isBrineError(err, 'MESSAGE_INVALID') && err.message.length < 200,
    'long string type tag',
  );
});

test('a "__proto__" key is plain data: it neither pollutes Object.prototype nor changes prototypes', () => {
  const raw = `{"t":"job","jid":"${JID}","fun":"test.arg","arg":[{"__proto__":{"polluted":1}}],"kwarg":{"__proto__":{"polluted":2},"a":1},"tgt":"*","tgtType":"glob","__proto__":{"polluted":3}}`;
  const job = decodeMessage<{ kwarg: Record<string, unknown>; arg: unknown[] }>(text(raw), MASTER_MESSAGES);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(Object.hasOwn(Object.prototype, 'polluted'), false);
  assert.equal(Object.getPrototypeOf(job), Object.prototype);
  assert.equal(Object.getPrototypeOf(job.kwarg), Object.prototype);
  assert.ok(Object.hasOwn(job.kwarg, '__proto__'), 'kept as an own key');
  assert.equal((job.kwarg as { polluted?: unknown }).polluted, undefined);
  assert.equal((job.arg[0] as { polluted?: unknown }).polluted, undefined);
});

/** `{"a":{"a":...}}` with `levels` objects in total. */
const nestedObjects = (levels: number): string => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
const nestedArrays = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);

test(`nesting up to MAX_DEPTH (${MAX_DEPTH}) is accepted; one level more is FRAME_MALFORMED`, () => {
  assert.doesNotThrow(() => parsePayload(text(nestedObjects(MAX_DEPTH))));
  assert.doesNotThrow(() => parsePayload(text(nestedArrays(MAX_DEPTH))));
  assert.throws(
    () => parsePayload(text(nestedObjects(MAX_DEPTH + 1))),
    (err: unknown) => isBrineError(err, 'FRAME_MALFORMED'),
  );
  assert.throws(
    () => parsePayload(text(nestedArrays(MAX_DEPTH + 1))),
    (err: unknown) => isBrineError(err, 'FRAME_MALFORMED'),
  );
  // mixed, and deep inside a field the schema would accept as any JSON
  const kwarg = `{"k":[${'[{"x":'.repeat(40)}1${'}]'.repeat(40)}]}`;
  const job = `{"t":"job","jid":"${JID}","fun":"test.arg","arg":[],"kwarg":${kwarg},"tgt":"*","tgtType":"glob"}`;
  rejects(text(job), MASTER_MESSAGES, 'FRAME_MALFORMED', 'deep kwarg');
});

test('absurd nesting (100k levels) is a coded error, not a stack overflow', () => {
  assert.throws(
    () => parsePayload(text(nestedArrays(100_000))),
    (err: unknown) => isBrineError(err, 'FRAME_MALFORMED'),
  );
  assert.throws(
    () => parsePayload(text(nestedObjects(100_000))),
    (err: unknown) => isBrineError(err, 'FRAME_MALFORMED'),
  );
});

test('encodeMessage frames UTF-8 JSON with the byte length, not the character length', () => {
  const frame = encodeMessage({ t: 'bye', reason: 'für' });
  const body = frame.subarray(FRAME_HEADER_BYTES);
  assert.equal(frame.readUInt32BE(0), body.length);
  assert.equal(body.length, Buffer.byteLength('{"t":"bye","reason":"für"}'));
  assert.deepEqual(decodeMessage(body, MINION_MESSAGES), { t: 'bye', reason: 'für' });
});

test('a prepared message is encoded once: every send gets the same frame, and it cannot change after', () => {
  const job = prepareMessage({ t: 'job', jid: '20240101000000000000', fun: 'test.ping', arg: [], kwarg: {}, tgt: '*', tgtType: 'glob' });
  const a = encodeMessage(job);
  assert.equal(encodeMessage(job), a, 'the same Buffer');
  assert.deepEqual(JSON.parse(a.subarray(4).toString('utf8')), { ...job });
  assert.ok(Object.isFrozen(job));
  // an equal but unprepared object is encoded on its own
  assert.notEqual(encodeMessage({ ...job }), a);
  assert.deepEqual(encodeMessage({ ...job }), a);
});

test('a problem deep inside a message is named by its full path (the path is built only when something does not fit)', () => {
  const problem = (message: object, schemas: Schemas): string => {
    try {
      decodeMessage(payloadOf(message), schemas);
    } catch (err) {
      if (isBrineError(err, 'MESSAGE_INVALID')) return err.message;
      throw err;
    }
    assert.fail(`accepted ${JSON.stringify(message)}`);
  };
  assert.equal(problem({ t: 'acks', jids: [JID, JID, 'nope'] }, MASTER_MESSAGES), 'invalid "acks" message: message.jids[2] has an invalid format');
  const ret = { t: 'return', jid: JID, fun: 'test.ping', ret: true, retcode: 0, success: true };
  assert.equal(problem({ ...ret, error: { code: 'X', message: 7 } }, MINION_MESSAGES), 'invalid "return" message: message.error.message must be a string');
  assert.equal(problem({ ...ret, call: { arg: [], kwarg: 'x' } }, MINION_MESSAGES), 'invalid "return" message: message.call.kwarg must be an object');
  assert.equal(problem({ ...ret, schedule: { name: 'a', arg: [1], kwarg: {} }, retcode: 1.5 }, MINION_MESSAGES), 'invalid "return" message: message.retcode must be an integer');
  assert.equal(problem({ t: 'file_reply', rid: 1, ok: true, list: ['a', 'b', 3] }, MASTER_MESSAGES), 'invalid "file_reply" message: message.list[2] must be a string');
  assert.equal(
    problem({ t: 'file_reply', rid: 1, ok: true, stat: { path: 'a', sha256: 'x', size: 1, mode: 1 } }, MASTER_MESSAGES),
    'invalid "file_reply" message: message.stat.sha256 has an invalid format',
  );
});
