// http(s):// sources of file.managed and archive.extracted (issue 22: docker-formula's
// https://download.docker.com/...tgz, nginx-formula's src): Salt's file client downloads them into
// <cachedir>/extrn_files/<saltenv>/<host:port>/<path>, refuses one without source_hash (unless
// skip_verify), does not download again when the cached copy matches the hash, and words a hash
// mismatch, an HTTP error and an unreachable host as Salt does. Served by real HTTP and HTTPS
// servers started here.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { archiveExtracted } from '../../../src/state/modules/archive-extracted.js';
import { fileManaged } from '../../../src/state/modules/file-managed.js';
import { cpFunctions } from '../../../src/fileserver/cp-module.js';
import { extrnPath } from '../../../src/modules/url-cache.js';
import { closedPort, type StaticServer, startStaticServer } from '../../helpers/static-http.js';
import { makeTestCertificate } from '../../helpers/test-cert.js';
import { runState, snapshot, tempDir } from './file-fixture.js';

const CONF = 'listen 80;\n';
const sha256 = (b: string | Buffer): string => createHash('sha256').update(b).digest('hex');

let dir: string;
let cache: string;
let certDir: string;
let tgz: Buffer;
let web: StaticServer;
let tlsWeb: StaticServer;
let caFile: string;
const p = (name: string): string => path.join(dir, name);

before(async () => {
  dir = tempDir();
  cache = tempDir('brine-cache-');
  certDir = tempDir('brine-cert-');
  const src = tempDir('brine-tgzsrc-');
  try {
    fs.mkdirSync(path.join(src, 'docker'));
    fs.writeFileSync(path.join(src, 'docker/dockerd'), '#!/bin/sh\n');
    execFileSync('tar', ['-czf', path.join(src, 'docker.tgz'), '-C', src, 'docker']);
    tgz = fs.readFileSync(path.join(src, 'docker.tgz'));
  } finally {
    fs.rmSync(src, { recursive: true, force: true });
  }
  const files = {
    '/conf/nginx.conf': CONF,
    '/dl/docker.tgz': tgz,
    '/dl/SHA256SUMS': `${sha256('other')}  other.tgz\n${sha256(tgz)}  docker.tgz\n`,
  };
  web = await startStaticServer(files);
  const { cert, key } = makeTestCertificate(certDir, 'web');
  caFile = cert;
  tlsWeb = await startStaticServer(files, { cert: fs.readFileSync(cert), key: fs.readFileSync(key) });
});

after(async () => {
  await web?.close();
  await tlsWeb?.close();
  for (const d of [dir, cache, certDir]) fs.rmSync(d, { recursive: true, force: true });
});

