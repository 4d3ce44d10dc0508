// The master's events. Code emits typed `BrineEvent`s (metrics and the web view count them by
// kind); the bus turns each into the events Salt fires for the same moment, with Salt's tags and
// payloads (`salt/job/<jid>/new`, `salt/job/<jid>/ret/<id>`, `salt/auth`, `salt/minion/<id>/start`,
// ...), plus brine's own detail under `brine/` tags (disconnect reasons, replaced sessions, invalid
// IDs). Anything else (user events, runners, beacons) is fired as a tag and a data dict directly.
// Every event's data carries Salt's `_stamp`. docs/events.md lists each tag with an example.

export type BrineEvent =
  | { kind: 'minion_connected'; id: string; remote: string; agent: string; at: number }
  | { kind: 'minion_disconnected'; id: string; remote: string; reason: string; connectedForMs: number; silentForMs: number; at: number }
  | { kind: 'minion_replaced'; id: string; oldRemote: string; newRemote: string; at: number }
  /** A minion signed in with its accepted key (Salt fires `salt/auth` act accept on every sign-in). */
  | { kind: 'auth_accepted'; id: string; remote: string; pub: string; at: number }
  | { kind: 'auth_pending'; id: string; remote: string; fingerprint: string; pub: string; at: number }
  | { kind: 'auth_rejected'; id: string; remote: string; fingerprint: string; pub: string; reason: string; full: boolean; at: number }
  | { kind: 'key_mismatch'; id: string; remote: string; acceptedFingerprint: string; presentedFingerprint: string; pub: string; at: number }
  | { kind: 'invalid_id'; remote: string; reason: string; at: number }
  /** An operator (brine key, the wheel's key.*) accepted, rejected or deleted a minion's key. */
  | { kind: 'key_changed'; id: string; act: 'accept' | 'reject' | 'delete'; at: number }
  /** presence_events: the minions connected now, every loop_interval. */
  | { kind: 'presence_present'; present: string[]; at: number }
  /** presence_events: minions connected and lost since the last presence event. */
  | { kind: 'presence_change'; new: string[]; lost: string[]; at: number }
  | {
      kind: 'job_published';
      jid: string;
      fun: string;
      /** Positional arguments and keyword arguments as published. */
      arg: unknown[];
      kwarg: Record<string, unknown>;
      tgt: string | string[];
      tgtType: string;
      user: string;
      minions: string[];
      /** Listed in the target (list, nodegroup) but not accepted. */
      missing: string[];
      notConnected: string[];
      at: number;
    }
  | {
      kind: 'job_return';
      jid: string;
      minion: string;
      fun: string;
      /** The job's arguments in Salt's published form (saltArgs). */
      funArgs: unknown[];
      /** Who published the job (absent for a minion's own scheduled runs, as in Salt). */
      user?: string;
      ret: unknown;
      retcode: number;
      success: boolean;
      /** The outputter Salt's minion names in its return (saltOutputterOf). */
      out?: string;
      at: number;
    }
  /** POST /hook/<path> on the REST API (webhook_url set): the body, and the API user who sent it. */
  | { kind: 'api_hook'; path: string; user: string; body: unknown; raw?: string; headers?: Record<string, string>; at: number };

export type EventKind = BrineEvent['kind'];

export const EVENT_KINDS: readonly EventKind[] = [
  'minion_connected',
  'minion_disconnected',
  'minion_replaced',
  'auth_accepted',
  'auth_pending',
  'auth_rejected',
  'key_mismatch',
  'invalid_id',
  'key_changed',
  'presence_present',
  'presence_change',
  'job_published',
  'job_return',
  'api_hook',
];

/** One event as Salt has it on its bus: a tag and a data dict (with `_stamp`). */
export interface SaltEvent {
  readonly tag: string;
  readonly data: Readonly<Record<string, unknown>>;
  /** The typed event it came from, when it came from one (for `--kind` filters). */
  readonly kind?: EventKind;
}

