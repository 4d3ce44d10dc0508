// Messages on the master's local control socket (CLI <-> master). Same framing and codec as
// the network protocol; the operations form an explicit allow-list (a Map of schemas).

import { s, type Infer } from './schema.js';
import { jobReturners, target, targetDelimiter, TARGET_TYPES } from './messages.js';
import { EVENT_KINDS } from './events.js';

const jid = s.string({ pattern: /^\d{20}$/ });
const wireError = s.object({ code: s.string({ max: 64 }), message: s.string({ max: 65_536 }) });

// ---- CLI -> master ----------------------------------------------------------------------

export const publishRequestSchema = s.object({
  t: s.literal('publish'),
  tgt: target,
  tgtType: s.oneOf(TARGET_TYPES),
  /** Key delimiter for grain and grain_pcre targets (`--delimiter`); absent = `:`. */
  delimiter: s.optional(targetDelimiter),
  fun: s.string({ max: 256 }),
  arg: s.array(s.json()),
  kwarg: s.record(s.json()),
  /** Seconds to wait for returns; 0 or absent = the master's `timeout`. */
  timeout: s.optional(s.number({ min: 0 })),
  /** Ignored from a client: the master records the user the socket's peer credentials name. */
  user: s.optional(s.string({ max: 256 })),
  /**
   * `brine api`: the API user the job is published for, recorded as the job's user. Taken only
   * from root and the master user (who may run anything anyway); refused from anyone else.
   */
  apiUser: s.optional(s.string({ min: 1, max: 256 })),
  /**
   * The job may run only on these minions: the target is evaluated among them alone. Set by the
   * ACL for a target-restricted user (the minions its entries allow); it can only narrow a job.
   */
  within: s.optional(s.array(s.string({ max: 1024 }), { max: 100_000 })),
  ...jobReturners,
});

export const sessionsRequestSchema = s.object({ t: s.literal('sessions') });

/** Subscribe to the event stream; the master sends `event` replies until the client leaves. */
export const eventsRequestSchema = s.object({ t: s.literal('events'), kinds: s.optional(s.array(s.oneOf(EVENT_KINDS), { max: 64 })) });

/** `brine key` changed the key store: the master re-checks live sessions against it at once. */
/** A key an operator accepted, rejected or deleted (the master fires Salt's salt/key for each). */
export const keyChangeSchema = s.object({ id: s.string({ min: 1, max: 256 }), act: s.oneOf(['accept', 'reject', 'delete'] as const) });
export const keysChangedRequestSchema = s.object({
  t: s.literal('keys_changed'),
  since: s.optional(s.number({ min: 0 })),
  changes: s.optional(s.array(keyChangeSchema, { max: 100_000 })),
});
export type KeyChange = Infer<typeof keyChangeSchema>;

// ---- for `brine api` (the REST API as its own process); root and the master user only ----

/** The accepted minions a target matches (as the API's ACL check and manage.match need them). */
export const matchRequestSchema = s.object({
  t: s.literal('match'),
  tgt: target,
  tgtType: s.string({ max: 32 }),
  delimiter: s.optional(targetDelimiter),
  /** Evaluate the target among these minions alone (a target-restricted API user's). */
  within: s.optional(s.array(s.string({ max: 1024 }), { max: 100_000 })),
});
/** Jobs whose returns are still awaited. */
export const activeJidsRequestSchema = s.object({ t: s.literal('active_jids') });
/** POST /hook/<path>: the master emits the api_hook event. */
export const emitHookRequestSchema = s.object({
  t: s.literal('emit_hook'),
  path: s.string({ max: 256 }),
  user: s.string({ max: 256 }),
  body: s.json(),
  /** The request body as sent and its headers (Salt's hook event carries both). */
  raw: s.optional(s.string()),
  headers: s.optional(s.json()),
});
/** `brine event send` (Salt's salt-run event.send) and `brine api`'s wheel events: fire `tag` with `data` on the master's bus. */
export const fireEventRequestSchema = s.object({ t: s.literal('fire_event'), tag: s.string({ min: 1, max: 1024 }), data: s.record(s.json()) });
/** The master's Prometheus metrics, as GET /metrics serves them. */
export const metricsRequestSchema = s.object({ t: s.literal('metrics') });
/** The reactor's recent reactions, newest first, as GET /reactions serves them (`brine api`). */
export const reactionsRequestSchema = s.object({ t: s.literal('reactions'), limit: s.int({ min: 1, max: 1000 }) });

