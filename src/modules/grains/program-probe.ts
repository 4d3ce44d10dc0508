// A few core grains only a program can tell (python3's version, `systemctl --version`). Salt
// runs those programs at every grains load; brine runs each once and keeps its output in
// <cachedir>/grain-probes.json keyed by the program's path, size, mtime and inode, so that a
// minion start reads one small file instead of starting processes. Replacing the program (a
// package upgrade) changes its stat and the next start asks it again.

import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, realpathSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { which } from '../host-tools.js';
import { runProcess } from '../process-runner.js';

export interface ProbeSpec {
  /** The program, looked up on PATH. */
  program: string;
  args: readonly string[];
  env?: Readonly<Record<string, string>>;
}

export interface ProbeOutput {
  retcode: number;
  stdout: string;
}

interface CacheEntry extends ProbeOutput {
  /** The program's identity when it was run: realpath, size, mtime, inode. */
  identity: string;
}

/** Where a minion keeps the probe results. */
export function probeCacheFile(cachedir: string): string {
  return path.join(cachedir, 'grain-probes.json');
}

/** The cache key of one probe: what runs and with which environment. */
export function probeKey(spec: ProbeSpec): string {
  return JSON.stringify([spec.program, ...spec.args, spec.env ?? {}]);
}

/** The program's identity on disk now, or undefined when it is not on PATH. */
function identityOf(program: string): { file: string; identity: string } | undefined {
  const file = which(program);
  if (file === undefined) return undefined;
  try {
    const real = realpathSync(file);
    const st = statSync(real);
    return { file, identity: `${real}:${st.size}:${st.mtimeMs}:${st.ino}` };
  } catch {
    return undefined;
  }
}

/** Pure: the cached output when it was taken from the same program as now. */
export function cachedOutput(entries: Readonly<Record<string, CacheEntry>>, key: string, identity: string): ProbeOutput | undefined {
  const e = entries[key];
  return e !== undefined && e.identity === identity ? { retcode: e.retcode, stdout: e.stdout } : undefined;
}

function readEntries(file: string | undefined): Record<string, CacheEntry> {
  if (file === undefined) return {};
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, CacheEntry>) : {};
  } catch {
    // missing or damaged: the probes run again and the file is rewritten
    return {};
  }
}

/** Runs probes through the cache file (none when `file` is undefined: every probe runs). */
export class ProgramProbes {
  private readonly entries: Record<string, CacheEntry>;
  private changed = false;

  constructor(
    private readonly file: string | undefined,
    private readonly timeoutMs = 10_000,
  ) {
    this.entries = readEntries(file);
  }

  /** The program's output, or undefined when it is not installed or could not run. */
  async run(spec: ProbeSpec): Promise<ProbeOutput | undefined> {
    const found = identityOf(spec.program);
    if (found === undefined) return undefined;
    const key = probeKey(spec);
    const hit = cachedOutput(this.entries, key, found.identity);
    if (hit !== undefined) return hit;
    try {
      const r = await runProcess({ argv: [found.file, ...spec.args], env: spec.env, rstrip: true, timeoutMs: this.timeoutMs, label: `grains (${spec.program})` });
      this.entries[key] = { identity: found.identity, retcode: r.retcode, stdout: r.stdout };
      this.changed = true;
      return { retcode: r.retcode, stdout: r.stdout };
    } catch {
      // a program that cannot start is reported as absent, and asked again at the next start
      return undefined;
    }
  }

  /** Writes new results (atomically: a crash never leaves half a file); a failure only costs a rerun. */
  save(): void {
    if (!this.changed || this.file === undefined) return;
    const tmp = `${this.file}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      // `brine call --local` may run before any daemon created the cachedir
      mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
      writeFileSync(tmp, JSON.stringify(this.entries), { mode: 0o600 });
      renameSync(tmp, this.file);
      this.changed = false;
    } catch {
      // an unwritable cachedir: the probes run again next time, the grains are unaffected
    }
  }
}
