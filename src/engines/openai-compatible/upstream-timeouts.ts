// How long the engine waits on an upstream, per phase, and the defaults. Below both the options
// (which resolve what a user set against these) and the error mapper (which names them).
export interface OpenAICompatibleTimeouts {
  /** TCP (and TLS) connection establishment. */
  connectMs: number;
  /** Request sent to response headers received. */
  firstByteMs: number;
  /** Longest silence between two body chunks once the response streams. */
  idleMs: number;
}

export const defaultTimeouts: OpenAICompatibleTimeouts = {
  connectMs: 5_000,
  // Some servers hold the headers until prefill is done, so a long prompt needs room here.
  firstByteMs: 120_000,
  idleMs: 60_000,
};
