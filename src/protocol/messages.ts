// The messages of the minion<->master protocol: a discriminated union keyed by `t`, one schema
// per type. Nothing here carries the sender's identity after the hello: the session knows it.

import { isPlainObject, s, type Infer, type Schema } from './schema.js';

/** Protocol versions this build speaks; the master also states the lowest it accepts. */
export const PROTOCOL_VERSIONS = [1] as const;
export const PROTOCOL_VERSION = 1;
export const MIN_PROTOCOL_VERSION = 1;

const jid = s.string({ pattern: /^\d{20}$/ });
const fun = s.string({ max: 256, pattern: /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$/ });
const wireError = s.object({ code: s.string({ max: 64 }), message: s.string({ max: 65_536 }) });
const reason = s.string({ max: 64 });

export const AUTH_STATUSES = ['accepted', 'pending', 'rejected', 'denied', 'invalid_id', 'full', 'busy', 'error'] as const;
export type AuthStatus = (typeof AUTH_STATUSES)[number];

export const TARGET_TYPES = ['glob', 'pcre', 'list', 'grain', 'grain_pcre', 'ipcidr', 'compound', 'nodegroup', 'pillar', 'pillar_pcre', 'pillar_exact'] as const;
export type TargetType = (typeof TARGET_TYPES)[number];

export const target = s.union<string | string[]>(s.string({ max: 65_536 }), s.array(s.string({ max: 1024 }), { max: 100_000 }));

/** Key delimiter for grain targets (Salt's --delimiter); absent means `:`. */
export const targetDelimiter = s.string({ min: 1, max: 16 });

/** Largest grains map a minion may send, as JSON characters; a bigger one is not sent at all. */
export const MAX_GRAINS_JSON = 1_048_576;
const MAX_GRAINS_KEYS = 10_000;

/** A grains mapping, bounded in keys and encoded size (the frame limit alone is 16 MiB). */
const grainsMap: Schema<Record<string, unknown>> = {
  optional: false,
  check(v, p) {
    if (!isPlainObject(v)) return `${p} must be an object`;
    if (Object.keys(v).length > MAX_GRAINS_KEYS) return `${p} has more than ${MAX_GRAINS_KEYS} keys`;
    if (JSON.stringify(v).length > MAX_GRAINS_JSON) return `${p} is larger than ${MAX_GRAINS_JSON} characters of JSON`;
    return undefined;
  },
};

// ---- minion -> master -------------------------------------------------------------------

export const helloSchema = s.object({
  t: s.literal('hello'),
  /** Versions the minion speaks; the master picks the highest it also speaks. */
  versions: s.array(s.int({ min: 1, max: 1_000_000 }), { max: 32 }),
  /** The ID the minion claims; bound to its key by the master's key store. */
  id: s.string({ max: 1024 }),
  agent: s.string({ max: 128 }),
  /**
   * `brine doctor`: only ask for this key's state. The master answers `auth` computed read-only
   * from its key store and closes; no key file is written and no session is attached.
   */
  probe: s.optional(s.bool()),
  /**
   * The minion understands `acks` (issue 27): the master may hold this session's acks and send
   * them with its next frame to it. Absent = an ack frame per return, sent at once.
   */
  carryAcks: s.optional(s.bool()),
});

export const pingSchema = s.object({
  t: s.literal('ping'),
  seq: s.int({ min: 0 }),
  /** The sender's last measured round trip, in ms, so the other side can show it. */
  rtt: s.optional(s.number({ min: 0 })),
  // --- metrics (issue 11): the minion's return queue, for brine_minion_returns_queued
  /** Minion to master: returns queued on the minion and not yet acknowledged by a master. */
  returnsQueued: s.optional(s.int({ min: 0 })),
});

export const pongSchema = s.object({ t: s.literal('pong'), seq: s.int({ min: 0 }) });

// ---- the scheduler (issue 10) --------------------------------------------------------------

/**
 * On the return of a run the minion's own scheduler started (not a published job): the schedule
 * job's name and the call's arguments. The master stores it under a fresh jid (Salt's "req"); the
 * return's own jid is the minion's, and only keys the ack and resends.
 */
export const scheduledRunSchema = s.object({ name: s.string({ min: 1, max: 256 }), arg: s.array(s.json()), kwarg: s.record(s.json()) });