describe('file.managed with an http(s):// source', () => {
  it('test=True downloads (as Salt does) and reports the new file; the real run writes it; a second run does not download again', async () => {
    const url = `${web.base}/conf/nginx.conf`;
    const args = { name: p('nginx.conf'), source: url, source_hash: `sha256=${sha256(CONF)}` };
    const dry = await runState(fileManaged, args, { test: true, cachedir: cache });
    assert.equal(dry.result, null, dry.comment);
    assert.equal(fs.existsSync(p('nginx.conf')), false);
    const cached = path.join(cache, 'extrn_files', 'base', `127.0.0.1:${web.port}`, 'conf', 'nginx.conf');
    assert.equal(fs.readFileSync(cached, 'utf8'), CONF, "Salt's extrn_files layout");
    const downloads = web.gets('/conf/nginx.conf');
    const real = await runState(fileManaged, args, { cachedir: cache });
    assert.equal(real.result, true, real.comment);
    assert.equal(fs.readFileSync(p('nginx.conf'), 'utf8'), CONF);
    const again = await runState(fileManaged, args, { cachedir: cache });
    assert.equal(again.result, true, again.comment);
    assert.deepEqual(again.changes, {});
    assert.equal(web.gets('/conf/nginx.conf'), downloads, 'the cached copy matched source_hash: no download');
  });

  it('without source_hash it is refused with Salt words; skip_verify downloads it anyway', async () => {
    const url = `${web.base}/conf/nginx.conf`;
    const r = await runState(fileManaged, { name: p('nohash.conf'), source: url }, { cachedir: cache });
    assert.equal(r.result, false);
    assert.equal(r.comment, `Unable to verify upstream hash of source file ${url}, please set source_hash or set skip_verify to True`);
    assert.equal(fs.existsSync(p('nohash.conf')), false);
    const s = await runState(fileManaged, { name: p('nohash.conf'), source: url, skip_verify: true }, { cachedir: cache });
    assert.equal(s.result, true, s.comment);
    assert.equal(fs.readFileSync(p('nohash.conf'), 'utf8'), CONF);
  });

  it("a hash mismatch fails with Salt's web-source wording and writes nothing", async () => {
    const url = `${web.base}/conf/nginx.conf`;
    const wrong = sha256('something else');
    const r = await runState(fileManaged, { name: p('bad.conf'), source: url, source_hash: wrong }, { cachedir: cache });
    assert.equal(r.result, false);
    assert.equal(
      r.comment,
      `Specified sha256 checksum for ${url} (${wrong}) does not match actual checksum (${sha256(CONF)}). If the 'source_hash' value refers to a remote file with multiple possible matches, then it may be necessary to set 'source_hash_name'.`,
    );
    assert.equal(fs.existsSync(p('bad.conf')), false);
  });

  it('source_hash may be the URL of a hash file; the line naming the source is used', async () => {
    const r = await runState(fileManaged, { name: p('docker.tgz'), source: `${web.base}/dl/docker.tgz`, source_hash: `${web.base}/dl/SHA256SUMS` }, { cachedir: cache });
    assert.equal(r.result, true, r.comment);
    assert.deepEqual(fs.readFileSync(p('docker.tgz')), tgz);
  });

  it('an HTTP error and an unreachable host fail the state with "Failed to cache <url>: ..."', async () => {
    const missing = `${web.base}/conf/missing.conf`;
    const r = await runState(fileManaged, { name: p('m.conf'), source: missing, skip_verify: true }, { cachedir: cache });
    assert.equal(r.result, false);
    assert.equal(r.comment, `Failed to cache ${missing}: Error: HTTP 404: Not Found reading /conf/missing.conf`);
    const dead = `http://127.0.0.1:${await closedPort()}/x.conf`;
    const d = await runState(fileManaged, { name: p('d.conf'), source: dead, skip_verify: true }, { cachedir: cache });
    assert.equal(d.result, false);
    assert.match(d.comment, new RegExp(`^Failed to cache ${dead.replace(/[.:/]/g, '\\$&')}: Error: ECONNREFUSED .* reading /x\\.conf$`));
    assert.equal(fs.existsSync(p('m.conf')) || fs.existsSync(p('d.conf')), false);
  });

  it('in a source list, an http candidate that does not answer is skipped for the next one', async () => {
    const list = [{ [`${web.base}/conf/gone.conf`]: sha256('x') }, { [`${web.base}/conf/nginx.conf`]: `sha256=${sha256(CONF)}` }];
    const r = await runState(fileManaged, { name: p('list.conf'), source: list }, { cachedir: cache });
    assert.equal(r.result, true, r.comment);
    assert.equal(fs.readFileSync(p('list.conf'), 'utf8'), CONF);
  });

  it('https: the certificate is verified, against the minion ca_bundle when one is set', async () => {
    const url = `${tlsWeb.base}/conf/nginx.conf`;
    const args = { name: p('tls.conf'), source: url, source_hash: sha256(CONF) };
    const refused = await runState(fileManaged, args, { cachedir: cache });
    assert.equal(refused.result, false);
    assert.match(refused.comment, /^Failed to cache https:\/\/127\.0\.0\.1:\d+\/conf\/nginx\.conf: Error: .*(self-signed|SELF_SIGNED|certificate)/i);
    const ok = await runState(fileManaged, args, { cachedir: cache, config: { ca_bundle: caFile } });
    assert.equal(ok.result, true, ok.comment);
    assert.equal(fs.readFileSync(p('tls.conf'), 'utf8'), CONF);
  });

  it("https with verify_ssl: False downloads from a server whose certificate is not trusted (Salt's verify_ssl, issue 22)", async () => {
    // a cache of its own: a copy cached by another test would be used without downloading
    const own = path.join(dir, 'noverify-cache');
    const args = { name: p('noverify.conf'), source: `${tlsWeb.base}/conf/nginx.conf`, source_hash: sha256(CONF), use_etag: true };
    const refused = await runState(fileManaged, args, { cachedir: own });
    assert.match(refused.comment, /^Failed to cache https:.*(self-signed|SELF_SIGNED|certificate)/i);
    const r = await runState(fileManaged, { ...args, verify_ssl: false }, { cachedir: own });
    assert.equal(r.result, true, r.comment);
    assert.equal(fs.readFileSync(p('noverify.conf'), 'utf8'), CONF);
  });

  it("an ftp:// source is refused saying what brine supports (Salt's ftp client is not implemented)", async () => {
    const r = await runState(fileManaged, { name: p('ftp.conf'), source: 'ftp://127.0.0.1/x.conf', skip_verify: true }, { cachedir: cache });
    assert.equal(r.result, false);
    assert.match(r.comment, /ftp:\/\/ sources are not supported by brine \(only http:\/\/ and https:\/\/\)/);
  });
});

