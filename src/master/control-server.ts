// The master's control socket: the CLI's only way in. Requests are dispatched through an
// explicit Map of operations; anything else is answered with UNKNOWN_METHOD. Each connection's
// peer is known from the kernel (SO_PEERCRED); every request is first decided by decideControl
// (publisher_acl), and a denial is answered with its code and logged once.

import { BrineError, toBrineError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import {
  CONTROL_REQUESTS,
  type ActiveJidsRequest,
  type ControlReply,
  type ControlRequest,
  type EmitHookRequest,
  type FireEventRequest,
  type EventsRequest,
  type FileserverUpdated,
  type FileserverUpdateRequest,
  type GitPillarUpdateRequest,
  type KeysChangedRequest,
  type MatchRequest,
  type MetricsRequest,
  type PublishRequest,
  type SessionsRequest,
  type RunnerRequest,
  type ReactionsRequest,
} from '../protocol/index.js';
import type { ReactionView, RunnerReply } from '../api/index.js';
import { checkedHookPath } from '../api/index.js';
import { listenUnix, type FramedSocket, type UnixListener, type UnixPeer } from '../transport/index.js';
import type { LocalAccount } from '../util/local-account.js';
import { printable } from '../util/printable.js';
import { decideControl, describeTarget, type PublisherPolicy } from './publisher-acl.js';
import type { JobSink, JobTracker } from './job-tracker.js';
import type { EventBus } from './event-bus.js';
import { hookMeta, type SessionInfo } from '../protocol/index.js';

type ControlChannel = FramedSocket<ControlRequest, ControlReply>;

/** Largest request a peer other than root and the master user may send (root keeps 64 MiB). */
export const UNPRIVILEGED_MAX_FRAME = 1024 * 1024;
/** Connections one such uid may hold open at once (a `brine run -b` needs two). */
export const UNPRIVILEGED_MAX_CONNECTIONS = 32;

export interface ControlDeps {
  logger: Logger;
  jobs: JobTracker;
  /** Every accepted minion with its presence, connected or not. */
  presence(): SessionInfo[];
  events: EventBus;
  /** Closes sessions whose key is no longer accepted; returns their IDs and those closed for that since `since` (ms). */
  reconcileKeys(since?: number): string[];
  access: ControlAccess;
  /** The accepted minions a target matches (TARGET_INVALID for a malformed one); for `brine api`. */
  match(tgt: string | string[], tgtType: string, delimiter?: string, within?: readonly string[]): { matched: string[]; missing: string[] };
  /** The Prometheus text and its content type; for `brine api`. */
  metrics(): Promise<{ text: string; contentType: string }>;
  /** `brine fileserver update`: fetches the gitfs remotes now; absent when the master has no file server yet. */
  fileserverUpdate?(backend?: string): Promise<{ remote: string; ok: boolean; changed: boolean; error?: string }[]>;
  /** `brine git-pillar update`: fetches the git_pillar remotes now (those matching branch and repo). */
  gitPillarUpdate?(branch?: string, repo?: string): Promise<{ remote: string; ok: boolean; changed: boolean; error?: string }[]>;
  /** `brine runner` (and `brine api`'s runner client): runs a runner function as a job. */
  runner(req: { fun: string; arg: unknown[]; kwarg: Record<string, unknown>; user: string; async?: boolean; timeout?: number }): Promise<RunnerReply>;
  /** The reactor's recent reactions, newest first (empty without `reactor:`); for `brine api`'s GET /reactions. */
  reactions(limit: number): ReactionView[];
  clock: { now(): number };
}

export interface ControlAccess {
  policy: PublisherPolicy;
  /** sock_group's gid: members may connect (and then run what publisher_acl allows). */
  group?: number;
  /** The uid the master runs as now (it may have switched to `user:` after listening). */
  masterUid(): number;
  /** The peer's name and groups, read when it connects. */
  account(uid: number, gid: number): LocalAccount;
  /** The expected minions of a target, for target-restricted ACL entries. */
  minionsOf(tgt: string | string[], tgtType: string, delimiter?: string, within?: ReadonlySet<string>): string[];
}

/** Who sent a request: the account the kernel names, and the connecting process. */
interface ControlPeer {
  account: LocalAccount;
  pid: number;
}

type Handler<R> = (req: R, channel: ControlChannel, peer: ControlPeer) => void;

/** The publish limited to `within` (and to any `within` the client sent itself: it can only narrow). */
function narrowed(req: PublishRequest, within: string[] | undefined): PublishRequest {
  if (within === undefined) return req;
  const own = req.within === undefined ? undefined : new Set(req.within);
  return { ...req, within: own === undefined ? within : within.filter((id) => own.has(id)) };
}

export async function startControlServer(socketPath: string, deps: ControlDeps): Promise<UnixListener> {
  const handlers = new Map<string, Handler<never>>();
  const on = <R extends ControlRequest>(name: R['t'], fn: Handler<R>) => handlers.set(name, fn as Handler<never>);
  const { access } = deps;
  const isPrivileged = (peer: ControlPeer): boolean => peer.account.uid === 0 || peer.account.uid === access.masterUid();

  on<PublishRequest>('publish', (req, channel, peer) => {
    const sink: JobSink = {
      onReturn: (ret) => channel.send(ret),
      onDone: (done) => {
        channel.send(done);
        channel.close('shutdown');
      },
    };
    const { apiUser, ...job } = req;
    if (apiUser !== undefined && !isPrivileged(peer)) {
      throw new BrineError('CONTROL_DENIED', `only root and the master's user may publish for an API user (apiUser); user ${peer.account.name} may publish only as itself`);
    }
    channel.onClose((info) => {
      deps.jobs.unsubscribe(sink);
      // the CLI sees only its socket end: say here that it was closed for not taking the returns
      if (info.reason === 'write_failed')
        deps.logger.warn({ user: peer.account.name, code: 'write_failed' }, `closed a control connection streaming a job's returns: ${info.error?.message ?? 'the write failed'}`);
    });
    // the job is recorded under the peer's real name: a `user` the client sent is never used
    // (`brine api`, running as root or the master user, names the API user it publishes for)
    channel.send(deps.jobs.publish({ ...job, user: apiUser ?? peer.account.name }, sink));
  });

  on<SessionsRequest>('sessions', (_req, channel) => {
    channel.send({ t: 'sessions', sessions: deps.presence() });
    channel.close('shutdown');
  });

  on<KeysChangedRequest>('keys_changed', (req, channel, peer) => {
    // salt/key drives reactors: only the key store's owners (root, the master's user) may announce changes
    if (isPrivileged(peer)) for (const c of req.changes ?? []) deps.events.emit({ kind: 'key_changed', id: c.id, act: c.act, at: deps.clock.now() });
    channel.send({ t: 'keys_reconciled', closed: deps.reconcileKeys(req.since) });
    channel.close('shutdown');
  });

  on<MatchRequest>('match', (req, channel) => {
    const { matched, missing } = deps.match(req.tgt, req.tgtType, req.delimiter, req.within);
    channel.send({ t: 'matched', matched, missing });
    channel.close('shutdown');
  });

  on<ActiveJidsRequest>('active_jids', (_req, channel) => {
    channel.send({ t: 'active_jids', jids: deps.jobs.activeJids() });
    channel.close('shutdown');
  });

  on<EmitHookRequest>('emit_hook', (req, channel) => {
    deps.events.emit({ kind: 'api_hook', path: checkedHookPath(req.path), user: req.user, body: req.body, ...hookMeta(req.raw, req.headers), at: deps.clock.now() });
    channel.send({ t: 'hook_emitted' });
    channel.close('shutdown');
  });

  on<FireEventRequest>('fire_event', (req, channel) => {
    deps.events.fire(req.tag, req.data);
    channel.send({ t: 'event_fired', tag: req.tag });
    channel.close('shutdown');
  });

  on<MetricsRequest>('metrics', (_req, channel) => {
    deps.metrics().then(
      (m) => {
        channel.send({ t: 'metrics', ...m });
        channel.close('shutdown');
      },
      (err) => {
        deps.logger.error({ err }, 'rendering the metrics for the control socket failed');
        channel.send({ t: 'error', code: 'INTERNAL', message: 'the master could not render its metrics; see its log' });
        channel.close('shutdown');
      },
    );
  });

  /** Answers an update of git remotes (gitfs or git_pillar) with each remote's outcome, or the error. */
  const answerUpdate = (channel: ControlChannel, running: Promise<FileserverUpdated['remotes']>, t: 'fileserver_updated' | 'git_pillar_updated'): void => {
    running.then(
      (remotes) => {
        channel.send({ t, remotes });
        channel.close('shutdown');
      },
      (err) => {
        const e = toBrineError(err);
        if (e.code === 'INTERNAL') deps.logger.error({ err: e }, `${t === 'fileserver_updated' ? 'fileserver' : 'git_pillar'} update failed`);
        channel.send({ t: 'error', code: e.code, message: e.message });
        channel.close('shutdown');
      },
    );
  };

  on<FileserverUpdateRequest>('fileserver_update', (req, channel) => {
    const update = deps.fileserverUpdate;
    if (update === undefined) throw new BrineError('FILESERVER_UNAVAILABLE', 'the master has not started its file server yet; try again in a moment');
    answerUpdate(channel, update(req.backend), 'fileserver_updated');
  });

  on<GitPillarUpdateRequest>('git_pillar_update', (req, channel) => {
    const update = deps.gitPillarUpdate;
    if (update === undefined) throw new BrineError('FILESERVER_UNAVAILABLE', 'the master has not started its git_pillar remotes yet; try again in a moment');
    answerUpdate(channel, update(req.branch, req.repo), 'git_pillar_updated');
  });

  on<RunnerRequest>('runner', (req, channel, peer) => {
    if (req.apiUser !== undefined && !isPrivileged(peer)) {
      throw new BrineError('CONTROL_DENIED', `only root and the master's user may run a runner for an API user (apiUser); user ${peer.account.name} may run only as itself`);
    }
    // recorded under the peer's real name, or the API user `brine api` names
    const user = req.apiUser ?? peer.account.name;
    deps.runner({ fun: req.fun, arg: req.arg, kwarg: req.kwarg, user, ...(req.async === undefined ? {} : { async: req.async }), ...(req.timeout === undefined ? {} : { timeout: req.timeout }) }).then(
      (r) => {
        channel.send(
          r.done
            ? { t: 'runner_ret', jid: r.jid, done: true, return: r.return as never, success: r.success, retcode: r.retcode, ...(r.error ? { error: r.error } : {}) }
            : { t: 'runner_ret', jid: r.jid, done: false },
        );
        channel.close('shutdown');
      },
      (err) => {
        const e = toBrineError(err);
        if (e.code === 'INTERNAL') deps.logger.error({ err: e, fun: req.fun }, 'runner request failed');
        channel.send({ t: 'error', code: e.code, message: e.message });
        channel.close('shutdown');
      },
    );
  });

  on<ReactionsRequest>('reactions', (req, channel) => {
    channel.send({ t: 'reactions', reactions: deps.reactions(req.limit) });
    channel.close('shutdown');
  });

  on<EventsRequest>('events', (req, channel) => {
    const sub = deps.events.subscribe(({ tag, data }) => {
      if (!channel.send({ t: 'event', tag, data })) sub.dispose();
    }, req.kinds);
    channel.onClose(() => sub.dispose());
  });

  /**
   * Throws the coded refusal (after logging it) unless the peer may make this request; returns
   * the request to carry out: a target-restricted user's publish runs only on its own minions.
   */
  const authorize = (req: ControlRequest, peer: ControlPeer): ControlRequest => {
    const minionsOf = (tgt: string | string[], tgtType: string, within?: ReadonlySet<string>) => access.minionsOf(tgt, tgtType, req.t === 'publish' ? req.delimiter : undefined, within);
    const decision = decideControl(access.policy, peer.account, access.masterUid(), req, minionsOf);
    if (decision.allowed) return req.t === 'publish' ? narrowed(req, decision.within) : req;
    const { account, pid } = peer;
    const target = req.t === 'publish' ? describeTarget(req) : undefined;
    const fun = req.t === 'publish' ? req.fun : req.t;
    deps.logger.warn(
      { user: account.name, uid: account.uid, peer_pid: pid, op: req.t, fun, tgt: target, tgtType: req.t === 'publish' ? req.tgtType : undefined, code: decision.code },
      `control request denied: user ${printable(account.name)} (uid ${account.uid}, pid ${pid}) may not run ${printable(fun)}${target === undefined ? '' : ` on target ${printable(target)}`}: ${printable(decision.reason)}`,
    );
    throw new BrineError(decision.code, `${decision.reason}; ${decision.fix}`, { details: { user: account.name, fun, ...(target === undefined ? {} : { tgt: target }) } });
  };

  /** Open connections of each unprivileged uid. */
  const openByUid = new Map<number, number>();

  const peerOf = (peer: UnixPeer): ControlPeer | undefined => {
    if ('error' in peer) {
      // without a group only the master's user and root can open the socket at all (mode 0600)
      if (access.group !== undefined) return undefined;
      const uid = access.masterUid();
      return { account: access.account(uid, process.getgid?.() ?? uid), pid: 0 };
    }
    return { account: access.account(peer.uid, peer.gid), pid: peer.pid };
  };

  return listenUnix<ControlRequest, ControlReply>(
    socketPath,
    CONTROL_REQUESTS,
    (channel, unixPeer) => {
      const peer = peerOf(unixPeer);
      if (peer === undefined) {
        deps.logger.error({ err: 'error' in unixPeer ? unixPeer.error.message : '' }, 'control connection refused: its peer credentials (SO_PEERCRED) could not be read, so it cannot be authorised');
      } else if (!isPrivileged(peer)) {
        // sock_group members cost the master a bounded amount: small frames, few connections each
        channel.setMaxFrame(UNPRIVILEGED_MAX_FRAME);
        const open = (openByUid.get(peer.account.uid) ?? 0) + 1;
        openByUid.set(peer.account.uid, open);
        channel.onClose(() => {
          const left = (openByUid.get(peer.account.uid) ?? 1) - 1;
          if (left <= 0) openByUid.delete(peer.account.uid);
          else openByUid.set(peer.account.uid, left);
        });
        if (open > UNPRIVILEGED_MAX_CONNECTIONS) {
          // one line when the user reaches the cap, not one per refused connection (a flood would flood the log)
          if (open === UNPRIVILEGED_MAX_CONNECTIONS + 1)
            deps.logger.warn(
              { user: peer.account.name, uid: peer.account.uid, peer_pid: peer.pid, open },
              `control connection refused: user ${printable(peer.account.name)} (uid ${peer.account.uid}, pid ${peer.pid}) already has ${open - 1} open; find what keeps them open`,
            );
          channel.send({
            t: 'error',
            code: 'CONTROL_DENIED',
            message: `too many control connections from user '${peer.account.name}' (at most ${UNPRIVILEGED_MAX_CONNECTIONS} at a time); wait for your other brine commands to finish`,
          });
          channel.close('shutdown');
          return;
        }
      }
      channel.onMessage((req) => {
        const handler = handlers.get(req.t) as Handler<ControlRequest> | undefined;
        try {
          if (!handler) throw new BrineError('UNKNOWN_METHOD', `unknown control operation "${req.t}"`);
          if (peer === undefined) throw new BrineError('CONTROL_DENIED', 'the master cannot tell which user connected (SO_PEERCRED failed); run the CLI as root or the master user');
          handler(authorize(req, peer), channel, peer);
        } catch (err) {
          const e = toBrineError(err);
          if (e.code === 'INTERNAL') deps.logger.error({ err: e }, 'control request failed');
          channel.send({ t: 'error', code: e.code, message: e.message });
          channel.close('shutdown');
        }
      });
    },
    access.group === undefined ? {} : { group: access.group },
  );
}
