// Types of the launcher's plain-JavaScript bundle check (bin/ runs before tsx is loaded).
export const BUNDLE_ENTRY: string;
export function chooseCliEntry(
  environment?: Record<string, string | undefined>,
): { bundle: string; reason?: undefined } | { bundle?: undefined; reason: string };
