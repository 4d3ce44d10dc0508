// Authentication and authorisation for the HTTP API and the control socket (issue 11).
export { entriesFor, checkAcl, funMatches } from './acl.js';
export type { AclEntry, AclRequest, AclDecision, MinionsOf } from './acl.js';
export { minionScope, type MinionScope } from './acl-reach.js';
export { regexMatchesWhole } from './acl-patterns.js';
export { Authenticator, type AuthenticatorOptions, type LoginResult, type Principal } from './authenticator.js';
export { parseExternalAuth, FileEauth, PamEauth, type EauthBackend, type EauthConfig, type PamLoader } from './eauth.js';
export { TokenStore, type TokenSession } from './token-store.js';
export { LoginThrottle, sourceBucket } from './login-throttle.js';
export { htpasswdVerify, htpasswdScheme, md5Crypt, md5CryptVerify } from './htpasswd.js';
export { bcryptHash, bcryptHashAsync, bcryptVerify } from './bcrypt.js';
export { groupsFromFiles, systemGroups } from './system-groups.js';
