// Non-state returns as a readable tree, in the spirit of Salt's nested outputter: scalars as Salt
// prints them (True, False, None), mappings as `key:` with their values indented under them,
// lists as `- item`. Plain text only: the caller puts it in a <pre> with textContent.

const INDENT = '    ';

function scalar(v) {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  return String(v);
}

function isTree(v) {
  return v !== null && typeof v === 'object';
}

function lines(value, depth, out) {
  const pad = INDENT.repeat(depth);
  if (Array.isArray(value)) {
    if (value.length === 0) out.push(`${pad}[]`);
    for (const item of value) {
      if (isTree(item) && (Array.isArray(item) ? item.length : Object.keys(item).length) > 0) {
        out.push(`${pad}-`);
        lines(item, depth + 1, out);
      } else out.push(`${pad}- ${isTree(item) ? (Array.isArray(item) ? '[]' : '{}') : scalar(item)}`);
    }
    return;
  }
  if (isTree(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) out.push(`${pad}{}`);
    for (const [k, v] of entries) {
      if (isTree(v)) {
        out.push(`${pad}${k}:`);
        lines(v, depth + 1, out);
      } else if (typeof v === 'string' && v.includes('\n')) {
        out.push(`${pad}${k}:`);
        for (const l of v.split('\n')) out.push(`${pad}${INDENT}${l}`);
      } else out.push(`${pad}${k}: ${scalar(v)}`);
    }
    return;
  }
  out.push(`${pad}${scalar(value)}`);
}

/** A return as text: a string as it is, the rest as an indented tree. */
export function nested(value) {
  if (typeof value === 'string') return value;
  const out = [];
  lines(value, 0, out);
  return out.join('\n');
}
