// Issue 2, startup errors: a daemon or CLI that cannot start says so in one coded line naming
// what to fix (plus the `fix:` line) and exits non-zero; also the control socket's permissions.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Cluster, runCli, type CliResult } from '../helpers/cluster.js';

/** The only two non-empty stderr lines must be `CODE: ...` and `  fix: ...`; returns the first. */
function codedLine(r: CliResult, code: string): string {
  const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
  assert.equal(lines.length, 2, `expected one error line and one fix line, got:\n${r.stderr}`);
  assert.ok(lines[0]!.startsWith(`${code}: `), `expected ${code}, got:\n${r.stderr}`);
  assert.match(lines[1]!, /^ {2}fix: \S/);
  assert.equal(r.stdout, '', 'nothing on stdout');
  return lines[0]!;
}

describe('startup errors: one coded line, what to fix, a non-zero exit', () => {
  let tmp: string;
  const write = (rel: string, text: string): string => {
    const file = path.join(tmp, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    return path.dirname(file);
  };

  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-start-'));
  });
  after(() => {
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('-c naming a directory without the role’s file → CONFIG_NOT_FOUND', async () => {
    const dir = path.join(tmp, 'empty');
    fs.mkdirSync(dir);
    const r = await runCli(['master', '-c', dir]);
    assert.equal(r.code, 78);
    const line = codedLine(r, 'CONFIG_NOT_FOUND');
    assert.ok(line.includes(path.join(dir, 'master')), line);
  });

  it('a config file that is a directory → CONFIG_UNREADABLE', async () => {
    const dir = path.join(tmp, 'isdir');
    fs.mkdirSync(path.join(dir, 'minion'), { recursive: true });
    const r = await runCli(['minion', '-c', dir]);
    assert.equal(r.code, 78);
    const line = codedLine(r, 'CONFIG_UNREADABLE');
    assert.ok(line.includes(path.join(dir, 'minion')), line);
    assert.match(line, /is a directory/);
  });

  it('bad YAML → CONFIG_PARSE with the line', async () => {
    const dir = write('yaml/master', `root_dir: ${JSON.stringify(path.join(tmp, 'yaml'))}\nret_port: 4506\nfile_roots: [a,\n  b: :\n`);
    const r = await runCli(['master', '-c', dir]);
    assert.equal(r.code, 78);
    const line = codedLine(r, 'CONFIG_PARSE');
    assert.ok(line.includes(path.join(dir, 'master')), line);
    assert.match(line, /line 4\b/);
  });

  it('master_port: abc → CONFIG_TYPE naming the key, the file and the expected type', async () => {
    const dir = write('type/minion', `root_dir: ${JSON.stringify(path.join(tmp, 'type'))}\nmaster_port: abc\n`);
    const r = await runCli(['minion', '-c', dir]);
    assert.equal(r.code, 78);
    const line = codedLine(r, 'CONFIG_TYPE');
    assert.match(line, /'master_port'/);
    assert.ok(line.includes(path.join(dir, 'minion')), line);
    assert.match(line, /must be an integer/);
    assert.match(line, /"abc"/);
  });

  it('a reactor entry with a relative SLS path → CONFIG_VALUE naming the tag glob and the accepted paths (issue 25)', async () => {
    const dir = write('reactor/master', `root_dir: ${JSON.stringify(path.join(tmp, 'reactor'))}\nret_port: 0\nreactor:\n  - 'salt/minion/*/start': [reactor/start.sls]\n`);
    const r = await runCli(['master', '-c', dir]);
    assert.equal(r.code, 78);
    const line = codedLine(r, 'CONFIG_VALUE');
    assert.match(line, /reactor entry 'salt\/minion\/\*\/start' must list SLS files as absolute paths or salt:\/\/ paths/);
  });

  it('mastr_port: 1 → CONFIG_UNKNOWN_KEY suggesting master_port', async () => {
    const dir = write('typo/minion', `root_dir: ${JSON.stringify(path.join(tmp, 'typo'))}\nmastr_port: 1\n`);
    const r = await runCli(['minion', '-c', dir]);
    assert.equal(r.code, 78);
    const line = codedLine(r, 'CONFIG_UNKNOWN_KEY');
    assert.match(line, /'mastr_port'/);
    assert.match(line, /did you mean 'master_port'\?/);
    assert.ok(line.includes(path.join(dir, 'minion')), line);
  });

  it('ret_port held by another listener → LISTEN_FAILED naming the port', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    try {
      const port = (holder.address() as net.AddressInfo).port;
      const root = path.join(tmp, 'busy');
      const dir = write('busy/etc/master', `root_dir: ${JSON.stringify(root)}\ninterface: 127.0.0.1\nret_port: ${port}\n`);
      const r = await runCli(['master', '-c', dir], { timeoutMs: 20_000 });
      assert.equal(r.code, 1);
      const line = codedLine(r, 'LISTEN_FAILED');
      assert.ok(line.includes(`127.0.0.1:${port}`), line);
      assert.match(line, /EADDRINUSE/);
      // a failed start leaves no control socket behind to confuse the next one
      const sockets = fs
        .readdirSync(root, { recursive: true })
        .map(String)
        .filter((p) => p.endsWith('master.sock'));
      assert.deepEqual(sockets, []);
    } finally {
      holder.close();
    }
  });

  it('pki_dir under a regular file (root ignores permissions) → PKI_UNWRITABLE naming the path', async () => {
    const root = path.join(tmp, 'pki');
    fs.mkdirSync(root, { recursive: true });
    fs.writeFileSync(path.join(root, 'blocker'), 'not a directory\n');
    // a relative pki_dir is taken relative to root_dir (Salt's rule)
    const dir = write('pki/etc/master', `root_dir: ${JSON.stringify(root)}\ninterface: 127.0.0.1\nret_port: 0\npki_dir: blocker/pki\n`);
    const r = await runCli(['master', '-c', dir], { timeoutMs: 20_000 });
    assert.equal(r.code, 73);
    const line = codedLine(r, 'PKI_UNWRITABLE');
    assert.ok(line.includes(path.join(root, 'blocker', 'pki')), line);
  });

  it('brine run with no master running → MASTER_UNREACHABLE, exit 2', async () => {
    const root = path.join(tmp, 'nomaster');
    const dir = write('nomaster/etc/master', `root_dir: ${JSON.stringify(root)}\n`);
    const r = await runCli(['run', '*', 'test.ping', '-c', dir]);
    assert.equal(r.code, 2);
    const line = codedLine(r, 'MASTER_UNREACHABLE');
    assert.match(line, /master\.sock/);
    assert.match(line, /is the master running\?/);
  });
});

describe('the control socket', () => {
  let cluster: Cluster;
  before(async () => {
    cluster = await Cluster.create();
    await cluster.startMaster();
  });
  after(async () => {
    await cluster.cleanup();
  });

  it('is mode 0600 inside a 0700 directory', async () => {
    const found = fs
      .readdirSync(cluster.root, { recursive: true })
      .map(String)
      .filter((p) => p.endsWith('master.sock'));
    assert.equal(found.length, 1, `control sockets: ${found.join(', ')}`);
    const sock = path.join(cluster.root, found[0]!);
    const st = fs.statSync(sock);
    assert.ok(st.isSocket());
    assert.equal(st.mode & 0o777, 0o600, `socket mode ${(st.mode & 0o777).toString(8)}`);
    assert.equal(fs.statSync(path.dirname(sock)).mode & 0o777, 0o700, 'sock_dir mode');
    // and it is the one the CLI talks to: the master answers (no minions yet) instead of MASTER_UNREACHABLE
    const r = await cluster.brine(['run', '*', 'test.ping']);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stdout + r.stderr, /No minions matched the target/);
  });
});
