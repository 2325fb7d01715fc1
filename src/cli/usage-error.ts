// A command line that asks for something impossible: commands print it with their usage and exit 2.
export class UsageError extends Error {}

/** A flag's value as a whole number ≥ 1, or undefined when the flag was not given. */
export function parsePositiveInteger(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) {
    throw new UsageError(`${flag} must be a positive whole number, got "${value}".`);
  }
  return parsed;
}
