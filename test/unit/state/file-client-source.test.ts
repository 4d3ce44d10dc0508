// The default SLS source: state.* functions read SLS files through the job's salt:// file client
// (ctx.files). A tiny FileClient over a temp dir stands in for the master's or the local one.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FileClient, FileStat } from '../../../src/modules/index.js';
import { createMinionRegistry } from '../../../src/state/index.js';
import { makeCtx } from '../modules/context.js';
import { BrineError } from '../../../src/util/errors.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-roots-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

/** file_roots of one directory per environment; reads straight from it (the "cache" is the root). */
function dirClient(roots: Record<string, string>): FileClient & { cached: string[] } {
  const cached: string[] = [];
  const rel = (url: string): string => url.replace(/^salt:\/\//, '');
  const stat = async (url: string, saltenv: string): Promise<FileStat | undefined> => {
    const dir = roots[saltenv];
    if (!dir) return undefined;
    const file = path.join(dir, rel(url));
    if (!fs.existsSync(file)) return undefined;
    const data = fs.readFileSync(file);
    return { path: rel(url), sha256: createHash('sha256').update(data).digest('hex'), size: data.length, mode: 0o644 };
  };
  return {
    cached,
    listEnvs: async () => Object.keys(roots).sort(),
    listFiles: async () => [],
    listDirs: async () => [],
    stat,
    cacheFile: async (url, saltenv) => {
      const s = await stat(url, saltenv);
      if (!s) throw new Error(`not found: ${url}`);
      cached.push(`${saltenv}:${s.path}`);
      return { localPath: path.join(roots[saltenv]!, s.path), stat: s };
    },
  };
}

describe('SLS files through ctx.files', () => {
  it('state.apply finds top.sls, a/b.sls and a/init.sls through the file client of the job', async () => {
    const base = path.join(root, 'base');
    fs.mkdirSync(path.join(base, 'web'), { recursive: true });
    fs.writeFileSync(path.join(base, 'top.sls'), "base:\n  '*':\n    - web\n");
    fs.writeFileSync(path.join(base, 'web', 'init.sls'), 'include:\n  - .conf\nweb:\n  test.succeed_with_changes: []\n');
    fs.writeFileSync(path.join(base, 'web', 'conf.sls'), 'conf:\n  test.succeed_without_changes:\n    - require_in:\n      - web\n');
    const files = dirClient({ base });
    const r = await createMinionRegistry().call('state.apply', [], {}, { ...makeCtx(), files });
    assert.equal(r.retcode, 0, JSON.stringify(r.return));
    assert.deepEqual(Object.keys(r.return as object), ['test_|-conf_|-conf_|-succeed_without_changes', 'test_|-web_|-web_|-succeed_with_changes']);
    assert.deepEqual(files.cached, ['base:top.sls', 'base:web/init.sls', 'base:web/conf.sls']);
  });

  it('a file client that loses its master mid-run fails the run with FILESERVER_UNAVAILABLE, not a compile error', async () => {
    const base = path.join(root, 'base2');
    fs.mkdirSync(base, { recursive: true });
    fs.writeFileSync(path.join(base, 'a.sls'), 'include: [b]\na:\n  test.nop: []\n');
    const files = dirClient({ base });
    const lost: FileClient = {
      ...files,
      stat: async (url, saltenv) => {
        if (url.startsWith('b')) throw new BrineError('FILESERVER_UNAVAILABLE', 'no master connection');
        return files.stat(url, saltenv);
      },
    };
    const r = await createMinionRegistry().call('state.sls', ['a'], {}, { ...makeCtx(), files: lost });
    assert.equal(r.error?.code, 'FILESERVER_UNAVAILABLE');
  });
});
