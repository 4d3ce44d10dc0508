// The master's pillar service on a real pillar_roots tree: renders are cached per minion and
// redone only when a pillar file or that minion's grains change; a failed render keeps the last
// good pillar; the identity is the session's; the cache survives a restart and is purged with
// the key. Log lines carry no pillar values.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createLogger } from '../../../src/util/logger.js';
import type { PillarReply } from '../../../src/protocol/index.js';
import { PillarService, STAMP_REUSE_MS, pillarCacheFile, readPillarCache } from '../../../src/master/pillar-service.js';
import { FakeClock } from '../../../src/util/clock.js';
import { judgePillar } from '../../../src/cli/doctor/pillar-check.js';
import { waitUntil } from '../../helpers/wait.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-pillar-svc-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function write(rel: string, text: string): void {
  const f = path.join(tmp, 'pillar', rel);
  fs.mkdirSync(path.dirname(f), { recursive: true });
  fs.writeFileSync(f, text);
}

function session(id: string) {
  const replies: PillarReply[] = [];
  return { id, ready: true, replies, sendPillarReply: (r: PillarReply) => replies.push(r) > 0 };
}

describe('PillarService', () => {
  const grains: Record<string, Record<string, unknown>> = { web1: { id: 'web1', os: 'Debian' }, db1: { id: 'db1', os: 'RedHat' } };
  const lines: string[] = [];
  const logger = createLogger({ name: 'test', level: 'trace', format: 'json', write: (l) => lines.push(l) });
  const opts = {
    root_dir: '/',
    pillar_roots: { base: [path.join(tmp, 'pillar')] },
    pillar_source_merging_strategy: 'smart',
    pillar_merge_lists: false,
    pillarenv: null,
    cachedir: path.join(tmp, 'cache'),
  };
  write('top.sls', "base:\n  '*':\n    - common\n");
  write('common.sls', "os: {{ grains['os'] }}\nsecret: hunter2-value\n");
  // the scan of pillar_roots is reused for STAMP_REUSE_MS on this clock: moving it past the window
  // is what makes an edit visible, no real time passes
  const clock = new FakeClock();
  const pastReuseWindow = (): void => clock.advance(STAMP_REUSE_MS);
  const svc = new PillarService(opts, logger, (id) => grains[id], clock);

  it('renders once, then serves the cache until a file or the grains change', async () => {
    assert.deepEqual((await svc.pillarFor('web1')).pillar, { os: 'Debian', secret: 'hunter2-value' });
    assert.equal(svc.renders, 1);
    assert.equal(readPillarCache(opts.cachedir)[0]?.renderedAt, clock.now(), 'renderedAt comes from the injected clock');
    pastReuseWindow();
    await svc.pillarFor('web1');
    assert.equal(svc.renders, 1, 'unchanged tree and grains: no second render');
    grains.web1 = { id: 'web1', os: 'Ubuntu' };
    assert.equal((await svc.pillarFor('web1')).pillar.os, 'Ubuntu');
    assert.equal(svc.renders, 2);
    pastReuseWindow();
    write('common.sls', "os: {{ grains['os'] }}\nsecret: hunter2-value\nextra: 1\n");
    assert.equal((await svc.pillarFor('web1')).pillar.extra, 1);
    assert.equal(svc.renders, 3);
  });

  it('requests within the reuse window share one scan of pillar_roots; the first after it scans again', async () => {
    pastReuseWindow();
    await svc.pillarFor('web1');
    const before = svc.renders;
    write('common.sls', "os: {{ grains['os'] }}\nsecret: hunter2-value\nextra: 5\n");
    clock.advance(STAMP_REUSE_MS - 1);
    assert.equal((await svc.pillarFor('web1')).pillar.extra, 1, 'inside the window: the earlier scan answers');
    assert.equal(svc.renders, before);
    clock.advance(1);
    assert.equal((await svc.pillarFor('web1')).pillar.extra, 5, 'the window has passed: the edit is seen');
    assert.equal(svc.renders, before + 1);
    pastReuseWindow();
    write('common.sls', "os: {{ grains['os'] }}\nsecret: hunter2-value\nextra: 1\n");
    assert.equal((await svc.pillarFor('web1')).pillar.extra, 1);
  });

  it('an edit that keeps the size and the mtime (rsync -t, cp -p) is still seen', async () => {
    const file = path.join(tmp, 'pillar', 'common.sls');
    const mtime = 1_700_000_000; // whole seconds: set back exactly
    fs.utimesSync(file, mtime, mtime);
    pastReuseWindow();
    const before = (await svc.pillarFor('web1')).pillar.extra;
    fs.writeFileSync(file, "os: {{ grains['os'] }}\nsecret: hunter2-value\nextra: 2\n");
    fs.utimesSync(file, mtime, mtime);
    pastReuseWindow();
    assert.equal(before, 1);
    assert.equal((await svc.pillarFor('web1')).pillar.extra, 2);
  });

  it('concurrent requests of one minion share one render', async () => {
    grains.db1 = { id: 'db1', os: 'Alma' };
    const before = svc.renders;
    const [a, b] = await Promise.all([svc.pillarFor('db1'), svc.pillarFor('db1')]);
    assert.equal(a, b);
    assert.equal(svc.renders, before + 1);
  });

  it('a failed render keeps the last good pillar and records the errors; the next good one clears them', async () => {
    pastReuseWindow();
    write('common.sls', 'os: [broken\n');
    const e = await svc.pillarFor('web1');
    assert.equal(e.pillar.os, 'Ubuntu');
    assert.equal(e.errors.length, 1);
    assert.match(e.errors[0]!, /common\.sls:\d+/);
    const s = session('web1');
    svc.handle(s, { t: 'pillar_request', rid: 1 });
    await waitUntil(() => s.replies.length === 1, 10_000, 'the reply');
    assert.equal(s.replies[0]?.ok, true);
    assert.equal(s.replies[0]?.errors?.length, 1);
    pastReuseWindow();
    write('common.sls', "os: {{ grains['os'] }}\n");
    assert.deepEqual((await svc.pillarFor('web1')).errors, []);
  });

  it("a request naming another minion is refused and counted; the session's own ID decides", async () => {
    const s = session('db1');
    svc.handle(s, { t: 'pillar_request', rid: 2, id: 'web1' });
    assert.equal(s.replies[0]?.ok, false);
    assert.equal(s.replies[0]?.error?.code, 'PILLAR_DENIED');
    assert.equal(s.replies[0]?.pillar, undefined);
    assert.equal(svc.refusedCount, 1);
    svc.handle(s, { t: 'pillar_request', rid: 3, id: 'db1' });
    await waitUntil(() => s.replies.length === 2, 10_000, 'the reply');
    assert.equal(s.replies[1]?.ok, true);
    assert.equal(s.replies[1]?.pillar?.os, 'Alma');
  });

  it('the cache file is 0600, survives a restart, and is purged with the key', () => {
    const file = pillarCacheFile(opts.cachedir, 'web1');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const restarted = new PillarService(opts, logger, (id) => grains[id]);
    assert.equal(restarted.pillarOf('web1')?.os, 'Ubuntu');
    restarted.purge('web1');
    assert.equal(restarted.pillarOf('web1'), undefined);
    assert.equal(fs.existsSync(file), false);
  });

  it('a top file that gives a minion nothing: an empty pillar, no error, and brine doctor names it from the cache', async () => {
    const root = path.join(tmp, 'pillar-nomatch');
    fs.mkdirSync(root, { recursive: true });
    fs.writeFileSync(path.join(root, 'top.sls'), "base:\n  'web*':\n    - web\n");
    fs.writeFileSync(path.join(root, 'web.sls'), 'role: web\n');
    const cachedir = path.join(tmp, 'cache-nomatch');
    const s = new PillarService({ ...opts, pillar_roots: { base: [root] }, cachedir }, logger, (id) => ({ id }));
    const db = await s.pillarFor('db9');
    assert.deepEqual([db.pillar, db.errors, db.matchedNothing], [{}, [], true]);
    assert.equal((await s.pillarFor('web9')).matchedNothing, false);
    const checks = judgePillar(readPillarCache(cachedir));
    assert.deepEqual(
      checks.map((c) => c.level),
      ['ok'],
    );
    assert.match(checks[0]!.detail, /gives this minion no SLS, so their pillar is empty: db9/);
  });

  it('an existing cache directory open to others is narrowed to 0700 at start', () => {
    const cachedir = path.join(tmp, 'cache-open');
    fs.mkdirSync(path.join(cachedir, 'pillar'), { recursive: true, mode: 0o755 });
    fs.chmodSync(path.join(cachedir, 'pillar'), 0o755);
    new PillarService({ ...opts, cachedir }, logger, (id) => grains[id]);
    assert.equal(fs.statSync(path.join(cachedir, 'pillar')).mode & 0o777, 0o700);
  });

  it('aggregate is refused at start', () => {
    assert.throws(
      () => new PillarService({ ...opts, pillar_source_merging_strategy: 'aggregate' }, logger, () => undefined),
      (e: { code: string }) => e.code === 'CONFIG_VALUE',
    );
  });

  it('no log line carries a pillar value', () => {
    assert.ok(lines.length > 0);
    assert.ok(!lines.some((l) => l.includes('hunter2') || l.includes('Ubuntu') || l.includes('Alma')), lines.join('\n'));
  });
});

