// Error codes of one area (authentication, as the minion sees it); src/util/errors.ts merges the areas into ERRORS.

import { spec, type ErrorSpec } from './spec.js';

export const AUTH_ERRORS = {
  AUTH_PENDING: spec("The master has this minion's key in pending.", 'On the master run `brine key -a <id>` (after checking the fingerprint with `brine key -f <id>`).', 0),
  AUTH_REJECTED: spec(
    "The master has rejected this minion's key.",
    'On the master, delete the rejected key (`brine key -d <id>`) and restart the minion, or accept it with `brine key -a <id> --include-rejected`.',
    77,
  ),
  AUTH_DENIED: spec(
    'The master already has a different key accepted for this ID.',
    'If this host was re-imaged, run `brine key --replace <id>` on the master and restart the minion; otherwise give this minion its own `id:`.',
    77,
  ),
  AUTH_FULL: spec('The master has reached max_minions.', 'Raise max_minions on the master or remove unused keys.', 1),
  AUTH_PENDING_LIMIT: spec(
    'The master holds as many keys waiting for an operator as its limits allow (in total, from this address, or for this key); the key was not stored.',
    'On the master review waiting keys with `brine key -L`, accept or delete them, or raise max_pending_keys / max_pending_keys_per_address / max_ids_per_key.',
    1,
  ),
  MASTER_KEY_CHANGED: spec(
    "The master's key differs from the one this minion pinned for that master.",
    'If the master was legitimately re-keyed, delete its pin (masters/<host>_<port>.pub in the minion pki_dir) or add the new fingerprint to master_finger; otherwise treat it as an attack.',
    42,
  ),
  MASTER_FINGER_MISMATCH: spec(
    "The master's key fingerprint is not listed in master_finger.",
    'Compare `brine key -F master` on that master with master_finger in the minion config (a list for masters with their own key pairs).',
    42,
  ),
  NO_CLIENT_CERT: spec('A peer connected without presenting a client certificate.', 'Only brine minions can connect to the master port; check what is connecting.', 1),
} as const satisfies Record<string, ErrorSpec>;
