// pkgrepo.managed with a signing key (issue 22: elasticsearch, grafana, docker, zabbix, salt
// formulas): key_url (http(s)://, salt://, a path), key_text, keyid + keyserver, with apt-key
// (aptkey: True) or into the line's signed-by keyring (aptkey: False, Salt's way when apt-key is
// gone). A real key made by gpg, served by a real HTTP server (and as an HKP keyserver); the
// sources files and keyrings live in temp directories standing for /etc/apt. The package index
// refresh goes to the recording apt stand-in (no network here).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createPkgrepoFunctions } from '../../../src/modules/index.js';
import { keyringIds } from '../../../src/modules/apt-keys.js';
import { type StaticServer, startStaticServer } from '../../helpers/static-http.js';
import { installFakeApt } from './fake-apt.js';
import { DirFileClient } from './file-fixture.js';
import { type CtxOptions, runState } from './state-ctx.js';

const apt = installFakeApt();
const dirs: string[] = [];
const mkdir = (prefix: string) => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(d);
  return d;
};
let gnupg: string;
let fpr: string;
let armored: string;
let web: StaticServer;
let root: string;
let keyrings: string;
let cache: string;
let saltRoot: string;

before(async () => {
  gnupg = mkdir('brine-gpg-');
  execFileSync('gpg', ['--homedir', gnupg, '--batch', '--passphrase', '', '--quick-gen-key', 'Brine Test Repo <repo@example.test>', 'ed25519', 'sign', '1d'], { stdio: 'ignore' });
  armored = execFileSync('gpg', ['--homedir', gnupg, '--armor', '--export'], { encoding: 'utf8' });
  fpr = /^fpr:+([0-9A-F]{40}):/m.exec(execFileSync('gpg', ['--homedir', gnupg, '--list-keys', '--with-colons'], { encoding: 'utf8' }))![1]!;
  // /pks/lookup answers any query with the key: the HKP keyserver gpg's dirmngr asks
  web = await startStaticServer({ '/repo.asc': armored, '/pks/lookup': armored });
  saltRoot = mkdir('brine-saltroot-');
  fs.mkdirSync(path.join(saltRoot, 'repo'));
  fs.writeFileSync(path.join(saltRoot, 'repo', 'key.asc'), armored);
});

