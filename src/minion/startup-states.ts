// Salt's startup_states: the state run a minion makes by itself when it starts (highstate, or the
// SLS names of sls_list), after syncing custom modules when autoload_dynamic_modules is on. The
// decision is pure; the minion runs the jobs it returns through its job runner.

import type { Return } from '../protocol/index.js';

export interface StartupCall {
  fun: string;
  arg: unknown[];
  kwarg: Record<string, unknown>;
}

export interface StartupOptions {
  startup_states?: string;
  sls_list?: readonly unknown[];
  autoload_dynamic_modules?: boolean;
}

/** The calls to make at start, in order; empty when startup_states is off (or sls with no names). */
export function startupCalls(opts: StartupOptions): StartupCall[] {
  const sls = (opts.sls_list ?? []).filter((s): s is string => typeof s === 'string' && s !== '');
  let run: StartupCall | undefined;
  if (opts.startup_states === 'highstate') run = { fun: 'state.highstate', arg: [], kwarg: {} };
  else if (opts.startup_states === 'sls' && sls.length > 0) run = { fun: 'state.sls', arg: [sls.join(',')], kwarg: {} };
  if (!run) return [];
  // Salt's state system syncs dynamic modules before a highstate; do it before the startup run
  return opts.autoload_dynamic_modules === false ? [run] : [{ fun: 'saltutil.sync_all', arg: [], kwarg: {} }, run];
}

/** One line for the log: how the call went, without the data (state comments may hold secrets). */
export function startupSummary(ret: Return): string {
  if (ret.fun.startsWith('state.') && typeof ret.ret === 'object' && ret.ret !== null && !Array.isArray(ret.ret)) {
    const results = Object.values(ret.ret as Record<string, { result?: unknown }>);
    const failed = results.filter((r) => r?.result === false).length;
    return `${ret.fun}: ${results.length} state(s), ${failed} failed (retcode ${ret.retcode})`;
  }
  return `${ret.fun}: retcode ${ret.retcode}${ret.error ? ` (${ret.error.code}: ${ret.error.message})` : ''}`;
}
