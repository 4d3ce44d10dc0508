// Salt's reactor engine in the `engines:` option (salt/engines/reactor.py start(refresh_interval,
// worker_threads, worker_hwm)): `- reactor` or `- reactor: {worker_threads: 4}`. Its settings
// replace the reactor_* options, as the engine does with __opts__. Other engines are not ours.

import { BrineError } from '../util/errors.js';

export interface ReactorEngineSettings {
  refresh_interval?: number;
  worker_threads?: number;
  worker_hwm?: number;
}

const MIN: Record<keyof ReactorEngineSettings, number> = { refresh_interval: 1, worker_threads: 1, worker_hwm: 0 };
const EXAMPLE = 'e.g. engines: [{reactor: {worker_threads: 10, worker_hwm: 10000}}]';

/** The reactor engine's settings, or undefined when `engines` does not list it. */
export function reactorEngineSettings(engines: unknown): ReactorEngineSettings | undefined {
  if (!Array.isArray(engines)) return undefined;
  for (const e of engines) {
    if (e === 'reactor') return {};
    if (typeof e !== 'object' || e === null || Array.isArray(e) || !Object.hasOwn(e, 'reactor')) continue;
    const raw = (e as { reactor: unknown }).reactor ?? {};
    if (typeof raw !== 'object' || Array.isArray(raw)) throw new BrineError('CONFIG_VALUE', `engines: the reactor engine's settings must be a mapping, ${EXAMPLE}`);
    const out: ReactorEngineSettings = {};
    for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
      if (!Object.hasOwn(MIN, k))
        throw new BrineError('CONFIG_VALUE', `engines: the reactor engine has no setting '${k.slice(0, 60)}'; it takes refresh_interval, worker_threads, worker_hwm (${EXAMPLE})`);
      const min = MIN[k as keyof ReactorEngineSettings];
      if (!Number.isInteger(v) || (v as number) < min) throw new BrineError('CONFIG_VALUE', `engines: the reactor engine's ${k} must be a whole number of at least ${min}, ${EXAMPLE}`);
      out[k as keyof ReactorEngineSettings] = v as number;
    }
    return out;
  }
  return undefined;
}
