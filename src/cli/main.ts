// The `brine` command: subcommands for the daemons, keys, jobs and configuration.

import { Command, CommanderError } from 'commander';
import { BRINE_VERSION } from '../modules/index.js';
import { registerCall } from './commands/call.js';
import { registerConfig } from './commands/config.js';
import { registerDaemons } from './commands/daemons.js';
import { registerDoctor } from './commands/doctor.js';
import { registerEmulate } from './commands/emulate.js';
import { registerEvents } from './commands/events.js';
import { registerJobs } from './commands/jobs.js';
import { registerKey } from './commands/key.js';
import { registerMinions } from './commands/minions.js';
import { registerRun } from './commands/run.js';
import { fail } from './common.js';

export function buildProgram(): Command {
  const program = new Command('brine')
    .description('remote execution and fleet management in the SaltStack mould')
    .version(BRINE_VERSION)
    .showHelpAfterError()
    .exitOverride();
  registerDaemons(program);
  registerKey(program);
  registerRun(program);
  registerCall(program);
  registerConfig(program);
  registerMinions(program);
  registerEvents(program);
  registerJobs(program);
  registerEmulate(program);
  registerDoctor(program);
  return program;
}

async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // help and version end with code 0; usage errors use EX_USAGE like Salt's parsers
      process.exit(err.exitCode === 0 ? 0 : 64);
    }
    fail(err);
  }
}

void main(process.argv);
