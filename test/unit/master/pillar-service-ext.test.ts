// The master's pillar service with ext_pillar and gpg: a cmd_json source makes every request a
// render (its answer may change, as in Salt), a file_tree source only when a file under its root
// changes; a malformed ext_pillar stops the service at construction (master start) with
// CONFIG_VALUE; a bad command's output never reaches the log.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { PillarService, STAMP_REUSE_MS } from '../../../src/master/pillar-service.js';
import { FakeClock } from '../../../src/util/clock.js';
import { BrineError } from '../../../src/util/errors.js';
import { createLogger } from '../../../src/util/logger.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-pillar-ext-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function write(rel: string, text: string, mode?: number): string {
  const f = path.join(tmp, rel);
  fs.mkdirSync(path.dirname(f), { recursive: true });
  fs.writeFileSync(f, text, mode === undefined ? {} : { mode });
  return f;
}

const base = (name: string) => ({
  root_dir: '/',
  pillar_roots: { base: [path.join(tmp, 'pillar')] },
  pillar_source_merging_strategy: 'smart',
  pillar_merge_lists: false,
  pillarenv: null,
  cachedir: path.join(tmp, `cache-${name}`),
  config_dir: path.join(tmp, 'etc'),
});

describe('PillarService with ext_pillar', () => {
  write('pillar/top.sls', "base:\n  '*':\n    - common\n");
  write('pillar/common.sls', 'a: 1\n');
  const lines: string[] = [];
  const logger = createLogger({ name: 'test', level: 'trace', format: 'json', write: (l) => lines.push(l) });
  const grains = (id: string) => ({ id });

  it('a cmd_json source renders at every request, with what the command prints now', async () => {
    const counter = write('n', '1');
    const cmd = write('cmd.sh', `#!/bin/sh\nprintf '{"n": %s}' "$(cat ${counter})"\n`, 0o755);
    const svc = new PillarService({ ...base('cmd'), ext_pillar: [{ cmd_json: cmd }] }, logger, grains);
    assert.deepEqual((await svc.pillarFor('web1')).pillar, { a: 1, n: 1 });
    fs.writeFileSync(counter, '2');
    assert.deepEqual((await svc.pillarFor('web1')).pillar, { a: 1, n: 2 });
    assert.equal(svc.renders, 2);
  });

  it('a file_tree source renders again only when a file under root_dir changes', async () => {
    write('tree/hosts/web1/k', 'v1\n');
    const clock = new FakeClock();
    const svc = new PillarService({ ...base('tree'), ext_pillar: [{ file_tree: { root_dir: path.join(tmp, 'tree') } }] }, logger, grains, clock);
    assert.deepEqual((await svc.pillarFor('web1')).pillar, { a: 1, k: 'v1' });
    clock.advance(STAMP_REUSE_MS); // past the scan's reuse window
    await svc.pillarFor('web1');
    assert.equal(svc.renders, 1, 'nothing changed: from the cache');
    write('tree/hosts/web1/k', 'v22\n');
    clock.advance(STAMP_REUSE_MS);
    assert.deepEqual((await svc.pillarFor('web1')).pillar, { a: 1, k: 'v22' });
    assert.equal(svc.renders, 2);
  });

  it('a failing command keeps the last good pillar, and its output is in no log line', async () => {
    const flag = path.join(tmp, 'broken');
    const cmd = write('flaky.sh', `#!/bin/sh\nif [ -e ${flag} ]; then echo 'LEAKED-OUTPUT-42'; exit 1; fi\necho '{"ok": true}'\n`, 0o755);
    const svc = new PillarService({ ...base('flaky'), ext_pillar: [{ cmd_json: cmd }] }, logger, grains);
    assert.deepEqual((await svc.pillarFor('db1')).pillar, { a: 1, ok: true });
    fs.writeFileSync(flag, '');
    const e = await svc.pillarFor('db1');
    assert.deepEqual(e.pillar, { a: 1, ok: true });
    assert.equal(e.errors.length, 1);
    assert.match(e.errors[0]!, /^Failed to load ext_pillar #1 \(cmd_json\): .* exited with status 1/);
    assert.ok(
      lines.some((l) => l.includes('did not render') && l.includes('ext_pillar #1 (cmd_json)')),
      'the warning names the source',
    );
    assert.ok(!lines.join('\n').includes('LEAKED-OUTPUT-42'));
  });

  it('a malformed ext_pillar stops the service (the master) at start with CONFIG_VALUE', () => {
    assert.throws(
      () => new PillarService({ ...base('bad'), ext_pillar: [{ file_tree: { root_dir: '/x', template: 'yes' } }] }, logger, grains),
      (e: unknown) => e instanceof BrineError && e.code === 'CONFIG_VALUE' && /ext_pillar #1 \(file_tree\): file_tree template must be True or False/.test(e.message),
    );
  });
});
