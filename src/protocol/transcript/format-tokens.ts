// How every surface writes a token count: 950, 1.2k, 34k; a count not known yet is a dash.

export function formatTokens(count: number | null | undefined): string {
  if (count === null || count === undefined) return "–";
  if (count < 1000) return String(count);
  return `${(count / 1000).toFixed(count < 10_000 ? 1 : 0)}k`;
}
