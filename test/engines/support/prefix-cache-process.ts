// A process of its own for the prefix-cache tests: runs the requests its argument names (see
// prefix-cache-requests.ts) and prints one JSON line per answer and per cache notice.
import { forksWithoutTsx } from "../../support/forks-without-tsx.ts";
import { runPrefixCacheRequests, type PrefixCacheProcessInput } from "./prefix-cache-requests.ts";

forksWithoutTsx();

const input = JSON.parse(process.argv[2] ?? "{}") as PrefixCacheProcessInput;
await runPrefixCacheRequests(input, (line) => {
  process.stdout.write(JSON.stringify(line) + "\n");
});
