import type { ApolloServerPlugin } from "@apollo/server";
import { openReadSnapshot, type ReadSnapshotContext } from "../domain/transaction";
import { isIntrospectionOnly } from "./auth-gate.plugin";
import type { GraphqlContext } from "./context";
import { createUserLoaders } from "./loaders/user-loaders";

/**
 * A GraphQL query reads one snapshot: its root fields, nested lists and summaries are read in
 * one consistent read (openReadSnapshot), so a concurrent update cannot make them disagree.
 * Mutations keep their own transactions. Opened once the operation passed the auth gate, closed
 * when the response is sent.
 */
export const readSnapshotPlugin: ApolloServerPlugin<GraphqlContext> = {
  async requestDidStart() {
    let snapshot: ReadSnapshotContext | null = null;
    return {
      async executionDidStart({ contextValue, operation, document }) {
        if (!operation || operation.operation !== "query" || isIntrospectionOnly(operation, document)) return;
        try {
          snapshot = await openReadSnapshot(contextValue.request);
        } catch {
          // No snapshot (the database is failing): the resolvers' own reads report the failure.
          return;
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