after(async () => {
  apt.dispose();
  await web?.close();
  execFileSync('gpgconf', ['--homedir', gnupg, '--kill', 'all']);
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

beforeEach(() => {
  root = mkdir('brine-apt-');
  fs.mkdirSync(path.join(root, 'sources.list.d'));
  keyrings = path.join(root, 'keyrings');
  fs.mkdirSync(keyrings);
  cache = mkdir('brine-cache-');
});

const opts = (o: CtxOptions = {}): CtxOptions => ({
  ...o,
  override: createPkgrepoFunctions({ backend: 'apt', aptRoot: root, aptKeyring: path.join(root, 'trusted.gpg') }),
  exec: { config: { cachedir: cache }, files: new DirFileClient(saltRoot, mkdir('brine-fcache-')) },
});
const line = () => `deb [signed-by=${keyrings}/elastic.gpg] https://artifacts.example.test/packages/8.x/apt stable main`;
const listFile = () => path.join(root, 'sources.list.d', 'elastic.list');

describe('pkgrepo.managed with key_url', () => {
  it('test=True answers as Salt (would be configured) and fetches no key', async () => {
    const gets = web.gets('/repo.asc');
    const dry = await runState('pkgrepo.managed', { name: line(), file: listFile(), key_url: `${web.base}/repo.asc`, aptkey: false }, opts({ test: true }));
    assert.equal(dry.result, null, dry.comment);
    assert.deepEqual(dry.changes, { repo: line() });
    assert.equal(web.gets('/repo.asc'), gets);
    assert.equal(fs.existsSync(path.join(keyrings, 'elastic.gpg')), false);
  });

  it('aptkey: False writes the de-armored key to the signed-by keyring, then the line', async () => {
    const r = await runState('pkgrepo.managed', { name: line(), file: listFile(), key_url: `${web.base}/repo.asc`, aptkey: false }, opts());
    assert.equal(r.result, true, r.comment);
    const keyring = path.join(keyrings, 'elastic.gpg');
    assert.notEqual(fs.readFileSync(keyring).subarray(0, 5).toString(), '-----', 'binary, as apt reads it');
    assert.equal(fs.statSync(keyring).mode & 0o777, 0o644);
    assert.deepEqual(await keyringIds(keyring), [fpr]);
    assert.equal(fs.readFileSync(listFile(), 'utf8'), `${line()}\n`);
  });

  it('aptkey: True adds the key with apt-key (its keyring) and writes the line; a salt:// key_url works too', async () => {
    const plain = 'deb https://grafana.example.test/oss/deb stable main';
    const r = await runState('pkgrepo.managed', { name: plain, file: listFile(), key_url: 'salt://repo/key.asc' }, opts());
    assert.equal(r.result, true, r.comment);
    assert.deepEqual(await keyringIds(path.join(root, 'trusted.gpg')), [fpr]);
    assert.equal(fs.readFileSync(listFile(), 'utf8'), `${plain}\n`);
  });

  it('key_text with aptkey: False writes the keyring', async () => {
    const r = await runState('pkgrepo.managed', { name: line(), file: listFile(), key_text: armored, aptkey: false }, opts());
    assert.equal(r.result, true, r.comment);
    assert.deepEqual(await keyringIds(path.join(keyrings, 'elastic.gpg')), [fpr]);
  });

  it('a key that cannot be fetched fails the state and writes no line', async () => {
    const r = await runState('pkgrepo.managed', { name: line(), file: listFile(), key_url: `${web.base}/missing.asc`, aptkey: false }, opts());
    assert.equal(r.result, false);
    assert.match(r.comment, /^Failed to configure repo '.*': .*HTTP 404: Not Found reading \/missing\.asc/);
    assert.equal(fs.existsSync(listFile()), false);
  });

  it("Salt's refusals: no signed-by without apt-key, a missing keyring directory, conflicting key arguments, an insecure key_url", async () => {
    const plain = 'deb https://x.example.test/deb stable main';
    const noSigned = await runState('pkgrepo.managed', { name: plain, file: listFile(), key_url: `${web.base}/repo.asc`, aptkey: false }, opts());
    assert.equal(noSigned.result, false);
    assert.match(noSigned.comment, /missing 'signedby' option when apt-key is missing/);
    const noDir = `deb [signed-by=${root}/nowhere/k.gpg] https://x.example.test/deb stable main`;
    const missingDir = await runState('pkgrepo.managed', { name: noDir, file: listFile(), key_url: `${web.base}/repo.asc`, aptkey: false }, opts());
    assert.equal(missingDir.result, false);
    assert.match(missingDir.comment, /The directory .*nowhere does not exist\. Please create this directory only writable by root/);
    const both = await runState('pkgrepo.managed', { name: plain, key_url: `${web.base}/repo.asc`, keyid: fpr, keyserver: 'hkp://x' }, opts({ test: true }));
    assert.deepEqual([both.result, both.comment], [false, 'You may not use both "keyid"/"keyserver" and "key_url" argument.']);
    const insecure = await runState('pkgrepo.managed', { name: plain, key_url: `${web.base}/repo.asc`, allow_insecure_key: false }, opts({ test: true }));
    assert.deepEqual([insecure.result, insecure.comment], [false, "Cannot have 'key_url' using http with 'allow_insecure_key' set to True"]);
    assert.equal(fs.existsSync(listFile()), false);
  });
});

describe('pkgrepo.managed with keyid and keyserver', () => {
  it('aptkey: False receives the key from the keyserver (HKP) into the signed-by keyring; a second repository with it does not ask again', async () => {
    const keyserver = `hkp://127.0.0.1:${web.port}`;
    const r = await runState('pkgrepo.managed', { name: line(), file: listFile(), keyid: fpr.slice(-16), keyserver, aptkey: false }, opts());
    assert.equal(r.result, true, r.comment);
    const keyring = path.join(keyrings, 'elastic.gpg');
    assert.deepEqual(await keyringIds(keyring), [fpr]);
    const asked = web.gets('/pks/lookup');
    assert.ok(asked >= 1, 'gpg asked the keyserver');
    const other = `deb [signed-by=${keyring}] https://artifacts.example.test/packages/7.x/apt stable main`;
    const again = await runState('pkgrepo.managed', { name: other, file: listFile(), keyid: fpr.slice(-16), keyserver, aptkey: false }, opts());
    assert.equal(again.result, true, again.comment);
    assert.equal(web.gets('/pks/lookup'), asked, 'the keyring already held the key');
  });

  it('keyid without keyserver is refused', async () => {
    const r = await runState('pkgrepo.managed', { name: line(), file: listFile(), keyid: fpr, aptkey: false }, opts());
    assert.equal(r.result, false);
    assert.match(r.comment, /both keyserver and keyid options required\./);
  });
});