/** `brine fileserver update`: fetch the gitfs remotes now (Salt's fileserver.update runner). */
export const fileserverUpdateRequestSchema = s.object({ t: s.literal('fileserver_update'), backend: s.optional(s.string({ max: 64 })) });
/** `brine git-pillar update`: fetch the git_pillar remotes now, or those of a branch and/or repo (Salt's git_pillar.update runner). */
export const gitPillarUpdateRequestSchema = s.object({ t: s.literal('git_pillar_update'), branch: s.optional(s.string({ max: 1024 })), repo: s.optional(s.string({ max: 4096 })) });

/**
 * `brine runner` (salt-run) and the API's runner client in `brine api`: the master runs the runner
 * function as a job (salt/run/<jid>/new and ret, the job cache). `async`: answered with the jid at
 * once. `apiUser` as for publish: root and the master user only.
 */
export const runnerRequestSchema = s.object({
  t: s.literal('runner'),
  fun: s.string({ min: 1, max: 256 }),
  arg: s.array(s.json()),
  kwarg: s.record(s.json()),
  async: s.optional(s.bool()),
  /** salt-run -t: seconds the jobs the runner sends wait for returns (absent: the master's timeout). */
  timeout: s.optional(s.number({ min: 0 })),
  apiUser: s.optional(s.string({ min: 1, max: 256 })),
});

type ControlRequestSchema =
  | typeof reactionsRequestSchema
  | typeof runnerRequestSchema
  | typeof publishRequestSchema
  | typeof sessionsRequestSchema
  | typeof eventsRequestSchema
  | typeof keysChangedRequestSchema
  | typeof matchRequestSchema
  | typeof activeJidsRequestSchema
  | typeof emitHookRequestSchema
  | typeof fireEventRequestSchema
  | typeof metricsRequestSchema
  | typeof fileserverUpdateRequestSchema
  | typeof gitPillarUpdateRequestSchema;

export const CONTROL_REQUESTS = new Map<string, ControlRequestSchema>([
  ['publish', publishRequestSchema],
  ['sessions', sessionsRequestSchema],
  ['events', eventsRequestSchema],
  ['keys_changed', keysChangedRequestSchema],
  ['match', matchRequestSchema],
  ['active_jids', activeJidsRequestSchema],
  ['emit_hook', emitHookRequestSchema],
  ['fire_event', fireEventRequestSchema],
  ['metrics', metricsRequestSchema],
  ['fileserver_update', fileserverUpdateRequestSchema],
  ['git_pillar_update', gitPillarUpdateRequestSchema],
  ['runner', runnerRequestSchema],
  ['reactions', reactionsRequestSchema],
]);

export type PublishRequest = Infer<typeof publishRequestSchema>;
export type SessionsRequest = Infer<typeof sessionsRequestSchema>;
export type EventsRequest = Infer<typeof eventsRequestSchema>;
export type KeysChangedRequest = Infer<typeof keysChangedRequestSchema>;
export type MatchRequest = Infer<typeof matchRequestSchema>;
export type ActiveJidsRequest = Infer<typeof activeJidsRequestSchema>;
export type EmitHookRequest = Infer<typeof emitHookRequestSchema>;
export type FireEventRequest = Infer<typeof fireEventRequestSchema>;
export type MetricsRequest = Infer<typeof metricsRequestSchema>;
export type FileserverUpdateRequest = Infer<typeof fileserverUpdateRequestSchema>;
export type GitPillarUpdateRequest = Infer<typeof gitPillarUpdateRequestSchema>;
export type RunnerRequest = Infer<typeof runnerRequestSchema>;
export type ReactionsRequest = Infer<typeof reactionsRequestSchema>;
export type ControlRequest =
  | ReactionsRequest
  | RunnerRequest
  | PublishRequest
  | SessionsRequest
  | EventsRequest
  | KeysChangedRequest
  | MatchRequest
  | ActiveJidsRequest
  | EmitHookRequest
  | FireEventRequest
  | MetricsRequest
  | FileserverUpdateRequest
  | GitPillarUpdateRequest;

// ---- master -> CLI ----------------------------------------------------------------------

export const publishedSchema = s.object({
  t: s.literal('published'),
  jid,
  /** Every expected minion (accepted keys matching the target). */
  minions: s.array(s.string()),
  /** Expected minions with no live session: reported at once, never waited for. */
  notConnected: s.array(s.string()),
  /** List-target entries that are not accepted minions. */
  missing: s.array(s.string()),
});

