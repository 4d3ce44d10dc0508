// The marker for a minion that did not return, with Salt's wording (§5.5): `[Not connected]` when
// the master knows the minion is not connected, `[No response]` when it was sent the job,
// `[Master connection lost]` when the master went away before it returned.

export type NoReturnReason = 'not_connected' | 'no_response' | 'master_lost';

const FIRST_LINE: ReadonlyMap<NoReturnReason, string> = new Map([
  ['not_connected', 'Minion did not return. [Not connected]'],
  ['no_response', 'Minion did not return. [No response]'],
  // brine's own: the master went away, so the minion is not to blame (issue 26)
  ['master_lost', 'Minion did not return. [Master connection lost]'],
]);

export class NoReturn {
  constructor(
    readonly reason: NoReturnReason,
    /** Extra lines after the first, e.g. how to look the job up later. */
    readonly detail?: string,
  ) {}

  /** The text every outputter prints for this minion. */
  get text(): string {
    const first = FIRST_LINE.get(this.reason) ?? 'Minion did not return.';
    return this.detail ? `${first}\n${this.detail}` : first;
  }

  /** JSON/YAML outputters print the text, as Salt does with --out json. */
  toJSON(): string {
    return this.text;
  }
}

export function noReturn(reason: NoReturnReason, detail?: string): NoReturn {
  return new NoReturn(reason, detail);
}

export function isNoReturn(value: unknown): value is NoReturn {
  return value instanceof NoReturn;
}
