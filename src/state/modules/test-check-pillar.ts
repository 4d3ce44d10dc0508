// test.check_pillar: are these pillar keys present, and of this type? Salt 3007's
// salt/states/test.py check_pillar, comments included (they name Python's types as Salt prints them).

import { defineParams, traverseDictAndList } from '../../modules/index.js';
import { BrineError } from '../../util/errors.js';
import { defineState, type StateContext, type StateResult } from '../types.js';
import { failingSoftly } from './state-result.js';

// The kinds Salt checks, in its order, with the text `str(key_type)` gives in its comments.
const KINDS = [
  { arg: 'present', shown: 'None', is: (_v: unknown) => true },
  { arg: 'boolean', shown: "<class 'bool'>", is: (v: unknown) => typeof v === 'boolean' },
  // isinstance(True, int) is True in Python: a boolean passes the integer check
  { arg: 'integer', shown: "<class 'int'>", is: (v: unknown) => typeof v === 'boolean' || (typeof v === 'number' && Number.isInteger(v)) },
  // Salt checks against the tuple (str,), and prints it so
  { arg: 'string', shown: "(<class 'str'>,)", is: (v: unknown) => typeof v === 'string' },
  { arg: 'listing', shown: "<class 'list'>", is: (v: unknown) => Array.isArray(v) },
  { arg: 'dictionary', shown: "<class 'dict'>", is: (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v) },
] as const;

const PARAMS = defineParams([
  { name: 'name', type: 'string', required: true, doc: 'the state name' },
  { name: 'present', type: 'any', doc: 'keys (nested with :) that must be present, any type' },
  { name: 'boolean', type: 'any', doc: 'keys that must hold a boolean' },
  { name: 'integer', type: 'any', doc: 'keys that must hold an integer (a boolean passes, as in Python)' },
  { name: 'string', type: 'any', doc: 'keys that must hold a string' },
  { name: 'listing', type: 'any', doc: 'keys that must hold a list' },
  { name: 'dictionary', type: 'any', doc: 'keys that must hold a dictionary' },
  { name: 'verbose', type: 'bool', default: false, doc: 'also list the keys that passed' },
]);

/** Salt's _if_str_then_list: a string is a list of one key; anything but a list is refused. */
function keyList(arg: string, v: unknown): string[] {
  if (v === undefined || v === null || v === '' || v === false) return [];
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.map(String);
  throw new BrineError('BAD_ARGUMENTS', `test.check_pillar: ${arg} must be a key or a list of keys, got ${JSON.stringify(v)}`);
}

function checkPillar(ctx: StateContext, named: Record<string, unknown>): StateResult {
  const lists = KINDS.map((k) => ({ ...k, keys: keyList(k.arg, named[k.arg]) }));
  if (lists.every((l) => l.keys.length === 0)) throw new BrineError('BAD_ARGUMENTS', 'Missing required argument text.');
  const name = String(named.name);
  // The run's pillar (with any pillar= override), as pillar.get reads it
  const pillar = ctx.exec.pillar?.() ?? {};
  const failed = new Map<string, string | null>();
  const fine = new Map<string, string>();
  for (const l of lists) {
    for (const key of l.keys) {
      // Salt's pillar.get(key, None): it cannot tell a key set to None from a missing one
      const value = traverseDictAndList(pillar, key, null);
      if (value === null || value === undefined) failed.set(key, null);
      else if (!l.is(value)) failed.set(key, l.shown);
      else if (named.verbose === true) fine.set(key, l.shown);
    }
  }
  let comment = '';
  for (const [key, shown] of failed) comment += `Pillar key "${key}" ${shown === null ? 'is missing.' : `is not ${shown}.`}\n`;
  if (named.verbose === true && fine.size > 0) {
    comment += 'Those keys passed the check:\n';
    for (const [key, shown] of fine) comment += `- ${key} (${shown})\n`;
  }
  return { name, result: failed.size === 0, changes: {}, comment };
}

export const checkPillarState = failingSoftly(
  defineState({
    name: 'test.check_pillar',
    doc: 'Check that pillar keys are present and, optionally, of a type; fails naming each key that is not.',
    params: PARAMS,
    example: 'pillar-ok:\n  test.check_pillar:\n    - present:\n      - mysql:server:root_password\n    - integer:\n      - mysql:server:port',
    run: async (ctx, a) => checkPillar(ctx, a.named),
  }),
);
