// The time since a turn started, ticking once a second while it runs (the status line's clock).
import { useEffect, useState } from "react";

export function useElapsedMs(startedAt: number | null, running: boolean): number | undefined {
  const [now, setNow] = useState(() => performance.now());
  useEffect(() => {
    if (!running || startedAt === null) return;
    setNow(performance.now());
    const timer = setInterval(() => setNow(performance.now()), 1000);
    return () => clearInterval(timer);
  }, [running, startedAt]);
  if (!running || startedAt === null) return undefined;
  return Math.max(0, now - startedAt);
}
