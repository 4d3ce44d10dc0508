// The job launcher's argument parsing (src/api/ui/static/run.js, browser code without DOM use
// at import time): one argument per line, `name=value` a keyword argument as on Salt's CLI.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { uiAssetDir } from '../../../src/api/ui/index.js';

type ParseArgs = (text: string) => { arg: string[]; kwarg: Record<string, string> };

async function parseArgs(): Promise<ParseArgs> {
  // a plain JS module (no types): loaded by URL from the folder the server reads
  const mod = (await import(pathToFileURL(path.join(uiAssetDir(), 'run.js')).href)) as { parseArgs: ParseArgs };
  return mod.parseArgs;
}

describe('the web view parses job arguments', () => {
  it('keeps each line whole (spaces, quotes and HTML included) and skips blank lines', async () => {
    const parse = await parseArgs();
    assert.deepEqual(parse("printf '%s' '<b>x</b>'\n\n  two words  \n"), { arg: ["printf '%s' '<b>x</b>'", '  two words  '], kwarg: {} });
  });

  it('makes name=value lines keyword arguments only when name is an identifier', async () => {
    const parse = await parseArgs();
    assert.deepEqual(parse('cwd=/tmp\necho a=b\nrunas=root\n9x=1\n=v'), { arg: ['echo a=b', '9x=1', '=v'], kwarg: { cwd: '/tmp', runas: 'root' } });
    assert.deepEqual(parse('env=A=1'), { arg: [], kwarg: { env: 'A=1' } });
  });
});
