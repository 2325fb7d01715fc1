// The layering ARCHITECTURE.md promises, checked over the real import graph: each folder of src/
// imports only the folders below it, the gateway's rooms only the rooms below them, no import
// circle, and the clients (web/, editors/vscode/) only the agent protocol. A new arrow that climbs
// fails here with the file and the import that made it; a new circle with the files it goes through.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  ALLOWED_IMPORTS as ALLOWED,
  folderOf,
  importCircles,
  relativeImports,
  repositoryRoot,
  sourceFiles,
  sourceRoot,
} from "./import-graph.ts";

/** The gateway's rooms by stage: each imports only the rooms below it (wire ← store ← access ←
 * turn ← ws, http). The root of src/gateway/ composes them and may import every room. */
const GATEWAY_ROOMS: Record<string, readonly string[]> = {
  wire: [],
  store: ["wire"],
  access: ["store", "wire"],
  turn: ["access", "store", "wire"],
  ws: ["access", "store", "turn", "wire"],
  http: ["access", "store", "turn", "wire"],
};

/** The root's files a room may import: the context every stage is handed (GatewayContext and the
 * services in it), never the composition (gateway-server, index, the drain, connection admission). */
const GATEWAY_CONTEXT = [
  "drain-state.ts",
  "gateway-clock.ts",
  "gateway-context.ts",
  "gateway-models.ts",
  "metrics.ts",
  "request-log.ts",
  "serve-config.ts",
];

describe("the layering", () => {
  it("has a rule for every folder of src/", () => {
    const folders = fs
      .readdirSync(sourceRoot, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(folders.filter((folder) => ALLOWED[folder] === undefined)).toEqual([]);
  });

  it("has no import that climbs", () => {
    const climbs = sourceFiles(sourceRoot).flatMap((file) => {
      const from = folderOf(file) as string;
      return relativeImports(file)
        .map((arrow) => ({ ...arrow, to: folderOf(arrow.target) }))
        .filter(({ to }) => to !== undefined && to !== from && !ALLOWED[from]?.includes(to))
        .map(({ file: source, to }) => `${source} imports src/${to}`);
    });
    expect(climbs).toEqual([]);
  });

  it("has no import circle in src/, web/src or editors/vscode/src", () => {
    // Type-only imports count: a circle of types is the same tangle, one refactor from a runtime
    // one. Break a circle by moving the shared piece into a module both sides import.
    const roots = [
      sourceRoot,
      ...["web/src", "editors/vscode/src"].map((root) => path.join(repositoryRoot, root)),
    ];
    expect(roots.flatMap((root) => importCircles(sourceFiles(root)))).toEqual([]);
  });

  it("keeps the clients on the agent protocol", () => {
    const protocol = path.join(sourceRoot, "protocol");
    const web = path.join(repositoryRoot, "web", "src");
    const clients = [web, path.join(repositoryRoot, "editors", "vscode", "src")];
    // The agent protocol and SparkError; and the transcript every surface renders (the fold of
    // session events, Markdown, highlighting), which they share rather than copy.
    const shared = [
      path.join(protocol, "agent"),
      path.join(protocol, "spark-error"),
      path.join(protocol, "transcript"),
    ];
    const reaches = clients.flatMap((client) =>
      sourceFiles(client).flatMap((file) =>
        relativeImports(file)
          .filter(({ target }) => !target.startsWith(client))
          .filter(({ target }) => !shared.some((allowed) => target.startsWith(allowed)))
          .map(
            ({ file: source, target }) =>
              `${source} imports ${path.relative(repositoryRoot, target)}`,
          ),
      ),
    );
    expect(reaches).toEqual([]);
  });
});

describe("the gateway's rooms", () => {
  const gatewayRoot = path.join(sourceRoot, "gateway");
  const roomOf = (absolute: string): string | undefined => {
    const relative = path.relative(gatewayRoot, absolute);
    if (relative.startsWith("..")) return undefined;
    const parts = relative.split(path.sep);
    return parts.length === 1 ? "." : parts[0];
  };

  it("has a rule for every room of src/gateway/", () => {
    const rooms = fs
      .readdirSync(gatewayRoot, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(rooms.filter((room) => GATEWAY_ROOMS[room] === undefined)).toEqual([]);
  });

  it("has no import that climbs between rooms, and none from a room into the root's composition", () => {
    const climbs = sourceFiles(gatewayRoot).flatMap((file) => {
      const from = roomOf(file) as string;
      if (from === ".") return [];
      return relativeImports(file)
        .map((arrow) => ({ ...arrow, to: roomOf(arrow.target) }))
        .filter(({ to, target }) => {
          if (to === undefined || to === from) return false;
          if (to === ".") return !GATEWAY_CONTEXT.includes(path.basename(target));
          return !GATEWAY_ROOMS[from]?.includes(to);
        })
        .map(
          ({ file: source, target }) =>
            `${source} imports ${path.relative(repositoryRoot, target)}`,
        );
    });
    expect(climbs).toEqual([]);
  });

  it("has no import circle", () => {
    expect(importCircles(sourceFiles(gatewayRoot))).toEqual([]);
  });
});

describe("the shared transcript", () => {
  it("is DOM-free and imports only the agent protocol", () => {
    // The terminal runs it under Node, the browser and the webview under a DOM: it may use
    // neither a DOM global nor anything of Spark's but the agent protocol.
    const transcript = path.join(sourceRoot, "protocol", "transcript");
    const allowed = [transcript, path.join(sourceRoot, "protocol", "agent")];
    const offences = sourceFiles(transcript).flatMap((file) => [
      ...relativeImports(file)
        .filter(({ target }) => !allowed.some((folder) => target.startsWith(folder)))
        .map(
          ({ file: source, target }) =>
            `${source} imports ${path.relative(repositoryRoot, target)}`,
        ),
      ...[
        ...fs.readFileSync(file, "utf8").matchAll(/\b(?:document|window|HTMLElement|innerHTML)\b/g),
      ].map((match) => `${path.relative(repositoryRoot, file)} uses ${match[0]}`),
    ]);
    expect(sourceFiles(transcript).length).toBeGreaterThan(0);
    expect(offences).toEqual([]);
  });
});

describe("the engines' faces", () => {
  // Each engine folder has a public index.ts (the engine, loaded lazily by the router) and may
  // have inspect.ts (what others read without loading it); the rest is the engine's own.
  const engines = path.join(sourceRoot, "engines");
  const FACES = new Set(["index.ts", "inspect.ts"]);

  it("gives every engine folder an index.ts", () => {
    const folders = fs
      .readdirSync(engines, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(
      folders.filter((folder) => !fs.existsSync(path.join(engines, folder, "index.ts"))),
    ).toEqual([]);
  });

  it("is how the rest of src/ reaches an engine", () => {
    const engineOf = (file: string): string | undefined => {
      const relative = path.relative(engines, file);
      const [folder, ...rest] = relative.split(path.sep);
      return relative.startsWith("..") || rest.length === 0 ? undefined : folder;
    };
    const reaches = sourceFiles(sourceRoot).flatMap((file) =>
      relativeImports(file)
        .filter(({ target }) => {
          const engine = engineOf(target);
          if (engine === undefined || engineOf(file) === engine) return false;
          return (
            path.dirname(target) !== path.join(engines, engine) || !FACES.has(path.basename(target))
          );
        })
        .map(
          ({ file: source, target }) => `${source} imports ${path.relative(sourceRoot, target)}`,
        ),
    );
    expect(reaches).toEqual([]);
  });
});
