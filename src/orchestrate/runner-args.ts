// The arguments of the state.orchestrate runner as Salt takes them: orchestrate(mods,
// saltenv='base', test=None, exclude=None, pillar=None, ...), positionally or by name.

import { BrineError } from '../util/errors.js';
import type { FunctionCall } from './host.js';

export interface OrchestrateArgs {
  mods: string[];
  saltenv: string;
  test: boolean;
  pillar: Record<string, unknown>;
}

const POSITIONS = ['mods', 'saltenv', 'test', 'exclude', 'pillar'] as const;

function param(c: FunctionCall, name: (typeof POSITIONS)[number]): unknown {
  return Object.hasOwn(c.kwarg, name) ? c.kwarg[name] : c.arg[POSITIONS.indexOf(name)];
}

/** Salt's truthy spellings of test= on the command line (test=True, test=true, test=1). */
function truthy(v: unknown): boolean {
  if (typeof v === 'string') return /^(true|yes|1|on)$/i.test(v.trim());
  return v === true || v === 1;
}

export function orchestrateArgs(c: FunctionCall, masterTest: boolean): OrchestrateArgs {
  const mods = param(c, 'mods');
  const list = typeof mods === 'string' ? mods.split(',') : Array.isArray(mods) ? mods.map(String) : undefined;
  if (!list || list.every((m) => m.trim() === '')) {
    throw new BrineError('BAD_ARGUMENTS', 'state.orchestrate needs the SLS to run: state.orchestrate orch.deploy (an SLS under file_roots, e.g. orch/deploy.sls)');
  }
  const saltenv = param(c, 'saltenv') ?? 'base';
  if (typeof saltenv !== 'string') throw new BrineError('BAD_ARGUMENTS', `state.orchestrate: saltenv must be an environment name, got ${JSON.stringify(saltenv)?.slice(0, 60)}`);
  let pillar = param(c, 'pillar');
  if (typeof pillar === 'string' && pillar.trim().startsWith('{')) {
    try {
      pillar = JSON.parse(pillar);
    } catch {
      // Salt's message follows
    }
  }
  if (pillar !== undefined && pillar !== null && (typeof pillar !== 'object' || Array.isArray(pillar))) {
    throw new BrineError('BAD_ARGUMENTS', 'Pillar data must be formatted as a dictionary: pillar=\'{"key": "value"}\'');
  }
  const test = param(c, 'test');
  return {
    mods: list.map((m) => m.trim()).filter((m) => m !== ''),
    saltenv,
    test: test === undefined || test === null ? masterTest : truthy(test),
    pillar: (pillar as Record<string, unknown> | undefined) ?? {},
  };
}
