// The browser app's entry: asks for an api key when the server has them, then connects the store
// to `/v1/agent` on this same origin and renders.
import { render } from "preact";
import { webSocketTransport, type MessageTransport } from "../../src/protocol/agent/index.ts";
import { ApiKeyPrompt } from "./components/api-key-prompt.tsx";
import { App } from "./components/app.tsx";
import { agentSocket, fetchAppConfig, verifyApiKey } from "./browser/server-access.ts";
import { AppStore } from "./state/app-store.ts";
import { ViewStorage } from "./state/view-storage.ts";
import { scheduleFrame } from "./browser/schedule-frame.ts";
import { hashRoute } from "./browser/hash-route.ts";

const root = document.getElementById("app");
const keyStorage = new ViewStorage(window.sessionStorage);

async function boot(): Promise<void> {
  if (root === null) return;
  const config = await fetchAppConfig();
  const stored = keyStorage.loadApiKey();
  if (!config.apiKeyRequired) return startApp(undefined);
  if (stored !== undefined && (await verifyApiKey(stored))) return startApp(stored);
  askForKey(undefined);
}

function askForKey(error: string | undefined): void {
  if (root === null) return;
  const onSubmit = (key: string): void => {
    void verifyApiKey(key).then((valid) => {
      if (!valid) return askForKey("That key was refused by the server.");
      keyStorage.saveApiKey(key);
      startApp(key);
    });
  };
  render(<ApiKeyPrompt onSubmit={onSubmit} error={error} />, root);
}

function startApp(apiKey: string | undefined): void {
  if (root === null) return;
  const store = new AppStore({
    openTransport: (): Promise<MessageTransport> => agentSocket(apiKey).then(webSocketTransport),
    storage: window.sessionStorage,
    scheduleFrame,
    now: () => performance.now(),
    route: hashRoute,
  });
  render(<App store={store} />, root);
  window.addEventListener("pagehide", () => store.saveSnapshot());
  window.addEventListener("hashchange", () => {
    const wanted = hashRoute.read();
    if (wanted !== undefined) void store.openSession(wanted);
  });
  store.start();
  // For the end-to-end tests and the benchmark: read-only access to the page's state.
  (window as unknown as { sparkApp?: unknown }).sparkApp = { getState: () => store.getState() };
}

void boot();