/** The last stamp saltStamp formatted, and its millisecond. */
let lastStampMs = Number.NaN;
let lastStamp = '';

/**
 * Salt's `_stamp`: `datetime.utcnow().isoformat()` of the moment, microseconds included (brine's
 * clock has milliseconds; Python's isoformat leaves the fraction out when it is zero).
 */
export function saltStamp(ms: number): string {
  // the returns of one flush share their millisecond: formatted once for all of them
  if (ms === lastStampMs) return lastStamp;
  const iso = new Date(ms).toISOString(); // 2026-12-07T06:12:00.123Z
  const fraction = iso.slice(20, 23);
  lastStamp = fraction === '000' ? iso.slice(0, 19) : `${iso.slice(0, 19)}.${fraction}000`;
  lastStampMs = ms;
  return lastStamp;
}

/** Arguments as Salt publishes them: keyword arguments as a last dict marked `__kwarg__`. */
export function saltArgs(arg: readonly unknown[], kwarg: Readonly<Record<string, unknown>>): unknown[] {
  return Object.keys(kwarg).length === 0 ? [...arg] : [...arg, { ...kwarg, __kwarg__: true }];
}

/** State functions Salt's minion names an outputter for (salt/modules/state.py __outputter__). */
const HIGHSTATE_OUT = new Set(['sls', 'sls_id', 'pkg', 'top', 'single', 'highstate', 'template', 'template_str', 'apply', 'test', 'request', 'check_request', 'run_request']);
const NESTED_OUT = new Set(['grains.items', 'grains.item', 'grains.setval']);

/**
 * The `out` Salt's minion puts in a return: the function's `__outputter__`, or `nested` when the
 * function failed to run (not found, raised).
 */
export function saltOutputterOf(fun: string, failedToRun: boolean): string | undefined {
  if (failedToRun) return 'nested';
  if (fun.startsWith('state.') && HIGHSTATE_OUT.has(fun.slice(6))) return 'highstate';
  return NESTED_OUT.has(fun) ? 'nested' : undefined;
}

/** The tag of the event's first Salt event (its main one). */
export function eventTag(e: BrineEvent): string {
  return (saltEventsOf(e)[0] as SaltEvent).tag;
}

/** What Salt's minion sends for `minion_start` and `salt/minion/<id>/start`. */
function minionStart(id: string, tag: string, at: number): Record<string, unknown> {
  // Salt's text is time.asctime(): "Mon Dec  7 06:12:00 2026"
  const d = new Date(at);
  const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][d.getUTCDay()];
  const month = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][d.getUTCMonth()];
  const time = d.toISOString().slice(11, 19);
  const asctime = `${day} ${month} ${String(d.getUTCDate()).padStart(2, ' ')} ${time} ${d.getUTCFullYear()}`;
  // the order of salt/minion.py _fire_master's load; the master fires it whole (the token removed)
  return { id, cmd: '_minion_event', pretag: null, data: `Minion ${id} started at ${asctime}`, tag };
}

/**
 * The events Salt fires for this moment, in Salt's order, then brine's own detail. Data without
 * `_stamp`; the bus stamps it.
 */
