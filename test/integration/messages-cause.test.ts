// Issue 26 point 4: messages that name the cause, with real processes. A master killed (and one
// stopped) during a job: "the master connection was lost during the job" and what is known of
// each minion, not a wall of [No response]. "No Top file ..." says what was searched and what
// the top file gave this minion, in the return and in the master log. `brine doctor minion` and
// the minion itself name an HTTPS (brine api), plain HTTP or NATS server on the master port.
// Fix lines per target type.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { Cluster, freePort, runCli, waitUntil, type Proc } from '../helpers/cluster.js';
import { loadOrCreateIdentity } from '../../src/pki/index.js';

/** Resolves once something accepts TCP connections on the port. */
async function listening(port: number): Promise<void> {
  await waitUntil(
    () =>
      new Promise<boolean | undefined>((resolve) => {
        const s = net.connect({ host: '127.0.0.1', port }, () => {
          s.destroy();
          resolve(true);
        });
        s.once('error', () => resolve(undefined));
      }),
    15_000,
    `a server on port ${port}`,
  );
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

describe('the master goes away during a job', () => {
  let cluster: Cluster;
  let master: Proc;
  let slow: Proc;

  before(async () => {
    cluster = await Cluster.create();
    // a frozen minion is waited for long enough for the test to kill the master first
    master = await cluster.startMaster({ auto_accept: true, gather_job_timeout: 60 });
    const fast = cluster.startMinion('fast');
    slow = cluster.startMinion('slow');
    await fast.waitForOutput(/ready to receive requests/);
    await slow.waitForOutput(/ready to receive requests/);
  });
  after(async () => {
    if (slow.child.pid) process.kill(slow.child.pid, 'SIGCONT');
    await cluster.cleanup();
  });

  /** Starts `brine run -v`, waits for the fast minion's return, then does `kill` to the master. */
  async function runThenLoseMaster(kill: (p: Proc) => Promise<void>): Promise<{ code: number | null; stdout: string; stderr: string }> {
    process.kill(slow.child.pid!, 'SIGSTOP');
    const cli = cluster.spawnBrine('run', ['run', '-v', '-L', 'fast,slow', 'test.ping', '-t', '60', '-c', cluster.masterConfigDir]);
    let stdout = '';
    let stderr = '';
    cli.child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    cli.child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    await cli.waitForOutput(/^fast:\n {4}True$/m);
    await kill(master);
    const code = await cli.exited;
    process.kill(slow.child.pid!, 'SIGCONT');
    return { code, stdout, stderr };
  }

  it('killed: the returns so far, [Master connection lost] for the minion still running, MASTER_CONNECTION_LOST saying 1 of 2 had returned', async () => {
    const r = await runThenLoseMaster((p) => p.kill('SIGKILL'));
    const jid = /Executing job with jid (\d{20})/.exec(r.stdout)![1]!;
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /^slow:\n {4}Minion did not return\. \[Master connection lost\]\n {4}The master connection was lost during the job/m);
    assert.ok(r.stdout.includes(`brine jobs show ${jid}`), r.stdout);
    assert.doesNotMatch(r.stdout, /\[No response\]/);
    assert.match(
      r.stderr,
      new RegExp(
        `^MASTER_CONNECTION_LOST: the master connection was lost during the job ${jid} \\(its control socket closed: (peer_closed|reset)[^)]*\\): 1 of 2 minion\\(s\\) sent the job had returned; not returned: slow$`,
        'm',
      ),
    );
    assert.match(r.stderr, /^ {2}fix: Check why the master stopped/m);
  });

  it('stopped (SIGTERM): the master says so in its last answer, and the CLI reports the same way', async () => {
    master = await cluster.startMaster({ auto_accept: true, gather_job_timeout: 60 });
    await waitUntil(
      async () => {
        const s = await cluster.brine(['minions', 'up', '--out', 'json']);
        return s.stdout.includes('fast') && s.stdout.includes('slow') ? true : undefined;
      },
      20_000,
      'both minions back',
    );
    const r = await runThenLoseMaster((p) => p.kill('SIGTERM'));
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /^slow:\n {4}Minion did not return\. \[Master connection lost\]/m);
    assert.match(
      r.stderr,
      /^MASTER_CONNECTION_LOST: the master connection was lost during the job \d{20} \(the master is shutting down\): 1 of 2 minion\(s\) sent the job had returned; not returned: slow$/m,
    );
  });
});

