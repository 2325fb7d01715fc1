// The scripted engine's public face: the factory that replays a JSONL model transcript.
export { createScriptEngine } from "./script-engine.ts";
