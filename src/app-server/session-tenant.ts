// Who owns an agent session: the tenant of the API key that started it
// (src/gateway/access/tenant.ts), or the local user when the server has no keys, in process
// (terminal UI), or the log predates tenants.
import { tenantOf } from "../gateway/access/tenant.ts";

/** The tenant of a connection without a key: no keys configured, or the terminal UI in process. */
export const LOCAL_TENANT = tenantOf(undefined);

/** The owner a log header names; `spark exec`, the terminal UI and older logs name none. */
export function loggedTenant(recorded: string | undefined): string {
  return recorded ?? LOCAL_TENANT;
}

/** What a new log's header records: nothing for the local user, so those logs read as before. */
export function recordedTenant(tenant: string): string | undefined {
  return tenant === LOCAL_TENANT ? undefined : tenant;
}
