// Test harness: real master and minion processes (the built `brine` CLI) in a throwaway root
// directory on loopback. Every process and directory it makes is removed by cleanup().

import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { freePort } from './ports.js';
import { repoRoot } from './repo.js';
import { waitUntil } from './wait.js';

// freePort and waitUntil live in their own helpers; most integration tests import them from here.
export { freePort, repoRoot, waitUntil };

/** The CLI entry point; BRINE_CLI_JS points tests at another build (e.g. a private outDir). */
export const BRINE_BIN = process.env.BRINE_CLI_JS ?? path.join(repoRoot(), 'bin', 'brine.js');

export class Proc {
  output = '';
  readonly exited: Promise<number | null>;
  exitCode: number | null | undefined;

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    child.stdout?.on('data', (d: Buffer) => (this.output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (this.output += d.toString()));
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitCode = code ?? (signal ? null : code);
        resolve(code);
      });
    });
  }

  get running(): boolean {
    return this.exitCode === undefined;
  }

  // generous: a loaded CI machine can take well over 15 s to start a daemon; a match returns at once
  waitForOutput(pattern: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> {
    return waitUntil(() => this.output.match(pattern) ?? undefined, timeoutMs, `${this.name} to print ${pattern}\n--- output so far ---\n${this.output}`);
  }

  async kill(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    if (!this.running) return;
    this.child.kill(signal);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await this.exited;
    clearTimeout(timer);
  }
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {}): Promise<CliResult> {
  return runCommand(process.execPath, [BRINE_BIN, ...args], { ...opts, env: { ...process.env, NO_COLOR: '1', ...opts.env }, what: `brine ${args.join(' ')}` });
}

/** Runs a command to its end with a deadline (SIGKILL then), collecting its output. */
export function runCommand(command: string, argv: string[], opts: { env: NodeJS.ProcessEnv; input?: string; timeoutMs?: number; what: string }): Promise<CliResult> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { env: opts.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${opts.what} did not finish in ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/**
 * Block-style YAML, as operators write configs (scalars as JSON strings, which YAML reads as
 * double-quoted): a flow mapping such as `{"base": [...]}` would send the loader to the full
 * `yaml` package, which the lean start-up test checks a node never loads.
 */
function yamlLines(key: string, v: unknown, indent: string): string[] {
  const isMap = v !== null && typeof v === 'object' && !Array.isArray(v);
  const entries = Array.isArray(v) ? v.length : isMap ? Object.keys(v).length : 0;
  if (entries === 0) return [`${indent}${key}: ${JSON.stringify(v)}`];
  if (Array.isArray(v)) return [`${indent}${key}:`, ...v.map((x) => `${indent}  - ${JSON.stringify(x)}`)];
  return [`${indent}${key}:`, ...Object.entries(v as Record<string, unknown>).flatMap(([k, x]) => yamlLines(k, x, `${indent}  `))];
}

function writeConfig(file: string, settings: Record<string, unknown>): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(
    file,
    `${Object.entries(settings)
      .flatMap(([k, v]) => yamlLines(k, v, ''))
      .join('\n')}\n`,
  );
}

/**
 * file_roots and pillar_roots at <root>/srv/salt and <root>/srv/pillar. Salt (and brine since
 * issue 22) does not move them under root_dir, so a test node names its own trees explicitly.
 */
export function treesUnder(root: string): { file_roots: { base: string[] }; pillar_roots: { base: string[] } } {
  return { file_roots: { base: [path.join(root, 'srv', 'salt')] }, pillar_roots: { base: [path.join(root, 'srv', 'pillar')] } };
}

/** Fast liveness settings so tests do not wait for production timeouts. */
export const FAST_MINION = { acceptance_wait_time: 0.5, recon_default: 100, recon_max: 1000, auth_timeout: 5 };

export class Cluster {
  readonly procs: Proc[] = [];
  port = 0;

  private constructor(readonly root: string) {}

  static async create(): Promise<Cluster> {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-it-'));
    const c = new Cluster(root);
    c.port = await freePort();
    return c;
  }

  get masterConfigDir(): string {
    return path.join(this.root, 'master', 'etc');
  }

  minionConfigDir(name: string): string {
    return path.join(this.root, 'minions', name, 'etc');
  }

  writeMasterConfig(extra: Record<string, unknown> = {}): void {
    const root = path.join(this.root, 'master');
    writeConfig(path.join(this.masterConfigDir, 'master'), { root_dir: root, ...treesUnder(root), interface: '127.0.0.1', ret_port: this.port, log_level: 'info', ...extra });
  }

  writeMinionConfig(name: string, extra: Record<string, unknown> = {}): void {
    const root = path.join(this.root, 'minions', name);
    writeConfig(path.join(this.minionConfigDir(name), 'minion'), {
      root_dir: root,
      ...treesUnder(root),
      master: '127.0.0.1',
      master_port: this.port,
      id: name,
      log_level: 'info',
      ...FAST_MINION,
      ...extra,
    });
  }

  spawnBrine(name: string, args: string[], env: NodeJS.ProcessEnv = {}): Proc {
    const child = spawn(process.execPath, [BRINE_BIN, ...args], { env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const p = new Proc(name, child);
    this.procs.push(p);
    return p;
  }

  async startMaster(extra: Record<string, unknown> = {}): Promise<Proc> {
    this.writeMasterConfig(extra);
    const p = this.spawnBrine('master', ['master', '-c', this.masterConfigDir]);
    await p.waitForOutput(/brine master listening/);
    return p;
  }

  startMinion(name: string, extra: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = {}): Proc {
    this.writeMinionConfig(name, extra);
    return this.spawnBrine(`minion ${name}`, ['minion', '-c', this.minionConfigDir(name)], env);
  }

  /** A minion from a test-only entry script (a compiled file under dist/test/helpers) instead of `brine minion`. */
  startMinionScript(name: string, script: string, args: string[], extra: Record<string, unknown> = {}): Proc {
    this.writeMinionConfig(name, extra);
    const child = spawn(process.execPath, [script, '-c', this.minionConfigDir(name), ...args], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const p = new Proc(`minion ${name}`, child);
    this.procs.push(p);
    return p;
  }

  /** Runs a CLI command against this cluster's master config. */
  brine(args: string[], opts: { input?: string; timeoutMs?: number } = {}): Promise<CliResult> {
    return runCli([...args, '-c', this.masterConfigDir], opts);
  }

  /** Waits until the master's key store lists the IDs as pending. */
  async waitForPending(ids: string[], timeoutMs = 15_000): Promise<void> {
    await waitUntil(
      async () => {
        const r = await this.brine(['key', '-l', 'un']);
        return ids.every((id) => r.stdout.split('\n').includes(id));
      },
      timeoutMs,
      `pending keys ${ids.join(', ')}`,
    );
  }

  async cleanup(): Promise<void> {
    await Promise.all(this.procs.map((p) => p.kill('SIGKILL')));
    fs.rmSync(this.root, { recursive: true, force: true });
  }
}
