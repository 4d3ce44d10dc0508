// Where `brine run` writes returns: each block as it arrives, or all at the end (--static), to
// stdout or to --out-file (truncated once at the start, or appended to with --out-file-append).

import * as fs from 'node:fs';
import { BrineError, errnoCode } from '../../util/errors.js';
import { formatReturn, formatStatic, type FormatOptions, type MinionOutcome, type Outputter } from '../output/index.js';

export interface PrinterOptions {
  outputter: Outputter;
  format: FormatOptions;
  /** Print everything at once at the end (-s/--static). */
  static: boolean;
  outFile?: string;
  append?: boolean;
}

function retcodeOf(o: MinionOutcome): number {
  return typeof o.retcode === 'number' ? o.retcode : 0;
}

export class ReturnPrinter {
  readonly outcomes = new Map<string, MinionOutcome>();
  private fd: number | undefined;

  constructor(private readonly opts: PrinterOptions) {
    if (opts.outFile !== undefined) {
      try {
        this.fd = fs.openSync(opts.outFile, opts.append ? 'a' : 'w', 0o600);
      } catch (err) {
        throw new BrineError('USAGE', `--out-file ${opts.outFile}: cannot open it (${errnoCode(err) ?? String(err)}); check the directory exists and is writable`, { cause: err });
      }
    }
  }

  /** Records one minion's outcome and prints it unless printing is deferred. */
  add(id: string, outcome: MinionOutcome): void {
    this.outcomes.set(id, outcome);
    if (this.opts.static) return;
    const block = formatReturn(this.opts.outputter, id, outcome.return, { ...this.opts.format, retcodes: { [id]: retcodeOf(outcome) } });
    if (block !== '') this.write(`${block}\n`);
  }

  /** Prints what --static held back (sorted by minion ID) and closes the out-file. */
  finish(): void {
    if (this.opts.static && this.outcomes.size > 0) {
      const ids = [...this.outcomes.keys()].sort();
      const data = new Map(ids.map((id) => [id, this.outcomes.get(id)!.return]));
      const retcodes = Object.fromEntries(ids.map((id) => [id, retcodeOf(this.outcomes.get(id)!)]));
      this.write(formatStatic(this.opts.outputter, data, { ...this.opts.format, retcodes }));
    }
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }

  private write(text: string): void {
    if (this.fd !== undefined) fs.writeSync(this.fd, text);
    else process.stdout.write(text);
  }
}
