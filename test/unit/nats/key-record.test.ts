// The key bucket's record (src/nats/key-record.ts): bucket keys for minion IDs, record validation,
// the "same keys?" digest, reading and applying a minion's keys in a real key store, and the
// three-way merge decision. Issue 13: masters share key state through JetStream.

import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { KeyStore } from '../../../src/pki/key-store.js';
import { decideMerge, digestOf, encodeRecord, kvKeyOf, minionIdOfKvKey, NO_KEYS, parseRecord, type KeySet } from '../../../src/nats/index.js';
import { applyLocal, readLocal } from '../../../src/nats/key-record.js';
import { fingerprint } from '../../../src/pki/fingerprint.js';
import { isBrineError } from '../../../src/util/errors.js';
import { minionIdProblem } from '../../../src/util/minion-id.js';

const edPem = (): string => generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }) as string;
const key = (pem = edPem()) => ({ pem, fingerprint: fingerprint(pem) });

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function store(): KeyStore {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-keyrec-'));
  dirs.push(dir);
  const keys = new KeyStore(dir);
  keys.ensureLayout();
  return keys;
}

const KV_KEY = /^[-/=\w]+$/; // @nats-io/kv's key grammar without the dot (a dot splits subject tokens)

describe('bucket keys for minion IDs', () => {
  it('maps IDs with dots and @ to valid KV keys and back', () => {
    for (const id of ['web1', 'web1.example.com', 'a..b', 'ends.', 'user@host.example', 'A_b-c']) {
      const k = kvKeyOf(id);
      assert.match(k, KV_KEY, id);
      assert.equal(minionIdOfKvKey(k), id);
    }
  });

  it('is one-to-one over the ID grammar (property)', () => {
    const idChar = fc.constantFrom(...'abcXYZ019._@-'.split(''));
    fc.assert(
      fc.property(fc.array(idChar, { minLength: 1, maxLength: 40 }), (chars) => {
        const id = chars.join('');
        if (minionIdProblem(id) !== undefined) return;
        const k = kvKeyOf(id);
        assert.match(k, KV_KEY);
        assert.equal(minionIdOfKvKey(k), id);
      }),
    );
  });

  it('refuses keys that decode to no valid ID (never a path outside the key store)', () => {
    for (const k of ['localhost', '/etc', 'web1.example.com', 'a\\b', '../x']) {
      assert.throws(
        () => minionIdOfKvKey(k),
        (err: unknown) => isBrineError(err, 'INVALID_ID'),
        k,
      );
    }
  });
});

describe('key records', () => {
  it('round-trips every state and the denied history; the digest ignores PEM spelling, times and addresses', () => {
    const set: KeySet = { accepted: key(), denied: [{ ...key(), remote: '10.0.0.1:4000', firstSeen: 1, lastSeen: 2 }] };
    const parsed = parseRecord(encodeRecord(set, 'master-a', 1234));
    assert.equal(parsed.by, 'master-a');
    assert.equal(parsed.at, 1234);
    assert.equal(parsed.accepted?.fingerprint, set.accepted?.fingerprint);
    assert.equal(parsed.denied[0]?.remote, '10.0.0.1:4000');
    assert.equal(digestOf(parsed), digestOf(set));
    const respelled: KeySet = { accepted: { ...set.accepted!, pem: `${set.accepted!.pem}\r\n\r\n` }, denied: [{ ...set.denied[0]!, lastSeen: 99, remote: 'elsewhere' }] };
    assert.equal(digestOf(respelled), digestOf(set));
    assert.notEqual(digestOf({ pending: set.accepted!, denied: set.denied }), digestOf(set), 'the same key in another state is another record');
    assert.equal(digestOf({ denied: [] }), NO_KEYS);
  });

  it('refuses malformed values with NATS_KV_VALUE_INVALID', () => {
    const priv = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const bad = [
      'not json',
      '[]',
      '{"v":2,"at":1,"by":"m"}',
      '{"v":1,"by":"m"}',
      '{"v":1,"at":1,"by":7}',
      JSON.stringify({ v: 1, at: 1, by: 'm', accepted: 'hello' }),
      JSON.stringify({ v: 1, at: 1, by: 'm', accepted: priv }),
      JSON.stringify({ v: 1, at: 1, by: 'm', denied: 'x' }),
      JSON.stringify({ v: 1, at: 1, by: 'm', denied: Array.from({ length: 33 }, () => ({ pem: edPem() })) }),
      JSON.stringify({ v: 1, at: 1, by: 'm', denied: [{ pem: edPem(), lastSeen: 'yesterday' }] }),
    ];
    for (const value of bad)
      assert.throws(
        () => parseRecord(value),
        (err: unknown) => isBrineError(err, 'NATS_KV_VALUE_INVALID'),
        value.slice(0, 40),
      );
  });
});

