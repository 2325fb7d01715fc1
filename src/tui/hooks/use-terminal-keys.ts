// The keyboard as a sequence of keys. Ink's useInput hands a fast burst over as one string (so
// tmux send-keys "zz" C-u "/sessions" Enter typed "zz\x15/sessions" into the prompt) and reports
// Backspace and Delete as the same key; this reads Ink's raw input events instead (the stdin
// context's emitter, which useInput itself listens to) and splits them with key-press.ts. It also
// turns on bracketed paste, so a pasted block's newlines stay text rather than sending.
import { useStdin, useStdout } from "ink";
import { useEffect, useRef } from "react";
import { createKeyReader, type KeyPress } from "../state/key-press.ts";

const BRACKETED_PASTE_ON = "\u001b[?2004h";
export const BRACKETED_PASTE_OFF = "\u001b[?2004l";

export function useTerminalKeys(onKey: (key: KeyPress) => void): void {
  const { setRawMode, internal_eventEmitter: inputEvents } = useStdin();
  const { stdout } = useStdout();
  const latestOnKey = useRef(onKey);
  latestOnKey.current = onKey;

  useEffect(() => {
    setRawMode(true);
    return () => setRawMode(false);
  }, [setRawMode]);

  useEffect(() => {
    const reader = createKeyReader();
    const onInput = (input: string): void => {
      // Each key goes to the handler of the latest render: a key that changed the state (Enter
      // sent, a picker opened) has re-rendered before the next key of the burst is handled.
      for (const key of reader.read(input)) latestOnKey.current(key);
    };
    inputEvents.on("input", onInput);
    return () => {
      inputEvents.off("input", onInput);
    };
  }, [inputEvents]);

  useEffect(() => {
    if (stdout.isTTY !== true) return;
    stdout.write(BRACKETED_PASTE_ON);
    return () => {
      stdout.write(BRACKETED_PASTE_OFF);
    };
  }, [stdout]);
}
