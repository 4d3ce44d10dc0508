// The `match` execution module (salt/modules/match.py): does a target expression select this
// minion, by its own ID, grains and pillar, with the same matchers as a publish (src/targeting).
// Templates call it to branch on roles (`salt['match.compound']('G@role:db and web*')`) and
// match.filter_by picks the first lookup key whose expression matches. As in Salt, an
// expression that cannot be evaluated is False (Salt logs the exception and returns False).

import { defineFunction, type ExecContext, type ModuleFunction } from '../modules/index.js';
import { type Grains, minionMatches, type TargetType } from '../targeting/index.js';
import { BrineError } from '../util/errors.js';
import { mergeRecurse } from '../util/dict-merge.js';

function matches(ctx: ExecContext, type: TargetType, tgt: unknown, minionId: string | undefined, delimiter?: string): boolean {
  if (typeof tgt !== 'string' && !(Array.isArray(tgt) && tgt.every((t) => typeof t === 'string'))) return false;
  try {
    const pillar = (ctx.pillar?.() ?? {}) as Grains;
    return minionMatches(tgt, type, minionId ?? ctx.minionId, ctx.grains(), delimiter, pillar);
  } catch {
    return false;
  }
}

const MINION_ID = { name: 'minion_id', type: 'string', doc: 'match as if this were the minion ID (own grains and pillar)' } as const;
const DELIMITER = { name: 'delimiter', type: 'string', default: ':', doc: 'separates nested keys' } as const;

function idMatcher(fun: string, type: TargetType, doc: string): ModuleFunction {
  return defineFunction({
    name: `match.${fun}`,
    doc,
    params: [{ name: 'tgt', type: 'any', required: true }, MINION_ID],
    run: (ctx, a) => matches(ctx, type, a.named.tgt, a.named.minion_id),
  });
}

function dataMatcher(fun: string, type: TargetType, doc: string): ModuleFunction {
  return defineFunction({
    name: `match.${fun}`,
    doc,
    params: [{ name: 'tgt', type: 'any', required: true }, DELIMITER, MINION_ID],
    run: (ctx, a) => matches(ctx, type, a.named.tgt, a.named.minion_id, a.named.delimiter),
  });
}

const TGT_TYPES: Readonly<Record<string, TargetType>> = {
  glob: 'glob',
  pcre: 'pcre',
  list: 'list',
  grain: 'grain',
  grain_pcre: 'grain_pcre',
  pillar: 'pillar',
  pillar_pcre: 'pillar_pcre',
  pillar_exact: 'pillar_exact',
  ipcidr: 'ipcidr',
  compound: 'compound',
};

export const matchFunctions: readonly ModuleFunction[] = [
  idMatcher('glob', 'glob', 'True when the glob matches this minion ID.'),
  idMatcher('pcre', 'pcre', 'True when the regular expression matches this minion ID.'),
  idMatcher('list', 'list', 'True when this minion ID is in the list (a comma-separated string or a list).'),
  idMatcher('compound', 'compound', 'True when the compound expression (G@, P@, I@, L@, E@, S@, and/or/not) selects this minion.'),
  idMatcher('ipcidr', 'ipcidr', "True when one of this minion's addresses is in the network (or is the address)."),
  dataMatcher('grain', 'grain', 'True when the grain matches the glob (key:value, nested keys by the delimiter).'),
  dataMatcher('grain_pcre', 'grain_pcre', 'True when the grain matches the regular expression.'),
  dataMatcher('pillar', 'pillar', 'True when the pillar value matches the glob (key:value).'),
  dataMatcher('pillar_pcre', 'pillar_pcre', 'True when the pillar value matches the regular expression.'),
  dataMatcher('pillar_exact', 'pillar_exact', 'True when the pillar value equals the text exactly.'),
  defineFunction({
    name: 'match.filter_by',
    doc: "The value of the first lookup key whose target expression (tgt_type, compound by default) selects this minion, else lookup['default'] or {}.",
    params: [
      { name: 'lookup', type: 'map', required: true, doc: '{target expression: value}' },
      { name: 'tgt_type', type: 'string', default: 'compound' },
      MINION_ID,
      { name: 'merge', type: 'any', doc: 'a mapping merged over the chosen value' },
      { name: 'merge_lists', type: 'bool', default: false },
      { name: 'default', type: 'string', default: 'default' },
    ],
    run: (ctx, a) => {
      const type = TGT_TYPES[a.named.tgt_type];
      if (!type || !Object.hasOwn(TGT_TYPES, a.named.tgt_type)) throw new BrineError('BAD_ARGUMENTS', `match.filter_by: tgt_type must be one of ${Object.keys(TGT_TYPES).join(', ')}`);
      const { lookup, merge } = a.named;
      for (const key of Object.keys(lookup)) {
        if (!matches(ctx, type, key, a.named.minion_id)) continue;
        if (merge === undefined || merge === null) return lookup[key];
        // Salt: "filter_by merge argument must be a dictionary."
        if (typeof merge !== 'object' || Array.isArray(merge)) throw new BrineError('BAD_ARGUMENTS', 'filter_by merge argument must be a dictionary.');
        const chosen = lookup[key];
        if (typeof chosen !== 'object' || chosen === null || Array.isArray(chosen)) return merge;
        return mergeRecurse(chosen as Record<string, unknown>, merge as Record<string, unknown>, a.named.merge_lists);
      }
      return Object.hasOwn(lookup, a.named.default) ? lookup[a.named.default] : {};
    },
  }),
];
