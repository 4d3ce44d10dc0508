// Peer-supplied text (minion IDs, agent strings, addresses, error messages, event data) made
// safe to print: nothing a peer sends may start a new log line or drive the operator's terminal
// (threats.md #32). Applied where text is printed (text log lines, CLI tables and listings),
// never to stored data.

/**
 * Characters that end a line or act on a terminal: C0 controls (NUL, \n, \r, ESC ...), DEL, C1
 * controls (0x9b is a one-byte CSI on some terminals), the Unicode line and paragraph separators,
 * and the bidirectional marks, embeddings, overrides and isolates that make text display in
 * another order than it is stored ("Trojan Source"). The body of a regular-expression character
 * class, so the CLI outputters (src/cli/output/colors.ts stripEsc) use the same list.
 */
export const UNSAFE_CLASS = '\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069';
const UNSAFE = new RegExp(`[${UNSAFE_CLASS}]`);
const UNSAFE_OR_BACKSLASH = new RegExp(`${UNSAFE.source}|\\\\`, 'g');
// JSON encoders already escape C0 inside strings, so a raw C0 in JSON text is layout (the
// newlines of an indented document, a log line's end); these are what they leave raw.
const RAW_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const SHORT: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\\': '\\\\', '\u001b': '\\e', '\u0000': '\\0' };

function hexEscape(ch: string): string {
  const code = ch.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * The text with every unsafe character written as a visible escape (`\n`, `\e`, `\x07`, `\u202e`)
 * and a backslash doubled, so the result is one line of harmless characters and two different
 * inputs never print the same (`unprintable` reverses it).
 */
export function printable(text: string): string {
  return text.replace(UNSAFE_OR_BACKSLASH, (ch) => SHORT[ch] ?? hexEscape(ch));
}

/** Reverses printable(): for tests and for tools that read brine's text logs back. */
export function unprintable(text: string): string {
  return text.replace(/\\(x[0-9a-f]{2}|u[0-9a-f]{4}|[nrte0\\])/g, (_m, esc: string) => {
    if (esc[0] === 'x' || esc[0] === 'u') return String.fromCharCode(parseInt(esc.slice(1), 16));
    return { n: '\n', r: '\r', t: '\t', e: '\u001b', '0': '\u0000', '\\': '\\' }[esc] ?? esc;
  });
}

/**
 * JSON.stringify, plus \uXXXX escapes for what JSON leaves raw (DEL, C1 controls, line separators,
 * bidi controls). The result is still valid JSON with the same meaning.
 */
export function printableJson(value: unknown, indent?: number): string {
  return escapeRawInJson(JSON.stringify(value, null, indent) ?? 'undefined');
}

/** JSON text (from any encoder, e.g. pino's) with the characters JSON may carry raw written as \uXXXX. */
export function escapeRawInJson(json: string): string {
  return json.replace(RAW_IN_JSON, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
