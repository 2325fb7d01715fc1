// Keys typed while spark starts (loading React, the model, the session) are held for the UI. The
// terminal stays in cooked mode until Ink turns raw mode on, so before this the terminal echoed
// them above the UI and turned Enter into a newline (ICRNL), which the prompt then inserted. Raw
// mode from the first moment keeps them unechoed and exact; Ctrl+C still quits while loading.

const CTRL_C = "\u0003";

export interface TypeAhead {
  /** Stops holding and puts what was typed back into stdin, for Ink to read first. */
  handOver(): void;
  /** Stops holding and restores the terminal (spark is leaving without its UI). */
  cancel(): void;
}

const nothingHeld: TypeAhead = { handOver() {}, cancel() {} };

export function holdTypeAhead(stdin: NodeJS.ReadStream, onInterrupt: () => void): TypeAhead {
  if (stdin.isTTY !== true) return nothingHeld;
  const held: string[] = [];
  // Paused-mode reads ('readable'), as Ink's own: a stream paused after flowing ('data') did not
  // start reading again when Ink subscribed, and spark exited as if nothing held it open.
  const onReadable = (): void => {
    let chunk: string | null;
    while ((chunk = stdin.read() as string | null) !== null) {
      if (chunk.includes(CTRL_C)) {
        stop(false);
        onInterrupt();
        return;
      }
      held.push(chunk);
    }
  };
  let holding = true;
  const stop = (keepReading: boolean): void => {
    if (!holding) return;
    holding = false;
    stdin.off("readable", onReadable);
    if (keepReading) return;
    stdin.setRawMode(false);
    stdin.pause();
  };
  stdin.setRawMode(true);
  stdin.setEncoding("utf8");
  stdin.on("readable", onReadable);
  return {
    handOver() {
      if (!holding) return;
      stop(true);
      // A line typed before raw mode came with its Enter turned into "\n" (ICRNL): send it.
      if (held.length > 0) stdin.unshift(held.join("").replaceAll("\n", "\r"));
    },
    cancel() {
      stop(false);
    },
  };
}
