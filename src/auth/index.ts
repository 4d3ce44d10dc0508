// Authentication and authorisation for the HTTP API and the control socket (issue 11).
export { entriesFor, checkAcl, funMatches } from './acl.js';
export type { AclEntry, AclRequest, AclDecision, MinionsOf } from './acl.js';
