// The pure block edit behind file.blockreplace: the lines between the line holding marker_start
// and the next line holding marker_end become `content`; a missing block is appended or
// prepended when asked. The marker lines themselves are kept as they are in the file.

export interface BlockEdit {
  markerStart: string;
  markerEnd: string;
  content: string;
  appendIfNotFound: boolean;
  prependIfNotFound: boolean;
  /** End content with a newline (Salt's append_newline; default: when it has none). */
  appendNewline: boolean;
}

function contentLines(e: BlockEdit): string[] {
  let c = e.content;
  if (e.appendNewline && c !== '' && !c.endsWith('\n')) c += '\n';
  return c === '' ? [] : c.replace(/\n$/, '').split('\n');
}

/** The edited lines, or an error naming what is wrong with the markers. */
export function replaceBlock(lines: readonly string[], e: BlockEdit): string[] | { error: string } {
  if (e.markerStart === '' || e.markerEnd === '') return { error: 'marker_start and marker_end must not be empty' };
  const start = lines.findIndex((l) => l.includes(e.markerStart));
  const block = contentLines(e);
  if (start < 0) {
    const whole = [e.markerStart, ...block, e.markerEnd];
    if (e.appendIfNotFound) return [...lines, ...whole];
    if (e.prependIfNotFound) return [...whole, ...lines];
    return { error: 'Cannot edit marked block. Markers were not found; add them to the file or set append_if_not_found: True' };
  }
  let end = -1;
  for (let i = start + 1; i < lines.length; i++) {
    if (lines[i]!.includes(e.markerEnd)) {
      end = i;
      break;
    }
  }
  if (end < 0) return { error: `Unterminated marked block. End of file reached before marker_end '${e.markerEnd}'; add the end marker` };
  return [...lines.slice(0, start + 1), ...block, ...lines.slice(end)];
}