describe('No Top file names what was searched', () => {
  let cluster: Cluster;
  let master: Proc;
  let salt: string;

  before(async () => {
    cluster = await Cluster.create();
    salt = path.join(cluster.root, 'master', 'srv', 'salt');
    fs.mkdirSync(salt, { recursive: true });
    master = await cluster.startMaster({ auto_accept: true });
    const m = cluster.startMinion('m1');
    await m.waitForOutput(/ready to receive requests/);
  });
  after(async () => {
    await cluster.cleanup();
  });

  const comment = async (): Promise<string> => {
    const r = await cluster.brine(['run', 'm1', 'state.apply', '--out', 'json']);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const ret = JSON.parse(r.stdout) as { m1: Record<string, { comment: string }> };
    return ret.m1['no_|-states_|-states_|-None']!.comment;
  };

  it('no top file: says none was found in base, and the master log names its file_roots directory', async () => {
    const c = await comment();
    assert.equal(
      c,
      "No Top file or master_tops data matches found. No top file (top.sls) was found in the environments searched: base. The master's file_roots were searched (environments: base); the master log names their directories.",
    );
    await master.waitForOutput(new RegExp(`m1: No Top file or master_tops data matches found\\. No top file .* This master's file_roots: base: ${salt.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
  });

  it('a top file whose targets miss this minion: names them, a few at most', async () => {
    const targets = ['web*', 'db*', 'G@os:Plan9', 'cache1', 'cache2', 'cache3', 'cache4'];
    fs.writeFileSync(path.join(salt, 'top.sls'), `base:\n${targets.map((t) => `  '${t}':\n    - nothing\n`).join('')}`);
    const c = await comment();
    assert.ok(c.includes("The top file (base) has no target that matches minion 'm1'; its targets: 'web*', 'db*', 'G@os:Plan9', 'cache1', 'cache2' and 2 more. Add a target for this minion"), c);
  });

  it('masterless (brine call --local): names the file_roots directories it searched', async () => {
    const roots = path.join(cluster.root, 'local-roots');
    fs.mkdirSync(roots, { recursive: true });
    cluster.writeMinionConfig('local', { file_client: 'local', file_roots: { base: [roots] } });
    const r = await runCli(['call', '--local', 'state.apply', '--out', 'json', '-c', cluster.minionConfigDir('local')]);
    const ret = JSON.parse(r.stdout) as { local: Record<string, { comment: string }> };
    assert.ok(ret.local['no_|-states_|-states_|-None']!.comment.endsWith(`file_roots searched: base: ${roots}.`), r.stdout);
  });
});

describe('another service on the master port', () => {
  let cluster: Cluster;
  let apiPort: number;
  const children: ChildProcess[] = [];

  before(async () => {
    cluster = await Cluster.create();
    apiPort = await freePort();
    const master = await cluster.startMaster({ auto_accept: true, api: { port: apiPort, host: '127.0.0.1' } });
    await master.waitForOutput(/serving the REST API on https:/);
  });
  after(async () => {
    await Promise.all(children.map(stopChild));
    await cluster.cleanup();
  });

  const doctorLines = async (name: string): Promise<string> => {
    const r = await runCli(['doctor', 'minion', '-c', cluster.minionConfigDir(name)], { timeoutMs: 30_000 });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.doesNotMatch(r.stdout, /frame_too_large|FRAME_TOO_LARGE|1213486160/);
    return r.stdout;
  };

  it('brine api (HTTPS): doctor names an HTTP server and the port to use, not frame_too_large', async () => {
    cluster.writeMinionConfig('at-api', { master_port: apiPort });
    // a minion that has run before has its key pair; only then does the doctor send its probe
    await loadOrCreateIdentity({ pkiDir: path.join(cluster.root, 'minions', 'at-api', 'etc', 'brine', 'pki', 'minion'), name: 'minion', commonName: 'at-api' });
    const out = await doctorLines('at-api');
    assert.match(
      out,
      new RegExp(
        `^FAIL master 127\\.0\\.0\\.1:${apiPort} protocol: the peer speaks another protocol: it sent "HTTP/1\\.1 \\d{3}[^"]*", as an HTTP server \\(brine api and its web view, or another web service\\) does, not a brine frame; point master_port at the master's ret_port \\(4506 by default\\)`,
        'm',
      ),
    );
  });

  it('a plain HTTP server: doctor names it where TLS fails; the minion daemon logs the same', async () => {
    const port = await freePort();
    const dir = fs.mkdtempSync(path.join(cluster.root, 'www-'));
    const http = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', dir], { stdio: 'ignore' });
    children.push(http);
    await listening(port);
    cluster.writeMinionConfig('at-http', { master_port: port });
    const out = await doctorLines('at-http');
    assert.match(
      out,
      new RegExp(`^FAIL master 127\\.0\\.0\\.1:${port} TLS: TLS 1\\.3 handshake failed: 127\\.0\\.0\\.1:${port} speaks another protocol: it sent "HTTP/1\\.\\d \\d{3}[^"]*", as an HTTP server`, 'm'),
    );
    const minion = cluster.startMinion('at-http', { master_port: port });
    await minion.waitForOutput(new RegExp(`127\\.0\\.0\\.1:${port} speaks another protocol: it sent .*, as an HTTP server`));
  });

  it('a NATS server: doctor and the minion daemon say NATS and how to use it', async () => {
    const port = await freePort();
    const nats = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
    children.push(nats);
    await listening(port);
    cluster.writeMinionConfig('at-nats', { master_port: port });
    const out = await doctorLines('at-nats');
    assert.match(
      out,
      new RegExp(
        `^FAIL master 127\\.0\\.0\\.1:${port} TLS: TLS 1\\.3 handshake failed: 127\\.0\\.0\\.1:${port} speaks another protocol: it sent "INFO \\{.*, as a NATS server does, not a brine frame; for brine over NATS set \`transport: nats\``,
        'm',
      ),
    );
    const minion = cluster.startMinion('at-nats', { master_port: port });
    await minion.waitForOutput(/as a NATS server does, not a brine frame; for brine over NATS set `transport: nats`/);
  });
});

