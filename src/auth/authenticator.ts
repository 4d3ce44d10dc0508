// The API's access control in one place: login through an eauth backend (throttled), tokens
// (issued, looked up, revoked) and the ACL check of each request, logging every refusal with
// user, source, target and function (never a password or token).

import path from 'node:path';
import type { MasterOptions } from '../config/index.js';
import type { Clock } from '../util/clock.js';
import { BrineError, isBrineError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { printable } from '../util/printable.js';
import { type AclEntry, type AclRequest, checkAcl, entriesFor, type MinionsOf } from './acl.js';
import { type EauthConfig, type PamLoader, parseExternalAuth } from './eauth.js';
import { LoginThrottle } from './login-throttle.js';
import { TokenStore, type TokenSession } from './token-store.js';

export interface AuthenticatorOptions {
  externalAuth: Record<string, unknown>;
  tokenExpireS: number;
  tokenFile: string;
  keyFingerprint: string;
  maxFailures: number;
  windowS: number;
  clock: Clock;
  logger: Logger;
  pamLoader?: PamLoader;
  /**
   * Summarises refused tokens per source address (the master's RefusalLog: a number of full
   * lines, then counts), so a client hammering with a bad token cannot flood the log. Without
   * it every refusal is its own line. ACL denials and failed logins are always logged in full.
   */
  tokenRefusals?: { note(source: string, reason: string, logFull: () => void): void };
}

export interface LoginResult {
  token: string;
  start: number;
  expire: number;
  user: string;
  eauth: string;
  perms: AclEntry[];
}

/** Who is asking: a token session, or credentials checked inline (/run). */
export interface Principal {
  user: string;
  eauth: string;
  groups: string[];
}

const MAX_CREDENTIAL = 1024;

export class Authenticator {
  private readonly backends: Map<string, EauthConfig>;
  private readonly tokens: TokenStore;
  private readonly throttle: LoginThrottle;

  /** The master's authenticator as its options set it up (the master and `brine api` share it). */
  static forMaster(
    opts: Pick<MasterOptions, 'external_auth' | 'token_expire' | 'cachedir' | 'api_login_failures' | 'api_login_window'>,
    parts: Pick<AuthenticatorOptions, 'keyFingerprint' | 'clock' | 'logger' | 'tokenRefusals'>,
  ): Authenticator {
    return new Authenticator({
      externalAuth: opts.external_auth,
      tokenExpireS: opts.token_expire,
      tokenFile: path.join(opts.cachedir, 'api-tokens.sqlite'),
      maxFailures: opts.api_login_failures,
      windowS: opts.api_login_window,
      ...parts,
    });
  }

  constructor(private readonly opts: AuthenticatorOptions) {
    this.backends = parseExternalAuth(opts.externalAuth, opts.pamLoader);
    this.tokens = TokenStore.open(opts.tokenFile, opts.clock, opts.keyFingerprint);
    this.throttle = new LoginThrottle(opts.clock, opts.maxFailures, opts.windowS * 1000);
    this.tokens.purgeExpired();
  }

  /** The eauth backends configured (for messages and the login page). */
  get eauthNames(): string[] {
    return [...this.backends.keys()];
  }

  /** Checks credentials through the eauth backend: a Principal, or LOGIN_FAILED / LOGIN_THROTTLED / EAUTH_UNAVAILABLE. */
  async checkCredentials(username: unknown, password: unknown, eauth: unknown, source: string): Promise<Principal> {
    if (typeof username !== 'string' || username === '' || username.length > MAX_CREDENTIAL) throw this.loginFailed('a user name is required', undefined, source, eauth);
    if (typeof password !== 'string' || password.length > MAX_CREDENTIAL) throw this.loginFailed('a password is required', username, source, eauth);
    if (typeof eauth !== 'string' || eauth === '') throw this.loginFailed(`eauth is required (${this.eauthNames.join(' or ') || 'none configured'})`, username, source, eauth);
    // counted before the password check awaits: parallel logins cannot all pass the limit
    const attempt = this.throttle.begin(username, source);
    const cfg = this.backends.get(eauth);
    if (!cfg) {
      this.logRefusal('login refused', { user: username, source, eauth, code: 'EAUTH_UNAVAILABLE' });
      throw new BrineError('EAUTH_UNAVAILABLE', `eauth '${printable(eauth.slice(0, 64))}' is not configured in external_auth; use ${this.eauthNames.join(' or ') || '(none configured)'}`);
    }
    let ok: boolean;
    try {
      ok = await cfg.backend.authenticate(username, password, source);
    } catch (err) {
      if (isBrineError(err)) {
        this.logRefusal('login refused', { user: username, source, eauth, code: err.code, reason: err.message });
      }
      throw err;
    }
    if (!ok) {
      throw this.loginFailed('wrong user name or password', username, source, eauth);
    }
    const groups = cfg.backend.groups(username);
    if (entriesFor(cfg.acl, username, groups).length === 0) {
      throw this.loginFailed(`user has no external_auth entries for eauth ${eauth}`, username, source, eauth);
    }
    attempt.succeeded();
    return { user: username, eauth, groups };
  }

  async login(username: unknown, password: unknown, eauth: unknown, source: string): Promise<LoginResult> {
    const who = await this.checkCredentials(username, password, eauth, source);
    const { token, session } = this.tokens.issue(who.user, who.eauth, who.groups, this.opts.tokenExpireS);
    this.opts.logger.info({ user: who.user, source, eauth: who.eauth }, `API login of ${printable(who.user)} from ${source}`);
    return { token, start: session.start, expire: session.expire, user: who.user, eauth: who.eauth, perms: this.permsOf(who) };
  }

  /** The session of a token, its user re-checked; TOKEN_* errors are logged with the source. */
  session(token: unknown, source: string): TokenSession {
    try {
      return this.stillValid(this.tokens.lookup(token));
    } catch (err) {
      if (isBrineError(err)) {
        const code = err.code;
        const log = () => this.logRefusal('API token refused', { source, code });
        if (this.opts.tokenRefusals) this.opts.tokenRefusals.note(source, `api:${code}`, log);
        else log();
      }
      throw err;
    }
  }

  /**
   * A token outlives nothing it was issued for: its user must still be in the eauth backend
   * (the file backend re-reads its file only when it changed) and still have ACL entries.
   * Otherwise every token of that user is revoked, so putting the user back does not revive
   * them (issue 21, point 10). A pam user cannot be checked without a password; revoke those
   * with `brine api tokens revoke --user`.
   */
  private stillValid(session: TokenSession): TokenSession {
    const cfg = this.backends.get(session.eauth);
    const why =
      cfg === undefined
        ? `eauth ${session.eauth} is no longer configured`
        : cfg.backend.hasUser?.(session.user) === false
          ? `${session.user} is no longer in the ${session.eauth} eauth's users`
          : entriesFor(cfg.acl, session.user, session.groups).length === 0
            ? `${session.user} has no external_auth entries for eauth ${session.eauth} any more`
            : undefined;
    if (why === undefined) return session;
    const revoked = this.tokens.revokeUser(session.user, session.eauth);
    this.opts.logger.info({ user: session.user, eauth: session.eauth, revoked }, `revoked ${revoked} API token(s) of ${printable(session.user)}: ${printable(why)}`);
    throw new BrineError('TOKEN_USER_REMOVED', `the token's user was removed: ${why}; its tokens are revoked; log in as a user that exists`);
  }

  logout(token: string): boolean {
    return this.tokens.revoke(token);
  }

  /** Revokes one token, or every token of a user (wheel token.revoke); how many were removed. */
  revoke(what: { token: string } | { user: string }): number {
    if ('token' in what) return this.tokens.revoke(what.token) ? 1 : 0;
    const n = this.tokens.revokeUser(what.user);
    this.opts.logger.info({ user: what.user, revoked: n }, `revoked ${n} API token(s) of ${printable(what.user)}`);
    return n;
  }

  /** The ACL entries that apply now (read from the current config, not frozen into the token). */
  permsOf(who: Principal): AclEntry[] {
    const cfg = this.backends.get(who.eauth);
    return cfg ? entriesFor(cfg.acl, who.user, who.groups) : [];
  }

  /**
   * ACL_DENIED or PILLAR_OVERRIDE_DENIED (logged with user, source, target and function) unless
   * the entries allow `req`. Returns the minions the job may run on (`within`, for a
   * target-restricted user), or undefined for anywhere its target says.
   */
  authorize(who: Principal, req: AclRequest, minionsOf: MinionsOf, source: string): string[] | undefined {
    const decision = checkAcl(this.permsOf(who), req, minionsOf);
    if (decision.allowed) return decision.within;
    const code = decision.code ?? 'ACL_DENIED';
    this.logRefusal('API request denied', {
      user: who.user,
      eauth: who.eauth,
      source,
      client: req.client,
      fun: req.fun,
      tgt: req.tgt,
      tgtType: req.tgtType,
      reason: decision.reason,
      code,
    });
    throw new BrineError(code, `${who.user} may not run this: ${decision.reason}`, { details: { fun: req.fun, client: req.client } });
  }

  private loginFailed(why: string, user: string | undefined, source: string, eauth: unknown): BrineError {
    this.logRefusal('login refused', { user, source, eauth: typeof eauth === 'string' ? eauth.slice(0, 64) : undefined, code: 'LOGIN_FAILED', reason: why });
    // the client learns only that the login failed, not which part was wrong
    return new BrineError('LOGIN_FAILED', 'Authentication failure of type "eauth" occurred: wrong user name, password or eauth');
  }

  /** One warning per refusal; the logger escapes control characters in every field. */
  logRefusal(what: string, fields: Record<string, unknown>): void {
    const who = typeof fields.user === 'string' ? ` for ${printable(fields.user.slice(0, 128))}` : '';
    const fun = typeof fields.fun === 'string' ? ` (${printable(fields.fun.slice(0, 128))})` : '';
    this.opts.logger.warn(fields, `${what}${who}${fun} from ${String(fields.source)}${fields.reason ? `: ${printable(String(fields.reason))}` : ''}`);
  }

  /** Forgets expired tokens (the master runs it hourly, with the job cache purge). */
  purgeExpired(): number {
    return this.tokens.purgeExpired();
  }

  close(): void {
    this.tokens.close();
  }
}
