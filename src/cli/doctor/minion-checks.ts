// `brine doctor minion`: config, ID, and for each master DNS, TCP, TLS (its key against the pin
// and master_finger) and this key's state on it (a read-only probe), then the running daemon's
// own view over <sock_dir>/minion.sock. Reads only; the running minion is not disturbed.

import { toBrineError, errorMessage } from '../../util/errors.js';
import type { MinionOptions } from '../../config/index.js';
import { foreignPeerError, MINION_CONTROL_REPLIES, type MinionControlReply, type MinionControlRequest, type MinionStatus } from '../../protocol/index.js';
import { connectUnix, keepaliveFromConfig, sniffService } from '../../transport/index.js';
import { BRINE_VERSION } from '../../modules/index.js';
import { MasterPins, checkIdResolution, masterFingers, idOptionsFrom, minionSocketPath, parseMasterEndpoint, resolveMinionId } from '../../minion/index.js';
import { fail, ok, warn, type Check } from './check.js';
import { judgeKeyState, judgeMasterFinger, judgeMasterKey, judgeMinionStatus, summarizeId, type StatusProblem } from './minion-verdicts.js';
import { connectToMaster, loadProbeIdentity, probeKeyState, type ProbeIdentity } from './probe-master.js';
import { directoriesCheck } from './dirs-check.js';

/** `configCheck`: the config line, made by the caller that loaded it. */
export async function minionChecks(opts: MinionOptions, configCheck: Check): Promise<Check[]> {
  const checks: Check[] = [configCheck, directoriesCheck(opts)];
  const res = await resolveMinionId({ ...idOptionsFrom(opts), writeCache: false, explain: true });
  checks.push(summarizeId(checkIdResolution(res, { refuseClonedId: opts.refuse_cloned_id })));
  const id = res.id;

  if (opts.master_type === 'disable') {
    checks.push(ok('masters', 'master_type is disable: this minion connects to no master'));
  } else {
    let identity: ProbeIdentity | undefined;
    try {
      identity = await loadProbeIdentity(opts.pki_dir, id);
    } catch (err) {
      const e = toBrineError(err);
      checks.push(fail('minion key', `${e.code}: ${e.message}`, e.fix));
    }
    if (identity && !identity.own) {
      checks.push(
        warn(
          'minion key',
          `no key pair in ${opts.pki_dir} yet (the minion has never started there); the network checks use a throwaway key, so the key state on each master is not known`,
          'start the minion once; it makes its key pair and signs in',
        ),
      );
    }
    checks.push(judgeMasterFinger(masterFingers(opts.master_finger).raw));
    const masters = (Array.isArray(opts.master) ? opts.master : [opts.master]).map((m) => parseMasterEndpoint(m, opts.master_port));
    for (const m of masters) checks.push(...(await masterLinkChecks(opts, id, m, identity)));
  }

  const socket = minionSocketPath(opts);
  checks.push(...judgeMinionStatus(await readMinionStatus(socket), Date.now(), `'brine minion -c ${opts.config_dir}' (or its service)`));
  return checks;
}

