// Small host helpers shared by the system modules: finding a program on PATH, running one
// argv and turning a non-zero exit into a coded error, and checking caller-given names.

import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { BrineError } from '../util/errors.js';
import { runProcess, type ProcessResult } from './process-runner.js';

/** The absolute path of `program` on PATH (as the minion sees it now; an absolute path as it is), or undefined. */
export function which(program: string): string | undefined {
  if (path.isAbsolute(program)) {
    try {
      accessSync(program, constants.X_OK);
      return program;
    } catch {
      return undefined;
    }
  }
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, program);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return undefined;
}

export interface RunOptions {
  env?: Readonly<Record<string, string>>;
  signal?: AbortSignal;
  timeoutMs?: number;
  stdin?: string;
}

/** Runs argv (never through a shell) and returns the result whatever the exit code. */
export function runArgv(label: string, argv: readonly string[], opts: RunOptions = {}): Promise<ProcessResult> {
  return runProcess({ argv, label, rstrip: true, ...opts });
}

/** The last lines of a command's output, for an error message. */
export function tail(text: string, lines = 5): string {
  const kept = text
    .trim()
    .split('\n')
    .filter((l) => l.trim() !== '');
  return kept.slice(-lines).join(' | ');
}

/** Runs argv and throws EXEC_FAILED naming the command and its stderr when it exits non-zero. */
export async function runChecked(label: string, argv: readonly string[], opts: RunOptions = {}): Promise<ProcessResult> {
  const r = await runArgv(label, argv, opts);
  if (r.retcode !== 0) {
    const why = tail(r.stderr) || tail(r.stdout) || 'no output';
    throw new BrineError('EXEC_FAILED', `${label}: '${argv.join(' ')}' failed with exit code ${r.retcode}: ${why}`, {
      details: { retcode: r.retcode },
    });
  }
  return r;
}

/**
 * Refuses names that a program would read as an option (a leading `-`) or that carry control
 * characters. argv arrays already rule out shell injection; this rules out option injection.
 */
export function checkName(label: string, what: string, value: string, grammar: RegExp): string {
  if (value === '' || value.startsWith('-') || !grammar.test(value)) {
    throw new BrineError('BAD_ARGUMENTS', `${label}: ${what} '${value}' is not valid; it must match ${grammar.source} and must not start with '-'`);
  }
  return value;
}
