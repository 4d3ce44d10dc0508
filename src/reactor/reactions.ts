// Rendered reactor SLS data -> reactions, as Salt's ReactWrap reads its low chunks: an ID maps
// `<client>.<module>.<function>` (client local, runner, wheel, caller; Salt's alias `cmd` = local)
// to a list of one-key mappings. Arguments in the current syntax are `args:` (a list of one-key
// mappings, the function's keyword arguments); the older syntax gives `arg`/`kwarg` (local,
// caller) or the keyword arguments as fields of their own (runner, wheel). Pure: no I/O.

import { BrineError } from '../util/errors.js';

export type ReactionClient = 'local' | 'runner' | 'wheel' | 'caller';

export interface Reaction {
  /** The SLS ID (Salt's `__id__`). */
  readonly id: string;
  readonly sls: string;
  readonly client: ReactionClient;
  readonly fun: string;
  /** local only. */
  readonly tgt?: string | string[];
  readonly tgtType?: string;
  readonly timeout?: number;
  readonly arg: unknown[];
  readonly kwarg: Record<string, unknown>;
  /** What Salt would also log at warning level for this reaction (ignored fields). */
  readonly warnings: string[];
}

const CLIENTS: Record<string, ReactionClient> = { local: 'local', cmd: 'local', runner: 'runner', wheel: 'wheel', caller: 'caller' };
const FUN = /^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)+$/;
/** Fields Salt's high-data compiler adds or the state system reads; never a function argument. */
const INTERNAL = new Set(['name', 'order', 'state', 'fun', '__id__', '__sls__', '__env__']);
const LOCAL_FIELDS = new Set(['tgt', 'tgt_type', 'expr_form', 'arg', 'kwarg', 'args', 'timeout', 'ret']);

/** The reactions of one rendered file, and one coded error per ID that is not a reaction. */
export function compileReactions(data: unknown, sls: string): { reactions: Reaction[]; errors: BrineError[] } {
  const reactions: Reaction[] = [];
  const errors: BrineError[] = [];
  if (data === null || data === undefined || (typeof data === 'object' && !Array.isArray(data) && Object.keys(data).length === 0)) return { reactions, errors };
  if (typeof data !== 'object' || Array.isArray(data)) {
    errors.push(invalid(sls, '(top level)', 'renders to a list or a scalar; a reactor SLS is a mapping of IDs to reactions'));
    return { reactions, errors };
  }
  for (const [id, body] of Object.entries(data as Record<string, unknown>)) {
    if (id.startsWith('__')) continue;
    try {
      reactions.push(...compileId(id, body, sls));
    } catch (err) {
      errors.push(err instanceof BrineError ? err : invalid(sls, id, String(err)));
    }
  }
  return { reactions, errors };
}

function invalid(sls: string, id: string, why: string): BrineError {
  return new BrineError('REACTION_INVALID', `${sls}: reaction '${id.slice(0, 100)}' ${why}`, { details: { sls, id } });
}

function compileId(id: string, body: unknown, sls: string): Reaction[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalid(sls, id, "is not a mapping of '<client>.<module>.<function>' to its fields, e.g. local.state.apply: [{tgt: web1}]");
  const out: Reaction[] = [];
  for (const [key, fields] of Object.entries(body as Record<string, unknown>)) {
    if (key.startsWith('__')) continue;
    const dot = key.indexOf('.');
    const client = dot > 0 ? CLIENTS[key.slice(0, dot)] : undefined;
    const fun = key.slice(dot + 1);
    if (client === undefined || !FUN.test(fun))
      throw invalid(sls, id, `names '${key.slice(0, 100)}': use local.<module>.<function>, runner.<module>.<function>, wheel.<module>.<function> or caller.<module>.<function>`);
    out.push(compileOne(id, sls, client, fun, fieldsOf(fields, id, sls)));
  }
  return out;
}

/** The list of one-key mappings under the function, merged (Salt's high-data form). */
function fieldsOf(raw: unknown, id: string, sls: string): Record<string, unknown> {
  if (raw === null || raw === undefined) return {};
  const list = Array.isArray(raw) ? raw : [raw];
  const out: Record<string, unknown> = {};
  for (const item of list) {
    if (typeof item !== 'object' || item === null || Array.isArray(item))
      throw invalid(sls, id, `has the field ${JSON.stringify(item)?.slice(0, 60)}: each field is a one-key mapping, e.g. - tgt: web1`);
    Object.assign(out, item);
  }
  return out;
}