export const returnSchema = s.object({
  t: s.literal('return'),
  jid,
  fun: s.string({ max: 256 }),
  ret: s.json(),
  retcode: s.int(),
  success: s.bool(),
  error: s.optional(wireError),
  schedule: s.optional(scheduledRunSchema),
  /**
   * On the return of a `brine call` run through the minion daemon (salt-call against the
   * master): the call's arguments. Stored like a scheduled run, under a fresh jid (Salt's "req").
   */
  call: s.optional(s.object({ arg: s.array(s.json()), kwarg: s.record(s.json()) })),
});

export const byeSchema = s.object({ t: s.literal('bye'), reason });

/** Answer to find_job: whether this minion is still running (or has queued) the job. */
export const jobStatusSchema = s.object({ t: s.literal('job_status'), jid, running: s.bool() });

/** The minion's grains, sent after each sign-in and on saltutil.refresh_grains (minion data cache). */
export const grainsSchema = s.object({ t: s.literal('grains'), grains: grainsMap });

// ---- file server (minion -> master requests, master -> minion replies) --------------------

/** Correlates a file server request with its reply; chosen by the minion, unique among its outstanding requests. */
const rid = s.int({ min: 0, max: 2 ** 31 - 1 });
/** An environment name (the master checks the grammar again before any filesystem access). */
const saltenv = s.string({ min: 1, max: 128 });
/** A path relative to an environment's root (checked by the master before any filesystem access). */
const filePath = s.string({ max: 4096 });

/** List the environments, or the files or directories of one environment under a prefix. */
export const fileListSchema = s.object({
  t: s.literal('file_list'),
  rid,
  kind: s.oneOf(['envs', 'files', 'dirs'] as const),
  saltenv,
  prefix: filePath,
});

/** Hash, size and mode of one file. */
export const fileStatSchema = s.object({ t: s.literal('file_stat'), rid, saltenv, path: filePath });

/** One chunk of a file: at most `length` bytes (the master caps it at its file_buffer_size). */
export const fileReadSchema = s.object({
  t: s.literal('file_read'),
  rid,
  saltenv,
  path: filePath,
  offset: s.int({ min: 0 }),
  length: s.int({ min: 1, max: 16 * 1024 * 1024 }),
});

// ---- mine (minion -> master requests, master -> minion mine_reply) ------------------------
// The sender is always the session's minion: no mine message names the minion it is about.

/** Largest mine data a minion may send in one mine_send, and keep on the master, as JSON characters. */
export const MAX_MINE_JSON = 1_048_576;
/** Largest mine.get answer the master sends, as JSON characters (a larger one is MINE_DATA_TOO_LARGE). */
export const MAX_MINE_REPLY_JSON = 8_388_608;
const MAX_MINE_FUNS = 1_000;
/** A mine entry's name: a function name or an alias (`mine_function:`), a key of the mine. */
export const mineName = s.string({ min: 1, max: 256, pattern: /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/ });

/** One mine entry: the data, and Salt's allow_tgt restriction (who may read it). */
const mineEntry = s.object({
  data: s.json(),
  allowTgt: s.optional(target),
  allowTgtType: s.optional(s.oneOf(TARGET_TYPES)),
});
export type MineEntry = Infer<typeof mineEntry>;

/** Alias -> entry, bounded in entries and encoded size. */
const mineData: Schema<Record<string, MineEntry>> = {
  optional: false,
  check(v, p) {
    if (!isPlainObject(v)) return `${p} must be an object`;
    const keys = Object.keys(v);
    if (keys.length > MAX_MINE_FUNS) return `${p} has more than ${MAX_MINE_FUNS} entries`;
    for (const k of keys) {
      const bad = mineName.check(k, `${p} key`) ?? mineEntry.check(v[k], `${p}.${k}`);
      if (bad !== undefined) return bad;
    }
    if (JSON.stringify(v).length > MAX_MINE_JSON) return `${p} is larger than ${MAX_MINE_JSON} characters of JSON`;
    return undefined;
  },
};

