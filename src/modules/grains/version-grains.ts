// Salt's version grains (saltversion, saltversioninfo, saltpath) and Python grains
// (pythonversion, pythonexecutable, pythonpath). brine reports the Salt release whose behaviour
// it matches, so that trees branching on `grains['saltversioninfo'] >= [2018, 3, 1]` take the
// modern path, and the Python of the system's python3 (the one a tree's pip/python states use).

import { fileURLToPath } from 'node:url';
import type { ProbeOutput, ProbeSpec } from './program-probe.js';
import { which } from '../host-tools.js';

/** The Salt release brine's behaviour follows (docs/grains.md). */
export const SALT_COMPAT_VERSION = '3007.8';

/**
 * Reported without a python3 on PATH: Salt 3007's onedir Python, 3.10. Only the major and minor
 * numbers are meaningful; trees test `pythonversion[0] == 3`.
 */
export const FALLBACK_PYTHON_VERSION: readonly (number | string)[] = [3, 10, 0, 'final', 0];

/** Salt's version_info of a new-style version: [major, minor] ('3007.8' -> [3007, 8]). */
export function versionInfo(version: string): number[] {
  return version.split('.').map((p) => Number(p));
}

/** The directory brine's compiled code runs from (Salt's saltpath is its package directory). */
function brinePath(): string {
  return fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
}

export function saltVersionGrains(): Record<string, unknown> {
  return { saltversion: SALT_COMPAT_VERSION, saltversioninfo: versionInfo(SALT_COMPAT_VERSION), saltpath: brinePath() };
}

/**
 * The system's python3 (the one Debian's pip and python states use), before whatever PATH finds
 * first: a version-manager shim there (pyenv's costs about 300 ms a run) would slow every minion
 * start with a fresh cachedir and report the operator's shell Python instead of the system's.
 */
export function systemPython(): string {
  return ['/usr/bin/python3', '/usr/local/bin/python3'].find((p) => which(p) !== undefined) ?? 'python3';
}

/** The one python3 run the grains need: sys.version_info, sys.executable, sys.path. */
export function pythonProbe(): ProbeSpec {
  return {
    program: systemPython(),
    args: ['-c', 'import json, sys; print(json.dumps([list(sys.version_info), sys.executable, sys.path]))'],
  };
}

export interface PythonFacts {
  grains: { pythonversion: unknown[]; pythonexecutable: string; pythonpath: unknown[] };
}

/**
 * Pure: the Python grains from the probe's output; the fallback when python3 is missing or said
 * something else. `-c` puts '' (the current directory) first on sys.path; a daemon's path has no
 * such entry, so it is left out.
 */
export function pythonFacts(probe: ProbeOutput | undefined): PythonFacts {
  const fallback: PythonFacts = { grains: { pythonversion: [...FALLBACK_PYTHON_VERSION], pythonexecutable: '', pythonpath: [] } };
  if (probe === undefined || probe.retcode !== 0) return fallback;
  try {
    const [version, executable, syspath] = JSON.parse(probe.stdout.trim().split('\n').pop() ?? '') as [unknown, unknown, unknown];
    if (!Array.isArray(version) || typeof executable !== 'string' || !Array.isArray(syspath)) return fallback;
    return { grains: { pythonversion: version, pythonexecutable: executable, pythonpath: syspath.filter((p) => p !== '') } };
  } catch {
    return fallback;
  }
}