/** Salt's repack_dictlist: `args:` as a list of one-key mappings -> one mapping. */
function repack(args: unknown, id: string, sls: string): Record<string, unknown> {
  if (typeof args === 'object' && args !== null && !Array.isArray(args)) return { ...(args as Record<string, unknown>) };
  const ok = Array.isArray(args) && args.every((a) => typeof a === 'object' && a !== null && !Array.isArray(a) && Object.keys(a).length === 1);
  if (!ok) throw invalid(sls, id, 'has args: that is not a list of one-key mappings (Incorrect argument format, check the Reactor System documentation), e.g. args: [{mods: web}, {pillar: {a: 1}}]');
  return Object.assign({}, ...(args as object[]));
}

function compileOne(id: string, sls: string, client: ReactionClient, fun: string, f: Record<string, unknown>): Reaction {
  const warnings: string[] = [];
  let arg: unknown[] = [];
  let kwarg: Record<string, unknown> = {};
  const hasArgs = Object.hasOwn(f, 'args');
  if (hasArgs) {
    for (const item of ['arg', 'kwarg']) if (Object.hasOwn(f, item)) warnings.push(`Reactor '${id}' is ignoring '${item}' param ${JSON.stringify(f[item])} due to presence of 'args' param`);
    // the legacy caller form: args as a plain list of positional arguments
    if (client === 'caller' && Array.isArray(f.args) && !f.args.every((a) => typeof a === 'object' && a !== null && !Array.isArray(a))) arg = [...f.args];
    else kwarg = repack(f.args, id, sls);
  } else {
    if (Object.hasOwn(f, 'arg')) {
      if (!Array.isArray(f.arg)) throw invalid(sls, id, 'has arg: that is not a list of positional arguments');
      arg = [...f.arg];
    }
    if (Object.hasOwn(f, 'kwarg')) {
      if (typeof f.kwarg !== 'object' || f.kwarg === null || Array.isArray(f.kwarg)) throw invalid(sls, id, 'has kwarg: that is not a mapping of keyword arguments');
      kwarg = { ...(f.kwarg as Record<string, unknown>) };
    }
    // runner and wheel functions run on the master: their other fields are their keyword arguments
    if (client === 'runner' || client === 'wheel') for (const [k, v] of Object.entries(f)) if (!INTERNAL.has(k) && k !== 'arg' && k !== 'kwarg' && !Object.hasOwn(kwarg, k)) kwarg[k] = v;
  }
  if (client !== 'local') return { id, sls, client, fun, arg, kwarg, warnings };
  for (const k of Object.keys(f))
    if (!LOCAL_FIELDS.has(k) && !INTERNAL.has(k)) throw invalid(sls, id, `has the field '${k.slice(0, 60)}', which local reactions do not take: use tgt, tgt_type, args (or arg/kwarg), timeout`);
  const tgt = f.tgt;
  const targetOk = (typeof tgt === 'string' && tgt !== '') || (Array.isArray(tgt) && tgt.length > 0 && tgt.every((t) => typeof t === 'string'));
  if (!targetOk) throw invalid(sls, id, "has no tgt: a local reaction names its target, e.g. - tgt: {{ data['id'] }}");
  const tgtType = f.tgt_type ?? f.expr_form ?? 'glob';
  if (typeof tgtType !== 'string') throw invalid(sls, id, 'has a tgt_type that is not a string (glob, list, grain, compound...)');
  if (f.timeout !== undefined && (typeof f.timeout !== 'number' || !(f.timeout > 0))) throw invalid(sls, id, 'has a timeout that is not a positive number of seconds');
  if (f.ret !== undefined) warnings.push(`Reactor '${id}': ret ${JSON.stringify(f.ret)} is ignored (the job's returns go to the master's job cache)`);
  return { id, sls, client, fun, tgt: tgt as string | string[], tgtType, ...(typeof f.timeout === 'number' ? { timeout: f.timeout } : {}), arg, kwarg, warnings };
}
