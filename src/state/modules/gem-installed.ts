// gem.installed: a Ruby gem installed with the `gem` CLI as Salt's salt/modules/gem.py drives it
// (`gem list <name>`, `gem install`), with Salt 3007's comments and changes
// (salt/states/gem.py installed). Without `gem` a test run answers as Salt does and a real run
// fails naming the Debian package. rvm/rbenv (`ruby`) are not supported.

import { which } from '../../modules/host-tools.js';
import { runProcess } from '../../modules/process-runner.js';
import { findUser, readPasswd } from '../../modules/user-db.js';
import { defineState, type StateFunction, type StateResult } from '../types.js';
import { failingSoftly, stateResult } from './state-result.js';

export interface GemArgs {
  gem_bin?: string;
  user?: string;
}

export async function gem(args: string[], o: GemArgs): Promise<string> {
  const bin = o.gem_bin ?? 'gem';
  if (!o.gem_bin && !which('gem')) throw new Error('gem is not installed on this minion; install Ruby first (pkg.installed: ruby)');
  let ids: { uid?: number; gid?: number } = {};
  if (o.user) {
    const u = findUser(await readPasswd('gem'), o.user);
    if (!u) throw new Error(`User ${o.user} does not exist`);
    ids = { uid: u.uid, gid: u.gid };
  }
  const r = await runProcess({ argv: [bin, ...args], label: 'gem', rstrip: true, ...ids });
  // Salt's _gem raises CommandExecutionError with stderr on a non-zero exit
  if (r.retcode !== 0) throw new Error(r.stderr.trim() || r.stdout.trim() || `${bin} ${args[0]} exited with ${r.retcode}`);
  return r.stdout;
}

/** Salt's gem.list: name -> versions, from `gem list <prefix>` lines `name (1.2, default: 1.1)`. */
export async function listGems(name: string, o: GemArgs): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const line of (await gem(['list', name], o)).split('\n')) {
    const m = /^([^ ]+) \((.+)\)/.exec(line);
    if (m) out.set(m[1]!, m[2]!.split(', '));
  }
  return out;
}

function cmpVersions(a: string, b: string): number {
  const pa = a.split('.').map((x) => Number.parseInt(x, 10) || 0);
  const pb = b.split('.').map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

function meets(installed: string[], op: string, want: string): boolean {
  return installed.some((v) => {
    const c = cmpVersions(v, want);
    return op === '>=' ? c >= 0 : op === '>' ? c > 0 : op === '<=' ? c <= 0 : c < 0;
  });
}

interface InstallArgs extends GemArgs {
  version?: string;
  rdoc: boolean;
  ri: boolean;
  pre_releases: boolean;
  proxy?: string;
  source?: string;
}

async function installed(name: string, a: InstallArgs, test: boolean): Promise<StateResult> {
  const canList = a.gem_bin !== undefined || which('gem') !== undefined;
  // Without gem there is nothing to list: a test run says it would install, as Salt's would
  const gems = canList ? await listGems(name, a) : new Map<string, string[]>();
  const have = gems.get(name)?.map((v) => v.replace('default: ', ''));
  if (have && a.version === undefined) return stateResult(name, true, 'Gem is already installed.');
  if (have && a.version !== undefined) {
    const op = /^(>=|>|<=|<)/.exec(a.version)?.[1];
    if (op && meets(have, op, a.version.slice(op.length).trim())) return stateResult(name, true, 'Installed Gem meets version requirements.');
    if (!op && have.includes(a.version)) return stateResult(name, true, 'Gem is already installed.');
  }
  if (test) return stateResult(name, null, `The gem ${name} would have been installed`);
  const args = ['install', name];
  if (a.version) args.push('--version', a.version);
  if (!a.rdoc && !a.ri) args.push('--no-document');
  else {
    if (!a.rdoc) args.push('--no-rdoc');
    if (!a.ri) args.push('--no-ri');
  }
  if (a.pre_releases) args.push('--pre');
  if (a.proxy) args.push('-p', a.proxy);
  if (a.source) args.push('--source', a.source);
  await gem(args, a);
  return stateResult(name, true, 'Gem was successfully installed', { [name]: 'Installed' });
}

export const gemInstalled: StateFunction = failingSoftly(
  defineState({
    name: 'gem.installed',
    doc: 'Make sure a Ruby gem is installed (with the gem CLI).',
    params: [
      { name: 'name', type: 'string', required: true, doc: 'the gem' },
      { name: 'version', type: 'string', doc: "a version, or a requirement such as '>=1.2'" },
      { name: 'user', type: 'string', doc: 'run gem as this user' },
      { name: 'gem_bin', type: 'string', doc: 'the gem program to use (default: gem on PATH)' },
      { name: 'ruby', type: 'string', doc: 'rvm/rbenv Ruby: not supported; the gem program of PATH (or gem_bin) is used' },
      { name: 'rdoc', type: 'bool', default: false, doc: 'build rdoc documentation' },
      { name: 'ri', type: 'bool', default: false, doc: 'build ri documentation' },
      { name: 'pre_releases', type: 'bool', default: false, doc: 'allow pre-release versions' },
      { name: 'proxy', type: 'string', doc: 'HTTP proxy for gem (gem -p)' },
      { name: 'source', type: 'string', doc: 'the gem source URL (gem --source)' },
    ],
    example: 'bundler:\n  gem.installed:\n    - version: ">=2.0"',
    run: (ctx, a) => installed(a.named.name, a.named, ctx.test),
  }),
);
