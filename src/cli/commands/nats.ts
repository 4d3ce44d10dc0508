// `brine nats`: server-config writes the nats-server configuration brine needs (operator mode,
// brine's accounts and their permissions, JetStream, listen address, cluster routes), so an
// operator never writes NATS authorization by hand; enrol-jwt prints the credentials pending
// minions sign in with; update-accounts changes which masters may sign, on running servers.
// Run them on a master; see docs/scale-out.md.

import { generateKeyPairSync } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { writeFileAtomicSync } from '../../util/atomic-write.js';
import { BrineError } from '../../util/errors.js';
import { loadOrCreateIdentity } from '../../pki/index.js';
import {
  ACCOUNT_NAMES,
  checkHostPort,
  checkName,
  checkPath,
  checkRoute,
  connectAsMaster,
  enrolUserJwt,
  loadAccounts,
  loadOrCreateOperator,
  makeEnrolment,
  masterRawKey,
  NkeySigner,
  loadOrCreateRouteSecret,
  readMasterPublicKey,
  ROUTE_SECRET_FILE,
  ROUTE_USER,
  serverConfigText,
  setSigningKeys,
  uniqueKeys,
} from '../../nats/index.js';
import { fail, masterOptions, type ConfigFlags } from '../common.js';

interface ServerConfigFlags extends ConfigFlags {
  listen: string;
  serverName?: string;
  clusterName: string;
  clusterListen?: string;
  route: string[];
  jetstreamDir: string;
  jetstreamMaxMemory?: string;
  jetstreamMaxFile?: string;
  resolverDir: string;
  monitor?: string;
  masterKey: string[];
  operatorDir?: string;
  enrolMaxConnections: string;
  tlsCert?: string;
  tlsKey?: string;
  clusterTlsCert?: string;
  clusterTlsKey?: string;
  clusterTlsCa?: string;
  clusterPasswordFile?: string;
  maxPayload?: string;
  out?: string;
}

/** --tls-cert and --tls-key go together: TLS for every client of the server. */
function tlsFlags(flags: ServerConfigFlags): { tls?: { certFile: string; keyFile: string } } {
  if (flags.tlsCert === undefined && flags.tlsKey === undefined) return {};
  if (flags.tlsCert === undefined || flags.tlsKey === undefined) throw new BrineError('USAGE', '--tls-cert and --tls-key go together (the certificate and its key, PEM files)');
  return { tls: { certFile: checkPath('--tls-cert', flags.tlsCert), keyFile: checkPath('--tls-key', flags.tlsKey) } };
}

/**
 * Route TLS for --cluster-listen: the CA is always named; this server's certificate and key are
 * --cluster-tls-cert/--cluster-tls-key, or --tls-cert/--tls-key when those are given (a route
 * certificate is then checked against the CA in both directions, so it must chain to it).
 */
function clusterTlsFlags(flags: ServerConfigFlags): { certFile: string; keyFile: string; caFile: string } {
  const certFile = flags.clusterTlsCert ?? flags.tlsCert;
  const keyFile = flags.clusterTlsKey ?? flags.tlsKey;
  if (flags.clusterTlsCa === undefined || certFile === undefined || keyFile === undefined) {
    throw new BrineError(
      'USAGE',
      "--cluster-listen needs route TLS so that only the servers of this cluster can join it: pass --cluster-tls-ca <file> (the CA of the servers' route certificates) and --cluster-tls-cert <file> --cluster-tls-key <file> (this server's, signed by that CA; --tls-cert/--tls-key are used when those are given)",
    );
  }
  if ((flags.clusterTlsCert === undefined) !== (flags.clusterTlsKey === undefined))
    throw new BrineError('USAGE', '--cluster-tls-cert and --cluster-tls-key go together (the route certificate and its key, PEM files)');
  return { certFile: checkPath('--cluster-tls-cert', certFile), keyFile: checkPath('--cluster-tls-key', keyFile), caFile: checkPath('--cluster-tls-ca', flags.clusterTlsCa) };
}

