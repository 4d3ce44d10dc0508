// Caps the size of a job return (measured as JSON, as it travels) and marks a cut visibly, so a
// huge return neither exceeds the frame limit nor passes for the whole output.

export interface CappedReturn {
  value: unknown;
  /** Bytes of the JSON form that were dropped; 0 when the return fit. */
  dropped: number;
}

/** A marker's own length, reserved so the capped text stays within the limit. */
const MARKER_ROOM = 64;

function marker(dropped: number): string {
  return `\n[return truncated: ${dropped} bytes dropped]`;
}

/** Cuts a UTF-8 buffer without splitting a character. */
function cutUtf8(buf: Buffer, max: number): string {
  let end = Math.max(0, max);
  // continuation bytes are 10xxxxxx; step back to a character boundary
  while (end > 0 && end < buf.length && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString('utf8');
}

export function capReturn(value: unknown, maxBytes: number): CappedReturn {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    json = undefined;
  }
  if (json === undefined) return { value, dropped: 0 };
  const size = Buffer.byteLength(json);
  if (size <= maxBytes) return { value, dropped: 0 };
  // a string stays text (cmd.run output reads naturally); other data becomes its JSON prefix
  const source = Buffer.from(typeof value === 'string' ? value : json, 'utf8');
  let keep = Math.max(0, maxBytes - MARKER_ROOM);
  for (;;) {
    const kept = cutUtf8(source, keep);
    const dropped = source.length - Buffer.byteLength(kept);
    const capped = kept + marker(dropped);
    // escapes (\n, \") make the JSON form longer than the text: shrink until it fits
    const encoded = Buffer.byteLength(JSON.stringify(capped));
    if (encoded <= maxBytes || keep === 0) return { value: capped, dropped };
    keep = Math.max(0, Math.floor((keep * maxBytes) / encoded) - 1);
  }
}
