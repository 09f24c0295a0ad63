/** The header a replay sent by the admin API carries: a one-time mark the request log links to the original. */
export const REPLAY_HEADER = 'x-sandbox-replay';