describe('reading and applying a minion’s keys', () => {
  it('applies a record so the files read back with the same digest, and an empty record deletes the ID', () => {
    const keys = store();
    keys.write('pending', 'web1', edPem());
    keys.recordDenied('web1', edPem(), { remote: '1.2.3.4:5', at: 10 });
    const want: KeySet = {
      accepted: key(),
      denied: [
        { ...key(), remote: '9.9.9.9:1', lastSeen: 5 },
        { ...key(), lastSeen: 7 },
      ],
    };
    applyLocal(keys, 'web1', want);
    assert.equal(digestOf(readLocal(keys, 'web1')), digestOf(want));
    assert.deepEqual(keys.states('web1').sort(), ['accepted', 'denied']);
    assert.equal(keys.fingerprintOf('denied', 'web1'), want.denied[1]!.fingerprint, 'minions_denied/<id> holds the most recently seen key');
    applyLocal(keys, 'web1', { denied: [] });
    assert.deepEqual(keys.states('web1'), []);
    assert.equal(digestOf(readLocal(keys, 'web1')), NO_KEYS);
  });

  it('stamps change with any key file or the denied history, and not otherwise', () => {
    const keys = store();
    const s0 = keys.idStamp('db1');
    assert.equal(keys.idStamp('db1'), s0);
    keys.write('pending', 'db1', edPem());
    const s1 = keys.idStamp('db1');
    assert.notEqual(s1, s0);
    keys.recordDenied('db1', edPem(), { remote: 'x', at: 1 });
    const s2 = keys.idStamp('db1');
    assert.notEqual(s2, s1);
    const other = edPem();
    keys.recordDenied('db1', other, { remote: 'x', at: 2 });
    keys.forgetDenied('db1', keys.deniedKeys('db1').find((d) => d.fingerprint !== fingerprint(other))!.fingerprint);
    assert.notEqual(keys.idStamp('db1'), s2, 'forgetting an older denied key changes only the history directory');
  });
});

describe('decideMerge', () => {
  it('decides by which side changed since the last agreement', () => {
    // [local, remote, base] -> decision
    const cases: Array<[string, string | undefined, string | undefined, string]> = [
      ['a', undefined, undefined, 'publish'], // the bucket never heard of the ID
      [NO_KEYS, undefined, 'a', 'same'],
      ['a', 'a', undefined, 'same'],
      [NO_KEYS, 'a', undefined, 'apply'], // a master joining without that ID
      ['b', 'a', undefined, 'conflict'], // a master joining with other keys: the bucket wins
      ['a', 'b', 'a', 'apply'], // another master changed it
      ['b', 'a', 'a', 'publish'], // changed here while the bucket did not (brine key -d while down)
      [NO_KEYS, 'a', 'a', 'publish'],
      ['b', 'c', 'a', 'conflict'],
      ['a', NO_KEYS, 'a', 'apply'], // deleted elsewhere
    ];
    for (const [local, remote, base, want] of cases) assert.equal(decideMerge(local, remote, base), want, `${local} ${remote} ${base}`);
  });
});
