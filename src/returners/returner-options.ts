// Salt's salt.returners.get_returner_options: a returner's options from the daemon's config,
// `<prefix>.<attr>` (`returner.postgres.host`) or a `<prefix>` map, an alternative set chosen by
// the return's `ret_config` (`alternative.returner.postgres.host`), then Salt's defaults, and the
// return's `ret_kwargs` over all of it. Salt also asks the pillar (config.option); brine reads the
// daemon's configuration only (docs/returners.md).

import type { SaltReturn } from './returner.js';

type Opts = Readonly<Record<string, unknown>>;

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Salt's truthiness test in _options_browser: an empty or zero value falls back to the default. */
const present = (v: unknown): boolean => v !== undefined && v !== null && v !== '' && v !== false && v !== 0;

function fromPrefix(opts: Opts, prefix: string, attr: string): unknown {
  const flat = opts[`${prefix}.${attr}`];
  if (present(flat)) return flat;
  const nested = opts[prefix];
  return isMap(nested) ? nested[attr] : undefined;
}

export function returnerOptions(
  opts: Opts,
  prefix: string,
  attrs: readonly string[],
  defaults: Readonly<Record<string, unknown>>,
  ret?: Pick<SaltReturn, 'ret_config' | 'ret_kwargs'>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const attr of attrs) {
    const alternative = ret?.ret_config ? fromPrefix(opts, `${ret.ret_config}.${prefix}`, attr) : undefined;
    const value = present(alternative) ? alternative : fromPrefix(opts, prefix, attr);
    if (present(value)) out[attr] = value;
    else if (attr in defaults) out[attr] = defaults[attr];
  }
  if (ret?.ret_kwargs) Object.assign(out, ret.ret_kwargs);
  return out;
}
