// What brine adds to Salt's algorithm: the checks behind the start-up warnings and `brine
// doctor id` (cause and fix for localhost-like, IP-derived, stale and cloned IDs), the report's
// OK/WARN/FAIL lines, and the start-up refusals INVALID_ID and ID_CLONED.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkIdResolution, formatIdReport, parseHostsFile, reportIdAtStart, resolveMinionId, type IdSources, type ResolveIdOptions } from '../../../src/minion/index.js';
import { createLogger } from '../../../src/util/logger.js';
import { isBrineError } from '../../../src/util/errors.js';
import { fakeSources, type FakeHost } from './id-fakes.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-idchecks-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

let n = 0;
function cacheIn(content?: string): string {
  const file = path.join(tmp, `c${++n}`, 'minion_id');
  fs.mkdirSync(path.dirname(file));
  if (content !== undefined) fs.writeFileSync(file, content);
  return file;
}

const SEED_HOSTS = '127.0.0.1 localhost.localdomain localhost web7\n';

/** Seed 001's host: /etc/hosts maps 127.0.0.1 to the hostname on the localhost line. */
function seedHost(extra: FakeHost = {}): IdSources {
  const src = fakeSources({ hostname: 'web7', node: 'web7', files: { '/etc/hosts': SEED_HOSTS }, machineId: 'm-web7', ...extra });
  const entry = parseHostsFile(SEED_HOSTS)[0]!;
  src.fqdn = async () => ({ name: 'localhost.localdomain', address: '127.0.0.1', via: 'hosts', hostsEntry: entry, forwardEntry: entry });
  return src;
}

function resolve(src: IdSources, extra: Partial<ResolveIdOptions> = {}) {
  return resolveMinionId({ configuredId: '', cacheFile: cacheIn(), caching: true, writeCache: false, lowercase: false, removeDomain: false, explain: true, sources: src, ...extra });
}

function capture() {
  const lines: Array<{ level: number; msg: string; cause?: string }> = [];
  const logger = createLogger({ name: 'minion', level: 'info', format: 'json', write: (l) => lines.push(JSON.parse(l) as { level: number; msg: string }) });
  return { logger, lines };
}

