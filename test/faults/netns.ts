// Kernel-level network faults for tests run as root: two network namespaces joined by a veth
// pair (addresses that exist only inside them), processes spawned inside either one, and an
// iptables DROP both ways that a peer sees as silence (connect() times out, nothing arrives).

import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { privilegedSkip } from '../helpers/privileged.js';
import { waitUntil } from '../helpers/wait.js';

/** Every namespace these helpers create starts with this, followed by the creating pid. */
export const NETNS_PREFIX = 'brt-';

export type NetnsAvailability = { readonly available: true } | { readonly available: false; readonly reason: string };

export interface NetnsEnd {
  /** Namespace name (for `ip netns exec`). */
  readonly name: string;
  /** This end's address on the veth link, reachable from the other namespace only. */
  readonly address: string;
  /** The veth interface inside this namespace. */
  readonly iface: string;
}

export interface ExecResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface NetnsPairOptions {
  /** First three octets of the /24 used on the link; default 10.203.0 (.1 is a, .2 is b). */
  readonly subnet?: string;
}

const IFACE = 'veth0';

let availability: NetnsAvailability | undefined;

/**
 * Whether this process can create namespaces and run iptables in them; the reason says why not
 * (not root, a tool missing, no CAP_SYS_ADMIN in a container). Checked once, with a probe.
 */
export function isAvailable(): NetnsAvailability {
  availability ??= probe();
  return availability;
}

/**
 * What a test passes as `skip`: a one-line reason when namespaces are unavailable (not root,
 * ip or iptables missing), false when they work. With BRINE_REQUIRE_PRIVILEGED set (CI) the
 * skip becomes a failing test named `what` (test/helpers/privileged.ts).
 */
export function netnsSkip(what = 'network-namespace test'): string | false {
  const a = isAvailable();
  return privilegedSkip(what, a.available ? false : `network namespaces unavailable: ${a.reason}`);
}

const oneLine = (s: string): string => s.trim().replace(/\s+/g, ' ');

function probe(): NetnsAvailability {
  if (process.platform !== 'linux') return { available: false, reason: `needs Linux, this is ${process.platform}` };
  if (process.getuid?.() !== 0) return { available: false, reason: 'needs root (run the fault suite as root, as CI does)' };
  for (const [tool, arg] of [
    ['ip', '-V'],
    ['iptables', '--version'],
  ] as const) {
    const r = spawnSync(tool, [arg], { encoding: 'utf8' });
    if (r.error) return { available: false, reason: `${tool} not found (apt-get install iproute2 iptables; .ci/run does)` };
  }
  const name = `${NETNS_PREFIX}${process.pid}-probe-${randomBytes(2).toString('hex')}`;
  const add = spawnSync('ip', ['netns', 'add', name], { encoding: 'utf8' });
  if (add.status !== 0) return { available: false, reason: `cannot create a network namespace: ${oneLine(add.stderr)}` };
  const ipt = spawnSync('ip', ['netns', 'exec', name, 'iptables', '-w', '-S'], { encoding: 'utf8' });
  spawnSync('ip', ['netns', 'del', name]);
  if (ipt.status !== 0) return { available: false, reason: `iptables does not work inside a namespace: ${oneLine(ipt.stderr)}` };
  return { available: true };
}

/** Runs a command to completion (no shell) and returns its output; never rejects on exit codes. */
export function execCommand(argv: readonly string[], timeoutMs = 10_000): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    const [cmd, ...args] = argv;
    if (cmd === undefined) throw new Error('execCommand needs a command');
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs, killSignal: 'SIGKILL' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** Like execCommand but throws with the command's stderr when it fails. */
async function must(argv: readonly string[]): Promise<string> {
  const r = await execCommand(argv);
  if (r.code !== 0) throw new Error(`\`${argv.join(' ')}\` failed (exit ${r.code ?? r.signal}): ${r.stderr.trim()}`);
  return r.stdout;
}

/** Names of every namespace that exists now. */
export async function listNetns(): Promise<string[]> {
  const out = await must(['ip', 'netns', 'list']);
  // lines look like "name" or "name (id: 3)"
  return out
    .split('\n')
    .map((l) => l.trim().split(/\s+/)[0] ?? '')
    .filter((n) => n !== '');
}

/** Kills everything running inside a namespace, then deletes it (its veth goes with it). */
async function destroyNetns(name: string): Promise<void> {
  const pids = await execCommand(['ip', 'netns', 'pids', name]);
  for (const pid of pids.stdout.split(/\s+/).filter((p) => /^\d+$/.test(p))) {
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // already gone
    }
  }
  // a namespace with live processes survives `ip netns del` (unnamed), so wait for them to die
  await waitUntil(
    async () => {
      const left = await execCommand(['ip', 'netns', 'pids', name]);
      return left.stdout.trim() === '' || left.code !== 0;
    },
    5000,
    `the processes in ${name} to die`,
  ).catch(() => undefined); // `ip netns del` below says what is left
  const del = await execCommand(['ip', 'netns', 'del', name]);
  if (del.code !== 0 && !/No such file/.test(del.stderr)) throw new Error(`cannot delete network namespace ${name}: ${del.stderr.trim()}`);
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes `brt-*` namespaces left by runs that died before cleanup (their creating pid is gone).
 * Namespaces of live runs, this one included, are left alone so parallel runs don't collide.
 */
