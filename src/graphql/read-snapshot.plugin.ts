import type { ApolloServerPlugin } from "@apollo/server";
import { openReadSnapshot, type ReadSnapshotContext } from "../domain/transaction";
import { maskUnexpected } from "../http/transport-errors";
import { isIntrospectionOnly } from "./auth-gate.plugin";
import type { GraphqlContext } from "./context";
import { requestError } from "./graphql-errors";
import { createUserLoaders } from "./loaders/user-loaders";

/**
 * A GraphQL query reads one snapshot: its root fields, nested lists and summaries are read in
 * one consistent read (openReadSnapshot), so a concurrent update cannot make them disagree.
 * Mutations keep their own transactions. Opened once the operation is known and authenticated
 * (the auth gate refuses the others), closed when the response is sent. When it cannot be opened
 * (the database is down or saturated) the query fails as a whole at once, 503 with Retry-After,
 * rather than letting every resolver wait for the same database again.
 */
export const readSnapshotPlugin: ApolloServerPlugin<GraphqlContext> = {
  async requestDidStart() {
    let snapshot: ReadSnapshotContext | null = null;
    return {
      async didResolveOperation({ contextValue, operation, document }) {
        if (!operation || operation.operation !== "query" || isIntrospectionOnly(operation, document)) return;
        if (!contextValue.request.principal && !contextValue.request.registrant) return;
        try {
          snapshot = await openReadSnapshot(contextValue.request);
        } catch (error) {
          throw requestError(maskUnexpected(error, contextValue.log, contextValue.requestId));
        }
        contextValue.request = snapshot.ctx;
        contextValue.loaders = createUserLoaders(snapshot.ctx.em);
      },
      async willSendResponse() {
        const open = snapshot;
        snapshot = null;
        // The answer is already read; a failed COMMIT of a read-only transaction loses nothing,
        // and the connection is released either way.
        if (open) await open.close().catch(() => undefined);
      },
    };
  },
};