/** mine.update / mine.send: store these entries (clear: replace the whole mine instead of merging). */
export const mineSendSchema = s.object({ t: s.literal('mine_send'), rid, data: mineData, clear: s.bool() });
/** mine.get: the named entries of the minions matching the target, as this minion may see them. */
export const mineGetSchema = s.object({
  t: s.literal('mine_get'),
  rid,
  tgt: target,
  tgtType: s.oneOf(TARGET_TYPES),
  funs: s.array(mineName, { max: MAX_MINE_FUNS }),
  delimiter: s.optional(targetDelimiter),
});
/** mine.delete: drop one entry of this minion's mine. */
export const mineDeleteSchema = s.object({ t: s.literal('mine_delete'), rid, fun: mineName });
/** mine.flush: drop this minion's whole mine. */
export const mineFlushSchema = s.object({ t: s.literal('mine_flush'), rid });
/** The answer to a mine request (same rid): for mine_get, `data` is {fun: {minion: data}}. */
export const mineReplySchema = s.object({ t: s.literal('mine_reply'), rid, ok: s.bool(), error: s.optional(wireError), data: s.optional(s.json()) });

export type MineSend = Infer<typeof mineSendSchema>;
export type MineGet = Infer<typeof mineGetSchema>;
export type MineDelete = Infer<typeof mineDeleteSchema>;
export type MineFlush = Infer<typeof mineFlushSchema>;
export type MineRequest = MineSend | MineGet | MineDelete | MineFlush;
export type MineReply = Infer<typeof mineReplySchema>;

// ---- events (issue 25: event.send / fire_master, beacons) --------------------------------
// The firing minion is the session's: the master sets `id` itself (threats.md #4) and refuses tags
// in the namespaces it owns (threats.md #19), see src/master/minion-event-policy.ts.

/** Largest event data a minion may send, as JSON characters (a larger one is EVENT_TOO_LARGE). */
export const MAX_EVENT_JSON = 262_144;
/** Longest event tag (Salt's tags are path-like strings; a long one is almost certainly a mistake). */
export const MAX_EVENT_TAG = 512;
export const minionEventTag = s.string({ min: 1, max: MAX_EVENT_TAG });
/** Event data: a mapping bounded in encoded size. */
export const eventData: Schema<Record<string, unknown>> = {
  optional: false,
  check(v, p) {
    if (!isPlainObject(v)) return `${p} must be an object`;
    if (JSON.stringify(v).length > MAX_EVENT_JSON) return `${p} is larger than ${MAX_EVENT_JSON} characters of JSON`;
    return undefined;
  },
};

/**
 * Fire an event on the master's bus. `fire_master` (event.send, event.fire_master) is fired
 * wrapped as Salt's master fires a minion's load: {cmd: "_minion_event", data, id, pretag, tag};
 * `beacon` is fired as the beacon's data (Salt's `events` load), on salt/beacon/<id>/<beacon>/...
 * With `rid` the master answers event_reply (event.send waits for it); a beacon does not ask.
 */
export const minionEventSchema = s.object({
  t: s.literal('minion_event'),
  rid: s.optional(rid),
  kind: s.oneOf(['fire_master', 'beacon'] as const),
  tag: minionEventTag,
  data: eventData,
});
/** The master's answer to a minion_event with a rid: fired, or refused with a code. */
export const eventReplySchema = s.object({ t: s.literal('event_reply'), rid, ok: s.bool(), error: s.optional(wireError) });

/** Longest state tag (`state_|-id_|-name_|-fun`) a state_progress message may carry. */
export const MAX_STATE_TAG = 4096;
/**
 * One state of a running state.apply/sls/highstate has finished (Salt's state_events): `n` is its
 * __run_num__, `len` the run's chunk count, `ret` the state's return (bounded as event data; the
 * minion drops `changes` from a larger one). The master fires it as salt/job/<jid>/prog/<id>/<n>.
 * Fire-and-forget: no reply (a master older than this type closes the session on it, as on any unknown type).
 */
export const stateProgressSchema = s.object({
  t: s.literal('state_progress'),
  jid,
  n: s.int({ min: 0 }),
  len: s.int({ min: 1 }),
  tag: s.string({ min: 1, max: MAX_STATE_TAG }),
  ret: eventData,
});
export type StateProgress = Infer<typeof stateProgressSchema>;
export type MinionEvent = Infer<typeof minionEventSchema>;
export type MinionEventReply = Infer<typeof eventReplySchema>;

// ---- master -> minion -------------------------------------------------------------------

