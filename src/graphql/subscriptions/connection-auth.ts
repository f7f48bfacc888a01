import { DomainError } from "../../domain/errors";
import type { ProcessState } from "../../domain/process-state";
import { authenticateCaller } from "../../http/request-authentication";
import type { Logger } from "../../http/logger";
import { maskUnexpected } from "../../http/transport-errors";
import { CLOSE_CODES, type Connection } from "./connections";

// The auth part of the subscription server: credentials come in connection_init's payload
// (connectionParams) with the names of the HTTP headers and are checked as a request's are; a
// failure is kept and each subscription refused with the code a query gets; the credentials are
// checked again every SUBSCRIPTION_REAUTH_MS, and a key revoked or narrowed, or a session ended,
// closes the connection (4403).

/** A connection param by header name, case-insensitively (as express `req.get` reads headers). */
export function paramReader(params: Record<string, unknown> | undefined): (name: string) => string | undefined {
  const entries = Object.entries(params ?? {}).map(([key, value]) => [key.toLowerCase(), value] as const);
  return (name) => {
    const value = entries.find(([key]) => key === name.toLowerCase())?.[1];
    return typeof value === "string" ? value : typeof value === "number" ? String(value) : undefined;
  };
}

/**
 * connection_init: authenticates the connection with its params. Returns the account key to count
 * it under, or null when authentication failed (the failure is kept on the connection: each
 * subscription is refused with it, see authRefusal).
 */
export async function authenticateConnection(
  state: ProcessState,
  connection: Connection,
  connectionParams: Record<string, unknown> | undefined,
): Promise<string | null> {
  const params = paramReader(connectionParams);
  connection.credentials = { params };
  connection.lastAuthAt = Date.now();
  try {
    Object.assign(connection, await authenticateCaller(state, params));
  } catch (error) {
    connection.authFailure = error;
    return null;
  }
  return connection.registrant
    ? `registrant:${connection.registrant.uid}`
    : `account:${connection.principal!.apiAccountId}`;
}

/** Why a subscription of this connection is refused (its authentication failed), or null when it authenticated. */
export function authRefusal(
  connection: Connection,
  logger: Logger,
  requestId: string,
): { message: string; code: string } | null {
  if (connection.principal || connection.registrant) return null;
  if (connection.authFailure instanceof DomainError) return connection.authFailure;
  if (connection.authFailure) return maskUnexpected(connection.authFailure, logger, requestId);
  return new DomainError("UNAUTHENTICATED", "Authentication failed.");
}

/** What must not change while the connection lives: the session, or the key and its scope. */
const identityOf = ({ principal, registrant }: Pick<Connection, "principal" | "registrant">): string =>
  registrant
    ? `registrant:${registrant.uid}:${registrant.groupId}:${registrant.cloginId}`
    : `account:${principal!.apiAccountId}:${JSON.stringify(principal!.scope ?? null)}`;

/**
 * Subscriptions were authorized with the credentials of connection_init; a key revoked or
 * narrowed, or a session ended, since then closes the connection (4403) within the interval,
 * and a client that connects again is authorized anew.
 */
export class Reauthentication {
  constructor(
    private readonly state: ProcessState,
    private readonly intervalMs: number,
  ) {}

  /** Checks the connection's credentials again if the interval has passed (the sweep calls it). */
  check(connection: Connection, now: number): void {
    if (connection.checking || !connection.credentials || now - connection.lastAuthAt < this.intervalMs) return;
    if (!connection.principal && !connection.registrant) return;
    connection.checking = true;
    this.unchanged(connection).then(
      (unchanged) => {
        connection.checking = false;
        connection.lastAuthAt = Date.now();
        if (!unchanged)
          connection.socket.close(CLOSE_CODES.credentialsChanged, "Credentials revoked or changed: connect again");
      },
      () => (connection.checking = false),
    );
  }

  /** Whether the connection still authenticates as the same identity. */
  private async unchanged(connection: Connection): Promise<boolean> {
    const { params } = connection.credentials!;
    // The Timestamp sent at connection_init would be stale by now: only the key is checked again.
    const withoutTimestamp = (name: string) => (name.toLowerCase() === "timestamp" ? undefined : params(name));
    try {
      return identityOf(await authenticateCaller(this.state, withoutTimestamp)) === identityOf(connection);
    } catch (error) {
      // The database away is not the key revoked: keep the connection, check again later.
      return !(error instanceof DomainError);
    }
  }
}
