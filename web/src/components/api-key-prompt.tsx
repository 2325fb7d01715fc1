// Asked once per tab when the server has api keys: the key stays in this tab's session storage.
import { useState } from "preact/hooks";

export function ApiKeyPrompt({
  onSubmit,
  error,
}: {
  onSubmit: (key: string) => void;
  error: string | undefined;
}) {
  const [key, setKey] = useState("");
  return (
    <main class="api-key">
      <form
        class="dialog"
        onSubmit={(event) => {
          event.preventDefault();
          onSubmit(key.trim());
        }}
      >
        <h1>Spark</h1>
        <label for="api-key-input">
          This server needs an API key (from <code>[serve] api_keys</code>).
        </label>
        <input
          id="api-key-input"
          type="password"
          autoComplete="off"
          value={key}
          autoFocus
          onInput={(event) => setKey(event.currentTarget.value)}
        />
        {error === undefined ? null : (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="primary">
          Connect
        </button>
        <p class="hint">
          The key is kept in this tab only (session storage) and sent to this server alone.
        </p>
      </form>
    </main>
  );
}