/** Route flags given without --cluster-listen are a mistake, not something to ignore. */
function checkClusterFlagsAlone(flags: ServerConfigFlags): void {
  if (flags.clusterListen !== undefined) return;
  const given = (
    [
      ['--route', flags.route.length > 0],
      ['--cluster-tls-cert', flags.clusterTlsCert],
      ['--cluster-tls-key', flags.clusterTlsKey],
      ['--cluster-tls-ca', flags.clusterTlsCa],
      ['--cluster-password-file', flags.clusterPasswordFile],
    ] as const
  ).find(([, v]) => v !== undefined && v !== false);
  if (given !== undefined) throw new BrineError('USAGE', `${given[0]} needs --cluster-listen (the address the other servers route to)`);
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

function positiveInt(what: string, value: string): number {
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(n) || n <= 0) throw new BrineError('USAGE', `${what} must be a positive whole number, got ${JSON.stringify(value)}`);
  return n;
}

/** A server name from the host name: its first label, with anything outside [A-Za-z0-9_-] dropped. */
function defaultServerName(): string {
  const base = (hostname().split('.')[0] ?? '').replace(/[^A-Za-z0-9_-]/g, '');
  return base === '' ? 'brine-nats' : base.slice(0, 64);
}

async function serverConfig(flags: ServerConfigFlags): Promise<void> {
  const opts = masterOptions(flags);
  const identity = await loadOrCreateIdentity({ pkiDir: opts.pki_dir, name: 'master', commonName: opts.id || 'brine-master' });
  const self = NkeySigner.fromKey(identity.privateKeyPem);
  const masters = uniqueKeys([masterRawKey(self.publicKeyObject(), 'this master key'), ...flags.masterKey.map(readMasterPublicKey)]);
  checkClusterFlagsAlone(flags);
  // every flag is checked before the operator state is made, so a typo leaves nothing behind
  const checked = {
    serverName: checkName('--server-name', flags.serverName ?? defaultServerName()),
    listen: checkHostPort('--listen', flags.listen),
    resolverDir: checkPath('--resolver-dir', flags.resolverDir),
    jetstreamDir: checkPath('--jetstream-dir', flags.jetstreamDir),
    ...(flags.jetstreamMaxMemory === undefined ? {} : { jetstreamMaxMemory: positiveInt('--jetstream-max-memory', flags.jetstreamMaxMemory) }),
    ...(flags.jetstreamMaxFile === undefined ? {} : { jetstreamMaxFile: positiveInt('--jetstream-max-file', flags.jetstreamMaxFile) }),
    ...(flags.monitor === undefined ? {} : { monitor: checkHostPort('--monitor', flags.monitor) }),
    ...(flags.maxPayload === undefined ? {} : { maxPayload: positiveInt('--max-payload', flags.maxPayload) }),
    ...tlsFlags(flags),
    ...(flags.clusterListen === undefined
      ? {}
      : {
          cluster: {
            name: checkName('--cluster-name', flags.clusterName),
            listen: checkHostPort('--cluster-listen', flags.clusterListen),
            routes: flags.route.map(checkRoute),
            tls: clusterTlsFlags(flags),
          },
        }),
    policy: { enrolMaxConnections: positiveInt('--enrol-max-connections', flags.enrolMaxConnections) },
  };
  const { cluster, ...rest } = checked;
  const operatorDir = flags.operatorDir ?? join(opts.pki_dir, 'nats');
  const secretPath = cluster === undefined ? undefined : (flags.clusterPasswordFile ?? join(operatorDir, ROUTE_SECRET_FILE));
  // a password file named on the command line is read (or made) first, so a bad one leaves nothing behind
  const named = secretPath !== undefined && flags.clusterPasswordFile !== undefined ? loadOrCreateRouteSecret(checkPath('--cluster-password-file', secretPath)) : undefined;
  const operator = loadOrCreateOperator(operatorDir);
  const routeSecret = secretPath === undefined ? undefined : { ...(named ?? loadOrCreateRouteSecret(secretPath)), path: secretPath };
  const text = serverConfigText({
    operator,
    masters,
    ...rest,
    ...(cluster === undefined || routeSecret === undefined ? {} : { cluster: { ...cluster, auth: { user: ROUTE_USER, password: routeSecret.password } } }),
  });
  // with a cluster the file holds the route password
  writeOut(text, flags.out, cluster === undefined ? 0o644 : 0o600);
  if (operator.created) process.stderr.write(`made the NATS operator key in ${operatorDir}: back it up, it is needed to add or remove masters\n`);
  if (routeSecret?.created === true)
    process.stderr.write(`made the cluster route password in ${routeSecret.path}: copy it (0600) to wherever server-config runs for the other servers of this cluster, as --cluster-password-file\n`);
}