async function masterLinkChecks(opts: MinionOptions, id: string, m: { host: string; port: number }, identity: ProbeIdentity | undefined): Promise<Check[]> {
  const where = `master ${m.host}:${m.port}`;
  const out: Check[] = [];
  if (!identity) return [warn(where, 'not checked: no usable minion key', 'fix the minion key first (see above)')];
  const timeoutMs = opts.auth_timeout * 1000;
  const probe = await connectToMaster({ host: m.host, port: m.port, identity, timeoutMs, socketOptions: keepaliveFromConfig(opts), maxFrame: opts.preauth_max_frame_size });
  if (!probe.dns.ok) {
    out.push(fail(`${where} DNS`, probe.dns.error?.message ?? 'name not found', `check 'master' in the minion config and this host's DNS (getent hosts ${m.host})`));
    return out;
  }
  out.push(ok(`${where} DNS`, `${m.host} resolves to ${probe.dns.value} (${probe.dns.ms} ms)`));
  if (!probe.tcp?.ok) {
    out.push(
      fail(
        `${where} TCP`,
        `cannot connect to ${probe.dns.value}:${m.port}: ${probe.tcp?.error?.message ?? 'failed'}`,
        `check that the master runs and listens on port ${m.port} (brine doctor master on the master; ss -ltnp there), and that no firewall drops the path; the minion keeps retrying by itself`,
      ),
    );
    return out;
  }
  out.push(ok(`${where} TCP`, `connected to ${probe.dns.value}:${m.port} in ${probe.tcp.ms} ms`));
  if (!probe.tls?.ok || !probe.channel) {
    // a plain HTTP or NATS server fails the handshake: say which service it is
    const found = await sniffService(probe.dns.value!, m.port, Math.min(timeoutMs, 2000));
    if (found !== undefined) {
      const e = foreignPeerError(found.kind, found.head, `${m.host}:${m.port}`);
      out.push(fail(`${where} TLS`, `TLS 1.3 handshake failed: ${e.message}`, e.fix));
      return out;
    }
    out.push(
      fail(
        `${where} TLS`,
        `TLS 1.3 handshake failed: ${probe.tls?.error?.message ?? 'failed'}`,
        'check that a brine master (TLS 1.3) listens on that port and not another service; see the master log for the refusal',
      ),
    );
    return out;
  }
  const presented = probe.tls.value!.fingerprint;
  const pins = new MasterPins(opts.pki_dir, opts.master_finger);
  const fingers = masterFingers(opts.master_finger);
  const keyChecks = judgeMasterKey(`${where} TLS`, presented, {
    pinned: pins.pinnedFingerprint(m),
    pinFile: pins.pinFileOf(m),
    masterFinger: fingers.raw,
    masterFingerNormalized: fingers.normalized,
  });
  for (const c of keyChecks) if (c.level === 'ok') c.detail = `handshake in ${probe.tls.ms} ms; ${c.detail}`;
  out.push(...keyChecks);
  if (keyChecks.some((c) => c.level === 'fail')) {
    // an untrusted master is not told who we are, as the daemon would not tell it either
    probe.channel.close('master_key_changed');
    return out;
  }
  if (!identity.own) {
    probe.channel.close('shutdown');
    return out;
  }
  try {
    const auth = await probeKeyState(probe.channel, id, `brine-doctor/${BRINE_VERSION}`, timeoutMs);
    out.push(judgeKeyState(`${where} key`, id, auth));
  } catch (err) {
    const e = toBrineError(err);
    // TLS worked (an HTTPS server such as brine api's) but the answer is not brine
    if (e.code === 'PEER_NOT_BRINE') out.push(fail(`${where} protocol`, e.message, e.fix));
    else out.push(fail(`${where} key`, `could not ask the master for this key's state: ${e.message}`, 'check the master log around this time; an older master may not answer probes'));
  }
  return out;
}

async function readMinionStatus(socket: string): Promise<MinionStatus | StatusProblem> {
  let conn: Awaited<ReturnType<typeof connectUnix<MinionControlReply, MinionControlRequest>>>;
  try {
    conn = await connectUnix<MinionControlReply, MinionControlRequest>(socket, MINION_CONTROL_REPLIES, 3000);
  } catch (err) {
    const code = ((err as { cause?: NodeJS.ErrnoException }).cause as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'EACCES') return { kind: 'denied', socket };
    if (code === 'ENOENT' || code === 'ECONNREFUSED' || code === 'ENOTDIR') return { kind: 'not_running', socket };
    return { kind: 'error', socket, message: errorMessage(err) };
  }
  const c = conn;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      resolve({ kind: 'error', socket, message: 'no answer within 3 s' });
      c.close('handshake_timeout');
    }, 3000);
    c.onMessage((m) => {
      clearTimeout(timer);
      // settle before close(): it runs the close handler at once
      resolve(m.t === 'minion_status' ? m : { kind: 'error', socket, message: m.t === 'error' ? `${m.code}: ${m.message}` : `unexpected answer '${m.t}'` });
      c.close('shutdown');
    });
    c.onClose((info) => {
      clearTimeout(timer);
      resolve({ kind: 'error', socket, message: `closed without an answer (${info.reason})` });
    });
    c.send({ t: 'minion_status' });
  });
}