describe('archive.extracted with an https:// source', () => {
  it('test=True answers as Salt 3007 without downloading; the real run downloads, checks the hash and extracts', async () => {
    const url = `${tlsWeb.base}/dl/docker.tgz`;
    const before_ = tlsWeb.gets('/dl/docker.tgz');
    const snap = snapshot(dir);
    const args = { name: p('opt'), source: url, source_hash: `sha256=${sha256(tgz)}` };
    const dry = await runState(archiveExtracted, args, { test: true, cachedir: cache, config: { ca_bundle: caFile } });
    assert.deepEqual(
      { result: dry.result, comment: dry.comment, changes: dry.changes },
      { result: null, comment: `Archive ${url} would be cached (if necessary) and checked to discover if extraction is needed`, changes: {} },
    );
    assert.equal(tlsWeb.gets('/dl/docker.tgz'), before_, 'test=True downloaded nothing');
    assert.deepEqual(snapshot(dir), snap);
    const real = await runState(archiveExtracted, args, { cachedir: cache, config: { ca_bundle: caFile } });
    assert.equal(real.result, true, real.comment);
    assert.equal(fs.readFileSync(p('opt/docker/dockerd'), 'utf8'), '#!/bin/sh\n');
    const wrong = await runState(archiveExtracted, { ...args, name: p('opt2'), source_hash: sha256('nope') }, { cachedir: cache, config: { ca_bundle: caFile } });
    assert.equal(wrong.result, false);
    assert.match(wrong.comment, /does not match actual checksum/);
    assert.equal(fs.existsSync(p('opt2')), false);
  });
});

describe('the cache path of a URL', () => {
  it("is Salt's extrn_files layout, and a host of dots cannot leave it", () => {
    assert.equal(extrnPath('/c', 'base', 'https://user:pw@example.test:8443/a/b.tgz?v=1'), '/c/extrn_files/base/example.test:8443/a/b.tgz-v=1');
    assert.throws(() => extrnPath('/c', 'base', 'http://../x'), /names no place inside the cache/);
    assert.throws(() => extrnPath('/c', 'base', 'http://%2e%2e/x'), /names no place inside the cache/);
  });
});

describe('cp.cache_file with an http:// URL', () => {
  it("returns the file in Salt's extrn_files cache", async () => {
    const fn = cpFunctions.find((f) => f.name === 'cp.cache_file')!;
    const out = await fn.run(
      { grains: () => ({}), minionId: 'web1', config: { cachedir: cache }, signal: new AbortController().signal, jid: '1' },
      { named: { path: `${web.base}/dl/SHA256SUMS?x=1`, saltenv: 'base' }, rest: [], extra: {} },
    );
    assert.equal(out, path.join(cache, 'extrn_files', 'base', `127.0.0.1:${web.port}`, 'dl', 'SHA256SUMS-x=1'));
    assert.match(fs.readFileSync(String(out), 'utf8'), /docker\.tgz/);
  });
});
