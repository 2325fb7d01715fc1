export function parsePort(text) {
  const port = Number(text);
  if (!/^[0-9]+$/.test(text) || port < 1 || port > 65535) {
    throw new RangeError(`not a port: ${JSON.stringify(text)}`);
  }
  return port;
}
