// A unified diff of two line lists in the form Salt's get_diff prints (Python difflib's
// unified_diff with empty file names and 3 lines of context). Lines keep their own newlines.

type Tag = 'equal' | 'replace' | 'delete' | 'insert';
type Opcode = [Tag, number, number, number, number];

// Above this many cells the middle is reported as one replacement instead of an exact LCS.
const MAX_LCS_CELLS = 4_000_000;

/** Matching line pairs (i, j) of a longest common subsequence of a[lo..] and b[lo..]. */
function lcsPairs(a: readonly string[], b: readonly string[], aLo: number, aHi: number, bLo: number, bHi: number): [number, number][] {
  const n = aHi - aLo;
  const m = bHi - bLo;
  if (n === 0 || m === 0 || n * m > MAX_LCS_CELLS) return [];
  const dp: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      dp[i]![j] = a[aLo + i] === b[bLo + j] ? dp[i + 1]![j + 1]! + 1 : Math.max(dp[i + 1]![j]!, dp[i]![j + 1]!);
    }
  }
  const pairs: [number, number][] = [];
  for (let i = 0, j = 0; i < n && j < m; ) {
    if (a[aLo + i] === b[bLo + j]) {
      pairs.push([aLo + i, bLo + j]);
      i++;
      j++;
    } else if (dp[i + 1]![j]! >= dp[i]![j + 1]!) i++;
    else j++;
  }
  return pairs;
}

function opcodes(a: readonly string[], b: readonly string[]): Opcode[] {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const pairs: [number, number][] = [];
  for (let k = 0; k < pre; k++) pairs.push([k, k]);
  pairs.push(...lcsPairs(a, b, pre, a.length - suf, pre, b.length - suf));
  for (let k = suf; k > 0; k--) pairs.push([a.length - k, b.length - k]);
  pairs.push([a.length, b.length]); // sentinel

  const ops: Opcode[] = [];
  let i = 0;
  let j = 0;
  for (const [pi, pj] of pairs) {
    if (i < pi && j < pj) ops.push(['replace', i, pi, j, pj]);
    else if (i < pi) ops.push(['delete', i, pi, j, j]);
    else if (j < pj) ops.push(['insert', i, i, j, pj]);
    if (pi === a.length && pj === b.length) break;
    const last = ops[ops.length - 1];
    if (last && last[0] === 'equal' && last[2] === pi && last[4] === pj) {
      last[2]++;
      last[4]++;
    } else ops.push(['equal', pi, pi + 1, pj, pj + 1]);
    i = pi + 1;
    j = pj + 1;
  }
  return ops;
}

/** difflib's get_grouped_opcodes: hunks of changes with up to n lines of context. */
function grouped(codes: Opcode[], n: number): Opcode[][] {
  if (codes.length === 0) codes = [['equal', 0, 1, 0, 1]];
  const first = codes[0]!;
  if (first[0] === 'equal') codes[0] = ['equal', Math.max(first[1], first[2] - n), first[2], Math.max(first[3], first[4] - n), first[4]];
  const last = codes[codes.length - 1]!;
  if (last[0] === 'equal') codes[codes.length - 1] = ['equal', last[1], Math.min(last[2], last[1] + n), last[3], Math.min(last[4], last[3] + n)];
  const groups: Opcode[][] = [];
  let group: Opcode[] = [];
  for (const code of codes) {
    let [tag, i1, i2, j1, j2] = code;
    if (tag === 'equal' && i2 - i1 > 2 * n) {
      group.push([tag, i1, Math.min(i2, i1 + n), j1, Math.min(j2, j1 + n)]);
      groups.push(group);
      group = [];
      i1 = Math.max(i1, i2 - n);
      j1 = Math.max(j1, j2 - n);
    }
    group.push([tag, i1, i2, j1, j2]);
  }
  if (group.length > 0 && !(group.length === 1 && group[0]![0] === 'equal')) groups.push(group);
  return groups;
}

function range(start: number, stop: number): string {
  const length = stop - start;
  if (length === 1) return String(start + 1);
  return `${length === 0 ? start : start + 1},${length}`;
}

/** Splits text into lines that keep their line endings (Python's splitlines(True) for \n). */
export function splitLinesKeepEnds(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/**
 * The lines difflib.unified_diff(a, b) yields (empty file names, `context` lines of context):
 * header lines end in `lineterm`, content lines are the tag plus the line as given.
 */
export function unifiedDiffLines(a: readonly string[], b: readonly string[], context = 3, lineterm = '\n'): string[] {
  const out: string[] = [];
  for (const group of grouped(opcodes(a, b), context)) {
    if (out.length === 0) out.push(`--- ${lineterm}`, `+++ ${lineterm}`);
    const f = group[0]!;
    const l = group[group.length - 1]!;
    out.push(`@@ -${range(f[1], l[2])} +${range(f[3], l[4])} @@${lineterm}`);
    for (const [tag, i1, i2, j1, j2] of group) {
      if (tag === 'equal') {
        for (const line of a.slice(i1, i2)) out.push(` ${line}`);
        continue;
      }
      if (tag !== 'insert') for (const line of a.slice(i1, i2)) out.push(`-${line}`);
      if (tag !== 'delete') for (const line of b.slice(j1, j2)) out.push(`+${line}`);
    }
  }
  return out;
}

/** The unified diff of a → b (lines keeping their own newlines), or '' when they are equal. */
export function unifiedDiff(a: readonly string[], b: readonly string[], context = 3): string {
  return unifiedDiffLines(a, b, context).join('');
}
