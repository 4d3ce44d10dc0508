// Salt's cmd_json and cmd_yaml ext_pillars: a command the operator configured runs on the master
// for each minion (`%s` becomes the minion ID, every occurrence, as Salt's str.replace) and its
// standard output is the data. cmd_json runs without a shell (Salt's cmd.run from another module:
// python_shell=False, words split as a POSIX shell would); cmd_yaml through /bin/sh, as Salt's
// python_shell=True (a minion ID is letters, digits and `.-_@`, so it cannot inject shell syntax).
// Unlike Salt, which logs and returns {}, a failure is an error of the pillar render, so state
// runs on that minion are refused until it works; the output itself never reaches the message.

import { spawn } from 'node:child_process';
import { splitShellWords } from '../../modules/index.js';
import { loadYaml } from '../../render/index.js';
import { BrineError } from '../../util/errors.js';
import type { PillarData } from '../../util/dict-merge.js';
import type { ExtPillarKind, ExtPillarSetup, ExtPillarSource } from './types.js';

/** More output than this is not pillar: the command is stopped (the master's memory is shared). */
const MAX_OUTPUT = 64 * 1024 * 1024;

interface CommandResult {
  stdout: string;
  code: number | null;
  why?: string;
}

function runCommand(argv: readonly string[], timeoutMs: number): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'ignore'] });
    const chunks: Buffer[] = [];
    let size = 0;
    let why: string | undefined;
    const timer = setTimeout(() => {
      why = `it did not finish within ${timeoutMs / 1000} s (ext_pillar_cmd_timeout)`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.on('data', (b: Buffer) => {
      size += b.length;
      if (size > MAX_OUTPUT) {
        why = `it printed more than ${MAX_OUTPUT / 1024 / 1024} MiB`;
        child.kill('SIGKILL');
      } else chunks.push(b);
    });
    child.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({ stdout: '', code: null, why: err.code === 'ENOENT' ? `the program ${argv[0]} was not found` : `it could not be started (${err.code ?? err.message})` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ stdout: Buffer.concat(chunks).toString('utf8'), code, ...(why ? { why } : {}) });
    });
  });
}

type Parse = (text: string) => unknown;

function commandKind(name: 'cmd_json' | 'cmd_yaml', shell: boolean, format: string, parse: Parse): ExtPillarKind {
  return {
    name,
    parse(value: unknown, setup: ExtPillarSetup): ExtPillarSource {
      if (typeof value !== 'string' || value.trim() === '') {
        throw new BrineError('CONFIG_VALUE', `${setup.label}: ${name} takes the command as a string, e.g. '- ${name}: /usr/local/bin/pillar-for %s' (%s is the minion ID)`);
      }
      const template = value;
      // split at start too: an open quote is a configuration error, not a render error per minion
      const program = shell ? '/bin/sh' : splitShellWords(template)[0]!;
      return {
        label: setup.label,
        stamp: () => undefined,
        async run(ctx): Promise<PillarData> {
          const command = template.replaceAll('%s', ctx.minionId);
          const argv = shell ? ['/bin/sh', '-c', command] : splitShellWords(command);
          const r = await runCommand(argv, setup.cmdTimeoutMs);
          const fail = (what: string): never => {
            throw new BrineError('EXT_PILLAR_FAILED', `${setup.label}: the command (${program}) for minion ${ctx.minionId} ${what}; run it by hand on the master to see its output`);
          };
          if (r.why) fail(`failed: ${r.why}`);
          if (r.code !== 0) fail(`exited with status ${r.code}`);
          let data: unknown;
          try {
            data = parse(r.stdout);
          } catch {
            // the parser's message may quote the output, which may be a secret: position-free wording
            fail(`did not print valid ${format} on its standard output`);
          }
          if (data === null || data === undefined) return {};
          if (typeof data !== 'object' || Array.isArray(data)) fail(`printed ${format} that is ${Array.isArray(data) ? 'a list' : `a ${typeof data}`}, not a mapping of pillar keys`);
          return data as PillarData;
        },
      };
    },
  };
}

export const CMD_JSON = commandKind('cmd_json', false, 'JSON', (t) => JSON.parse(t));
export const CMD_YAML = commandKind('cmd_yaml', true, 'YAML', (t) => loadYaml(t));
