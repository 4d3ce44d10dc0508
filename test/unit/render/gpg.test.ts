// The gpg renderer with the real gpg program: `#!yaml|gpg` and `#!jinja|yaml|gpg` decrypt every
// PGP message block in string values (block scalars, one-line `\n` forms, list items, nested),
// never keys; a block for a key gpg_keydir lacks is GPG_DECRYPT_FAILED naming the file, the data
// path and the key ID, without the block; gpg_decrypt_must_succeed: False leaves it encrypted;
// identical blocks are decrypted once.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { GpgCache, renderSls, type GpgOptions } from '../../../src/render/index.js';
import type { RenderEnv } from '../../../src/render/types.js';
import { BrineError } from '../../../src/util/errors.js';
import { GpgHome } from '../../helpers/gpg.js';

function env(gpg: GpgOptions | undefined, source = 'pillar_roots base:secret.sls'): RenderEnv {
  return {
    source,
    saltenv: 'base',
    pillar: true,
    context: { grains: { id: 'web1' }, pillar: {}, opts: {} },
    callFunction: () => undefined,
    loadFile: () => undefined,
    ...(gpg ? { gpg } : {}),
  };
}

/** An armored block indented as a YAML block scalar under a key. */
const block = (armored: string, indent = '  '): string =>
  `|\n${armored
    .trimEnd()
    .split('\n')
    .map((l) => indent + l)
    .join('\n')}\n`;

describe('#!yaml|gpg with the real gpg', () => {
  let master: GpgHome;
  let stranger: GpgHome;
  before(() => {
    master = GpgHome.create('brine-master@example.org');
    stranger = GpgHome.create('someone-else@example.org');
  });
  after(() => {
    master?.close();
    stranger?.close();
  });

  test('decrypts blocks in values, list items and nested mappings; keys and plain strings are left alone', async () => {
    const pw = master.encrypt('s3cret-db');
    const cert = master.encrypt('line one\nline two\n');
    const text = `#!yaml|gpg\ndb:\n  password: ${block(pw, '    ')}  user: app\ncerts:\n  - ${block(cert, '    ')}  - plain\n'${'-----BEGIN PGP MESSAGE-----'}': as-key\n`;
    const data = await renderSls(text, env({ keydir: master.dir, mustSucceed: true }));
    assert.deepEqual(data, { db: { password: 's3cret-db', user: 'app' }, certs: ['line one\nline two', 'plain'], '-----BEGIN PGP MESSAGE-----': 'as-key' });
  });

  test('#!jinja|yaml|gpg: Jinja runs first, then YAML, then decryption; a one-line block with literal \\n works', async () => {
    const oneLine = master.encrypt('from-one-line').trimEnd().split('\n').join('\\n');
    const text = `#!jinja|yaml|gpg\n{% set k = 'token' %}\n{{ k }}: "${oneLine}"\nprefix: "x ${oneLine} y"\n`;
    const data = await renderSls(text, env({ keydir: master.dir, mustSucceed: true }));
    assert.deepEqual(data, { token: 'from-one-line', prefix: 'x from-one-line y' });
  });

  test('a block for a key gpg_keydir lacks is GPG_DECRYPT_FAILED naming file, path and key ID, never the block', async () => {
    const foreign = master.encrypt('not-for-you', stranger);
    const text = `#!yaml|gpg\napp:\n  key: ${block(foreign, '    ')}`;
    let err: unknown;
    try {
      await renderSls(text, env({ keydir: master.dir, mustSucceed: true }));
    } catch (e) {
      err = e;
    }
    assert.ok(err instanceof BrineError, String(err));
    assert.equal(err.code, 'GPG_DECRYPT_FAILED');
    assert.match(err.message, /^pillar_roots base:secret\.sls: 1 of 1 PGP message block\(s\) could not be decrypted \(at 'app:key': /);
    assert.ok(err.message.includes(stranger.encKeyId), err.message);
    assert.ok(err.message.includes(master.dir), 'names gpg_keydir');
    assert.ok(!err.message.includes('BEGIN PGP') && !err.message.includes(foreign.split('\n')[3]!), 'no ciphertext in the message');
  });

  test('a damaged block is reported as damaged', async () => {
    const text = '#!yaml|gpg\nx: "-----BEGIN PGP MESSAGE-----\\n\\nhQ==garbage\\n-----END PGP MESSAGE-----"\n';
    await assert.rejects(renderSls(text, env({ keydir: master.dir, mustSucceed: true })), (e: BrineError) => e.code === 'GPG_DECRYPT_FAILED' && /at 'x'/.test(e.message));
  });

  test('gpg_decrypt_must_succeed: False leaves the block encrypted and says so without the block', async () => {
    const foreign = master.encrypt('still-secret', stranger);
    const told: string[] = [];
    const data = (await renderSls(`#!yaml|gpg\nk: ${block(foreign)}`, env({ keydir: master.dir, mustSucceed: false, onUndecrypted: (w) => told.push(w) }))) as { k: string };
    assert.equal(data.k, foreign.trimEnd());
    assert.equal(told.length, 1);
    assert.match(told[0]!, /at 'k'.*left encrypted because gpg_decrypt_must_succeed is False/);
    assert.ok(!told[0]!.includes('BEGIN PGP'));
  });

  test('identical blocks run gpg once; distinct ones once each; the cache spares later renders', async (t) => {
    const count = path.join(master.dir, '..', `gpg-count-${process.pid}`);
    const wrapper = path.join(master.dir, '..', `gpg-wrapper-${process.pid}.sh`);
    fs.writeFileSync(wrapper, `#!/bin/sh\necho x >> '${count}'\nexec gpg "$@"\n`, { mode: 0o755 });
    t.after(() => {
      fs.rmSync(count, { force: true });
      fs.rmSync(wrapper, { force: true });
    });
    const a = master.encrypt('a');
    const b = master.encrypt('b');
    const text = `#!yaml|gpg\nx: ${block(a)}y: ${block(a)}z: ${block(b)}`;
    const runs = (): number => fs.readFileSync(count, 'utf8').split('\n').filter(Boolean).length;
    const cache = new GpgCache();
    const opts = { keydir: master.dir, mustSucceed: true, program: wrapper, cache };
    const data = await renderSls(text, env(opts));
    assert.deepEqual(data, { x: 'a', y: 'a', z: 'b' });
    assert.equal(runs(), 2);
    // the next minion's render of the same file: from the process's cache, no gpg run
    assert.deepEqual(await renderSls(text, env(opts)), data);
    assert.equal(runs(), 2);
    assert.equal(cache.size, 2);
    cache.clear();
    assert.deepEqual(await renderSls(text, env(opts)), data);
    assert.equal(runs(), 4, 'after the keys changed (cleared), gpg runs again');
  });

  test('without gpg options (a state SLS) |gpg is refused with RENDERER_UNSUPPORTED naming the file', async () => {
    await assert.rejects(
      renderSls('#!yaml|gpg\na: 1\n', env(undefined, 'salt://web/init.sls')),
      (e: BrineError) => e.code === 'RENDERER_UNSUPPORTED' && e.message.startsWith('salt://web/init.sls: the gpg renderer'),
    );
  });
});
