// stateconf.set and stateconf.context (salt/states/stateconf.py): no-op states that carry the
// arguments the #!stateconf renderer hands to templates, and its generated `.start`/`.goal` states.

import { defineParams } from '../../modules/index.js';
import { defineState, type StateFunction } from '../types.js';

function noOp(fun: string): StateFunction {
  return defineState({
    name: `stateconf.${fun}`,
    doc: 'No-op state for the #!stateconf renderer: its arguments become template variables of the SLS (docs/templates.md); it changes nothing, in test mode too.',
    params: defineParams([{ name: 'name', type: 'string', required: true, doc: 'the state name (the ID)' }]),
    kwargs: true,
    example: `sls_params:\n  stateconf.${fun}:\n    - port: 8080`,
    // salt/states/stateconf.py _no_op: dict(name=name, result=True, changes={}, comment=''), whatever test is
    run: async (_ctx, { named }) => ({ name: named.name, result: true, changes: {}, comment: '' }),
  });
}

export const stateconfStates: readonly StateFunction[] = [noOp('set'), noOp('context')];
