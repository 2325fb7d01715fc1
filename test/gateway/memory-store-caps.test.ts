// The memory store caps stored responses per tenant (issue 39, item 6), in one `spark serve` and
// in the primary's store that `--workers` share over IPC: with response_store_max_responses = 3,
// one key storing five responses does not evict another key's one.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReplicaFleet, type ReplicaFleet } from "./support/serve-replicas.ts";

const KEY = "sk-caps-flood";
const OTHER_KEY = "sk-caps-kept";

async function store(url: string, key: string, input: string): Promise<string> {
  const response = await fetch(`${url}/v1/responses`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "script", input }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { id: string }).id;
}

async function statusOf(url: string, key: string, id: string): Promise<number> {
  return (await fetch(`${url}/v1/responses/${id}`, { headers: { authorization: `Bearer ${key}` } }))
    .status;
}

describe("the memory store caps each tenant apart", () => {
  let fleet: ReplicaFleet;
  let script: string;
  beforeAll(() => {
    fleet = createReplicaFleet(
      `[serve]\napi_keys = ["${KEY}", "${OTHER_KEY}"]\nresponse_store_max_responses = 3\n`,
    );
    script = fleet.script(
      "caps",
      Array.from({ length: 50 }, () => ({ text: "fine" })),
    );
  });
  afterAll(async () => fleet?.stopAll());

  const cases: Array<[string, string[]]> = [
    ["one process", []],
    ["--workers 2 (the primary's store over IPC)", ["--workers", "2"]],
  ];
  for (const [name, args] of cases) {
    it(
      name,
      async () => {
        const serve = await fleet.start(["--model", `script:${script}`, ...args]);
        const kept = await store(serve.url, OTHER_KEY, "mine, kept");
        const flood: string[] = [];
        for (let index = 0; index < 5; index += 1)
          flood.push(await store(serve.url, KEY, `flood ${index}`));
        expect(await statusOf(serve.url, OTHER_KEY, kept)).toBe(200);
        // The flooding key's own cap still holds: its two oldest went.
        expect(await statusOf(serve.url, KEY, flood[0] ?? "")).toBe(404);
        expect(await statusOf(serve.url, KEY, flood[4] ?? "")).toBe(200);
        await serve.kill("SIGKILL");
      },
      120_000,
    );
  }
});
