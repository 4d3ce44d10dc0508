// Runs state.* functions over an in-memory SLS tree with the real registry, the real compiler and
// runtime, and small recording state functions whose effects the tests can see.

import { defineParams, type ExecContext, type ExecResult, type ModuleRegistry } from '../../../src/modules/index.js';
import { builtinStateFunctions, createMinionRegistry, defineState, memoryFiles, type StateFunction } from '../../../src/state/index.js';
import { makeCtx } from '../modules/context.js';

export interface Harness {
  registry: ModuleRegistry;
  /** What the recording states did, in order: `run:<name>`, `test:<name>` (test mode), `watch:<name>`. */
  log: string[];
  /** Retry waits requested (ms). */
  sleeps: number[];
  call(fun: string, arg?: unknown[], kwarg?: Record<string, unknown>, ctx?: Partial<ExecContext>): Promise<ExecResult>;
  /** How many times each recording state has run for real. */
  attempts: Map<string, number>;
}

export function harness(tree: Record<string, Record<string, string>>, config: Record<string, unknown> = {}): Harness {
  const log: string[] = [];
  const sleeps: number[] = [];
  const attempts = new Map<string, number>();
  // rec.state: changes and/or fails as told; fail_times: fails its first N real runs (retry)
  const rec = defineState({
    name: 'rec.state',
    doc: 'Recording test state.',
    params: defineParams([
      { name: 'name', type: 'string', required: true },
      { name: 'changes', type: 'bool', default: false },
      { name: 'fail', type: 'bool', default: false },
      { name: 'fail_times', type: 'int', default: 0 },
      { name: 'port', type: 'int' },
      { name: 'extra', type: 'string' },
      { name: 'cwd', type: 'string', doc: 'accepted, as cmd.run does, so onlyif/unless run there' },
      { name: 'show_env', type: 'bool', default: false, doc: 'log the saltenv the state runs in' },
      { name: 'env', type: 'any', doc: 'accepted, as cmd.run does, so onlyif/unless see it' },
    ]),
    example: 'x:\n  rec.state: []',
    run: async (ctx, { named }) => {
      if (ctx.test) {
        log.push(`test:${named.name}`);
        return { name: named.name, result: named.fail ? false : named.changes ? null : true, changes: named.changes ? { would: true } : {}, comment: 'test' };
      }
      if (named.show_env) log.push(`saltenv:${named.name}:${ctx.saltenv}`);
      const n = (attempts.get(named.name) ?? 0) + 1;
      attempts.set(named.name, n);
      log.push(`run:${named.name}${named.port !== undefined ? `:${named.port}` : ''}${named.extra !== undefined ? `:${named.extra}` : ''}`);
      const failing = named.fail || n <= named.fail_times;
      return { name: named.name, result: !failing, changes: named.changes ? { did: true } : {}, comment: failing ? `failed ${n}` : `ok ${n}` };
    },
    modWatch: async (_ctx, { named }) => {
      log.push(`watch:${named.name}`);
      return { name: named.name, result: true, changes: { restarted: true }, comment: 'restarted' };
    },
  });
  const needs = defineState({
    name: 'rec.needs',
    doc: 'A state with a required argument besides name.',
    params: defineParams([
      { name: 'name', type: 'string', required: true },
      { name: 'target', type: 'string', required: true },
    ]),
    example: 'x:\n  rec.needs:\n    - target: y',
    run: async (_ctx, { named }) => {
      log.push(`run:${named.name}:${named.target}`);
      return { name: named.name, result: true, changes: {}, comment: '' };
    },
  });
  const stateFunctions: StateFunction[] = [...builtinStateFunctions, rec, needs];
  const files = memoryFiles(tree);
  const registry = createMinionRegistry({
    files: () => files,
    stateFunctions,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
  return {
    registry,
    log,
    sleeps,
    attempts,
    call: (fun, arg = [], kwarg = {}, ctx = {}) => registry.call(fun, arg, kwarg, makeCtx({ config, ...ctx })),
  };
}

/** The state results of a return, by ID (one chunk per ID in most tests). */
export function byId(ret: unknown): Record<string, { result: boolean | null; comment: string; changes: Record<string, unknown>; name: string; __run_num__: number }> {
  const out: Record<string, never> = {};
  for (const v of Object.values(ret as Record<string, { __id__: string }>)) (out as Record<string, unknown>)[v.__id__] = v;
  return out;
}
