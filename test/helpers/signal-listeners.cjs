/**
 * Preloaded into a CLI child by a test (NODE_OPTIONS=--require …): appends a signal's name to the
 * file named by SVC_TEST_SIGNAL_LOG when the process adds a JavaScript listener for it. /proc's
 * SigCgt cannot tell: Node catches SIGINT and SIGTERM itself from its first milliseconds (to
 * restore the terminal, then die by the signal), long before the program's own handler exists.
 * 'newListener' fires just before the listener is added, in the same synchronous call.
 */
const { appendFileSync } = require('node:fs');

const log = process.env.SVC_TEST_SIGNAL_LOG;
if (log) {
  process.on('newListener', (event) => {
    if (event === 'SIGINT' || event === 'SIGTERM') appendFileSync(log, `${event}\n`);
  });
}
