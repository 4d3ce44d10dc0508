#!/usr/bin/env node
// `npm start`: a local brine in a throwaway root directory. Starts a master and two minions
// over loopback TLS, accepts their keys, runs test.ping, grains.items and cmd.run, applies a small
// state tree (test=True first, then for real, then again with nothing to change), then cleans up.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

const bin = new URL('../bin/brine.js', import.meta.url).pathname;
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-demo-'));
const procs = [];

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net
      .createServer()
      .once('error', reject)
      .listen(0, '127.0.0.1', () => {
        const { port } = srv.address();
        srv.close(() => resolve(port));
      });
  });
}

function write(file, lines) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
}

function daemon(name, args) {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const proc = { name, child, log: '' };
  child.stdout.on('data', (d) => (proc.log += d));
  child.stderr.on('data', (d) => (proc.log += d));
  procs.push(proc);
  return proc;
}

function brine(args, { show = true } = {}) {
  const shown = args.filter((a) => a !== '-c' && !a.startsWith(root)).map((a) => (/^[\w.,=:/-]+$/.test(a) ? a : `'${a}'`));
  if (show) console.log(`\n$ brine ${shown.join(' ')}`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (show) process.stdout.write(d);
    });
    child.stderr.on('data', (d) => show && process.stderr.write(d));
    child.on('exit', (code) => resolve({ code, out }));
  });
}

async function until(what, fn, ms = 20000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await fn()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function cleanup() {
  for (const p of procs) p.child.kill('SIGTERM');
  fs.rmSync(root, { recursive: true, force: true });
}

async function main() {
  const port = await freePort();
  const masterDir = path.join(root, 'master');
  const srv = path.join(masterDir, 'srv');
  write(path.join(masterDir, 'master'), [`root_dir: ${masterDir}`, 'interface: 127.0.0.1', `ret_port: ${port}`, 'log_level: info', 'file_roots:', `  base: [${srv}]`]);
  // a state tree: each minion gets a templated motd under its own root, and a marker command that
  // runs only when the motd changes
  write(path.join(srv, 'top.sls'), ['base:', "  '*':", '    - motd']);
  write(path.join(srv, 'motd', 'init.sls'), [
    `{% set dest = '${root}/' ~ grains['id'] ~ '/etc/motd' %}`,
    'motd:',
    '  file.managed:',
    '    - name: {{ dest }}',
    '    - source: salt://motd/motd.j2',
    '    - template: jinja',
    '    - makedirs: True',
    'motd-changed:',
    '  cmd.run:',
    "    - name: echo motd changed on {{ grains['id'] }}",
    '    - onchanges:',
    '      - file: motd',
  ]);
  write(path.join(srv, 'motd', 'motd.j2'), ["Welcome to {{ grains['id'] }} ({{ grains['roles'] | join(', ') }}), managed by brine"]);
  const conf = ['-c', masterDir];
  console.log(`brine demo in ${root} (master on 127.0.0.1:${port})`);
  const master = daemon('master', ['master', ...conf]);
  await until('the master', () => /listening/.test(master.log));
  for (const id of ['web1', 'db1']) {
    const dir = path.join(root, id);
    write(path.join(dir, 'minion'), [
      `root_dir: ${dir}`,
      'master: 127.0.0.1',
      `master_port: ${port}`,
      `id: ${id}`,
      'acceptance_wait_time: 0.5',
      'log_level: info',
      'grains:',
      `  roles: [${id.startsWith('web') ? 'web' : 'db'}]`,
    ]);
    daemon(id, ['minion', '-c', dir]);
  }
  await until('two pending keys', async () => (await brine(['key', '-l', 'un', ...conf], { show: false })).out.split('\n').length >= 4);
  await brine(['key', '-L', ...conf]);
  await brine(['key', '-A', '-y', ...conf]);
  await until('both minions to connect', () => procs.filter((p) => /ready to receive requests/.test(p.log)).length === 2);
  const ping = await brine(['run', '*', 'test.ping', ...conf]);
  await brine(['run', '*', 'grains.items', ...conf]);
  await brine(['run', '-L', 'web1,db1', 'cmd.run', 'uname -sr', ...conf]);
  await brine(['run', 'web1', 'state.apply', 'test=True', ...conf]);
  const applied = await brine(['run', '*', 'state.apply', '--state-output', 'terse', ...conf]);
  await brine(['run', '*', 'state.apply', '--state-verbose', 'False', ...conf]);
  if (applied.code !== 0) return applied.code ?? 1;
  console.log(`\nDone: a master and two minions over mutual TLS 1.3. Everything under ${root} is removed now.`);
  return ping.code ?? 1;
}

// Ctrl-C or a closed pipe (`npm start | head`) must not leave daemons behind
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'])
  process.on(sig, () => {
    cleanup();
    process.exit(130);
  });
process.stdout.on('error', () => {
  cleanup();
  process.exit(0);
});

main()
  .then((code) => {
    cleanup();
    process.exit(code);
  })
  .catch((err) => {
    console.error(`demo failed: ${err.message}`);
    for (const p of procs) console.error(`--- ${p.name} log ---\n${p.log}`);
    cleanup();
    process.exit(1);
  });
