// brine on NATS (issue 13): identities, JWTs, subjects, the server configuration, enrolment.

export * from './authority.js';
export { decodeJwt, encodeJwt, type Claims, type Permissions } from './jwt.js';
export * from './nkeys.js';
export { loadAccounts, loadOrCreateOperator, type OperatorState, OPERATOR_SEED_FILE, ACCOUNTS_FILE } from './operator-store.js';
export { checkHostPort, checkName, checkPath, checkRoute, renderServerConfig, type ServerConfigInput } from './server-config.js';
export { masterRawKey, readMasterPublicKey, serverConfigText, uniqueKeys, type ServerSetup } from './server-setup.js';
export * from './subjects.js';
export { issueTimeAfter, lookupAccount, pushAccount, revokeUsers, setSigningKeys, unrevokeUser } from './account-updates.js';
export * from './signin.js';
export { connectAsMaster, nkeyAuthenticator } from './master-connection.js';
export * from './enrolment.js';
export { NatsMasterHub, NatsSessionChannel, STREAM, type StreamReturnSource } from './master-hub.js';
export { NatsMinionLink, natsPingSettings } from './minion-link.js';
