// A node:test reporter used beside `spec` by scripts/run-tests.mjs: it writes one JSON line,
// {"skippedSuites": N}, because node's own summary counts skipped tests but not a skipped
// `describe` (whose tests never run), and the closing line must count both as skipped.
export default async function* skipReporter(source) {
  let skippedSuites = 0;
  for await (const event of source) {
    if (event.type === 'test:pass' && event.data.details?.type === 'suite' && event.data.skip !== undefined && event.data.skip !== false) skippedSuites++;
  }
  yield `${JSON.stringify({ skippedSuites })}\n`;
}
