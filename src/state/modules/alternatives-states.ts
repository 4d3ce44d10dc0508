// alternatives.install / remove / auto / set: Debian's update-alternatives link groups, with the
// comments and changes of salt/states/alternatives.py.

import { defineState, type StateContext, type StateFunction } from '../types.js';
import { callFn, stateResult } from './state-result.js';

const NAME = { name: 'name', type: 'string', required: true, doc: "the link group, e.g. 'editor'" } as const;
const PATH = { name: 'path', type: 'string', required: true, doc: 'the alternative, e.g. /usr/bin/vim.basic (it must exist)' } as const;

async function call<T>(ctx: StateContext, fun: string, args: unknown[]): Promise<T> {
  const r = await callFn<T>(ctx, fun, args);
  if (!r.ok) throw new Error(r.message);
  return r.value;
}

export const alternativesStates: readonly StateFunction[] = [
  defineState({
    name: 'alternatives.install',
    doc: 'Make sure path is registered as an alternative of a link group, with a priority.',
    params: [
      NAME,
      { name: 'link', type: 'string', required: true, doc: 'the generic link, e.g. /usr/bin/editor' },
      PATH,
      { name: 'priority', type: 'int', required: true, doc: 'higher wins in auto mode' },
    ],
    example: 'editor:\n  alternatives.install:\n    - link: /usr/bin/editor\n    - path: /usr/bin/vim.basic\n    - priority: 50',
    run: async (ctx, a) => {
      const { name, link, path, priority } = a.named;
      if (await call<boolean>(ctx, 'alternatives.check_exists', [name, path])) return stateResult(name, true, `Alternative ${path} for ${name} is already registered`);
      if (ctx.test) return stateResult(name, null, `Alternative will be set for ${name} to ${path} with priority ${priority}`);
      const out = await call<string>(ctx, 'alternatives.install', [name, link, path, priority]);
      if (!(await call<boolean>(ctx, 'alternatives.check_exists', [name, path]))) return stateResult(name, false, `Alternative for ${name} not installed: ${out}`);
      const current = await call<boolean>(ctx, 'alternatives.check_installed', [name, path]);
      const comment = current ? `Alternative for ${name} set to path ${path} with priority ${priority}` : `Alternative ${path} for ${name} registered with priority ${priority} and not set to default`;
      return stateResult(name, true, comment, { name, link, path, priority });
    },
  }),
  defineState({
    name: 'alternatives.remove',
    doc: 'Make sure path is not an alternative of a link group (the group falls back to another one).',
    params: [NAME, PATH],
    example: 'editor:\n  alternatives.remove:\n    - path: /usr/bin/nano',
    run: async (ctx, a) => {
      const { name, path } = a.named;
      if (await call<boolean>(ctx, 'alternatives.check_exists', [name, path])) {
        if (ctx.test) return stateResult(name, null, `Alternative for ${name} will be removed`);
        await call(ctx, 'alternatives.remove', [name, path]);
        const current = await call<string>(ctx, 'alternatives.show_current', [name]);
        if (current) return stateResult(name, true, `Alternative for ${name} removed. Falling back to path ${current}`, { path: current });
        return stateResult(name, true, `Alternative for ${name} removed`);
      }
      const current = await call<string>(ctx, 'alternatives.show_current', [name]);
      if (current) return stateResult(name, true, `Alternative for ${name} is set to it's default path ${current}`);
      return stateResult(name, false, `Alternative for ${name} doesn't exist`);
    },
  }),
  defineState({
    name: 'alternatives.auto',
    doc: 'Make sure a link group is in automatic mode (the highest priority wins).',
    params: [NAME],
    example: 'editor:\n  alternatives.auto: []',
    run: async (ctx, a) => {
      const { name } = a.named;
      const display = await call<string>(ctx, 'alternatives.display', [name]);
      if ((display.split('\n')[0] ?? '').endsWith(' auto mode')) return stateResult(name, true, `${name} already in auto mode`);
      if (ctx.test) return stateResult(name, null, `${name} will be put in auto mode`);
      return stateResult(name, true, '', { result: await call<string>(ctx, 'alternatives.auto', [name]) });
    },
  }),
  defineState({
    name: 'alternatives.set',
    doc: 'Make sure a link group points at path (manual mode); path must be registered.',
    params: [NAME, PATH],
    example: 'editor:\n  alternatives.set:\n    - path: /usr/bin/vim.basic',
    run: async (ctx, a) => {
      const { name, path } = a.named;
      if ((await call<string>(ctx, 'alternatives.show_current', [name])) === path) return stateResult(name, true, `Alternative for ${name} already set to ${path}`);
      const display = await call<string>(ctx, 'alternatives.display', [name]);
      if (!display.split('\n').some((l) => l.startsWith(path))) return stateResult(name, false, `Alternative ${path} for ${name} doesn't exist`);
      if (ctx.test) return stateResult(name, null, `Alternative for ${name} will be set to path ${path}`);
      await call(ctx, 'alternatives.set', [name, path]);
      const current = await call<string>(ctx, 'alternatives.show_current', [name]);
      if (current === path) return stateResult(name, true, `Alternative for ${name} set to path ${current}`, { path: current });
      return stateResult(name, true, `Alternative for ${name} not updated`);
    },
  }),
];
