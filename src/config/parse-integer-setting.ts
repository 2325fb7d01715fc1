// Environment variables and CLI flags arrive as text; this turns "8080" into 8080 and anything
// else into an error naming the variable or flag it came from.
import { SparkError } from "../protocol/spark-error.ts";

export function parseIntegerSetting(
  source: string,
  value: string | number,
  minimum: number,
  maximum = Number.MAX_SAFE_INTEGER,
): number {
  const parsed =
    typeof value === "number" ? value : /^\s*-?\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(parsed) || parsed < minimum || parsed > maximum) {
    const range =
      maximum === Number.MAX_SAFE_INTEGER ? `>= ${minimum}` : `from ${minimum} to ${maximum}`;
    throw new SparkError(
      "invalid_config",
      `${source}: expected an integer ${range}, got ${JSON.stringify(value)}`,
    );
  }
  return parsed;
}
