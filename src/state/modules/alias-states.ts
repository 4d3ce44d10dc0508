// alias.present / alias.absent: mail aliases in the aliases file (`aliases.file`, /etc/aliases by
// default), with Salt 3007's comments and changes (salt/states/alias.py); newaliases runs after a
// change when it is installed.

import { defineState, type StateFunction } from '../types.js';
import { aliasesFilename, hasTarget, listAliases, rmAlias, setTarget } from './aliases-file.js';
import { failingSoftly, stateResult } from './state-result.js';

export const aliasStates: readonly StateFunction[] = [
  defineState({
    name: 'alias.present',
    doc: 'Make sure a mail alias points at the given target(s) in the aliases file (`aliases.file`, default /etc/aliases).',
    params: [
      { name: 'name', type: 'string', required: true, doc: 'the alias' },
      { name: 'target', type: 'any', required: true, doc: 'where mail goes: an address, a list (joined with ", "), a |command or :include:' },
    ],
    example: 'root:\n  alias.present:\n    - target: ops@example.com',
    run: async (ctx, a) => {
      const name = a.named.name;
      const target = Array.isArray(a.named.target) ? a.named.target.map(String).join(', ') : String(a.named.target ?? '');
      if (target === '') return stateResult(name, false, 'target can not be an empty string');
      const file = aliasesFilename(ctx);
      if (hasTarget(file, name, target)) return stateResult(name, true, `Alias ${name} already present`);
      if (ctx.test) return stateResult(name, null, `Alias ${name} -> ${target} is set to be added`);
      await setTarget(file, name, target);
      return stateResult(name, true, `Set email alias ${name} -> ${target}`, { alias: name });
    },
  }),
  defineState({
    name: 'alias.absent',
    doc: 'Make sure a mail alias is not in the aliases file.',
    params: [{ name: 'name', type: 'string', required: true, doc: 'the alias' }],
    example: 'games:\n  alias.absent: []',
    run: async (ctx, a) => {
      const name = a.named.name;
      const file = aliasesFilename(ctx);
      if (!listAliases(file).get(name)) return stateResult(name, true, `Alias ${name} already absent`);
      if (ctx.test) return stateResult(name, null, `Alias ${name} is set to be removed`);
      await rmAlias(file, name);
      return stateResult(name, true, `Removed alias ${name}`, { alias: name });
    },
  }),
].map(failingSoftly);
