// gem.removed, gem.sources_add and gem.sources_remove: Salt 3007's salt/states/gem.py with the
// `gem` CLI as salt/modules/gem.py drives it (`gem uninstall NAME -a -x`, `gem sources`). Without
// a gem program nothing is installed, so a removal is already done and a source add fails naming
// the package to install.

import { which } from '../../modules/host-tools.js';
import { defineState, type StateFunction, type StateResult } from '../types.js';
import { type GemArgs, gem, listGems } from './gem-installed.js';
import { failingSoftly, stateResult } from './state-result.js';

const hasGem = (o: GemArgs): boolean => o.gem_bin !== undefined || which('gem') !== undefined;

async function removed(name: string, o: GemArgs, test: boolean): Promise<StateResult> {
  const installed = hasGem(o) ? await listGems(name, o) : new Map<string, string[]>();
  if (!installed.has(name)) return stateResult(name, true, 'Gem is not installed.');
  if (test) return stateResult(name, null, `The gem ${name} would have been removed`);
  await gem(['uninstall', ...name.split(/\s+/).filter(Boolean), '-a', '-x'], o);
  return stateResult(name, true, 'Gem was successfully removed.', { [name]: 'Removed' });
}

/** Salt's gem.sources_list: the lines of `gem sources` after its two header lines. */
async function sources(o: GemArgs): Promise<string[]> {
  return hasGem(o) ? (await gem(['sources'], o)).split('\n').slice(2) : [];
}

async function sourcesAdd(name: string, o: GemArgs, test: boolean): Promise<StateResult> {
  if ((await sources(o)).includes(name)) return stateResult(name, true, 'Gem source is already added.');
  if (test) return stateResult(name, null, `The gem source ${name} would have been added.`);
  await gem(['sources', '--add', name], o);
  return stateResult(name, true, 'Gem source was successfully added.', { [name]: 'Installed' });
}

async function sourcesRemove(name: string, o: GemArgs, test: boolean): Promise<StateResult> {
  if (!(await sources(o)).includes(name)) return stateResult(name, true, 'Gem source is already removed.');
  if (test) return stateResult(name, null, 'The gem source would have been removed.');
  await gem(['sources', '--remove', name], o);
  return stateResult(name, true, 'Gem source was successfully removed.', { [name]: 'Removed' });
}

const USER = { name: 'user', type: 'string', doc: 'run gem as this user' } as const;
const RUBY = { name: 'ruby', type: 'string', doc: 'rvm/rbenv Ruby: not supported; the gem program of PATH is used' } as const;

export const gemRemovalStates: readonly StateFunction[] = [
  defineState({
    name: 'gem.removed',
    doc: 'Make sure a Ruby gem is not installed (every version, with its executables).',
    params: [{ name: 'name', type: 'string', required: true, doc: 'the gem' }, RUBY, USER, { name: 'gem_bin', type: 'string', doc: 'the gem program to use (default: gem on PATH)' }],
    example: 'rails:\n  gem.removed: []',
    run: (ctx, a) => removed(a.named.name, a.named, ctx.test),
  }),
  defineState({
    name: 'gem.sources_add',
    doc: 'Make sure a gem source URL is configured (gem sources --add).',
    params: [{ name: 'name', type: 'string', required: true, doc: 'the source URL' }, RUBY, USER],
    example: 'https://gems.example.com/:\n  gem.sources_add: []',
    run: (ctx, a) => sourcesAdd(a.named.name, a.named, ctx.test),
  }),
  defineState({
    name: 'gem.sources_remove',
    doc: 'Make sure a gem source URL is not configured (gem sources --remove).',
    params: [{ name: 'name', type: 'string', required: true, doc: 'the source URL' }, RUBY, USER],
    example: 'http://rubygems.org/:\n  gem.sources_remove: []',
    run: (ctx, a) => sourcesRemove(a.named.name, a.named, ctx.test),
  }),
].map(failingSoftly);