interface OperatorFlags extends ConfigFlags {
  operatorDir?: string;
}

interface UpdateAccountsFlags extends OperatorFlags {
  server: string[];
  masterKey: string[];
}

/** This master's signer and the account keys (no operator secret needed). */
async function masterAndAccounts(flags: OperatorFlags) {
  const opts = masterOptions(flags);
  const identity = await loadOrCreateIdentity({ pkiDir: opts.pki_dir, name: 'master', commonName: opts.id || 'brine-master' });
  const master = NkeySigner.fromKey(identity.privateKeyPem);
  const { accounts } = loadAccounts(flags.operatorDir ?? join(opts.pki_dir, 'nats'));
  return { master, accounts };
}

async function enrolJwt(flags: OperatorFlags): Promise<void> {
  const { master, accounts } = await masterAndAccounts(flags);
  // a bearer JWT: its subject key is never used to sign, so a fresh one is thrown away
  const subject = NkeySigner.fromKey(generateKeyPairSync('ed25519').privateKey).publicKey('user');
  process.stdout.write(`${enrolUserJwt(master, accounts, subject)}\n`);
}

interface EnrolmentFlags extends OperatorFlags {
  masterKey: string[];
  out?: string;
}

/** The file a minion on NATS starts from: sign-in credentials and the masters it may trust. */
async function enrolment(flags: EnrolmentFlags): Promise<void> {
  const { master, accounts } = await masterAndAccounts(flags);
  const subject = NkeySigner.fromKey(generateKeyPairSync('ed25519').privateKey).publicKey('user');
  const masters = uniqueKeys([masterRawKey(master.publicKeyObject(), 'this master key'), ...flags.masterKey.map(readMasterPublicKey)]);
  writeOut(`${JSON.stringify(makeEnrolment(enrolUserJwt(master, accounts, subject), accounts.brine, masters), null, 2)}\n`, flags.out);
}

/**
 * To standard output, or to `out`: JWTs and public keys need no secrecy, but only root should
 * change them (0644); a server configuration with a cluster holds the route password (0600).
 */
function writeOut(text: string, out: string | undefined, mode = 0o644): void {
  if (out === undefined) {
    process.stdout.write(text);
    return;
  }
  try {
    writeFileAtomicSync(out, text, mode);
  } catch (err) {
    throw new BrineError('PKI_UNWRITABLE', `cannot write ${out}`, { cause: err });
  }
}

async function updateAccounts(flags: UpdateAccountsFlags): Promise<void> {
  if (flags.server.length === 0) throw new BrineError('USAGE', 'name at least one NATS server with --server nats://host:port');
  for (const url of flags.server) {
    if (!/^nats:\/\/[A-Za-z0-9.[\]:-]+:[0-9]{1,5}$/.test(url)) throw new BrineError('USAGE', `--server must be nats://host:port, got ${JSON.stringify(url)}`);
  }
  const { master, accounts } = await masterAndAccounts(flags);
  const masters = uniqueKeys([masterRawKey(master.publicKeyObject(), 'this master key'), ...flags.masterKey.map(readMasterPublicKey)]);
  const sys = await connectAsMaster(flags.server, master, accounts, 'sys', 'brine-nats-update-accounts');
  try {
    for (const kind of ['brine', 'enrol', 'sys'] as const) {
      await setSigningKeys(sys, master, accounts[kind], masters);
      process.stdout.write(`${ACCOUNT_NAMES[kind]}: ${masters.length} master signing key${masters.length === 1 ? '' : 's'}\n`);
    }
  } finally {
    await sys.close();
  }
}

