// brine on NATS (issue 13): identities, JWTs, subjects, the server configuration, enrolment,
// the masters' shared key state and revocations, the master's hub and the minion's link.

export * from './authority.js';
export { decodeJwt, encodeJwt, type Claims, type Permissions } from './jwt.js';
export * from './nkeys.js';
export { loadAccounts, loadOrCreateOperator, type OperatorState, OPERATOR_SEED_FILE, ACCOUNTS_FILE } from './operator-store.js';
export { checkHostPort, checkName, checkPath, checkRoute, DEFAULT_AUTH_TIMEOUT_S, renderServerConfig, type ServerConfigInput } from './server-config.js';
export { loadOrCreateRouteSecret, ROUTE_SECRET, ROUTE_SECRET_FILE, ROUTE_USER } from './route-secret.js';
export { masterRawKey, readMasterPublicKey, serverConfigText, uniqueKeys, type ServerSetup } from './server-setup.js';
export * from './subjects.js';
export { issueTimeAfter, lookupAccount, pushAccount, revokeUsers, setSigningKeys, unrevokeUser } from './account-updates.js';
export * from './signin.js';
export { connectAsMaster, nkeyAuthenticator } from './master-connection.js';
export * from './enrolment.js';
export { NatsMasterHub } from './master-hub.js';
export { NatsSessionChannel } from './session-channel.js';
export { STREAM, type StreamReturnSource } from './brine-stream.js';
export { isNatsAuthError, isNatsAuthTimeout, NatsMinionLink } from './minion-link.js';
export { natsPingSettings } from './ping-settings.js';
export type { NatsDial } from './minion-credentials.js';
export { decideMerge, digestOf, encodeRecord, kvKeyOf, minionIdOfKvKey, NO_KEYS, parseRecord, type KeySet, type MergeDecision } from './key-record.js';
export { DEFAULT_KEY_BUCKET, KeyStateSync, type KeyStateSyncOptions, type PublishResult } from './key-sync.js';
export { ensureRevoked, missingRevocations, revocationsForKeyChanges, userNkeyOfPem, type EnsureRevokedOptions, type RevocationOutcome, type RevocationPlan } from './revocation-sync.js';
export { MINION_DATA_BUCKET, MinionDataShare, type MinionDataShareOptions } from './minion-data-share.js';
export { JOB_CLOCK_SKEW_MS, JOB_HEADERS, JOB_SIGNATURE_TTL_MS, type JobRefusal, type JobSignature, type JobVerdict, payloadDigest, readJobSignature, signJob, verifyJob } from './job-signature.js';
export { LOG_EVERY_MS, SignedJobGate } from './job-gate.js';
export { judgeSigninAnswer, type SigninVerdict, type SigninVerdictContext, type SigninWait } from './signin-verdict.js';
