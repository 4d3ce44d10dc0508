// The test.* states (Salt's salt/states/test.py): fixed outcomes for trying out requisites,
// ordering and outputters without touching the system.

import { defineParams } from '../../modules/index.js';
import { defineState, type StateContext, type StateFunction, type StateResult } from '../types.js';
import { checkPillarState } from './test-check-pillar.js';

const NAME = defineParams([{ name: 'name', type: 'string', required: true, doc: 'the state name' }]);
const PRETEND = { testing: { old: 'Unchanged', new: 'Something pretended to change' } };

// Salt's test.mod_watch: any test.* state that watches a changed state reports the watch firing
const modWatch = async (_ctx: StateContext, args: { named: { name: string } }): Promise<StateResult> => ({
  name: args.named.name,
  result: true,
  changes: {},
  comment: 'Watch statement fired.',
});

function fixed(fun: string, doc: string, changed: boolean, ok: boolean): StateFunction {
  return defineState({
    name: `test.${fun}`,
    doc,
    params: NAME,
    kwargs: true,
    example: `${fun}_demo:\n  test.${fun}: []`,
    run: async (ctx, { named, extra }) => {
      // salt/states/test.py: a `comment` argument replaces the default one outside test mode
      const given = typeof extra.comment === 'string' ? extra.comment : undefined;
      const changes = changed ? structuredClone(PRETEND) : {};
      if (ctx.test && changed) {
        const comment = ok ? "If we weren't testing, this would be successful with changes" : "If we weren't testing, this would be failed with changes";
        return { name: named.name, result: null, changes, comment };
      }
      // fail_without_changes stays False under test=True, as in Salt
      if (ctx.test && !ok) return { name: named.name, result: false, changes, comment: "If we weren't testing, this would be a failure!" };
      return { name: named.name, result: ok, changes, comment: given ?? (ok ? 'Success!' : 'Failure!') };
    },
    modWatch,
  });
}

const configurable = defineState({
  name: 'test.configurable_test_state',
  doc: 'Return the result, changes and comment given (changes: true pretends a change; result: Random picks one).',
  params: defineParams([
    { name: 'name', type: 'string', required: true, doc: 'the state name' },
    { name: 'changes', type: 'any', default: true, doc: 'true, false or "Random"' },
    { name: 'result', type: 'any', default: true, doc: 'true, false or "Random"' },
    { name: 'comment', type: 'string', default: '', doc: 'the comment to return' },
  ]),
  example: 'pretend:\n  test.configurable_test_state:\n    - changes: True\n    - result: True\n    - comment: pretended',
  run: async (ctx, { named }) => {
    const pick = (v: unknown, what: string): boolean => {
      if (typeof v === 'boolean') return v;
      if (typeof v === 'string' && v.toLowerCase() === 'random') return Math.random() < 0.5;
      throw new Error(`test.configurable_test_state: ${what} must be True, False or Random, got ${JSON.stringify(v)}`);
    };
    const changed = pick(named.changes, 'changes');
    const ok = pick(named.result, 'result');
    const changes = changed ? structuredClone(PRETEND) : {};
    if (ctx.test) return { name: named.name, result: changed ? null : true, changes, comment: named.comment === '' ? 'This is a test' : named.comment };
    return { name: named.name, result: ok, changes, comment: named.comment };
  },
  modWatch,
});

const showNotification = defineState({
  name: 'test.show_notification',
  // Salt's test.show_notification takes **kwargs: an argument it does not name is ignored without a warning
  kwargs: true,
  doc: 'Show a text in the state output; changes nothing.',
  params: defineParams([
    { name: 'name', type: 'string', required: true, doc: 'the state name' },
    { name: 'text', type: 'string', default: '', doc: 'the text shown as the comment' },
  ]),
  example: 'note:\n  test.show_notification:\n    - text: Remember to reboot',
  run: async (_ctx, { named }) => ({ name: named.name, result: true, changes: {}, comment: named.text }),
});

export const testStateFunctions: readonly StateFunction[] = [
  fixed('succeed_without_changes', 'Always succeed without changes.', false, true),
  fixed('succeed_with_changes', 'Always succeed, reporting a pretended change (result None under test=True).', true, true),
  fixed('fail_without_changes', 'Always fail without changes.', false, false),
  fixed('fail_with_changes', 'Always fail, reporting a pretended change.', true, false),
  fixed('nop', 'Do nothing and succeed (a placeholder for requisites).', false, true),
  configurable,
  showNotification,
  checkPillarState,
];