export function registerNats(program: Command): void {
  const nats = program.command('nats').description('brine on a NATS cluster (docs/scale-out.md)');
  nats
    .command('server-config')
    .description("write a nats-server configuration with brine's accounts, permissions and JetStream (run on a master)")
    .option('-c, --config-dir <dir>', 'master configuration directory (default /etc/brine, or BRINE_CONFIG_DIR)')
    .option('--listen <host:port>', 'client listen address', '0.0.0.0:4222')
    .option('--server-name <name>', 'this server name, unique in the cluster (default: the host name)')
    .option('--cluster-listen <host:port>', 'listen for routes from the other servers of a cluster')
    .option('--cluster-name <name>', 'cluster name', 'brine')
    .option('--route <url>', 'nats-route://host:port of another server (repeat for each)', collect, [])
    .option('--jetstream-dir <dir>', 'JetStream store directory', '/var/lib/brine/nats/jetstream')
    .option('--jetstream-max-memory <bytes>', 'JetStream memory limit (default: the server decides)')
    .option('--jetstream-max-file <bytes>', 'JetStream disk limit (default: the server decides)')
    .option('--resolver-dir <dir>', 'where the server keeps account JWTs pushed by masters', '/var/lib/brine/nats/jwt')
    .option('--monitor <host:port>', 'serve the HTTP monitoring endpoint there')
    .option('--master-key <file>', 'master.pub of another master that may sign (repeat for each; this master is always included)', collect, [])
    .option('--operator-dir <dir>', 'the NATS operator key and account list (default <pki_dir>/nats, made on first use)')
    .option('--enrol-max-connections <n>', 'pending keys that may wait to sign in at once', '1024')
    .option('--tls-cert <file>', "the server's TLS certificate (PEM): clients must use TLS (with --tls-key)")
    .option('--tls-key <file>', "the server's TLS key (PEM)")
    .option('--cluster-tls-ca <file>', 'with --cluster-listen: the CA every route certificate must chain to (PEM; required)')
    .option('--cluster-tls-cert <file>', "with --cluster-listen: this server's route certificate (PEM; default --tls-cert)")
    .option('--cluster-tls-key <file>', "with --cluster-listen: this server's route key (PEM; default --tls-key)")
    .option('--cluster-password-file <file>', 'with --cluster-listen: the route password, the same for every server (default <operator-dir>/route-password, made on first use)')
    .option('--max-payload <bytes>', 'largest message (a return): default 16777216, as max_frame_size')
    .option('-o, --out <file>', 'write the configuration here instead of standard output')
    .action(async (flags: ServerConfigFlags) => {
      try {
        await serverConfig(flags);
      } catch (err) {
        fail(err);
      }
    });
  nats
    .command('enrol-jwt')
    .description('print the enrolment credentials (a bearer JWT, no secret) with which pending minions ask to sign in')
    .option('-c, --config-dir <dir>', 'master configuration directory (default /etc/brine, or BRINE_CONFIG_DIR)')
    .option('--operator-dir <dir>', 'where accounts.json is (default <pki_dir>/nats)')
    .action(async (flags: OperatorFlags) => {
      try {
        await enrolJwt(flags);
      } catch (err) {
        fail(err);
      }
    });
  nats
    .command('enrolment')
    .description('write the file a minion with transport: nats starts from (nats_enrolment): sign-in credentials and the masters it trusts; nothing secret')
    .option('-c, --config-dir <dir>', 'master configuration directory (default /etc/brine, or BRINE_CONFIG_DIR)')
    .option('--master-key <file>', 'master.pub of another master the minions may trust (repeat; this master is always included)', collect, [])
    .option('--operator-dir <dir>', 'where accounts.json is (default <pki_dir>/nats)')
    .option('-o, --out <file>', 'write the file here instead of standard output')
    .action(async (flags: EnrolmentFlags) => {
      try {
        await enrolment(flags);
      } catch (err) {
        fail(err);
      }
    });
  nats
    .command('update-accounts')
    .description("make this master and the --master-key masters the accounts' signing keys on running servers (adding or removing a master)")
    .option('-c, --config-dir <dir>', 'master configuration directory (default /etc/brine, or BRINE_CONFIG_DIR)')
    .option('--server <url>', 'nats://host:port of a server (repeat; one that answers is enough)', collect, [])
    .option('--master-key <file>', 'master.pub of another master that may sign (repeat; masters not listed lose the right)', collect, [])
    .option('--operator-dir <dir>', 'where accounts.json is (default <pki_dir>/nats)')
    .action(async (flags: UpdateAccountsFlags) => {
      try {
        await updateAccounts(flags);
      } catch (err) {
        fail(err);
      }
    });
}