describe('PillarService: pillarenv in a request (state.apply pillarenv=)', () => {
  const root = path.join(tmp, 'envs');
  const put = (rel: string, text: string): void => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  };
  put('base/top.sls', "base:\n  '*':\n    - common\n");
  put('base/common.sls', 'tier: base\n');
  put('dev/top.sls', "dev:\n  '*':\n    - devonly\n");
  put('dev/devonly.sls', 'dev_only: true\n');
  const lines: string[] = [];
  const logger = createLogger({ name: 'test', level: 'trace', format: 'json', write: (l) => lines.push(l) });
  const svc = new PillarService(
    {
      root_dir: '/',
      pillar_roots: { base: [path.join(root, 'base')], dev: [path.join(root, 'dev')] },
      pillar_source_merging_strategy: 'smart',
      pillar_merge_lists: false,
      pillarenv: null,
      cachedir: path.join(tmp, 'envs-cache'),
    },
    logger,
    (id) => ({ id }),
  );

  it("renders that environment only, for that reply: the minion's cached pillar stays the merged one", async () => {
    const s = session('web1');
    svc.handle(s, { t: 'pillar_request', rid: 1 });
    await waitUntil(() => s.replies.length === 1, 10_000, 'the first reply');
    assert.deepEqual(s.replies[0]?.pillar, { tier: 'base', dev_only: true });
    svc.handle(s, { t: 'pillar_request', rid: 2, pillarenv: 'dev' });
    await waitUntil(() => s.replies.length === 2, 10_000, 'the pillarenv reply');
    assert.equal(s.replies[1]?.rid, 2);
    assert.deepEqual(s.replies[1]?.pillar, { dev_only: true });
    assert.deepEqual(svc.pillarOf('web1'), { tier: 'base', dev_only: true });
    assert.deepEqual(readPillarCache(path.join(tmp, 'envs-cache'))[0]?.pillar, { tier: 'base', dev_only: true });
  });

  for (const bad of ['nope', '../base', '__proto__', 'base/../dev']) {
    it(`pillarenv ${JSON.stringify(bad)} is PILLARENV_UNKNOWN naming the environments, and nothing is rendered`, () => {
      const s = session('web1');
      const before = svc.renders;
      svc.handle(s, { t: 'pillar_request', rid: 9, pillarenv: bad });
      assert.equal(s.replies.length, 1, 'answered at once, before any render');
      assert.equal(s.replies[0]?.ok, false);
      assert.equal(s.replies[0]?.error?.code, 'PILLARENV_UNKNOWN');
      assert.match(s.replies[0]?.error?.message ?? '', /pillar_roots \(base, dev\)/);
      assert.equal(svc.renders, before);
    });
  }
});
