// An upper estimate of how large a regular expression's compiled program will be, read from its
// text before RE2 compiles it. RE2 matches in linear time, but compiling is linear in the program,
// and counted repeats multiply it: `(.{0,999})` repeated over 512 characters is 100,000
// instructions and two seconds of compiling before the size limit can refuse it. This only
// decides whether compiling is worth trying; RE2 still parses the pattern and the compiled
// program's own size is checked after (linear-regex.ts).

interface Frame {
  /** weight of the finished alternatives and items of this group */
  total: number;
  /** weight of the last atom, which a following quantifier applies to */
  last: number;
}

const COUNTED = /^\{(\d+)(?:,(\d*))?\}/;

/** Index after a `[...]` class starting at `i` (the `[`); the pattern's end if it never closes. */
function skipClass(p: string, i: number): number {
  let j = i + 1;
  if (p[j] === '^') j++;
  if (p[j] === ']') j++; // a `]` first is a member
  while (j < p.length && p[j] !== ']') {
    if (p[j] === '\\') j++;
    else if (p.startsWith('[:', j)) {
      const end = p.indexOf(':]', j + 2);
      if (end > 0) j = end + 1;
    }
    j++;
  }
  return j + 1;
}

/**
 * Each literal, escape, class or `.` weighs 1, a group the sum of its contents plus 1, and `{m,n}`
 * multiplies the atom before it by the larger count (as RE2 does when it expands the repeat).
 */
export function patternWeight(p: string): number {
  const stack: Frame[] = [{ total: 0, last: 0 }];
  const top = () => stack[stack.length - 1]!;
  const atom = (w: number) => {
    top().total += w;
    top().last = w;
  };
  for (let i = 0; i < p.length; ) {
    const ch = p[i]!;
    if (ch === '\\') {
      // \x{...}, \p{...} and \P{...} carry their argument in braces
      const braced = 'xpP'.includes(p[i + 1] ?? '') && p[i + 2] === '{' ? p.indexOf('}', i + 3) : -1;
      i = braced > 0 ? braced + 1 : i + 2;
      atom(1);
    } else if (ch === '[') {
      i = skipClass(p, i);
      atom(1);
    } else if (ch === '(') {
      stack.push({ total: 0, last: 0 });
      i++;
    } else if (ch === ')') {
      const group = stack.length > 1 ? stack.pop()! : { total: 0, last: 0 };
      atom(group.total + 1);
      i++;
    } else if (ch === '|') {
      top().last = 0;
      i++;
    } else if (ch === '{' && COUNTED.test(p.slice(i, i + 16))) {
      const m = COUNTED.exec(p.slice(i, i + 16))!;
      const count = Math.max(Number(m[1]), m[2] ? Number(m[2]) : 0, 1);
      const f = top();
      f.total += f.last * (count - 1);
      f.last *= count;
      i += m[0].length;
    } else {
      // a literal, `.`, `^`, `$`, or a quantifier that adds no copies (`*`, `+`, `?`)
      if (!'*+?'.includes(ch)) atom(1);
      i++;
    }
  }
  // groups never closed (RE2 refuses them after) still count
  return stack.reduce((sum, f) => sum + f.total, 0);
}
