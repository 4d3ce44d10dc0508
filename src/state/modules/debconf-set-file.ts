// debconf.set_file: debconf selections from a file (salt://, a local path, or a template
// rendered first) loaded with debconf-set-selections, with Salt's comments
// (salt/states/debconfmod.py set_file() over modules/debconfmod.py set_file/set_template).
// Unlike Salt, a debconf-set-selections that exits non-zero fails the state with its reason.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { errorMessage } from '../../util/errors.js';
import { defineState, type StateFunction } from '../types.js';
import { renderWith } from './file-contents.js';
import { callFn, stateResult } from './state-result.js';

const isDict = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const UNABLE = 'Unable to set debconf selections from file.';

export const debconfSetFile = defineState({
  name: 'debconf.set_file',
  // Salt's set_file takes **kwargs (passed on to the module): unknown arguments are ignored silently
  kwargs: true,
  doc: 'Load debconf selections from a file or a template (debconf-set-selections).',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'the state name (not used)' },
    { name: 'source', type: 'string', required: true, doc: 'the selections file: salt://..., or a path on the minion' },
    { name: 'template', type: 'string', doc: 'render the file first (jinja)' },
    { name: 'context', type: 'any', doc: 'template variables (a dict)' },
    { name: 'defaults', type: 'any', doc: 'default template variables (a dict)' },
  ],
  example: 'console-setup:\n  debconf.set_file:\n    - source: salt://debconf/console-setup.selections',
  run: async (ctx, a) => {
    const { name, source, template } = a.named;
    const context = a.named.context ?? {};
    const defaults = a.named.defaults ?? {};
    if (!isDict(context)) return stateResult(name, false, 'Context must be formed as a dict');
    if (!isDict(defaults)) return stateResult(name, false, 'Defaults must be formed as a dict');
    if (ctx.test) return stateResult(name, null, 'Debconf selections would have been set.');
    let text: string;
    try {
      const local = source.includes('://') ? (await ctx.exec.files!.cacheFile(source, ctx.saltenv)).localPath : source;
      text = fs.readFileSync(local, 'utf8');
    } catch (err) {
      return stateResult(name, false, `${UNABLE} ${source}: ${errorMessage(err)}`);
    }
    if (template) {
      const out = await renderWith(ctx, template, text, source, defaults, context);
      if ('error' in out) return stateResult(name, false, `${UNABLE} ${out.error}`);
      text = out.text;
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-debconf-'));
    try {
      const file = path.join(dir, 'selections');
      fs.writeFileSync(file, text, { mode: 0o600 });
      const r = await callFn<{ retcode: number; stderr: string }>(ctx, 'cmd.run_all', [['debconf-set-selections', file]], { python_shell: false });
      if (!r.ok) return stateResult(name, false, `${UNABLE} ${r.message}`);
      if (r.value.retcode !== 0) return stateResult(name, false, `${UNABLE} debconf-set-selections: ${r.value.stderr.trim()}`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    return stateResult(name, true, 'Debconf selections were set.');
  },
});

export const debconfFileStates: readonly StateFunction[] = [debconfSetFile];
