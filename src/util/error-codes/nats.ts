// Error codes of the NATS transport (issue 13: brine on a nats-server cluster); src/util/errors.ts merges the areas into ERRORS.

import { spec, type ErrorSpec } from './spec.js';

export const NATS_ERRORS = {
  NATS_KEY_UNSUPPORTED: spec(
    'A brine key that is not Ed25519 (an EC P-256 key) was to be used as a NATS identity; NATS nkeys are Ed25519 only.',
    'Give that master or minion an Ed25519 key (move its .pem aside, restart it, accept the new key), or keep it on the built-in transport.',
    65,
  ),
  NATS_KEY_INVALID: spec(
    'An nkey, nkey seed or NATS operator file is malformed: bad base32, a failed checksum, a wrong prefix or length.',
    'Check the value for a typo or truncation; for a file under <pki_dir>/nats, restore it from your backup (the message names it).',
    65,
  ),
  NATS_JWT_INVALID: spec(
    'A NATS JWT is malformed or its signature does not verify for the issuer it names.',
    'Issue the JWT again from a master (`brine nats server-config` for the server side); never edit a JWT by hand.',
    65,
  ),
  NATS_CLAIMS_UPDATE_FAILED: spec(
    'A master could not push an account JWT to the NATS servers (no answer, or the servers refused it), so a key change has not reached NATS yet.',
    'Check that the NATS servers run with the configuration from `brine nats server-config` and list this master (--master-key); then repeat the `brine key` command.',
    1,
  ),
  NATS_UNAVAILABLE: spec(
    'No NATS server of nats_servers could be reached, or JetStream did not answer (no quorum, a stream missing): with transport: nats nothing moves until one does.',
    'Check nats_servers and that the nats-server processes run (`nats-server -c <file>`, configured by `brine nats server-config`) and can reach each other; returns stay queued on the minions meanwhile.',
    69,
  ),
  NATS_ROUTE_SECRET_INVALID: spec(
    'The NATS cluster route password file (--cluster-password-file, default <pki_dir>/nats/route-password) does not hold a route password brine can use.',
    'Put one line of 32 to 256 letters, digits, - or _ in it, or remove it so `brine nats server-config` makes a new one; every server of the cluster needs the same file.',
    78,
  ),
  NATS_ENROLMENT_INVALID: spec(
    'The minion has no usable NATS enrolment file (nats_enrolment): it is missing, not JSON, or lacks the sign-in JWT, the BRINE account or the masters to trust.',
    'On a master run `brine nats enrolment -o <file>`, copy the file to the minion as nats_enrolment (default <pki_dir>/nats-enrolment.json) and restart the minion.',
    78,
  ),
  NATS_KV_UNAVAILABLE: spec(
    'The shared key bucket in NATS JetStream cannot be reached or written (servers down, no JetStream quorum, or the bucket missing), so key changes are not shared between masters yet.',
    "Check that a majority of the NATS servers run with JetStream (their monitor port's /healthz and /jsz); the master keeps working on its own key files and publishes its changes when the bucket answers again.",
    1,
  ),
  NATS_KV_VALUE_INVALID: spec(
    "An entry of the shared key bucket is not a valid key record (bad JSON, a field of the wrong type, a value that is not a public key, or a name that is no minion ID); it was skipped and this master's key files were left as they were.",
    'Repeat the `brine key` command for that minion on any master so the entry is written again, or delete the entry named in the log from the bucket.',
    65,
  ),
  NATS_KEY_SYNC_CONFLICT: spec(
    "Two masters changed the same minion's keys at the same time; the change already in the shared key bucket was kept and this master's own change to that minion was undone.",
    'Check the result with `brine key -L` (or `brine key -f <id>`) on any master, and repeat the command if it is not what you wanted.',
    1,
  ),
  NATS_REVOCATION_INCOMPLETE: spec(
    'After several attempts the account JWT on the NATS servers still lacks a revocation this master pushed, so a deleted, rejected or replaced key may still be able to connect.',
    'Check that the NATS servers answer and that this master is an operator signing key (`brine nats server-config --master-key`), then repeat the `brine key` command.',
    1,
  ),
  JOB_SIGNATURE_INVALID: spec(
    "A job or find_job arrived on a minion's NATS job subject without a valid signature of a master the minion trusts (unsigned, signed by another key, altered, expired or replayed); it was dropped and not run.",
    'If a new master sends it, give the minion an enrolment file that lists that master (`brine nats enrolment -o <file>` on a master, copied to nats_enrolment) and restart the minion; otherwise something other than a master can publish on the job subject: check who holds NATS credentials and that cluster routes require them.',
    1,
  ),
} as const satisfies Record<string, ErrorSpec>;
