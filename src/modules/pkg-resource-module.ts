// pkg_resource.version_compare (salt/modules/pkg_resource.py over salt/utils/versions.py compare):
// True or False for `ver1 <oper> ver2`, ordered as Salt's LooseVersion orders them (not by the
// package manager's rules), so trees comparing their own release numbers get Salt's answer.

import type { ModuleFunction } from './types.js';
import { defineFunction } from './define-function.js';

type Part = number | string;

/** distutils LooseVersion's parse: numbers and letter runs, dots dropped. */
function looseParts(v: string): Part[] {
  return (v.match(/\d+|[a-z]+|\./gi) ?? []).filter((p) => p !== '.').map((p) => (/^\d+$/.test(p) ? Number(p) : p));
}

const cmp = <T>(x: T, y: T): number => (x < y ? -1 : x > y ? 1 : 0);

function cmpLists<T>(a: readonly T[], b: readonly T[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = cmp(a[i]!, b[i]!);
    if (c !== 0) return c;
  }
  return cmp(a.length, b.length);
}

/**
 * salt.utils.versions.version_cmp: -1, 0 or 1. Salt's LooseVersion compares numbers as numbers
 * when both versions are all numbers; otherwise every part as text, numbers zero-padded to 8.
 */
export function looseVersionCmp(v1: string, v2: string): number {
  const a = looseParts(v1);
  const b = looseParts(v2);
  if ([...a, ...b].every((p) => typeof p === 'number')) return cmpLists(a, b);
  const text = (ps: Part[]) => ps.map((p) => (typeof p === 'number' ? String(p).padStart(8, '0') : p));
  return cmpLists(text(a), text(b));
}

const CMP_MAP: Record<string, readonly number[]> = { '<': [-1], '<=': [-1, 0], '==': [0], '>=': [0, 1], '>': [1] };

/** salt.utils.versions.compare; an unknown operator is False, as Salt logs and returns. */
export function versionCompare(ver1: string, oper: string, ver2: string, ignoreEpoch: boolean): boolean {
  if (oper !== '!=' && !(oper in CMP_MAP)) return false;
  const norm = (v: string) => (ignoreEpoch ? v.split(':').slice(1).join(':') || v : v);
  const r = looseVersionCmp(norm(ver1), norm(ver2));
  return oper === '!=' ? r !== 0 : CMP_MAP[oper]!.includes(r);
}

export const pkgResourceFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'pkg_resource.version_compare',
    doc: "True when ver1 <oper> ver2 holds (oper: <, <=, ==, !=, >=, >), compared as Salt's LooseVersion does.",
    params: [
      { name: 'ver1', type: 'string', required: true },
      { name: 'oper', type: 'string', required: true, doc: '<, <=, ==, !=, >= or >' },
      { name: 'ver2', type: 'string', required: true },
      { name: 'ignore_epoch', type: 'bool', default: false, doc: "compare without an 'N:' epoch" },
    ],
    run: (_ctx, a) => versionCompare(a.named.ver1, a.named.oper, a.named.ver2, a.named.ignore_epoch),
  }),
];
