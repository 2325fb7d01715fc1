// `[mcp_servers.<name>]` and `[mcp]` as loadConfig reads them: Codex's keys and units, the
// stdio/HTTP choice, and a project's servers needing the user's consent by name.
import { describe, expect, it } from "vitest";
import { useConfigDirectories } from "./config-test-directories.ts";
import { projectConfigAnnouncements } from "./project-config-announcement.ts";

const directories = useConfigDirectories();

describe("[mcp_servers] in the config", () => {
  it("reads a Codex-style stdio block and an HTTP block, with Codex's second units", async () => {
    await directories.writeUserConfig(`[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-server"]
env = { DOCS_TOKEN = "t" }
startup_timeout_sec = 5
tool_timeout_sec = 90
disabled_tools = ["delete"]

[mcp_servers.remote]
url = "https://mcp.example/mcp"
http_headers = { "X-Team" = "core" }
bearer_token_env_var = "REMOTE_TOKEN"
startup_timeout_ms = 2500
enabled_tools = ["search"]
auto_approve_tools = ["search"]
`);
    const config = await directories.load();
    expect(config.mcpServers?.docs).toEqual({
      name: "docs",
      transport: {
        kind: "stdio",
        command: "npx",
        args: ["-y", "docs-server"],
        env: { DOCS_TOKEN: "t" },
      },
      enabled: true,
      required: false,
      startupTimeoutMs: 5_000,
      toolTimeoutMs: 90_000,
      disabledTools: ["delete"],
      autoApprove: false,
      autoApproveTools: [],
      origin: "user",
    });
    expect(config.mcpServers?.remote).toMatchObject({
      transport: {
        kind: "http",
        url: "https://mcp.example/mcp",
        headers: { "X-Team": "core" },
        bearerTokenEnvVar: "REMOTE_TOKEN",
      },
      startupTimeoutMs: 2_500,
      toolTimeoutMs: 60_000,
      enabledTools: ["search"],
      autoApproveTools: ["search"],
    });
  });

  it("refuses a server with both command and url, or neither", async () => {
    const file = await directories.writeUserConfig(
      `[mcp_servers.both]\ncommand = "x"\nurl = "http://127.0.0.1:1/mcp"\n`,
    );
    expect((await directories.loadError()).message).toBe(
      `${file}: mcp_servers.both.url: set command (stdio) or url (streamable HTTP), not both`,
    );
    await directories.writeUserConfig(`[mcp_servers.none]\nenabled = true\n`);
    expect((await directories.loadError()).message).toContain(
      "mcp_servers.none.command: required: command (a stdio server) or url",
    );
  });
});

describe("a project's MCP servers", () => {
  it("are not started unless the user's own config trusts them by name, and are announced", async () => {
    await directories.writeProjectConfig(
      `[mcp_servers.repo-tools]\ncommand = "./tools/server"\n\n[mcp_servers.other]\nurl = "http://127.0.0.1:9/mcp"\n`,
    );
    await directories.writeUserConfig(`[mcp]\ntrusted_project_servers = ["repo-tools"]\n`);
    const config = await directories.load();
    expect(config.mcpServers?.["repo-tools"]?.origin).toBe("trusted-project");
    expect(config.mcpServers?.other?.origin).toBe("untrusted-project");
    const lines = projectConfigAnnouncements(config, directories.project);
    expect(lines).toEqual([
      `./.spark/config.toml (this project) declares MCP server "repo-tools" ("./tools/server"): starting it, as your [mcp] trusted_project_servers allows`,
      `./.spark/config.toml (this project) declares MCP server "other" ("http://127.0.0.1:9/mcp"): not started; to allow it, add "other" to [mcp] trusted_project_servers in your own config`,
    ]);
  });

  it("replaces the user's server of the same name whole, and then needs the same consent", async () => {
    await directories.writeUserConfig(
      `[mcp_servers.docs]\ncommand = "docs-server"\nauto_approve = true\n`,
    );
    await directories.writeProjectConfig(`[mcp_servers.docs]\ncommand = "./evil"\n`);
    const config = await directories.load();
    expect(config.mcpServers?.docs).toMatchObject({
      transport: { command: "./evil" },
      autoApprove: false,
      origin: "untrusted-project",
    });
  });

  it("may not trust its own servers or auto-approve their calls", async () => {
    const file = await directories.writeProjectConfig(
      `[mcp]\ntrusted_project_servers = ["mine"]\n`,
    );
    expect((await directories.loadError()).message).toContain(
      `${file}: mcp.trusted_project_servers cannot be set in a project's config`,
    );
    for (const setting of ["auto_approve = true", 'auto_approve_tools = ["run"]']) {
      await directories.writeProjectConfig(`[mcp_servers.mine]\ncommand = "x"\n${setting}\n`);
      const key = setting.split(" ")[0] ?? "";
      expect((await directories.loadError()).message).toContain(
        `mcp_servers.mine.${key} cannot be set in a project's config`,
      );
    }
  });
});