export const authSchema = s.object({
  t: s.literal('auth'),
  status: s.oneOf(AUTH_STATUSES),
  /** The negotiated protocol version (on accepted). */
  version: s.optional(s.int({ min: 1 })),
  minVersion: s.int({ min: 1 }),
  code: s.optional(s.string({ max: 64 })),
  message: s.string({ max: 4096 }),
  masterFingerprint: s.string({ max: 128 }),
  /** Liveness parameters the master expects (seconds). */
  heartbeatInterval: s.optional(s.number({ min: 0 })),
  heartbeatTimeout: s.optional(s.number({ min: 0 })),
  /** For pending: how long the minion should wait before trying again (seconds). */
  retryAfter: s.optional(s.number({ min: 0 })),
});

/**
 * Salt's `ret`, `ret_config`, `ret_kwargs` of a publish (`--return`, `--return_config`,
 * `--return_kwargs`): the returners the minion also sends this job's return to, after the job
 * (docs/returners.md). The return goes to the master as always.
 */
export const jobReturners = {
  ret: s.optional(s.string({ max: 1024 })),
  retConfig: s.optional(s.string({ max: 256 })),
  retKwargs: s.optional(s.record(s.json())),
};

export const jobSchema = s.object({
  t: s.literal('job'),
  jid,
  fun,
  arg: s.array(s.json()),
  kwarg: s.record(s.json()),
  tgt: target,
  tgtType: s.oneOf(TARGET_TYPES),
  /** Key delimiter for grain and grain_pcre targets; absent = `:`. */
  delimiter: s.optional(targetDelimiter),
  /** Seconds the function may run; 0 = no limit. */
  timeout: s.optional(s.number({ min: 0 })),
  ...jobReturners,
});

export const ackSchema = s.object({ t: s.literal('ack'), jid });

/** Most jids one `acks` frame carries; the master sends more as several frames. */
export const MAX_CARRIED_ACKS = 1000;

/**
 * Acks carried on the master's next frame to a minion that said `carryAcks` (issue 27): written
 * in the same write just before that frame, or alone after a bounded delay.
 */
export const acksSchema = s.object({ t: s.literal('acks'), jids: s.array(jid, { max: MAX_CARRIED_ACKS }) });

/** Salt's saltutil.find_job, asked over the session: is this job still running on you? */
export const findJobSchema = s.object({ t: s.literal('find_job'), jid });

/** The master's answer to file_list, file_stat or file_read (same rid); `error` when ok is false. */
export const fileReplySchema = s.object({
  t: s.literal('file_reply'),
  rid,
  ok: s.bool(),
  error: s.optional(wireError),
  /** file_list: names, sorted. */
  list: s.optional(s.array(s.string({ max: 4096 }), { max: 100_000 })),
  /** file_stat: the file. */
  stat: s.optional(s.object({ path: filePath, sha256: s.string({ pattern: /^[0-9a-f]{64}$/ }), size: s.int({ min: 0 }), mode: s.int({ min: 0, max: 0o7777 }) })),
  /** file_read: the chunk, base64. */
  data: s.optional(s.string({ max: 24 * 1024 * 1024 })),
  /** file_read: this chunk ends the file. */
  eof: s.optional(s.bool()),
});

// ---- pillar (issue 10: pillar) -----------------------------------------------------------

/**
 * Minion -> master: send me my pillar. The master renders it for the session's own ID; `id`
 * exists only because Salt's payload carries one: any value other than the session's ID is
 * refused and counted (threats.md #4, #38), never served.
 */
export const pillarRequestSchema = s.object({
  t: s.literal('pillar_request'),
  rid,
  id: s.optional(s.string({ max: 1024 })),
  /**
   * Render from this pillar environment only, for one call (state.apply pillarenv=, Salt's
   * pillarenv in the pillar load); the minion's stored pillar is not replaced. The master refuses
   * a name its pillar_roots does not have (PILLARENV_UNKNOWN).
   */
  pillarenv: s.optional(saltenv),
});

/**
 * Master -> minion, over that minion's session only: its pillar (the last good one when the
 * latest render failed) and the render errors (Salt's `_errors`), or a refusal.
 */
export const pillarReplySchema = s.object({
  t: s.literal('pillar_reply'),
  rid,
  ok: s.bool(),
  error: s.optional(wireError),
  pillar: s.optional(s.record(s.json())),
  errors: s.optional(s.array(s.string({ max: 65_536 }), { max: 1000 })),
});

export type PillarRequest = Infer<typeof pillarRequestSchema>;
export type PillarReply = Infer<typeof pillarReplySchema>;

