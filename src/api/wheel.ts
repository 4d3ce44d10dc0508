// The wheel functions the API offers (client `wheel`): Salt's key.* over the same key store and
// key moves as `brine key` (src/pki/key-actions.ts), each change followed by the master closing
// sessions whose key is no longer accepted; and token.revoke for API tokens. Dispatch is through
// this Map only.

import { captureKey, type ChosenKey, type KeyState, KEY_STATES, normalizeFingerprint, selectKeys, settleKey } from '../pki/index.js';
import { BrineError, isBrineError } from '../util/errors.js';
import type { KeyChange } from '../protocol/index.js';
import type { Authenticator } from '../auth/index.js';
import type { RunnerBackend } from './backend.js';

export interface WheelCall {
  arg: unknown[];
  kwarg: Record<string, unknown>;
}

/**
 * What wheel functions act on: the runners' backend, and the API's token store where there is one
 * (token.revoke). Orchestration calls them on a master without `api:`, as Salt's master does.
 */
export type WheelBackend = RunnerBackend & { auth?: Authenticator };

type Wheel = (b: WheelBackend, c: WheelCall) => unknown;

/** Salt's key.list_all names for the four states. */
export const SALT_KEY_NAMES: Record<KeyState, string> = { accepted: 'minions', pending: 'minions_pre', rejected: 'minions_rejected', denied: 'minions_denied' };

const param = (c: WheelCall, name: string, index: number): unknown => (Object.hasOwn(c.kwarg, name) ? c.kwarg[name] : c.arg[index]);
const flag = (c: WheelCall, name: string): boolean => {
  const v = c.kwarg[name];
  return v === true || v === 'true' || v === 'True' || v === '1';
};

/** `match`: a glob, comma-separated globs or a list of IDs. */
function matchParam(c: WheelCall, fun: string): string {
  const m = param(c, 'match', 0);
  if (typeof m === 'string' && m !== '') return m;
  if (Array.isArray(m) && m.length > 0 && m.every((x) => typeof x === 'string' && x !== '' && !x.includes(','))) return m.join(',');
  throw new BrineError('BAD_ARGUMENTS', `${fun}: match must be a key glob or a list of minion IDs`);
}

/** The brine extension `finger`: only the key with this fingerprint is moved. */
function fingerParam(c: WheelCall, fun: string): string | undefined {
  const f = c.kwarg.finger;
  if (f === undefined || f === null) return undefined;
  const fp = typeof f === 'string' ? normalizeFingerprint(f) : undefined;
  if (fp === undefined) throw new BrineError('BAD_ARGUMENTS', `${fun}: finger must be a key fingerprint (64 hex digits, colons optional)`);
  return fp;
}

export function listAll(b: WheelBackend): Record<string, string[]> {
  const all = b.keys.listAll();
  const out: Record<string, string[]> = { local: ['master.pem', 'master.pub'] };
  for (const st of KEY_STATES) out[SALT_KEY_NAMES[st]] = [...all[st]].sort();
  return out;
}

export function fingers(b: WheelBackend, globs: string): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  if (globs.split(',').some((g) => g.trim() === '*' || g.trim() === 'master')) out.local = { 'master.pem': b.masterFingerprint, 'master.pub': b.masterFingerprint };
  for (const [state, ids] of selectKeys(b.keys, KEY_STATES, globs)) {
    const group: Record<string, string> = {};
    for (const id of ids) {
      if (state === 'denied') {
        const keys = b.keys.deniedKeys(id);
        keys.forEach((k, i) => {
          group[keys.length === 1 ? id : `${id}#${i + 1}`] = k.fingerprint;
        });
      } else {
        const fp = b.keys.fingerprintOf(state, id);
        if (fp) group[id] = fp;
      }
    }
    out[SALT_KEY_NAMES[state]] = group;
  }
  return out;
}

/** Moves the keys `globs` selects in `from` to `to`, as `brine key -a/-r -y` does. */
async function move(b: WheelBackend, c: WheelCall, fun: string, from: KeyState[], to: 'accepted' | 'rejected'): Promise<Record<string, string[]>> {
  const globs = matchParam(c, fun);
  const finger = fingerParam(c, fun);
  const chosen: ChosenKey[] = [];
  for (const [state, ids] of selectKeys(b.keys, from, globs)) {
    for (const id of ids) {
      const k = captureKey(b.keys, state, id, state === 'denied' ? finger : undefined);
      if (k && (finger === undefined || k.fingerprint === finger)) chosen.push(k);
    }
  }
  const moved: string[] = [];
  for (const k of chosen) {
    // another key already accepted for the ID: refused, as brine key does
    if (to === 'accepted' && k.state !== 'accepted' && b.keys.read('accepted', k.id) !== undefined) continue;
    settleKey(b.keys, k, to);
    moved.push(k.id);
  }
  if (moved.length > 0)
    await reconcile(
      b,
      moved.map((id) => ({ id, act: to === 'accepted' ? 'accept' : 'reject' })),
    );
  b.logger.info({ fun, match: globs, moved }, `API ${fun}: ${moved.length} key(s) ${to}`);
  return { [SALT_KEY_NAMES[to]]: moved };
}

