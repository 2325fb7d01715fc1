// While a turn waits for the model's first token, a line that says so: a local model's first turn
// loads it first, and the status line's "ttft –" alone read as if nothing was happening.
import { Text } from "ink";

export function WaitingLine({ elapsedMs }: { elapsedMs: number | undefined }) {
  const seconds = Math.floor((elapsedMs ?? 0) / 1000);
  return (
    <Text color="yellow">
      ⋯ waiting for the model
      {seconds >= 2 ? ` · ${seconds}s (a local model loads on its first turn)` : ""}
    </Text>
  );
}
