// A RenderEnv for the Python renderer tests: a minion's grains, pillar and opts, a function
// caller that records its calls, and a tree of files for `from salt://x.sls import`.

import assert from 'node:assert/strict';
import type { RenderEnv } from '../../src/render/types.js';
import { BrineError } from '../../src/util/errors.js';

export interface Calls {
  made: Array<[string, unknown[], Record<string, unknown>]>;
}

export function pyEnv(calls: Calls = { made: [] }, over: Partial<RenderEnv> = {}, files: Record<string, string> = {}): RenderEnv {
  return {
    source: 'salt://web/init.sls',
    saltenv: 'base',
    context: {
      grains: { id: 'web01', os: 'Debian', os_family: 'Debian' },
      pillar: { app: { port: 8080, name: 'shop' } },
      opts: { id: 'web01', file_client: 'remote' },
      sls: 'web',
      tplpath: 'web/init.sls',
    },
    callFunction: (fun, args, kwargs) => {
      calls.made.push([fun, args, kwargs]);
      if (fun === 'cmd.run') return `ran ${String(args[0])}`;
      if (fun === 'test.echo') return args[0];
      throw new BrineError('UNKNOWN_FUNCTION', `'${fun}' is not available on this minion`);
    },
    loadFile: (name) => files[name],
    ...over,
  };
}

export async function fails(p: Promise<unknown>): Promise<BrineError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof BrineError, String(err));
    return err;
  }
  assert.fail('the render did not fail');
}
