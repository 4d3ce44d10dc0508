// Salt's terminal colours (salt/utils/color.py: every code starts with a reset, `\x1b[0;...m`),
// or empty strings when colour is off, so layouts are identical with and without colour.

import { UNSAFE_CLASS } from '../../util/printable.js';

export interface Palette {
  readonly RED: string;
  readonly LIGHT_RED: string;
  readonly GREEN: string;
  readonly YELLOW: string;
  readonly LIGHT_YELLOW: string;
  readonly CYAN: string;
  readonly ENDC: string;
}

export const COLORS: Palette = {
  RED: '\x1b[0;31m',
  LIGHT_RED: '\x1b[0;1;31m',
  GREEN: '\x1b[0;32m',
  YELLOW: '\x1b[0;33m',
  LIGHT_YELLOW: '\x1b[0;1;33m',
  CYAN: '\x1b[0;36m',
  ENDC: '\x1b[0;0m',
};

const NO_COLORS: Palette = { RED: '', LIGHT_RED: '', GREEN: '', YELLOW: '', LIGHT_YELLOW: '', CYAN: '', ENDC: '' };

export function palette(color: boolean): Palette {
  return color ? COLORS : NO_COLORS;
}

// printable()'s list (src/util/printable.ts) minus line feed and tab
const TERMINAL_UNSAFE = new RegExp(`(?![\\n\\t])[${UNSAFE_CLASS}]`, 'g');

/**
 * Minion output must not drive the operator's terminal: ESC becomes `?`, as Salt's
 * strip_esc_sequence does for nested output (brine applies it to every text outputter), and so
 * does every other character printable() escapes (C0 and C1 controls, whose 0x9b is a one-byte
 * CSI on some terminals, DEL, line separators, bidi controls). Line feeds and tabs stay: a return
 * is data the operator asked to see.
 */
export function stripEsc(text: string): string {
  return text.replace(TERMINAL_UNSAFE, '?');
}
