// pkg.hold / pkg.unhold on apt hosts (Salt's aptpkg.hold/unhold): a package's dpkg selection
// set to hold (or back to install), so upgrades leave it at its version. Per-package returns
// {name, changes: {old, new}, result, comment} in Salt's words; test=True changes nothing.

import { BrineError } from '../util/errors.js';
import { defineFunction } from './define-function.js';
import { checkName, runChecked, which } from './host-tools.js';
import { PKG_NAME } from './pkg-backend.js';
import type { ModuleFunction } from './types.js';

interface HoldReturn {
  name: string;
  changes: Record<string, string>;
  result: boolean | null;
  comment: string;
}

function targets(fun: string, name: string | undefined, pkgs: unknown[] | undefined): string[] {
  const list = pkgs?.length ? pkgs.map((p) => (typeof p === 'object' && p !== null ? Object.keys(p)[0]! : String(p))) : name ? [name] : [];
  if (list.length === 0) throw new BrineError('BAD_ARGUMENTS', 'One of name, pkgs, or sources must be specified.');
  return list.map((t) => checkName(fun, 'package name', t, PKG_NAME));
}

/** dpkg --get-selections for one package: its selection state ('install', 'hold', ...), or undefined. */
async function selection(fun: string, pkg: string): Promise<string | undefined> {
  const r = await runChecked(fun, ['dpkg', '--get-selections', pkg]);
  for (const line of r.stdout.split('\n')) {
    const [n, state] = line.trim().split(/\s+/);
    if (n === pkg || n?.startsWith(`${pkg}:`)) return state;
  }
  return undefined;
}

async function setHold(fun: string, pkgs: string[], hold: boolean, test: boolean): Promise<Record<string, HoldReturn>> {
  if (!which('dpkg')) throw new BrineError('EXEC_FAILED', `${fun}: holding packages needs dpkg (apt hosts); dnf's versionlock plugin is not supported by brine yet`);
  const out: Record<string, HoldReturn> = {};
  for (const pkg of pkgs) {
    const ret: HoldReturn = { name: pkg, changes: {}, result: false, comment: '' };
    out[pkg] = ret;
    const now = await selection(fun, pkg);
    if (!hold && now === undefined) {
      ret.comment = `Package ${pkg} does not have a state.`;
    } else if ((now === 'hold') === hold) {
      ret.result = true;
      ret.comment = hold ? `Package ${pkg} is already set to be held.` : `Package ${pkg} is already set not to be held.`;
    } else if (test) {
      ret.result = null;
      ret.comment = hold ? `Package ${pkg} is set to be held.` : `Package ${pkg} is set not to be held.`;
    } else {
      const want = hold ? 'hold' : 'install';
      await runChecked(fun, ['dpkg', '--set-selections'], { stdin: `${pkg} ${want}\n` });
      ret.changes = { old: now ?? '', new: want };
      ret.result = true;
      ret.comment = hold ? `Package ${pkg} is now being held.` : `Package ${pkg} is no longer being held.`;
    }
  }
  return out;
}

const PARAMS = [
  { name: 'name', type: 'string', doc: 'the package (ignored when pkgs is given)' },
  { name: 'pkgs', type: 'list', doc: 'several packages' },
  { name: 'test', type: 'bool', default: false, keywordOnly: true, doc: 'only say what would change' },
] as const;

export const pkgHoldFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'pkg.hold',
    doc: 'Hold packages at their installed version (dpkg selection hold); returns {name: {name, changes, result, comment}}.',
    params: PARAMS,
    kwargs: true,
    run: (_ctx, a) => setHold('pkg.hold', targets('pkg.hold', a.named.name, a.named.pkgs), true, a.named.test),
  }),
  defineFunction({
    name: 'pkg.unhold',
    doc: 'Release held packages (dpkg selection install); returns {name: {name, changes, result, comment}}.',
    params: PARAMS,
    kwargs: true,
    run: (_ctx, a) => setHold('pkg.unhold', targets('pkg.unhold', a.named.name, a.named.pkgs), false, a.named.test),
  }),
];
