// `brine call` (salt-call --local) end to end: the real CLI with a minion config and no master.
// Output format, the ID from the config, salt-call's exit status (1, or the retcode with
// --retcode-passthrough), coded argument errors, and --out json.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { BRINE_BIN, Cluster, runCli, type CliResult } from '../helpers/cluster.js';

describe('brine call (salt-call --local)', () => {
  let cluster: Cluster;
  let call: (args: string[]) => Promise<CliResult>;

  before(async () => {
    cluster = await Cluster.create();
    cluster.writeMinionConfig('callhost-dir', { id: 'callhost' });
    call = (args) => runCli(['call', '--local', ...args, '-c', cluster.minionConfigDir('callhost-dir')]);
  });
  after(async () => {
    await cluster.cleanup();
  });

  it('test.ping prints "local:" and True, exit 0', async () => {
    const r = await call(['test.ping']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'local:\n    True\n');
  });

  it('grains.get id returns the id from the minion config', async () => {
    const r = await call(['grains.get', 'id']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'local:\n    callhost\n');
  });

  it("exits 1 for a non-zero retcode, as salt-call does: cmd.retcode 'exit 3' exits 1", async () => {
    const r = await call(['cmd.retcode', 'exit 3']);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, 'local:\n    3\n');
  });

  it("--retcode-passthrough exits with the function's retcode: cmd.retcode 'exit 3' exits 3", async () => {
    const r = await call(['cmd.retcode', 'exit 3', '--retcode-passthrough']);
    assert.equal(r.code, 3, r.stderr);
    assert.equal(r.stdout, 'local:\n    3\n');
    const ok = await call(['cmd.retcode', 'exit 0', '--retcode-passthrough']);
    assert.equal(ok.code, 0, ok.stderr);
  });

  it('output into a pipe whose reader has gone (| head) ends quietly with 141, no EPIPE trace', async () => {
    const child = spawn(process.execPath, [BRINE_BIN, 'call', '--local', 'cmd.run', 'seq 1 300000', '-c', cluster.minionConfigDir('callhost-dir')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    // read the first chunk, then hang up, as head does after its lines
    await once(child.stdout, 'data');
    child.stdout.destroy();
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 141, stderr);
    assert.doesNotMatch(stderr, /EPIPE|Unhandled|at /);
  });

  it('a missing argument is BAD_ARGUMENTS on stderr, exit 1', async () => {
    const r = await call(['test.echo']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^BAD_ARGUMENTS: test\.echo: missing required argument 'text'/m);
    assert.match(r.stdout, /^local:\n/);
  });

  it('an unknown function is UNKNOWN_FUNCTION, exit 1', async () => {
    const r = await call(['nosuch.thing']);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, "local:\n    'nosuch.thing' is not available.\n");
    assert.match(r.stderr, /^UNKNOWN_FUNCTION: /m);
  });

  it('--out json prints {"local": ...} with an indent of 4', async () => {
    const r = await call(['test.echo', 'hello world', '--out', 'json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '{\n    "local": "hello world"\n}\n');
    const grains = await call(['grains.items', '--out', 'json']);
    const parsed = JSON.parse(grains.stdout) as { local: Record<string, unknown> };
    assert.equal(parsed.local.id, 'callhost');
  });

  it('-l sets the level of the log lines printed on stderr, as salt-call -l; an unknown level is a usage error', async () => {
    const quiet = await call(['log.debug', 'detail for the operator']);
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.doesNotMatch(quiet.stderr, /detail for the operator/);
    const loud = await call(['log.debug', 'detail for the operator', '-l', 'debug']);
    assert.match(loud.stderr, /^\[DEBUG {3}\] detail for the operator$/m);
    const errorsOnly = await call(['log.warning', 'a warning', '-l', 'error']);
    assert.doesNotMatch(errorsOnly.stderr, /a warning/);
    const bad = await call(['test.ping', '-l', 'chatty']);
    assert.equal(bad.code, 64);
    assert.match(bad.stderr, /unknown log level 'chatty'/);
  });

  it('an unknown --out is a usage error (exit 64) naming the choices', async () => {
    const r = await call(['test.ping', '--out', 'bogus']);
    assert.equal(r.code, 64);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /unknown --out 'bogus': use one of nested, json, yaml, txt, raw/);
  });
});
