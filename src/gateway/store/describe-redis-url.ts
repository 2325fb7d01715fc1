// A Redis URL as messages and the serve banner show it, apart from the Redis store so that naming
// the store does not load ioredis.

/** The URL without its password, for messages. */
export function describeRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = "";
    parsed.username = "";
    return parsed.toString().replace(/\/$/, "");
  } catch {
    return "the configured Redis";
  }
}