describe('fix lines per target type', () => {
  let cluster: Cluster;

  before(async () => {
    cluster = await Cluster.create();
    await cluster.startMaster({ auto_accept: true });
    // a compound expression is parsed when it is matched against an accepted key
    await cluster.startMinion('t1').waitForOutput(/ready to receive requests/);
  });
  after(async () => {
    await cluster.cleanup();
  });

  it('a compound target that does not parse gets the -C syntax, not -E advice', async () => {
    const r = await cluster.brine(['run', '-C', 'G@os:Debian and', 'test.ping']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /^TARGET_INVALID: compound target/m);
    assert.match(r.stderr, /^ {2}fix: -C takes terms joined by and, or, not and parentheses/m);
    assert.doesNotMatch(r.stderr, /-E/);
  });

  it('a bad regular expression gets the -E fix', async () => {
    const r = await cluster.brine(['run', '-E', 'web(', 'test.ping']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /^ {2}fix: -E takes a regular expression matched from the start of the minion ID/m);
  });

  it('no minion matched: Salt lines, then the fix for the target type (-G here)', async () => {
    const r = await cluster.brine(['run', '-G', 'os:Plan9', 'test.ping']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stdout, /No minions matched the target/);
    assert.match(r.stderr, /^ERROR: No return received\n {2}fix: -G takes grain:glob/);
  });
});
