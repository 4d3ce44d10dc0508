// A real minion process whose link callbacks throw, for the fault suite (issue 8 item 9: the
// scaffolding lives in the tests, not in the minion). Usage:
//   node dist/test/helpers/throwing-minion.js -c <config dir> --throw onReady,onMessage,...
// Each named callback runs and then throws once, to prove a failing callback never leaves the
// minion stuck. Everything else is `brine minion`.

import type { LinkEvents } from '../../src/session/index.js';
import { runMinionDaemon } from '../../src/cli/commands/daemons.js';

/** The message each injected throw carries (the test counts it in the minion's log). */
export const injectedMessage = (name: string): string => `${name} failed (injected by the test wrapper)`;

/** Wraps the named handlers so each throws once, after doing its work. */
export function throwOnce(names: ReadonlySet<string>): (events: LinkEvents) => LinkEvents {
  return (events) => {
    const out: Record<string, unknown> = { ...events };
    for (const name of names) {
      const fn = (events as Record<string, unknown>)[name] as ((...a: unknown[]) => unknown) | undefined;
      let thrown = false;
      out[name] = (...args: unknown[]) => {
        fn?.(...args);
        if (!thrown) {
          thrown = true;
          throw new Error(injectedMessage(name));
        }
      };
    }
    return out as LinkEvents;
  };
}

function arg(flag: string): string | undefined {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

// run only as a script, not when a test imports the helpers above
if (process.argv[1]?.endsWith('throwing-minion.js')) {
  const configDir = arg('-c');
  const names = new Set((arg('--throw') ?? '').split(',').filter(Boolean));
  runMinionDaemon(configDir === undefined ? {} : { configDir }, { wrapLinkEvents: throwOnce(names) }).catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
