import { it } from "vitest";
import { collectStream } from "/work/main/src/engines/collect-stream.ts";
import { engineFor, userRequest } from "/work/main/test/openai-compatible/engine-for-replay.ts";
import { ReplayServer } from "/work/main/test/openai-compatible/replay-server.ts";
it("debug", async () => {
  const server = await ReplayServer.start();
  const engine = engineFor(server.baseUrl, { warmUp: true, apiKey: "sk-test" });
  await engine.warmUp();
  console.log(
    "after warm",
    server.connectionCount,
    server.requests.map((r) => r.url),
  );
  server.respondWith({ fixture: "openai-text.sse" });
  const first = await collectStream(engine.stream(userRequest));
  console.log("after first", server.connectionCount, first.finishReason);
  const second = await collectStream(engine.stream(userRequest));
  console.log("after second", server.connectionCount, second.finishReason);
  await engine.dispose();
  await server.close();
});
