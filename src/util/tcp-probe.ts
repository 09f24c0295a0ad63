/**
 * Whether anything listens at a loopback address, by a bare TCP connection (no request sent): a
 * refused connection is the one sure sign that a sandbox on this machine is not running. A
 * connection that neither opens nor is refused in time is `unknown` (a busy machine), never "gone".
 */
import { connect } from 'node:net';

export type ListenState = 'listening' | 'refused' | 'unknown';

export function probeListening(host: string, port: number, timeoutMs = 2_000): Promise<ListenState> {
  return new Promise((resolve) => {
    const socket = connect({ host: host.replace(/^\[|\]$/g, ''), port });
    const done = (state: ListenState) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(state);
    };
    const timer = setTimeout(() => done('unknown'), timeoutMs);
    socket.once('connect', () => done('listening'));
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code === 'ECONNREFUSED' ? 'refused' : 'unknown'));
  });
}

/** The host and port of an http(s) URL (the scheme's port when it names none). */
export function hostPort(url: string): { host: string; port: number } {
  const u = new URL(url);
  return { host: u.hostname, port: u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80 };
}
