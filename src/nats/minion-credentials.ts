// A NATS minion's credentials: the user JWT a master issued it (kept in a file between runs),
// the mark that a master of the enrolment file once accepted it, and the sign-in request through
// the ENROL account that asks for a JWT. The link (minion-link.ts) decides what an answer means.

import { existsSync, readFileSync, rmSync } from 'node:fs';
import { jwtAuthenticator, type NatsConnection, type NodeConnectionOptions } from '@nats-io/transport-node';
import type { Clock } from '../util/clock.js';
import { BrineError, toBrineError } from '../util/errors.js';
import { writeFileAtomicSync } from '../util/atomic-write.js';
import type { NkeySigner } from './nkeys.js';
import { checkSigninAnswer, signinRequest, type SigninAnswer } from './signin.js';
import { type Enrolment, trustedMasterKeys } from './enrolment.js';
import { SIGNIN_SUBJECT } from './subjects.js';
import { decodeJwt } from './jwt.js';

/** How the link opens a NATS connection: nats.js's `connect`, or a test's stand-in for it. */
export type NatsDial = (opts: NodeConnectionOptions) => Promise<NatsConnection>;

export interface MinionCredentialsOptions {
  id: string;
  servers: string[];
  signer: NkeySigner;
  enrolment: Enrolment;
  /** Where the user JWT a master issued is kept between runs. */
  jwtFile: string;
  /** Written once a master of the enrolment file has accepted this minion (minion-link.ts says why). */
  acceptedFile: string;
  authTimeoutMs: number;
  tlsCaFile?: string;
}

export class MinionCredentials {
  constructor(
    private readonly opts: MinionCredentialsOptions,
    private readonly clock: Clock,
    private readonly dial: NatsDial,
  ) {}

  /** The JWT kept from an earlier sign-in, if it is still this minion's; a mangled file is dropped. */
  savedJwt(): string | undefined {
    let text: string;
    try {
      text = readFileSync(this.opts.jwtFile, 'utf8').trim();
    } catch {
      return undefined;
    }
    try {
      // one the minion checked when it got it; a file mangled since is dropped
      const claims = decodeJwt(text);
      if (claims.sub === this.opts.signer.publicKey('user') && claims.name === this.opts.id) return text;
    } catch {}
    this.forgetJwt();
    return undefined;
  }

  saveJwt(jwt: string): void {
    writeFileAtomicSync(this.opts.jwtFile, jwt, 0o600);
  }

  /** The servers no longer take the JWT (revoked, or issued by a master no longer trusted). */
  forgetJwt(): void {
    rmSync(this.opts.jwtFile, { force: true });
  }

  /** Whether a master of the enrolment file issued this JWT: the link's `masterTrusted`. */
  issuedByTrustedMaster(jwt: string): boolean {
    try {
      return this.opts.enrolment.masters.includes(decodeJwt(jwt).iss);
    } catch {
      return false;
    }
  }

  tlsOptions(): { tls?: { caFile: string } } {
    return this.opts.tlsCaFile === undefined ? {} : { tls: { caFile: this.opts.tlsCaFile } };
  }

  /** Asks the masters to sign in, as a pending key may: through ENROL, with a bearer JWT. */
  async signIn(): Promise<SigninAnswer> {
    let nc: NatsConnection;
    try {
      nc = await this.dial({
        servers: this.opts.servers,
        authenticator: jwtAuthenticator(this.opts.enrolment.enrolJwt),
        name: `${this.opts.id} (signing in)`,
        reconnect: false,
        timeout: this.opts.authTimeoutMs,
        ...this.tlsOptions(),
      });
    } catch (err) {
      throw new BrineError('NATS_UNAVAILABLE', `cannot reach a NATS server of ${this.opts.servers.join(', ')} to sign in: ${toBrineError(err).message}`, { cause: err });
    }
    try {
      const reply = await nc.request(SIGNIN_SUBJECT, signinRequest(this.opts.id, this.opts.signer, this.clock.now()), { timeout: this.opts.authTimeoutMs });
      return checkSigninAnswer(reply.data, this.opts.id, this.opts.signer, { brine: this.opts.enrolment.brineAccount }, trustedMasterKeys(this.opts.enrolment));
    } catch (err) {
      if (err instanceof BrineError) throw err;
      throw new BrineError(
        'NATS_UNAVAILABLE',
        `no master answered the sign-in request within ${this.opts.authTimeoutMs} ms (${toBrineError(err).message}); are the masters running with transport: nats?`,
        { cause: err },
      );
    } finally {
      await nc.close().catch(() => {});
    }
  }

  /** A master of the enrolment file accepted this minion (a JWT it checked, or one kept from before). */
  markAccepted(jwt: string): void {
    if (this.everAccepted()) return;
    let issuer = '';
    try {
      issuer = decodeJwt(jwt).iss;
    } catch {}
    writeFileAtomicSync(this.opts.acceptedFile, `${JSON.stringify({ issuer, at: new Date(this.clock.now()).toISOString() })}\n`, 0o600);
  }

  everAccepted(): boolean {
    return existsSync(this.opts.acceptedFile);
  }
}