/** Tells the master the keys changed; while it is down the change stands (it re-reads keys when it starts). */
async function reconcile(b: WheelBackend, changes: KeyChange[]): Promise<void> {
  try {
    await b.reconcileKeys(changes);
  } catch (err) {
    if (!isBrineError(err, 'MASTER_UNREACHABLE')) throw err;
    b.logger.warn({ err: err.message }, 'the key change is saved, but the master could not be told at once (it is not reachable); it applies the change when it checks keys or starts');
  }
}

export const WHEELS = new Map<string, Wheel>([
  ['key.list_all', (b) => listAll(b)],
  [
    'key.accept',
    (b, c) => move(b, c, 'key.accept', ['pending', ...(flag(c, 'include_rejected') ? (['rejected'] as const) : []), ...(flag(c, 'include_denied') ? (['denied'] as const) : [])], 'accepted'),
  ],
  [
    'key.reject',
    (b, c) => move(b, c, 'key.reject', ['pending', ...(flag(c, 'include_accepted') ? (['accepted'] as const) : []), ...(flag(c, 'include_denied') ? (['denied'] as const) : [])], 'rejected'),
  ],
  [
    'key.delete',
    async (b, c) => {
      const globs = matchParam(c, 'key.delete');
      const finger = fingerParam(c, 'key.delete');
      const out: Record<string, string[]> = {};
      for (const [state, ids] of selectKeys(b.keys, KEY_STATES, globs)) {
        for (const id of ids) {
          if (finger !== undefined && state !== 'denied' && b.keys.fingerprintOf(state, id) !== finger) continue;
          if (finger !== undefined && state === 'denied') {
            b.keys.forgetDenied(id, finger);
          } else {
            b.keys.remove(id, state);
          }
          const name = SALT_KEY_NAMES[state];
          out[name] = [...(out[name] ?? []), id];
        }
      }
      if (Object.keys(out).length > 0)
        await reconcile(
          b,
          [...new Set(Object.values(out).flat())].map((id) => ({ id, act: 'delete' })),
        );
      b.logger.info({ match: globs, deleted: out }, 'API key.delete');
      return out;
    },
  ],
  ['key.finger', (b, c) => fingers(b, matchParam(c, 'key.finger'))],
  // Salt's config.values: the master's options (nodegroups, file_roots, ...), secrets withheld
  ['config.values', (b) => withoutSecrets(b.masterOptions())],
  [
    'minions.connected',
    async (b) =>
      (await b.presence())
        .filter((s) => s.state === 'connected')
        .map((s) => s.id)
        .sort(),
  ],
  // brine's own (Salt has no wheel for it): ends API sessions at once, e.g. of a user who left
  [
    'token.revoke',
    (b, c) => {
      if (b.auth === undefined)
        throw new BrineError(
          'RUNNER_UNAVAILABLE',
          "token.revoke: this master serves no API, so it has no API tokens to revoke; enable the API (api: in the master config) or call it through the API's wheel client",
        );
      return { revoked: b.auth.revoke(revokeTarget(c)) };
    },
  ],
]);

/** Option names whose values are credentials: config.values answers them as '(hidden)'. */
const SECRET_OPTION = /pass(word|phrase)?|secret|token|(^|_)key$|credentials|private/i;

function withoutSecrets(value: unknown, depth = 0): unknown {
  if (depth > 32 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((v) => withoutSecrets(v, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET_OPTION.test(k) && v !== null && v !== '' && typeof v !== 'boolean' ? '(hidden)' : withoutSecrets(v, depth + 1)]));
}

/** token.revoke takes `user` (every token of that user) or `token` (that one), not both. */
function revokeTarget(c: WheelCall): { user: string } | { token: string } {
  const user = c.kwarg.user;
  const token = c.kwarg.token;
  if (typeof user === 'string' && user !== '' && token === undefined) return { user };
  if (typeof token === 'string' && token !== '' && user === undefined) return { token };
  throw new BrineError('BAD_ARGUMENTS', 'token.revoke: give user=NAME (every token of that user) or token=TOKEN (that token), one of them');
}
