// Temporary places for tests, each removed when its test (or test file) ends, and looking up a
// program on PATH for tests that need a real tool.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, type TestContext } from 'node:test';

/** A new empty directory under the OS temp dir; the caller removes it. */
export function newTempDir(prefix = 'brine-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A new empty directory removed after the test `t`. */
export function tempDir(t: TestContext, prefix = 'brine-'): string {
  const dir = newTempDir(prefix);
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A maker of paths that no case has used: `<root>/case-<n>/<tail...>` under one directory removed
 * when the test file ends (call it at the top level of the file). The parent does not exist yet.
 */
export function freshPaths(...tail: string[]): () => string {
  const root = newTempDir();
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  let n = 0;
  return () => path.join(root, `case-${n++}`, ...tail);
}

/** Whether an executable named `program` is in a directory of PATH (tests skip without it). */
export function onPath(program: string): boolean {
  return (process.env.PATH ?? '').split(':').some((d) => d !== '' && fs.existsSync(path.join(d, program)));
}

/** Writes `file`, creating its parent directories. */
export function writeWithDirs(file: string, data: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data);
}

/** The first file named `name` under `dir` (depth first), e.g. a daemon's jobs.sqlite under its root. */
export function findFile(dir: string, name: string): string | undefined {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isFile() && e.name === name) return p;
    if (e.isDirectory()) {
      const found = findFile(p, name);
      if (found) return found;
    }
  }
  return undefined;
}
