// `--out-indent N` / `--output-indent N`: an integer, as Salt's optparse type=int demands.

import { BrineError } from '../util/errors.js';

export function outIndent(value: string): number {
  const n = Number(value);
  if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) throw new BrineError('USAGE', `--out-indent must be a whole number of spaces (negative: one line per document), got '${value}'`);
  return n;
}
