// Error codes of one area (the REST API and access control); src/util/errors.ts merges the areas into ERRORS.

import { spec, type ErrorSpec } from './spec.js';

export const API_ERRORS = {
  API_LISTEN_FAILED: spec(
    'The master cannot serve the REST API on api host:port, or its TLS certificate and key cannot be used.',
    'Stop whatever holds the port (`ss -ltnp`), set another `api: {port: ...}`, or fix ssl_crt/ssl_key (a PEM certificate and its private key).',
    1,
  ),
  EAUTH_CONFIG: spec(
    'external_auth is not usable: a backend that brine does not have, an ACL that is not a list, or a file backend without a readable ^filename.',
    'Fix external_auth in the master config (docs/api.md shows the format); the message names the backend and key.',
    78,
  ),
  EAUTH_UNAVAILABLE: spec(
    'The eauth backend named at login cannot be used here: it is not configured in external_auth, or the PAM binding (authenticate-pam) failed to load.',
    'Use an eauth listed in external_auth, or install the optional dependency authenticate-pam (it needs libpam0g-dev and a compiler) and restart the master.',
    1,
  ),
  HTPASSWD_HASH_UNSUPPORTED: spec(
    "A user's line in the htpasswd file uses a hash brine cannot check (DES crypt, SHA-crypt $5$/$6$, or an unknown $id$); the login is refused.",
    'Re-create the entry with bcrypt (`htpasswd -B`), MD5 (`htpasswd -m`) or SHA1 (`htpasswd -s`).',
    1,
  ),
  LOGIN_FAILED: spec('The user name, password or eauth backend given at login is wrong.', 'Check the credentials and the eauth name (pam or file); repeated failures are throttled.', 1),
  LOGIN_THROTTLED: spec(
    'Too many failed logins for this user name or from this address in api_login_window; this attempt was not checked.',
    'Wait for the time given in Retry-After (or the message) and log in with the right password; raise api_login_failures only if legitimate users hit it.',
    1,
  ),
  TOKEN_MISSING: spec(
    'An API request carried no token: no X-Auth-Token header, no session cookie (and for /events no ?token=).',
    'Log in with POST /login and send the token it returns in X-Auth-Token.',
    1,
  ),
  TOKEN_INVALID: spec('The API token is not one the master issued, was revoked by /logout, or is empty.', 'Log in again with POST /login and use the new token.', 1),
  TOKEN_EXPIRED: spec('The API token is older than token_expire.', 'Log in again with POST /login; raise token_expire if sessions must last longer.', 1),
  TOKEN_KEY_CHANGED: spec('The API token was issued before the master key changed, so it is no longer honoured.', 'Log in again with POST /login.', 1),
  TOKEN_USER_REMOVED: spec(
    "The API token's user is no longer in its eauth backend (removed from the eauth file) or has no external_auth entries; every token of that user was revoked.",
    'Log in as a user that exists; to end the sessions of a user at once without removing it, run `brine api tokens revoke --user NAME`.',
    1,
  ),
  ACL_DENIED: spec(
    "The user's external_auth ACL does not allow this function, target or argument; nothing ran.",
    'Ask for an ACL entry that covers it (docs/api.md: ACL format), or use a function and target your entries allow; the master log names user, target and function.',
    1,
  ),
  PILLAR_OVERRIDE_DENIED: spec(
    'A job passed an inline pillar (pillar=) but no ACL entry of the user grants @pillar_override; nothing ran.',
    "Run it without pillar= (put the data in the pillar files instead), or ask the administrator for the '@pillar_override' entry in external_auth or publisher_acl (docs/access-control.md).",
    1,
  ),
  CSRF_REFUSED: spec(
    'A state-changing API request authenticated only by the session cookie came without X-Requested-With: XMLHttpRequest or an allowed Origin.',
    'Send the token in X-Auth-Token, or send X-Requested-With: XMLHttpRequest from the web view.',
    1,
  ),
  API_BAD_REQUEST: spec(
    "An API request is malformed: the lowstate is not a list of mappings, a field has the wrong type, the body cannot be parsed, or a client or function brine's API does not offer.",
    'Send a list of {client, fun, tgt, arg, kwarg} mappings as JSON, YAML or a form (docs/api.md lists the clients and functions).',
    1,
  ),
  API_BODY_TOO_LARGE: spec('An API request body is larger than the api max_body limit; it was not read.', 'Send a smaller request, or raise `api: {max_body: ...}`.', 1),
  API_TIMEOUT: spec(
    'An API client sent its request headers or body too slowly (api header_timeout/body_timeout).',
    'Send the whole request promptly; a slow network may need larger header_timeout/body_timeout.',
    1,
  ),
  API_STATIC_REFUSED: spec(
    'A request for a file of the static front end (rest_cherrypy static/static_path) names a path that could leave the static directory: a .. segment (plain or percent-encoded), a hidden file or directory, a backslash or NUL, or a symlink that points outside it. Nothing is read.',
    "Ask for a file inside the static directory by its plain path (/static/js/app.js); keep the front end's files, not links to elsewhere, in that directory.",
    1,
  ),
  API_NOT_FOUND: spec('No API endpoint, minion, key or job by that name.', 'Check the path against docs/api.md, and the ID with GET /minions, /keys or /jobs.', 1),
  API_STREAMS_LIMIT: spec(
    "Too many GET /events streams are open: the API keeps at most 8 per user and 64 in all, so one client cannot hold the master's memory and sockets.",
    'Close the streams you no longer read (each browser tab of the web view holds one), or share one stream between your consumers.',
    1,
  ),
} as const satisfies Record<string, ErrorSpec>;