export const jobReturnSchema = s.object({
  t: s.literal('ret'),
  jid,
  minion: s.string(),
  fun: s.string(),
  ret: s.json(),
  retcode: s.int(),
  success: s.bool(),
  error: s.optional(wireError),
});

export const jobDoneSchema = s.object({
  t: s.literal('done'),
  jid,
  /** Connected minions that did not return within the timeout. */
  noResponse: s.array(s.string()),
  /** Why the wait ended early: the master is stopping, so noResponse had no chance to return. */
  reason: s.optional(s.oneOf(['master_shutdown'] as const)),
});

export const sessionInfoSchema = s.object({
  id: s.string(),
  state: s.string(),
  remote: s.optional(s.string()),
  connectedSince: s.optional(s.number()),
  lastSeen: s.optional(s.number()),
  agent: s.optional(s.string()),
  protocol: s.optional(s.int()),
  rttMs: s.optional(s.number()),
  /** Messages of the current (or, when disconnected, the last) session dropped by minion_msg_rate. */
  droppedMessages: s.optional(s.int({ min: 0 })),
  reconnects: s.int(),
  lastDisconnectReason: s.optional(s.string()),
  lastDisconnectAt: s.optional(s.number()),
  /** Unplanned disconnects in the last hour (not shutdown or failback). */
  drops: s.optional(s.int({ min: 0 })),
  /** Three or more unplanned disconnects in the last hour. */
  flapping: s.optional(s.bool()),
  /** Median time the connection had been up before each drop. */
  typicalConnectedMs: s.optional(s.number()),
  /** Median time nothing had arrived before each drop. */
  typicalSilentMs: s.optional(s.number()),
  dropReasons: s.optional(s.array(s.string())),
});

export const sessionsSchema = s.object({ t: s.literal('sessions'), sessions: s.array(sessionInfoSchema) });

export const eventSchema = s.object({ t: s.literal('event'), tag: s.string(), data: s.record(s.json()) });

export const controlErrorSchema = s.object({ t: s.literal('error'), code: s.string(), message: s.string() });

/** Answer to keys_changed: the sessions that were closed because their key is gone. */
export const keysReconciledSchema = s.object({ t: s.literal('keys_reconciled'), closed: s.array(s.string()) });

export const matchedSchema = s.object({ t: s.literal('matched'), matched: s.array(s.string()), missing: s.array(s.string()) });
export const activeJidsSchema = s.object({ t: s.literal('active_jids'), jids: s.array(jid) });
export const hookEmittedSchema = s.object({ t: s.literal('hook_emitted') });
/** The answer to fire_event: the tag was fired. */
export const eventFiredSchema = s.object({ t: s.literal('event_fired'), tag: s.string({ max: 1024 }) });
export type EventFired = Infer<typeof eventFiredSchema>;
export const metricsSchema = s.object({ t: s.literal('metrics'), text: s.string({ max: 32 * 1024 * 1024 }), contentType: s.string({ max: 256 }) });
/** The answer to reactions: each reaction as GET /reactions lists it (src/api's ReactionView). */
export const reactionsSchema = s.object({
  t: s.literal('reactions'),
  reactions: s.array(
    s.object({
      at: s.number({ min: 0 }),
      tag: s.string({ max: 1024 }),
      sls: s.string({ max: 4096 }),
      id: s.optional(s.string({ max: 1024 })),
      fun: s.optional(s.string({ max: 256 })),
      outcome: s.string({ max: 64 }),
      jid: s.optional(jid),
      error: s.optional(wireError),
    }),
    { max: 1000 },
  ),
});

/** The answer to fileserver_update: each gitfs remote fetched, with git's message when it failed. */
const remoteUpdates = s.array(s.object({ remote: s.string({ max: 4096 }), ok: s.bool(), changed: s.bool(), error: s.optional(s.string({ max: 65_536 })) }), { max: 10_000 });
export const fileserverUpdatedSchema = s.object({ t: s.literal('fileserver_updated'), remotes: remoteUpdates });
/** The answer to git_pillar_update: each git_pillar remote fetched (`<branch> <URL>`), with git's message when it failed. */
export const gitPillarUpdatedSchema = s.object({ t: s.literal('git_pillar_updated'), remotes: remoteUpdates });

/**
 * The answer to runner: the runner job's jid and, unless it was `async`, its return, success and
 * retcode (Salt's salt-run exit status).
 */
