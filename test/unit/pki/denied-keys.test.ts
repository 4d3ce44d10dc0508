// Every distinct denied key per ID (threats.md #31): kept with its address, bounded per ID with the
// oldest dropped, listed without bogus IDs, and forgotten one by one or with the ID.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DENIED_KEYS_PER_ID, fingerprint, KeyStore } from '../../../src/pki/index.js';
import { newPublicKeyPem, tempDir } from './helpers.js';

function store(t: import('node:test').TestContext): KeyStore {
  const ks = new KeyStore(join(tempDir(t), 'pki'));
  ks.ensureLayout();
  return ks;
}

test("every distinct denied key is kept with its address; Salt's file holds the latest", (t) => {
  const ks = store(t);
  const real = newPublicKeyPem();
  const impostor = newPublicKeyPem();
  ks.recordDenied('web1', real, { remote: '10.0.0.1:4000', at: 1000 });
  ks.recordDenied('web1', impostor, { remote: '10.6.6.6:5000', at: 2000 });
  assert.equal(ks.read('denied', 'web1'), impostor, 'minions_denied/web1 is the last writer, as in Salt');
  const keys = ks.deniedKeys('web1');
  assert.deepEqual(
    keys.map((k) => [k.fingerprint, k.remote, k.lastSeen]),
    [
      [fingerprint(impostor), '10.6.6.6:5000', 2000],
      [fingerprint(real), '10.0.0.1:4000', 1000],
    ],
  );
  // the same key again refreshes its time, it is not a new entry
  ks.recordDenied('web1', real, { remote: '10.0.0.1:4001', at: 3000 });
  const again = ks.deniedKeys('web1');
  assert.equal(again.length, 2);
  assert.equal(again[0]!.fingerprint, fingerprint(real));
  assert.equal(again[0]!.firstSeen, 1000);
  assert.deepEqual(ks.list('denied'), ['web1'], 'the .keys directory is not an ID');
});

test(`at most ${DENIED_KEYS_PER_ID} keys per ID, the one seen longest ago dropped first`, (t) => {
  const ks = store(t);
  const pems = Array.from({ length: DENIED_KEYS_PER_ID + 3 }, () => newPublicKeyPem());
  pems.forEach((pem, i) => {
    ks.recordDenied('web1', pem, { remote: `10.0.0.${i}:1`, at: i + 1 });
  });
  const kept = ks.deniedKeys('web1').map((k) => k.fingerprint);
  assert.equal(kept.length, DENIED_KEYS_PER_ID);
  assert.deepEqual(new Set(kept), new Set(pems.slice(3).map((p) => fingerprint(p))));
});

test('a key planted by hand in minions_denied/ is a candidate too, without an address', (t) => {
  const ks = store(t);
  const pem = newPublicKeyPem();
  writeFileSync(join(ks.pkiDir, 'minions_denied', 'db1'), pem);
  assert.deepEqual(
    ks.deniedKeys('db1').map((k) => [k.fingerprint, k.remote]),
    [[fingerprint(pem), undefined]],
  );
});

test("forgetDenied drops one key and Salt's file falls back to the newest left; remove drops them all", (t) => {
  const ks = store(t);
  const a = newPublicKeyPem();
  const b = newPublicKeyPem();
  ks.recordDenied('web1', a, { remote: '10.0.0.1:1', at: 1 });
  ks.recordDenied('web1', b, { remote: '10.0.0.2:1', at: 2 });
  ks.forgetDenied('web1', fingerprint(b));
  assert.equal(ks.read('denied', 'web1'), a);
  assert.deepEqual(
    ks.deniedKeys('web1').map((k) => k.fingerprint),
    [fingerprint(a)],
  );
  ks.forgetDenied('web1', fingerprint(a));
  assert.equal(ks.read('denied', 'web1'), undefined);
  assert.deepEqual(ks.list('denied'), []);
  ks.recordDenied('web2', a, { remote: '10.0.0.1:1', at: 1 });
  ks.recordDenied('web2', b, { remote: '10.0.0.2:1', at: 2 });
  assert.deepEqual(ks.remove('web2'), ['denied']);
  assert.deepEqual(ks.deniedKeys('web2'), []);
  assert.deepEqual(ks.list('denied'), []);
});

test('removing an ID while the master records another denied key for it does not fail with ENOTEMPTY (seen in nats-enrol-squat)', async (t) => {
  const ks = store(t);
  const dir = join(ks.pkiDir, 'minions_denied', '.keys', 'web1');
  // another process keeps adding files to the ID's history every 5 ms (far more often than a
  // master does for a minion retrying every acceptance_wait_time); an rmdir may find it refilled
  const writer = spawn(
    process.execPath,
    [
      '-e',
      `const fs=require('fs');const d=${JSON.stringify(dir)};const end=Date.now()+4000;const nap=new Int32Array(new SharedArrayBuffer(4));let i=0;while(Date.now()<end){try{fs.mkdirSync(d,{recursive:true});fs.writeFileSync(d+'/k'+(i++%50),'x')}catch{}Atomics.wait(nap,0,0,5)}`,
    ],
    { stdio: 'ignore' },
  );
  const exited = new Promise((r) => writer.once('exit', r));
  // the temp directory's own after-hook runs first (registered first): the writer must be gone by then
  const stopWriter = async () => {
    writer.kill('SIGKILL');
    await exited;
  };
  t.after(stopWriter);
  const key = newPublicKeyPem();
  const started = Date.now();
  let removals = 0;
  while (Date.now() - started < 2500) {
    ks.recordDenied('web1', key, { remote: '10.0.0.1:1', at: removals });
    ks.remove('web1');
    removals++;
    if (removals % 20 === 0) await new Promise((r) => setImmediate(r));
  }
  await stopWriter();
  assert.ok(removals > 50, `only ${removals} removals ran`);
});