export function saltEventsOf(e: BrineEvent): Array<{ tag: string; data: Record<string, unknown> }> {
  switch (e.kind) {
    case 'minion_connected':
      return [
        { tag: `salt/minion/${e.id}/start`, data: minionStart(e.id, `salt/minion/${e.id}/start`, e.at) },
        { tag: 'minion_start', data: minionStart(e.id, 'minion_start', e.at) },
        { tag: `brine/minion/${e.id}/connected`, data: { id: e.id, remote: e.remote, agent: e.agent } },
      ];
    case 'minion_disconnected':
      return [{ tag: `brine/minion/${e.id}/disconnected`, data: { id: e.id, remote: e.remote, reason: e.reason, connected_for_ms: e.connectedForMs, silent_for_ms: e.silentForMs } }];
    case 'minion_replaced':
      return [{ tag: `brine/minion/${e.id}/replaced`, data: { id: e.id, old_remote: e.oldRemote, new_remote: e.newRemote } }];
    // salt/channel/server.py _auth: {result, act, id, pub} (`denied` puts id before act)
    case 'auth_accepted':
      return [{ tag: 'salt/auth', data: { result: true, act: 'accept', id: e.id, pub: e.pub } }];
    case 'auth_pending':
      return [
        { tag: 'salt/auth', data: { result: true, act: 'pend', id: e.id, pub: e.pub } },
        { tag: `brine/auth/${e.id}/pending`, data: { id: e.id, remote: e.remote, fingerprint: e.fingerprint } },
      ];
    case 'auth_rejected':
      return [
        { tag: 'salt/auth', data: { result: false, act: e.full ? 'full' : 'reject', id: e.id, pub: e.pub } },
        { tag: `brine/auth/${e.id}/rejected`, data: { id: e.id, remote: e.remote, fingerprint: e.fingerprint, reason: e.reason } },
      ];
    case 'key_mismatch':
      return [
        { tag: 'salt/auth', data: { result: false, id: e.id, act: 'denied', pub: e.pub } },
        { tag: `brine/auth/${e.id}/key_mismatch`, data: { id: e.id, remote: e.remote, accepted_fingerprint: e.acceptedFingerprint, presented_fingerprint: e.presentedFingerprint } },
      ];
    case 'invalid_id':
      return [{ tag: 'brine/auth/invalid_id', data: { remote: e.remote, reason: e.reason } }];
    // salt/key.py accept_key/reject_key/delete_key: once per key
    case 'key_changed':
      return [{ tag: 'salt/key', data: { result: true, act: e.act, id: e.id } }];
    // salt/master.py Maintenance.handle_presence: the change (when there is one) before present
    case 'presence_present':
      return [{ tag: 'salt/presence/present', data: { present: e.present } }];
    case 'presence_change':
      return [{ tag: 'salt/presence/change', data: { new: e.new, lost: e.lost } }];
    // salt/master.py _prep_pub: the bare <jid> event, then salt/job/<jid>/new
    case 'job_published': {
      const tgt = e.tgt;
      return [
        { tag: e.jid, data: { minions: e.minions } },
        {
          tag: `salt/job/${e.jid}/new`,
          data: { jid: e.jid, tgt_type: e.tgtType, tgt, user: e.user, fun: e.fun, arg: saltArgs(e.arg, e.kwarg), minions: e.minions, missing: e.missing },
        },
      ];
    }
    case 'job_return': {
      // salt/minion.py _return_pub: {cmd, id} then the return dict in _thread_return's order
      const data: Record<string, unknown> = { cmd: '_return', id: e.minion, success: e.success, return: e.ret, retcode: e.retcode, jid: e.jid, fun: e.fun, fun_args: e.funArgs };
      if (e.user !== undefined) data.user = e.user;
      if (e.out !== undefined) data.out = e.out;
      return [{ tag: `salt/job/${e.jid}/ret/${e.minion}`, data }];
    }
    case 'api_hook':
      // rest_cherrypy's Webhook.POST: {body, post, headers}; brine adds the API user
      return [{ tag: `salt/netapi/hook/${e.path}`, data: { body: e.raw ?? '', post: e.body ?? {}, headers: e.headers ?? {}, user: e.user } }];
  }
}

/** The `raw` and `headers` of an api_hook event from what a control request carried (checked shapes only). */
export function hookMeta(raw: unknown, headers: unknown): { raw?: string; headers?: Record<string, string> } {
  const out: { raw?: string; headers?: Record<string, string> } = {};
  if (typeof raw === 'string') out.raw = raw;
  if (headers !== null && typeof headers === 'object' && !Array.isArray(headers)) {
    out.headers = Object.fromEntries(Object.entries(headers).filter((kv): kv is [string, string] => typeof kv[1] === 'string'));
  }
  return out;
}
