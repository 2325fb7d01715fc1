// The MCP SDK, loaded with the first server that starts: importing it costs ~0.3 s of CPU, which
// every `spark exec`, `spark serve` and terminal UI paid at start-up with no server configured.
import type { ErrorCode } from "@modelcontextprotocol/sdk/types.js";

async function importMcpSdk() {
  const [client, stdio, streamableHttp, types] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]);
  return {
    Client: client.Client,
    StdioClientTransport: stdio.StdioClientTransport,
    StreamableHTTPClientTransport: streamableHttp.StreamableHTTPClientTransport,
    ErrorCode: types.ErrorCode,
    McpError: types.McpError,
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
  };
}

export type McpSdk = Awaited<ReturnType<typeof importMcpSdk>>;

let loading: Promise<McpSdk> | undefined;

/** The SDK's classes, imported once per process. */
export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= importMcpSdk();
  return loading;
}

/** Whether `error` is the SDK's error with this code (a request timeout, a closed connection). */
export function isMcpErrorCode(sdk: McpSdk, error: unknown, code: keyof typeof ErrorCode): boolean {
  return error instanceof sdk.McpError && error.code === (sdk.ErrorCode[code] as number);
}