export const errorSchema = s.object({ t: s.literal('error'), code: s.string({ max: 64 }), message: s.string({ max: 4096 }) });

export type Hello = Infer<typeof helloSchema>;
export type Ping = Infer<typeof pingSchema>;
export type Pong = Infer<typeof pongSchema>;
export type Return = Infer<typeof returnSchema>;
export type Bye = Infer<typeof byeSchema>;
export type Auth = Infer<typeof authSchema>;
export type Job = Infer<typeof jobSchema>;
export type Ack = Infer<typeof ackSchema>;
export type Acks = Infer<typeof acksSchema>;
export type FindJob = Infer<typeof findJobSchema>;
export type JobStatus = Infer<typeof jobStatusSchema>;
export type GrainsMessage = Infer<typeof grainsSchema>;
export type ErrorMessage = Infer<typeof errorSchema>;
export type FileList = Infer<typeof fileListSchema>;
export type FileStatRequest = Infer<typeof fileStatSchema>;
export type FileRead = Infer<typeof fileReadSchema>;
export type FileRequest = FileList | FileStatRequest | FileRead;
export type FileReply = Infer<typeof fileReplySchema>;

export type MinionMessage = Hello | Ping | Pong | Return | Bye | JobStatus | GrainsMessage | FileRequest | PillarRequest | MineRequest | MinionEvent | StateProgress;
export type MasterMessage = Auth | Ping | Pong | Job | Ack | Acks | FindJob | ErrorMessage | Bye | FileReply | PillarReply | MineReply | MinionEventReply;

export const MINION_MESSAGES = new Map<
  string,
  | typeof helloSchema
  | typeof pingSchema
  | typeof pongSchema
  | typeof returnSchema
  | typeof byeSchema
  | typeof jobStatusSchema
  | typeof grainsSchema
  | typeof fileListSchema
  | typeof fileStatSchema
  | typeof fileReadSchema
  | typeof pillarRequestSchema
  | typeof mineSendSchema
  | typeof mineGetSchema
  | typeof mineDeleteSchema
  | typeof mineFlushSchema
  | typeof minionEventSchema
  | typeof stateProgressSchema
>([
  ['hello', helloSchema],
  ['ping', pingSchema],
  ['pong', pongSchema],
  ['return', returnSchema],
  ['bye', byeSchema],
  ['job_status', jobStatusSchema],
  ['grains', grainsSchema],
  ['file_list', fileListSchema],
  ['file_stat', fileStatSchema],
  ['file_read', fileReadSchema],
  ['pillar_request', pillarRequestSchema],
  ['mine_send', mineSendSchema],
  ['mine_get', mineGetSchema],
  ['mine_delete', mineDeleteSchema],
  ['mine_flush', mineFlushSchema],
  ['minion_event', minionEventSchema],
  ['state_progress', stateProgressSchema],
]);

export const MASTER_MESSAGES = new Map<
  string,
  | typeof authSchema
  | typeof pingSchema
  | typeof pongSchema
  | typeof jobSchema
  | typeof ackSchema
  | typeof acksSchema
  | typeof findJobSchema
  | typeof errorSchema
  | typeof byeSchema
  | typeof fileReplySchema
  | typeof pillarReplySchema
  | typeof mineReplySchema
  | typeof eventReplySchema
>([
  ['auth', authSchema],
  ['ping', pingSchema],
  ['pong', pongSchema],
  ['job', jobSchema],
  ['ack', ackSchema],
  ['acks', acksSchema],
  ['find_job', findJobSchema],
  ['error', errorSchema],
  ['bye', byeSchema],
  ['file_reply', fileReplySchema],
  ['pillar_reply', pillarReplySchema],
  ['mine_reply', mineReplySchema],
  ['event_reply', eventReplySchema],
]);

/** Why a connection ended; every close is recorded with one of these. */
export const CLOSE_REASONS = [
  'heartbeat_timeout',
  'peer_closed',
  'reset',
  'tls_error',
  'handshake_timeout',
  'auth_pending',
  'auth_busy',
  'auth_rejected',
  'auth_denied',
  'invalid_id',
  'master_key_changed',
  'replaced',
  'key_deleted',
  'shutdown',
  'failback',
  'frame_too_large',
  'protocol_error',
  'rate_limited',
  'write_failed',
  'connect_failed',
  'internal_error',
] as const;
export type CloseReason = (typeof CLOSE_REASONS)[number];
