export function parsePort(text) {
  return parseInt(text);
}