export const runnerRetSchema = s.object({
  t: s.literal('runner_ret'),
  jid,
  done: s.bool(),
  return: s.optional(s.json()),
  success: s.optional(s.bool()),
  retcode: s.optional(s.int()),
  /** The coded error of a runner that failed (the API answers with it). */
  error: s.optional(wireError),
});

export type Published = Infer<typeof publishedSchema>;
export type JobReturn = Infer<typeof jobReturnSchema>;
export type JobDone = Infer<typeof jobDoneSchema>;
export type SessionInfo = Infer<typeof sessionInfoSchema>;
export type SessionsReply = Infer<typeof sessionsSchema>;
export type ControlError = Infer<typeof controlErrorSchema>;
export interface EventReply {
  t: 'event';
  tag: string;
  data: Readonly<Record<string, unknown>>;
}
export type KeysReconciled = Infer<typeof keysReconciledSchema>;
export type Matched = Infer<typeof matchedSchema>;
export type ActiveJidsReply = Infer<typeof activeJidsSchema>;
export type HookEmitted = Infer<typeof hookEmittedSchema>;
export type MetricsReply = Infer<typeof metricsSchema>;
export type FileserverUpdated = Infer<typeof fileserverUpdatedSchema>;
export type RunnerRet = Infer<typeof runnerRetSchema>;
export type ReactionsReply = Infer<typeof reactionsSchema>;
export type GitPillarUpdated = Infer<typeof gitPillarUpdatedSchema>;
export type ControlReply =
  | ReactionsReply
  | RunnerRet
  | EventFired
  | Published
  | JobReturn
  | JobDone
  | SessionsReply
  | EventReply
  | KeysReconciled
  | ControlError
  | Matched
  | ActiveJidsReply
  | HookEmitted
  | MetricsReply
  | FileserverUpdated
  | GitPillarUpdated;

export const CONTROL_REPLIES = new Map<
  string,
  | typeof reactionsSchema
  | typeof runnerRetSchema
  | typeof eventFiredSchema
  | typeof publishedSchema
  | typeof jobReturnSchema
  | typeof jobDoneSchema
  | typeof sessionsSchema
  | typeof eventSchema
  | typeof keysReconciledSchema
  | typeof controlErrorSchema
  | typeof matchedSchema
  | typeof activeJidsSchema
  | typeof hookEmittedSchema
  | typeof metricsSchema
  | typeof fileserverUpdatedSchema
  | typeof gitPillarUpdatedSchema
>([
  ['runner_ret', runnerRetSchema],
  ['reactions', reactionsSchema],
  ['event_fired', eventFiredSchema],
  ['fileserver_updated', fileserverUpdatedSchema],
  ['git_pillar_updated', gitPillarUpdatedSchema],
  ['matched', matchedSchema],
  ['active_jids', activeJidsSchema],
  ['hook_emitted', hookEmittedSchema],
  ['metrics', metricsSchema],
  ['event', eventSchema],
  ['keys_reconciled', keysReconciledSchema],
  ['published', publishedSchema],
  ['ret', jobReturnSchema],
  ['done', jobDoneSchema],
  ['sessions', sessionsSchema],
  ['error', controlErrorSchema],
]);

// ---- the minion's control socket (`brine doctor` <-> minion daemon) -----------------------
// A separate allow-list: the minion's status (read-only) and `brine call`'s local job.

export const minionStatusRequestSchema = s.object({ t: s.literal('minion_status') });

export const masterLinkStatusSchema = s.object({
  /** The master in use or being tried, host:port. */
  endpoint: s.string({ max: 1024 }),
  /** idle, connecting, ready, probing (ready, failback probe running), reconnecting (NATS: the client moves to another server), waiting or stopped. */
  state: s.string({ max: 32 }),
  /** The state of the current connection attempt (resolving ... ready, closed). */
  connection: s.optional(s.string({ max: 32 })),
  /** The address the master's name resolved to on the current connection. */
  address: s.optional(s.string({ max: 256 })),
  /** The master's key fingerprint on the current connection. */
  masterFingerprint: s.optional(s.string({ max: 128 })),
  /** When the current connection became ready (ms since the epoch). */
  connectedSince: s.optional(s.number()),
  /** The last heartbeat round trip, ms. */
  rttMs: s.optional(s.number({ min: 0 })),
  /** Connections that became ready after the first one, since the minion started. */
  reconnects: s.int({ min: 0 }),
  /** Connection attempts since the minion started. */
  attempts: s.int({ min: 0 }),
  /** Why the last connection or attempt ended. */
  lastDownReason: s.optional(s.string({ max: 64 })),
});

