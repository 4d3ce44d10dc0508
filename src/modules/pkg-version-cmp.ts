// pkg.version_cmp (salt/modules/aptpkg.py version_cmp): -1, 0 or 1 as Debian orders two package
// versions (dpkg's verrevcmp over epoch, upstream version and revision). Written out rather than
// run through `dpkg --compare-versions` three times per call, as Salt does without python-apt;
// the unit test checks it against dpkg on this machine.

import { BrineError } from '../util/errors.js';
import { defineFunction } from './define-function.js';
import { which } from './host-tools.js';
import type { ModuleFunction } from './types.js';

/** dpkg's character order: digits 0, letters by code, '~' before everything, others after letters. */
function order(c: string | undefined): number {
  if (c === undefined) return 0;
  if (c >= '0' && c <= '9') return 0;
  if (/[A-Za-z]/.test(c)) return c.charCodeAt(0);
  if (c === '~') return -1;
  return c.charCodeAt(0) + 256;
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/** dpkg's verrevcmp. */
function verrevcmp(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    while ((i < a.length && !isDigit(a[i])) || (j < b.length && !isDigit(b[j]))) {
      const ac = order(a[i]);
      const bc = order(b[j]);
      if (ac !== bc) return ac - bc;
      i++;
      j++;
    }
    while (a[i] === '0') i++;
    while (b[j] === '0') j++;
    let firstDiff = 0;
    while (isDigit(a[i]) && isDigit(b[j])) {
      if (firstDiff === 0) firstDiff = a.charCodeAt(i) - b.charCodeAt(j);
      i++;
      j++;
    }
    if (isDigit(a[i])) return 1;
    if (isDigit(b[j])) return -1;
    if (firstDiff !== 0) return firstDiff;
  }
  return 0;
}

function parse(v: string): { epoch: number; upstream: string; revision: string } {
  const colon = v.indexOf(':');
  const epoch = colon >= 0 ? Number(v.slice(0, colon)) : 0;
  const rest = colon >= 0 ? v.slice(colon + 1) : v;
  const hyphen = rest.lastIndexOf('-');
  return { epoch: Number.isFinite(epoch) ? epoch : 0, upstream: hyphen >= 0 ? rest.slice(0, hyphen) : rest, revision: hyphen >= 0 ? rest.slice(hyphen + 1) : '' };
}

/** Python's str() of a scalar argument, as Salt's normalize() applies it. */
function pythonStr(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : JSON.stringify(v);
}

/** -1, 0 or 1: how Debian orders version a against version b. */
export function debianVersionCmp(a: string, b: string): number {
  const x = parse(a);
  const y = parse(b);
  const r = x.epoch !== y.epoch ? x.epoch - y.epoch : verrevcmp(x.upstream, y.upstream) || verrevcmp(x.revision, y.revision);
  return Math.sign(r);
}

export const pkgVersionCmpFunction: ModuleFunction = defineFunction({
  name: 'pkg.version_cmp',
  doc: 'Compare two package versions: -1 when pkg1 is older, 0 when equal, 1 when newer (Debian rules).',
  params: [
    // aptpkg.version_cmp compares str(pkg1) and str(pkg2): a number, or None from a
    // pkg.version of a package not installed (os-autoinst's rebootmgr.sls), is compared as text
    { name: 'pkg1', type: 'any', required: true },
    { name: 'pkg2', type: 'any', required: true },
    { name: 'ignore_epoch', type: 'bool', default: false, doc: "compare without the 'N:' epoch" },
  ],
  kwargs: true,
  run: (_ctx, a) => {
    // rpm's ordering (dnf hosts) is not implemented: say so rather than answer with Debian's
    if (!which('dpkg')) throw new BrineError('EXEC_FAILED', 'pkg.version_cmp: brine compares versions with Debian (dpkg) rules only, and this host has no dpkg');
    const strip = (v: string): string => (a.named.ignore_epoch ? v.slice(v.indexOf(':') + 1) : v);
    return debianVersionCmp(strip(pythonStr(a.named.pkg1)), strip(pythonStr(a.named.pkg2)));
  },
});
