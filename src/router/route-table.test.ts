// Names to chains by table: aliases expand recursively, client names map, cycles and unknown
// names are errors that say what is configured.
import { describe, expect, it } from "vitest";
import { SparkError } from "../protocol/spark-error.ts";
import { RouteTable } from "./route-table.ts";

const models = new Set(["spark", "spark-backup", "codex", "local"]);
const table = new RouteTable(
  {
    routes: {
      fast: ["spark", "fast-backup", "deep"],
      "fast-backup": ["spark-backup"],
      deep: ["codex"],
      review: ["deep", "spark"],
    },
    clientModels: { "gpt-5.1-codex": "fast", "gpt-5.3-codex": "deep" },
  },
  models,
);

describe("RouteTable", () => {
  it.each([
    ["fast", ["spark", "spark-backup", "codex"]],
    ["deep", ["codex"]],
    ["review", ["codex", "spark"]],
    ["local", ["local"]],
  ])("%s → %j", (name, chain) => {
    expect(table.expand(name)).toEqual(chain);
  });

  it("maps hard-coded client names and passes others through", () => {
    expect(table.mapClientModel("gpt-5.1-codex")).toBe("fast");
    expect(table.mapClientModel("local")).toBe("local");
    expect(table.knows("gpt-5.3-codex")).toBe(true);
    expect(table.knows("auto")).toBe(true);
    expect(table.knows("gpt-4")).toBe(false);
  });

  it("names the chain that leads to an unknown model", () => {
    const broken = () => new RouteTable({ routes: { fast: ["nope"] }, clientModels: {} }, models);
    expect(broken).toThrow(/Unknown model "nope" \(named by \[routes\] fast\)/);
  });

  it("refuses a cycle", () => {
    const cyclic = () =>
      new RouteTable({ routes: { a: ["b"], b: ["a"] }, clientModels: {} }, models);
    expect(cyclic).toThrow(SparkError);
    expect(cyclic).toThrow(/a → b → a is a cycle/);
  });

  it("with one model, fast and deep both mean it", () => {
    const single = new RouteTable({ routes: {}, clientModels: {} }, new Set(["only"]));
    expect(single.expand("fast")).toEqual(["only"]);
    expect(single.expand("deep")).toEqual(["only"]);
  });
});
