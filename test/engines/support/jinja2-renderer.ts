// Hugging Face's rendering of chat templates (render-with-jinja2.py) in one Python process for a
// test file: each request goes as a JSON line and the answers come back in order. A Python start
// per render cost the chat-format family test most of its time.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";

const SCRIPT = join(import.meta.dirname, "render-with-jinja2.py");

export interface Jinja2Renderer {
  /** The prompt the template renders for `request` (template, messages, tools, …, now). */
  render(request: object): Promise<string>;
  close(): void;
}

interface Pending {
  resolve: (prompt: string) => void;
  reject: (error: Error) => void;
}

export function startJinja2Renderer(python: string): Jinja2Renderer {
  const child = spawn(python, [SCRIPT], { stdio: ["pipe", "pipe", "pipe"] });
  const pending: Pending[] = [];
  let stderr = "";
  let ended: Error | undefined;
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  createInterface({ input: child.stdout }).on("line", (line) => {
    const waiting = pending.shift();
    const answer = JSON.parse(line) as { prompt?: string; error?: string };
    if (answer.prompt !== undefined) waiting?.resolve(answer.prompt);
    else waiting?.reject(new Error(`jinja2: ${answer.error ?? "no prompt"}`));
  });
  const fail = (error: Error): void => {
    ended = error;
    for (const waiting of pending.splice(0)) waiting.reject(error);
  };
  child.once("error", fail);
  child.once("exit", (code) => fail(new Error(`jinja2 renderer exited (${code}): ${stderr}`)));
  return {
    render(request) {
      if (ended !== undefined) return Promise.reject(ended);
      return new Promise((resolve, reject) => {
        pending.push({ resolve, reject });
        child.stdin.write(JSON.stringify(request) + "\n");
      });
    },
    close() {
      child.stdin.end();
    },
  };
}
