// file.grep: Salt's wrapper around grep(1). The path may be a shell glob (expanded as Python's
// glob.glob does; a glob that matches nothing is passed as written, so grep reports it), each
// option is one argument, and the return is cmd.run_all's with grep's exit code as the retcode,
// so `onlyif`/`unless` with `fun: file.grep` test whether the pattern was found.

import { readdirSync } from 'node:fs';
import path from 'node:path';
import { BrineError } from '../util/errors.js';
import { globToRegExp } from '../util/glob.js';
import { ShlexError, shlexSplit } from '../util/shlex.js';
import { defineFunction } from './define-function.js';
import { hasGlob } from './glob.js';
import { runArgv } from './host-tools.js';
import { withRetcode } from './retcode.js';
import type { ModuleFunction } from './types.js';

/** Python's glob.glob for an absolute or relative pattern: matches sorted, hidden names only for a pattern starting with '.'. */
export function pyGlob(pattern: string): string[] {
  const absolute = pattern.startsWith('/');
  const parts = pattern.split('/').filter((p) => p !== '');
  let found = [absolute ? '/' : '.'];
  for (const part of parts) {
    const next: string[] = [];
    for (const dir of found) {
      if (!hasGlob(part)) {
        next.push(path.join(dir, part));
        continue;
      }
      const re = globToRegExp(part);
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        continue;
      }
      for (const n of names.sort()) if (re.test(n) && (!n.startsWith('.') || part.startsWith('.'))) next.push(path.join(dir, n));
    }
    found = next;
  }
  return found.map((p) => (absolute ? p : path.relative('.', p)));
}

function splitOpts(opts: readonly unknown[]): string[] {
  const out: string[] = [];
  for (const opt of opts) {
    let split: string[];
    try {
      split = shlexSplit(String(opt));
    } catch (err) {
      throw new BrineError('BAD_ARGUMENTS', `file.grep: option ${JSON.stringify(String(opt))} cannot be split: ${err instanceof ShlexError ? err.message : String(err)}`);
    }
    if (split.length > 1) {
      throw new BrineError('BAD_ARGUMENTS', `Passing multiple command line arguments in a single string is not supported, please pass the following arguments separately: ${String(opt)}`);
    }
    out.push(...split);
  }
  return out;
}

export const fileGrepFunction: ModuleFunction = defineFunction({
  name: 'file.grep',
  doc: "Run grep(1) for a pattern in a path (a shell glob allowed), options as separate arguments (e.g. -r, -i); returns {pid, retcode, stdout, stderr} with grep's exit code (0 found, 1 not found).",
  params: [
    { name: 'path', type: 'string', required: true, doc: 'a file, a directory (with -r) or a glob' },
    { name: 'pattern', type: 'string', required: true, doc: 'the grep pattern' },
  ],
  varargs: true,
  run: async (_ctx, a) => {
    const raw = a.named.path.startsWith('~') ? a.named.path.replace(/^~(?=\/|$)/, process.env.HOME ?? '~') : a.named.path;
    const matched = hasGlob(raw) ? pyGlob(raw) : [];
    const paths = matched.length > 0 ? matched : [raw];
    // `--` keeps a pattern or path starting with '-' from being read as an option
    const argv = ['grep', ...splitOpts(a.rest), '--', a.named.pattern, ...paths];
    const r = await runArgv('file.grep', argv);
    return withRetcode({ pid: r.pid, retcode: r.retcode, stdout: r.stdout, stderr: r.stderr }, r.retcode);
  },
});