describe('checkIdResolution', () => {
  it('explains a localhost-like FQDN with the /etc/hosts line and the fix, even when another name was chosen', async () => {
    const res = await resolve(seedHost());
    assert.equal(res.id, 'web7');
    const fqdn = checkIdResolution(res, { refuseClonedId: false }).find((c) => c.topic === 'fqdn')!;
    assert.equal(fqdn.level, 'warn');
    assert.match(
      fqdn.message,
      /the FQDN of web7 came back as localhost\.localdomain because \/etc\/hosts maps 127\.0\.0\.1 to the hostname web7 \(line 1: "127\.0\.0\.1 localhost\.localdomain localhost web7"\)/,
    );
    assert.match(fqdn.fix ?? '', /map web7 to this host's own address/);
    assert.match(fqdn.fix ?? '', /set id:/);
  });

  it('fails a cached localhost-like ID naming the cache file, and calls the cache stale', async () => {
    const cacheFile = cacheIn('localhost.localdomain\n');
    const checks = checkIdResolution(await resolve(seedHost(), { cacheFile }), { refuseClonedId: false });
    const id = checks.find((c) => c.topic === 'id')!;
    assert.deepEqual([id.level, id.cause], ['fail', 'localhost_like']);
    assert.match(id.fix ?? '', new RegExp(`delete ${cacheFile}`));
    const cache = checks.find((c) => c.topic === 'cache')!;
    assert.deepEqual([cache.level, cache.cause], ['warn', 'stale_cache']);
    assert.match(cache.message, /resolution today gives web7/);
    assert.doesNotMatch(cache.fix ?? '', /set id: localhost/, 'never advise keeping an ID brine refuses');
    assert.match(cache.fix ?? '', /it will then use web7/);
  });

  it('warns about an IP-derived ID and says how to get a name', async () => {
    const checks = checkIdResolution(await resolve(fakeSources({ hostname: 'localhost', node: 'localhost', fqdn: 'localhost', ips: ['192.0.2.9'] })), { refuseClonedId: false });
    const ip = checks.find((c) => c.cause === 'ip_derived')!;
    assert.equal(ip.level, 'warn');
    assert.match(ip.message, /192\.0\.2\.9 was derived from an IP address/);
    assert.match(ip.fix ?? '', /hostnamectl set-hostname/);
  });

  it('detects a cloned image from the machine id in the cache: WARN, or FAIL with refuse_cloned_id', async () => {
    const cacheFile = cacheIn('web-template\nmachine_id: m-template\n');
    const res = await resolve(fakeSources({ hostname: 'node3', machineId: 'm-node3' }), { cacheFile });
    const warn = checkIdResolution(res, { refuseClonedId: false }).find((c) => c.topic === 'machine_id')!;
    assert.deepEqual([warn.level, warn.cause], ['warn', 'cloned_image']);
    assert.match(warn.message, /written on machine m-template, but this machine is m-node3/);
    assert.equal(checkIdResolution(res, { refuseClonedId: true }).find((c) => c.topic === 'machine_id')!.level, 'fail');
  });

  it('is all OK for a fresh cache written on this machine, and for id: set', async () => {
    const cacheFile = cacheIn('node3\nmachine_id: m-node3\n');
    const checks = checkIdResolution(await resolve(fakeSources({ hostname: 'node3', machineId: 'm-node3' }), { cacheFile }), { refuseClonedId: true });
    assert.deepEqual(
      checks.map((c) => c.level),
      ['ok', 'ok', 'ok'],
    );
    assert.deepEqual(
      checks.map((c) => c.cause),
      ['ok', 'fresh', 'match'],
    );
    const configured = checkIdResolution(await resolve(seedHost(), { configuredId: 'web7' }), { refuseClonedId: false });
    assert.ok(
      configured.every((c) => c.level === 'ok'),
      JSON.stringify(configured),
    );
  });
});

describe('formatIdReport', () => {
  it('prints OK/WARN/FAIL lines with fixes, the candidates with their verdicts, and ok=false on any warning', async () => {
    const res = await resolve(seedHost(), { cacheFile: cacheIn('localhost.localdomain\n') });
    const report = formatIdReport(res, checkIdResolution(res, { refuseClonedId: false }));
    assert.equal(report.ok, false);
    const top = report.text.split('\n').filter((l) => l !== '' && !l.startsWith(' '));
    assert.ok(
      top.every((l) => /^(OK|WARN|FAIL) /.test(l)),
      report.text,
    );
    assert.ok(
      top.filter((l) => !l.startsWith('OK')).every((l) => l.includes('Fix: ')),
      report.text,
    );
    assert.match(report.text, /^FAIL id: the ID localhost\.localdomain \(from the cached minion_id file\) cannot be used/m);
    assert.match(report.text, /^ +fqdn +localhost\.localdomain +skipped: localhost-like$/m);
    assert.match(report.text, /^ +nodename +web7 +chosen$/m);
    assert.match(report.text, /^ +hostname +web7 +skipped: duplicate \[same as nodename\]$/m);
  });

  it('is ok=true when every check is OK', async () => {
    const res = await resolve(fakeSources({ hostname: 'node3', machineId: 'm' }), { cacheFile: cacheIn('node3\nmachine_id: m\n') });
    assert.equal(formatIdReport(res, checkIdResolution(res, { refuseClonedId: false })).ok, true);
  });
});

describe('reportIdAtStart', () => {
  it('logs the source at info and each warning with its cause and fix', async () => {
    const { logger, lines } = capture();
    const res = await resolve(seedHost());
    reportIdAtStart(res, { refuseClonedId: false }, logger);
    assert.equal(lines[0]?.msg, 'minion ID is web7 (from the platform node name, uname -n)');
    const warn = lines.find((l) => l.level === 40);
    assert.equal(warn?.cause, 'fqdn_localhost');
    assert.match(warn?.msg ?? '', /came back as localhost\.localdomain because \/etc\/hosts maps 127\.0\.0\.1 to the hostname web7.*Fix: /);
  });

  it('refuses a localhost-like ID with INVALID_ID naming the source and the fix', async () => {
    const { logger } = capture();
    const res = await resolve(seedHost(), { cacheFile: cacheIn('localhost.localdomain\n') });
    assert.throws(
      () => reportIdAtStart(res, { refuseClonedId: false }, logger),
      (err) => isBrineError(err, 'INVALID_ID') && /cached minion_id file/.test(err.message) && /delete .*minion_id/.test(err.message),
    );
  });

  it('starts a cloned image with a loud warning, and refuses it with ID_CLONED when refuse_cloned_id is on', async () => {
    const cacheFile = cacheIn('web-template\nmachine_id: m-template\n');
    const res = await resolve(fakeSources({ hostname: 'node3', machineId: 'm-node3' }), { cacheFile });
    const { logger, lines } = capture();
    assert.doesNotThrow(() => reportIdAtStart(res, { refuseClonedId: false }, logger));
    assert.ok(lines.some((l) => l.level === 40 && l.msg.startsWith('CLONED IMAGE')));
    assert.throws(
      () => reportIdAtStart(res, { refuseClonedId: true }, capture().logger),
      (err) => isBrineError(err, 'ID_CLONED') && err.exitCode === 78 && err.message.includes(cacheFile),
    );
  });
});
