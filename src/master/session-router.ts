// Routes every minion session's moments to the master's feature list: a sign-in is `ready`, a
// close after sign-in is `down`, each message is offered to the features in order. What happens
// before sign-in (the verdict, and the refusal log of connections that never signed in) stays here.

import { BrineError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import type { TimerWheel } from '../util/timer-wheel.js';
import type { MasterOptions } from '../config/index.js';
import type { ChannelClose, MinionMessage } from '../protocol/index.js';
import { sourceKey } from '../transport/index.js';
import type { FeatureErrorHandler, FeatureList } from '../util/features.js';
import type { AuthAdmission } from './admission.js';
import type { LiveSessions } from './live-sessions.js';
import type { MinionSession, MinionSessionHooks, MinionSessionSettings } from './minion-session.js';
import type { RefusalLog } from './refusal-log.js';
import type { SignIn } from './sign-in.js';

/**
 * What a feature hook threw. Within a session's moment it is thrown again once every feature had
 * the moment, so the session closes itself with internal_error (and logs it) as it always did;
 * outside one (start, stop) it is logged.
 */
export class HookFailures {
  private depth = 0;
  private failure: { err: unknown } | undefined;
  /** The first feature that failed to stop: the master still stops the others, then reports it. */
  stopFailure: { err: unknown } | undefined;

  constructor(private readonly logger: Logger) {}

  readonly onError: FeatureErrorHandler = (feature, hook, err) => {
    if (this.depth > 0) {
      this.failure ??= { err };
      return;
    }
    if (hook === 'stop') this.stopFailure ??= { err };
    this.logger.error({ err, feature, hook }, `master feature ${feature}: ${hook} failed`);
  };

  /** Runs one session moment; rethrows the first failure of its hooks. */
  within<T>(moment: () => T): T {
    const outer = this.failure;
    this.failure = undefined;
    this.depth++;
    let result: T;
    try {
      result = moment();
    } finally {
      this.depth--;
    }
    const failed = this.swap(outer);
    if (failed) throw failed.err;
    return result;
  }

  /** Restores the outer moment's failure and returns this one's (a method: hooks set it meanwhile). */
  private swap(outer: { err: unknown } | undefined): { err: unknown } | undefined {
    const failed = this.failure;
    this.failure = outer;
    return failed;
  }
}

export interface SessionRouterDeps {
  /** The master's feature list (built after the transports that carry sessions to it). */
  features(): FeatureList<MinionSession, MinionMessage>;
  failures: HookFailures;
  live: LiveSessions;
  authorize: SignIn;
  probe: SignIn;
  admission: AuthAdmission;
  refusals: RefusalLog;
  logger: Logger;
}

/** What every session is built with: timeouts, frame and rate limits, one shared heartbeat wheel. */
export function sessionSettings(opts: MasterOptions, masterFingerprint: string, heartbeatTimers: TimerWheel): MinionSessionSettings {
  return {
    heartbeatTimers,
    handshakeTimeoutMs: opts.handshake_timeout * 1000,
    heartbeatIntervalMs: opts.heartbeat_interval * 1000,
    heartbeatTimeoutMs: opts.heartbeat_timeout * 1000,
    maxFrame: opts.max_frame_size,
    masterFingerprint,
    ackCarryDelayMs: opts.ack_carry_delay * 1000,
    messageRate: { ratePerSecond: opts.minion_msg_rate, burst: opts.minion_msg_burst, graceSeconds: opts.minion_msg_grace },
  };
}

/** One hooks object for every session (each session passes itself), not closures per session. */
export function sessionHooks(deps: SessionRouterDeps): MinionSessionHooks {
  const { features, failures, live, admission, refusals, logger } = deps;
  const offer = (message: MinionMessage, s: MinionSession): void => {
    if (!failures.within(() => features().message(message, s))) logger.debug({ id: s.id, t: message.t }, `no master feature handles "${message.t}" from ${s.id}`);
  };
  return {
    authorize: (hello, ch) => deps.authorize(hello, ch.peerPublicKeyPem, ch.remoteAddress, ch.peerFingerprint),
    probe: (hello, ch) => deps.probe(hello, ch.peerPublicKeyPem, ch.remoteAddress),
    onAuthenticated: (s) => {
      live.signedIn(s);
      failures.within(() => features().ready(s));
    },
    onReturn: (s, ret) => offer(ret, s),
    onJobStatus: (s, status) => offer(status, s),
    onGrains: (s, grains) => offer({ t: 'grains', grains }, s),
    onFileRequest: (s, req) => offer(req, s),
    onPillarRequest: (s, req) => offer(req, s),
    onMineRequest: (s, req) => offer(req, s),
    onMinionEvent: (s, event) => offer(event, s),
    onStateProgress: (s, progress) => offer(progress, s),
    onHeartbeat: (s, ping) => offer(ping, s),
    onClosed: (s, info, authenticated) => {
      live.closed(s);
      if (authenticated) {
        failures.within(() => features().down(s, info.reason));
        return;
      }
      // a malformed or unexpected first message spends its source's sign-in budget too
      if (info.reason === 'protocol_error' || info.reason === 'frame_too_large') admission.charge(sourceKey(s.remoteAddress));
      if (!s.probed) logUnauthenticatedClose(refusals, logger, s.remoteAddress, info);
    },
  };
}

// Auth outcomes are logged by authorize(); every other pre-auth close (oversized frame, bad
// JSON, no hello in time, a peer hanging up mid-frame) is logged here, so an operator can see
// who pokes at the port and why it was turned away.
function logUnauthenticatedClose(refusals: RefusalLog, logger: Logger, remote: string, info: ChannelClose): void {
  if (info.reason.startsWith('auth_') || info.reason === 'invalid_id') return;
  const code = info.error instanceof BrineError ? info.error.code : undefined;
  const why = info.error ? `: ${code ? `${code}: ` : ''}${info.error.message}` : '';
  refusals.note(sourceKey(remote), info.reason, () => logger.info({ remote, reason: info.reason, code }, `closed a connection from ${remote} before authentication (${info.reason})${why}`));
}
