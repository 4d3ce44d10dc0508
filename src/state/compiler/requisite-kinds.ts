// The requisite and global argument names: the runtime's, never passed to a state function.

export const REQUISITE_KINDS = ['require', 'watch', 'onchanges', 'onfail', 'prereq', 'use', 'listen', 'require_any', 'watch_any', 'onchanges_any', 'onfail_any', 'onfail_all'] as const;

/** Salt's `_any`/`_all` requisites (RequisiteType): they have no `_in` form. */
export const ANY_KINDS: ReadonlySet<string> = new Set(['require_any', 'watch_any', 'onchanges_any', 'onfail_any', 'onfail_all']);

/** Requisites that do not order states: `use` copies arguments, `listen` acts at the end of the run. */
export const UNORDERED_KINDS: ReadonlySet<string> = new Set(['use', 'listen']);
export type RequisiteKind = (typeof REQUISITE_KINDS)[number];

/** `require` and `require_in`, ... : the arguments that name other states. */
export const REQUISITE_KEYS: ReadonlySet<string> = new Set(REQUISITE_KINDS.flatMap((k) => (ANY_KINDS.has(k) ? [k] : [k, `${k}_in`])));

/** Arguments the runtime handles for every state (Salt's STATE_RUNTIME_KEYWORDS and friends). */
export const GLOBAL_KEYS: ReadonlySet<string> = new Set(['unless', 'onlyif', 'creates', 'order', 'retry', 'failhard', 'check_cmd', 'names', 'fire_event', 'reload_modules', 'parallel']);

/** Salt requisites brine does not implement: a clear compile error instead of an unknown argument. */
export const UNSUPPORTED_REQUISITES: ReadonlyMap<string, string> = new Map([['onfail_stop', 'use failhard']]);

/** Keys of a low chunk that describe it rather than pass arguments. */
export const CHUNK_KEYS: ReadonlySet<string> = new Set(['__id__', '__sls__', '__env__', 'state', 'fun', 'order', 'name_order']);

/** Whether a chunk argument goes to the state function. */
export function isFunctionArg(key: string): boolean {
  return !REQUISITE_KEYS.has(key) && !GLOBAL_KEYS.has(key) && !CHUNK_KEYS.has(key) && !UNSUPPORTED_REQUISITES.has(key) && !key.startsWith('__');
}
