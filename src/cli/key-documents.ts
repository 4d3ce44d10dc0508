// `brine key --out json|yaml|...`: salt-key's documents, keyed by Salt's key directory names
// (salt/key.py: list_keys, finger, finger_all, print) so scripts written for salt-key read them
// unchanged: `{"minions": [...], "minions_pre": [...], "minions_rejected": [...], "minions_denied": [...]}`.

import type { KeyStore, KeyState } from '../pki/index.js';
import { BrineError } from '../util/errors.js';
import { formatStatic, outputterNames, type Outputter } from './output/index.js';

/** Salt's key directories, in the order salt-key's documents list them. */
export const SALT_KEY_DIRS: ReadonlyArray<readonly [KeyState, string]> = [
  ['accepted', 'minions'],
  ['pending', 'minions_pre'],
  ['rejected', 'minions_rejected'],
  ['denied', 'minions_denied'],
];

/** salt-key's outputters: the key layout (brine's text) is the default; highstate makes no sense here. */
export function keyOutputter(out: string | undefined): Outputter | undefined {
  if (out === undefined || out === 'key') return undefined;
  const names = outputterNames().filter((n) => n !== 'highstate');
  if (!names.includes(out)) throw new BrineError('USAGE', `unknown --out '${out}': use one of key (the default), ${names.join(', ')}`);
  return out as Outputter;
}

/** `-L` / `-l acc`: the IDs of each state asked for (every state: all four keys, even empty). */
export function listDocument(store: KeyStore, states: readonly KeyState[]): Record<string, string[]> {
  const doc: Record<string, string[]> = {};
  for (const [state, dir] of SALT_KEY_DIRS) if (states.includes(state)) doc[dir] = store.list(state);
  return doc;
}

/**
 * `-f`/`-F`/`-p`/`-P`: `{dir: {id: value}}` for the selected keys; `local` (the master's own) last,
 * as Salt's all_keys() adds it after the key directories. A denied ID with several keys seen
 * shows its newest one, the one `brine key -f` lists first.
 */
export function perKeyDocument(
  selection: ReadonlyMap<KeyState, readonly string[]>,
  value: (state: KeyState, id: string) => string | undefined,
  local?: Record<string, string>,
): Record<string, Record<string, string>> {
  const doc: Record<string, Record<string, string>> = {};
  for (const [state, dir] of SALT_KEY_DIRS) {
    const ids = selection.get(state);
    if (ids === undefined) continue;
    const entries: Record<string, string> = {};
    for (const id of ids) {
      const v = value(state, id);
      if (v !== undefined) Object.defineProperty(entries, id, { value: v, enumerable: true, writable: true, configurable: true });
    }
    doc[dir] = entries;
  }
  if (local !== undefined) doc.local = local;
  return doc;
}

/** The document printed with one of the minion outputters, as one whole (Salt's display_output). */
export function formatKeyDocument(outputter: Outputter, doc: Record<string, unknown>, indent: number | undefined): string {
  return formatStatic(outputter, new Map(Object.entries(doc)), indent === undefined ? { color: false } : { color: false, indent });
}
