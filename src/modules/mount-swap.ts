// Swap in the `mount` module (salt/modules/mount.py swaps/swapon/swapoff, Linux): the active
// swap areas from /proc/swaps, and swapon/swapoff through util-linux. As in Salt, a failing
// swapon/swapoff is not an error: the answer is read back from /proc/swaps.

import { readFileSync } from 'node:fs';
import { BrineError } from '../util/errors.js';
import { defineFunction } from './define-function.js';
import { runArgv, which } from './host-tools.js';
import type { ModuleFunction } from './types.js';

export interface SwapArea {
  type: string;
  size: string;
  used: string;
  priority: string;
}

/** /proc/swaps as Salt's mount.swaps: {filename: {type, size, used, priority}} (sizes in KiB, as text). */
export function parseProcSwaps(text: string): Record<string, SwapArea> {
  const out: Record<string, SwapArea> = {};
  for (const line of text.split('\n')) {
    if (line.startsWith('Filename')) continue;
    const [file, type, size, used, priority] = line.trim().split(/\s+/);
    if (file === undefined || file === '' || priority === undefined) continue;
    // the kernel escapes a space in a path as \040, as in mountinfo
    out[file.replace(/\\040/g, ' ')] = { type: type ?? '', size: size ?? '', used: used ?? '', priority };
  }
  return out;
}

export const activeSwaps = (): Record<string, SwapArea> => parseProcSwaps(readFileSync('/proc/swaps', 'utf8'));

function requireProgram(fun: string, program: string): void {
  if (!which(program)) throw new BrineError('EXEC_FAILED', `${fun}: the ${program} program is not installed on this host (Debian: apt-get install util-linux)`);
}

/** Salt's swapon: {stats, new: False} when already on, {stats, new: True} once on, {} when it did not come on. */
export async function swapOn(name: string, priority?: unknown): Promise<{ stats?: SwapArea; new?: boolean }> {
  const before = activeSwaps()[name];
  if (before !== undefined) return { stats: before, new: false };
  requireProgram('mount.swapon', 'swapon');
  const p = priority === undefined || priority === null || priority === '' ? [] : ['-p', String(priority)];
  await runArgv('mount.swapon', ['swapon', name, ...p]);
  const after = activeSwaps()[name];
  return after !== undefined ? { stats: after, new: true } : {};
}

export const swapFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'mount.swaps',
    doc: 'The active swap areas from /proc/swaps: {filename: {type, size, used, priority}}.',
    params: [],
    run: () => activeSwaps(),
  }),
  defineFunction({
    name: 'mount.swapon',
    doc: 'Activate a swap file or device; returns {stats, new}, or {} when it did not come on.',
    params: [
      { name: 'name', type: 'string', required: true, doc: 'the swap file or device' },
      { name: 'priority', type: 'any', doc: 'swapon -p' },
    ],
    run: (_ctx, a) => swapOn(a.named.name, a.named.priority),
  }),
  defineFunction({
    name: 'mount.swapoff',
    doc: 'Deactivate a swap file or device; returns True once off, False when it stayed on, None when it was not on.',
    params: [{ name: 'name', type: 'string', required: true, doc: 'the swap file or device' }],
    run: async (_ctx, a) => {
      if (activeSwaps()[a.named.name] === undefined) return null;
      requireProgram('mount.swapoff', 'swapoff');
      await runArgv('mount.swapoff', ['swapoff', a.named.name]);
      return activeSwaps()[a.named.name] === undefined;
    },
  }),
];
