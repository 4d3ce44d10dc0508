// Stage "high data" for one file: checks the structure of a rendered SLS (Salt's verify_high)
// and normalises the forms Salt accepts for a state declaration: `pkg.installed: [args]`,
// `pkg: [installed, args...]` and the short `vim: pkg.installed`.

import { compileError, type CompileError, type Exclusion, type HighArg, type HighId, type ParsedSls, type StateDecl } from './high-types.js';

const RESERVED = new Set(['include', 'extend', 'exclude']);

/** Salt's STATE_REQUISITE_KEYWORDS (salt/state.py): the argument names _verify_high checks. */
const SALT_REQUISITE_KEYWORDS: ReadonlySet<string> = new Set([
  'onfail',
  'onfail_any',
  'onfail_all',
  'require',
  'require_any',
  'onchanges',
  'onchanges_any',
  'watch',
  'watch_any',
  'prereq',
  'prerequired',
  'listen',
  'onfail_stop',
]);

function isMapping(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

interface Where {
  sls: string;
  env: string;
}

const at = (w: Where, id: string): string => `${w.sls}:${id}`;

/** One `state(.fun): [args]` under an ID; `extend` declarations may omit the function. */
function parseDecl(w: Where, id: string, key: string, body: unknown, extend: boolean, errors: CompileError[]): StateDecl | undefined {
  const dot = key.indexOf('.');
  const state = dot >= 0 ? key.slice(0, dot) : key;
  let fun = dot >= 0 ? key.slice(dot + 1) : undefined;
  if (state === '' || fun === '') {
    errors.push(compileError(`State '${key}' in SLS '${w.sls}' (ID '${id}') is not of the form 'module.function'`, at(w, id)));
    return undefined;
  }
  if (body === null || body === undefined) body = [];
  if (!Array.isArray(body)) {
    errors.push(compileError(`State '${key}' in SLS '${w.sls}' is not formed as a list (ID '${id}'): write its arguments as '- name: value' items`, at(w, id)));
    return undefined;
  }
  const args: HighArg[] = [];
  let ok = true;
  for (const item of body) {
    if (typeof item === 'string') {
      if (fun !== undefined) {
        // _verify_high: one error per state, listing the dotted function and every string
        if (ok) {
          const funs = [...(dot >= 0 ? [key.slice(dot + 1)] : []), ...body.filter((x): x is string => typeof x === 'string')];
          errors.push(compileError(`Too many functions declared in state '${id}' in SLS '${w.sls}'. Please choose one of the following: ${funs.join(', ')}`, at(w, id)));
        }
        ok = false;
      } else fun = item;
    } else if (isMapping(item)) {
      const keys = Object.keys(item);
      // Salt's _verify_high refuses several keys only when the first is a requisite; otherwise
      // compile_high_data takes every key as an argument (issue 22)
      if (keys.length > 1 && SALT_REQUISITE_KEYWORDS.has(keys[0]!)) {
        errors.push(
          compileError(`Multiple dictionaries defined in argument of state '${id}' in SLS '${w.sls}': each requisite is its own '- ${keys[0]}: [...]' item (check the indentation)`, at(w, id)),
        );
        ok = false;
        continue;
      }
      for (const k of keys) args.push([k, item[k]]);
    }
    // any other item (`- False`, a number, a list) Salt's _verify_high and compile_high_data pass
    // over without a word (nfs-formula's unmount.sls writes `- {{ persist }}`); so does brine
  }
  if (fun === undefined && !extend) {
    // Salt's _verify_high wording, which names the ID (a requisite written beside the state
    // module, as `require:` under the ID, is a module without a function)
    errors.push(compileError(`No function declared in state '${id}' in SLS '${w.sls}'`, at(w, id)));
    return undefined;
  }
  if (!ok) return undefined;
  return fun === undefined ? { state, args } : { state, fun, args };
}

function parseId(w: Where, id: string, body: unknown, extend: boolean, errors: CompileError[]): HighId | undefined {
  if (typeof body === 'string' && body.includes('.')) body = { [body]: [] };
  if (!isMapping(body)) {
    errors.push(compileError(`ID '${id}' in SLS '${w.sls}' is not a dictionary: it must map state functions (e.g. 'pkg.installed') to their arguments`, at(w, id)));
    return undefined;
  }
  const decls: StateDecl[] = [];
  const seen = new Map<string, string>();
  for (const [key, value] of Object.entries(body)) {
    if (key.startsWith('__')) continue;
    const decl = parseDecl(w, id, key, value, extend, errors);
    if (!decl) continue;
    const before = seen.get(decl.state);
    if (before !== undefined) {
      errors.push(compileError(`ID '${id}' in SLS '${w.sls}' declares state '${decl.state}' twice ('${before}' and '${key}'); one ID can use each state module once`, at(w, id)));
      continue;
    }
    seen.set(decl.state, key);
    decls.push(decl);
  }
  return { id, sls: w.sls, env: w.env, decls };
}

function parseInclude(w: Where, raw: unknown, errors: CompileError[]): ParsedSls['include'] {
  if (raw === null || raw === undefined) return [];
  if (!Array.isArray(raw)) {
    errors.push(compileError(`Include Declaration in SLS '${w.sls}' is not formed as a list`, `${w.sls}:include`));
    return [];
  }
  const out: ParsedSls['include'] = [];
  for (const item of raw) {
    if (typeof item === 'string' && item !== '') out.push({ sls: item });
    else if (isMapping(item) && Object.keys(item).length === 1 && typeof Object.values(item)[0] === 'string') {
      const [env, sls] = Object.entries(item)[0]!;
      out.push({ sls: sls as string, env });
    } else errors.push(compileError(`Include Declaration in SLS '${w.sls}' has an entry that is not an SLS name: ${JSON.stringify(item)}`, `${w.sls}:include`));
  }
  return out;
}

function parseExclude(w: Where, raw: unknown, errors: CompileError[]): Exclusion[] {
  if (raw === null || raw === undefined) return [];
  if (!Array.isArray(raw)) {
    errors.push(compileError(`Exclude Declaration in SLS '${w.sls}' is not formed as a list`, `${w.sls}:exclude`));
    return [];
  }
  const out: Exclusion[] = [];
  for (const item of raw) {
    // a bare string names an SLS, as in Salt
    if (typeof item === 'string') out.push({ sls: item });
    else if (isMapping(item) && typeof item.sls === 'string' && Object.keys(item).length === 1) out.push({ sls: item.sls });
    else if (isMapping(item) && typeof item.id === 'string' && Object.keys(item).length === 1) out.push({ id: item.id });
    else errors.push(compileError(`Exclude Declaration in SLS '${w.sls}' has an entry that is neither '- sls: <name>' nor '- id: <id>': ${JSON.stringify(item)}`, `${w.sls}:exclude`));
  }
  return out;
}

/** Checks and normalises one rendered SLS; the errors name the SLS and the ID. */
export function parseSls(data: unknown, sls: string, env: string, source: string): { parsed: ParsedSls; errors: CompileError[] } {
  const w = { sls, env };
  const errors: CompileError[] = [];
  const parsed: ParsedSls = { sls, env, source, include: [], extend: [], exclude: [], ids: [] };
  if (data === null || data === undefined || (typeof data === 'string' && data.trim() === '')) return { parsed, errors };
  if (!isMapping(data)) {
    errors.push(compileError(`SLS '${sls}' does not render to a dictionary (it rendered to ${Array.isArray(data) ? 'a list' : typeof data})`, `${sls}:`));
    return { parsed, errors };
  }
  parsed.include = parseInclude(w, data.include, errors);
  parsed.exclude = parseExclude(w, data.exclude, errors);
  if (data.extend !== undefined && data.extend !== null) {
    if (!isMapping(data.extend)) errors.push(compileError(`Extension in SLS '${sls}' is not a dictionary`, `${sls}:extend`));
    else
      for (const [id, body] of Object.entries(data.extend)) {
        const h = parseId(w, id, body, true, errors);
        if (h) parsed.extend.push(h);
      }
  }
  for (const [id, body] of Object.entries(data)) {
    if (RESERVED.has(id) || id.startsWith('__')) continue;
    const h = parseId(w, id, body, false, errors);
    if (h) parsed.ids.push(h);
  }
  return { parsed, errors };
}