export async function sweepStale(): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await listNetns()) {
    const m = new RegExp(`^${NETNS_PREFIX}(\\d+)-`).exec(name);
    if (!m || pidAlive(Number(m[1]))) continue;
    await destroyNetns(name);
    removed.push(name);
  }
  return removed;
}

/** Creates two namespaces, `a` (x.x.x.1) and `b` (x.x.x.2), linked by veth with lo and veth up. */
export async function createNetnsPair(options: NetnsPairOptions = {}): Promise<NetnsPair> {
  const subnet = options.subnet ?? '10.203.0';
  if (!/^\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(subnet)) throw new Error(`subnet must be three octets like 10.203.0, got ${subnet}`);
  const base = `${NETNS_PREFIX}${process.pid}-${randomBytes(3).toString('hex')}`;
  const a: NetnsEnd = { name: `${base}-a`, address: `${subnet}.1`, iface: IFACE };
  const b: NetnsEnd = { name: `${base}-b`, address: `${subnet}.2`, iface: IFACE };
  const pair = new NetnsPair(a, b);
  try {
    await must(['ip', 'netns', 'add', a.name]);
    await must(['ip', 'netns', 'add', b.name]);
    // both ends are created directly inside their namespaces: nothing appears in the host's
    // namespace, so fixed interface names and addresses cannot collide across parallel runs
    await must(['ip', 'link', 'add', IFACE, 'netns', a.name, 'type', 'veth', 'peer', 'name', IFACE, 'netns', b.name]);
    for (const end of [a, b]) {
      await must(['ip', '-n', end.name, 'addr', 'add', `${end.address}/24`, 'dev', IFACE]);
      await must(['ip', '-n', end.name, 'link', 'set', 'lo', 'up']);
      await must(['ip', '-n', end.name, 'link', 'set', IFACE, 'up']);
    }
  } catch (err) {
    await pair.cleanup().catch(() => undefined);
    throw err;
  }
  return pair;
}

export class NetnsPair {
  private readonly children = new Set<ChildProcess>();
  private droppedIn: NetnsEnd | undefined;
  private cleaning: Promise<void> | undefined;

  constructor(
    readonly a: NetnsEnd,
    readonly b: NetnsEnd,
  ) {}

  /** The namespace where dropBoth() is in force, if any. */
  get dropped(): NetnsEnd | undefined {
    return this.droppedIn;
  }

  /** Spawns argv inside a namespace (the pid is argv's own: `ip netns exec` execs it). */
  run(ns: NetnsEnd, argv: readonly string[], options: SpawnOptions = {}): ChildProcess {
    this.guard('run');
    const child = spawn('ip', ['netns', 'exec', ns.name, ...argv], { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    this.children.add(child);
    child.once('exit', () => this.children.delete(child));
    child.once('error', () => this.children.delete(child));
    return child;
  }

  /** Runs argv inside a namespace to completion. */
  exec(ns: NetnsEnd, argv: readonly string[], timeoutMs = 10_000): Promise<ExecResult> {
    this.guard('exec');
    return execCommand(['ip', 'netns', 'exec', ns.name, ...argv], timeoutMs);
  }

  /**
   * Drops every packet in and out of `ns`'s veth (default a) with iptables. The other side
   * sees pure silence: SYNs go unanswered, sent bytes are never ACKed. Loopback inside `ns`
   * keeps working.
   */
  async dropBoth(ns: NetnsEnd = this.a): Promise<void> {
    this.guard('dropBoth');
    if (this.droppedIn) throw new Error(`dropBoth() is already in force in ${this.droppedIn.name}; call restore() first`);
    await this.iptables(ns, '-A');
    this.droppedIn = ns;
  }

  /** Removes the DROP rules added by dropBoth(); a no-op when none are in force. */
  async restore(): Promise<void> {
    this.guard('restore');
    const ns = this.droppedIn;
    if (!ns) return;
    await this.iptables(ns, '-D');
    this.droppedIn = undefined;
  }

  /** Kills every process inside both namespaces and deletes them; safe to call more than once. */
  cleanup(): Promise<void> {
    this.cleaning ??= (async () => {
      for (const child of this.children) child.kill('SIGKILL');
      const errors: unknown[] = [];
      for (const end of [this.a, this.b]) await destroyNetns(end.name).catch((e: unknown) => errors.push(e));
      if (errors.length > 0) throw errors[0];
    })();
    return this.cleaning;
  }

  private async iptables(ns: NetnsEnd, op: '-A' | '-D'): Promise<void> {
    // -w: the xtables lock is shared with every other namespace on the host
    await must(['ip', 'netns', 'exec', ns.name, 'iptables', '-w', op, 'INPUT', '-i', ns.iface, '-j', 'DROP']);
    await must(['ip', 'netns', 'exec', ns.name, 'iptables', '-w', op, 'OUTPUT', '-o', ns.iface, '-j', 'DROP']);
  }

  private guard(op: string): void {
    if (this.cleaning) throw new Error(`NetnsPair.${op}() called after cleanup(); create a new pair`);
  }
}
