/**
 * Opens an input file (a bulk command's, an option's) so that a signal is honoured at any moment. A regular file is
 * read by the thread pool as usual. A FIFO is opened there (which waits for a writer), then read
 * on the event loop as a pipe: a blocking read of a FIFO in the thread pool cannot be cancelled, so
 * Ctrl-C would wait for the writer's next line. A terminal device is read as a terminal.
 */
import { close, constants, createReadStream, open, statSync } from 'node:fs';
import { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { isatty, ReadStream as TtyReadStream } from 'node:tty';

function abortError(): DOMException {
  return new DOMException('interrupted while waiting for the input', 'AbortError');
}

/** Opens a FIFO for reading; an abort while it waits for a writer unblocks it by opening it for writing. */
function openFifo(path: string, signal: AbortSignal | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError());
    let aborted = false;
    const onAbort = () => {
      aborted = true;
      // Our pending open for reading is the reader this writer needs: both opens then complete.
      open(path, constants.O_WRONLY | constants.O_NONBLOCK, (err, fd) => {
        if (!err) close(fd, () => {});
      });
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    open(path, 'r', (err, fd) => {
      signal?.removeEventListener('abort', onAbort);
      if (err) return reject(err);
      if (aborted) {
        close(fd, () => {});
        return reject(abortError());
      }
      resolve(fd);
    });
  });
}

/** The input as a stream; `highWaterMark` applies to regular files. */
export async function openInput(path: string, opts: { signal?: AbortSignal; highWaterMark?: number } = {}): Promise<Readable> {
  const stat = statSync(path);
  if (stat.isFIFO()) return new Socket({ fd: await openFifo(path, opts.signal), readable: true, writable: false });
  if (stat.isCharacterDevice()) {
    const fd = await new Promise<number>((resolve, reject) => open(path, 'r', (err, fd) => (err ? reject(err) : resolve(fd))));
    if (isatty(fd)) return new TtyReadStream(fd);
    return createReadStream(path, { fd, highWaterMark: opts.highWaterMark });
  }
  return createReadStream(path, { highWaterMark: opts.highWaterMark });
}
