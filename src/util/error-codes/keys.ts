// Error codes of one area (identity and keys); src/util/errors.ts merges the areas into ERRORS.

import { spec, type ErrorSpec } from './spec.js';

export const KEY_ERRORS = {
  INVALID_ID: spec(
    'A minion ID breaks the ID grammar (empty, too long, path characters, non-ASCII, or localhost-like).',
    'Set `id:` in the minion config to a name of letters, digits, `.`, `-`, `_` and `@` (at most 255 characters, not starting with `.`, not localhost).',
    65,
  ),
  ID_CLONED: spec(
    'The cached minion ID was written on another machine (a cloned image) and refuse_cloned_id is on.',
    'Delete the minion_id file in the minion config directory and restart, so this host generates its own ID, or set `id:` in the minion config.',
    78,
  ),
  PKI_UNWRITABLE: spec('The PKI directory cannot be created or written.', 'Create pki_dir and make it writable by the daemon user, or set root_dir/pki_dir to a writable path.', 73),
  PKI_KEY_INVALID: spec('A key or certificate file exists but cannot be parsed.', 'Move the damaged file aside; a new key pair is generated at the next start (and must be accepted again).', 65),
  KEY_NOT_FOUND: spec('No key matched the ID or glob given.', 'List the keys with `brine key -L` and use a matching name.', 1),
  KEY_AMBIGUOUS: spec(
    'More than one denied key was seen for the ID, so it is not clear which one to accept.',
    'List them with `brine key -f <id>`, check the fingerprint on the host itself, and name it with `--finger <fingerprint>`.',
    1,
  ),
  KEY_TYPE_UNSUPPORTED: spec(
    'A minion presented a key of a type brine does not make (only Ed25519 and EC P-256 are accepted); nothing was stored.',
    'Let the minion generate its own key: move its minion.pem aside and restart it, then accept the new key.',
    77,
  ),
} as const satisfies Record<string, ErrorSpec>;
