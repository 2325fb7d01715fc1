// The terminal UI rendered by ink-testing-library against a fake agent server, as the unit tests
// beside src/tui/ drive it: typing key by key as a terminal sends keys, and waiting for attach.
import { render } from "ink-testing-library";
import { afterEach } from "vitest";
import { App } from "../../src/tui/app.tsx";
import { createFakeAgentServer, type FakeAgentServer } from "./fake-agent-server.ts";

export const ESC = "\u001b";
export const UP = "\u001b[A";
export const LEFT = "\u001b[D";
export const TAB = "\t";
export const ENTER = "\r";

let cleanup: (() => void) | undefined;

export function useAppCleanup(): void {
  afterEach(() => cleanup?.());
}

/** Renders the app; call `useAppCleanup()` once in the file so each test unmounts its app. */
export function startApp(server: FakeAgentServer = createFakeAgentServer()) {
  const quits: number[] = [];
  const app = render(
    <App
      client={server.client}
      sessionId="s1"
      route="in-process"
      cwd="/repo"
      onQuit={() => quits.push(1)}
    />,
  );
  cleanup = () => app.unmount();
  const screen = (): string => app.lastFrame() ?? "";
  /** Types text one key at a time, as a terminal sends it. */
  const type = async (text: string): Promise<void> => {
    for (const character of text) {
      app.stdin.write(character);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  };
  const press = async (key: string): Promise<void> => {
    app.stdin.write(key);
    await new Promise((resolve) => setTimeout(resolve, 5));
  };
  /** Waits until the UI has attached (its attach answer, with the session's status, has arrived). */
  const attached = async (): Promise<void> => {
    await server.waitForRequest("session/attach");
    await new Promise((resolve) => setTimeout(resolve, 20));
  };
  return { server, app, screen, type, press, quits, attached };
}
