// Salt's `--summary` block (salt/cli/salt.py _print_returns_summary): counts of targeted,
// returned, silent and failed minions, and with -v the lists behind them.

import { isNoReturn, minionRetcode, type MinionOutcome } from '../output/index.js';

const RULE = '-------------------------------------------';

export function summaryText(outcomes: ReadonlyMap<string, MinionOutcome>, verbose: boolean): string {
  const notConnected: string[] = [];
  const notResponding: string[] = [];
  const failed: string[] = [];
  let returned = 0;
  for (const [id, o] of outcomes) {
    if (isNoReturn(o.return)) {
      if (o.return.reason === 'not_connected') notConnected.push(id);
      else notResponding.push(id);
      continue;
    }
    returned++;
    if (minionRetcode(o) !== 0) failed.push(id);
  }
  const silent = notConnected.length + notResponding.length;
  // print_cli("\n") prints two newlines
  const lines = [
    '',
    '',
    RULE,
    'Summary',
    RULE,
    `# of minions targeted: ${returned + silent}`,
    `# of minions returned: ${returned}`,
    `# of minions that did not return: ${silent}`,
    `# of minions with errors: ${failed.length}`,
  ];
  if (verbose) {
    if (notConnected.length > 0) lines.push(`Minions not connected: ${notConnected.join(' ')}`);
    if (notResponding.length > 0) lines.push(`Minions not responding: ${notResponding.join(' ')}`);
    if (failed.length > 0) lines.push(`Minions with failures: ${failed.join(' ')}`);
  }
  lines.push(RULE);
  return `${lines.join('\n')}\n`;
}