export const minionStatusSchema = s.object({
  t: s.literal('minion_status'),
  id: s.string({ max: 1024 }),
  /** When the daemon started (ms since the epoch). */
  startedAt: s.number(),
  links: s.array(masterLinkStatusSchema, { max: 1024 }),
  /** Returns kept on disk until a master acknowledges them. */
  returnQueue: s.int({ min: 0 }),
  /** Returns dropped because the queue was full, since the daemon started. */
  returnsDropped: s.int({ min: 0 }),
  /** Masters refused now: not trusted (changed key, refusal before first sign-in) or rejecting this minion. */
  refusedMasters: s.optional(
    s.array(
      s.object({
        master: s.string({ max: 1024 }),
        code: s.string({ max: 64 }),
        message: s.string({ max: 4096 }),
        /** When the refusals began (ms since the epoch). */
        since: s.number(),
      }),
      { max: 1024 },
    ),
  ),
  /** The scheduler (issue 10): jobs of the schedule that cannot run, with their coded error. */
  scheduleErrors: s.optional(s.array(s.object({ job: s.string({ max: 256 }), code: s.string({ max: 64 }), message: s.string({ max: 4096 }) }), { max: 1024 })),
  // --- custom modules (saltutil.sync_*) ---
  /** Synced custom modules, states or grains that failed at their last load, by file. */
  customModuleProblems: s.optional(s.array(s.object({ file: s.string({ max: 4096 }), reason: s.string({ max: 4096 }) }), { max: 1024 })),
  /** The last mine.update (docs/mine.md): when, how many entries were sent, and each that failed. */
  mine: s.optional(
    s.object({
      lastUpdate: s.number(),
      sent: s.int({ min: 0 }),
      failed: s.array(s.object({ name: s.string({ max: 256 }), code: s.string({ max: 64 }), message: s.string({ max: 4096 }) }), { max: 1000 }),
    }),
  ),
});

/**
 * `brine call` without --local (salt-call against the master): run one function as a local job
 * of the running minion, through its master session (file server, pillar, mine). Only root and
 * the minion's own user may ask (the socket's peer credentials).
 */
export const minionCallRequestSchema = s.object({
  t: s.literal('minion_call'),
  fun: s.string({ min: 1, max: 256 }),
  arg: s.array(s.json()),
  kwarg: s.record(s.json()),
  /** salt-call --no-return-event: the return is not sent to the master's job cache. */
  noReturnEvent: s.optional(s.bool()),
});

/** The call's outcome, as a job return (the CLI prints it under `local:`). */
export const minionCallReplySchema = s.object({
  t: s.literal('call_return'),
  /** The minion's jid for the run; the master stores its return under a jid of its own. */
  jid,
  ret: s.json(),
  retcode: s.int(),
  success: s.bool(),
  error: s.optional(wireError),
});

// `fire_event` (answered by `event_fired`) on the minion's socket: `brine call event.fire` in a
// process of its own puts the event on the running daemon's bus, as salt-call's event.fire writes
// to the minion's IPC socket (its reactor and beacons hear it). Same schemas as the master's.
export const MINION_CONTROL_REQUESTS = new Map<string, typeof minionStatusRequestSchema | typeof minionCallRequestSchema | typeof fireEventRequestSchema>([
  ['minion_status', minionStatusRequestSchema],
  ['minion_call', minionCallRequestSchema],
  ['fire_event', fireEventRequestSchema],
]);

export const MINION_CONTROL_REPLIES = new Map<string, typeof minionStatusSchema | typeof minionCallReplySchema | typeof eventFiredSchema | typeof controlErrorSchema>([
  ['minion_status', minionStatusSchema],
  ['call_return', minionCallReplySchema],
  ['event_fired', eventFiredSchema],
  ['error', controlErrorSchema],
]);

export type MinionStatusRequest = Infer<typeof minionStatusRequestSchema>;
export type MasterLinkStatus = Infer<typeof masterLinkStatusSchema>;
export type MinionStatus = Infer<typeof minionStatusSchema>;
export type MinionCallRequest = Infer<typeof minionCallRequestSchema>;
export type MinionCallReply = Infer<typeof minionCallReplySchema>;
export type MinionControlRequest = MinionStatusRequest | MinionCallRequest | Infer<typeof fireEventRequestSchema>;
export type MinionControlReply = MinionStatus | MinionCallReply | Infer<typeof eventFiredSchema> | ControlError;
