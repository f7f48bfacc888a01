import type { ApolloServerPlugin } from "@apollo/server";
import { openLockFreeRead, openReadSnapshot, type ReadSnapshotContext } from "../../domain/transaction";
import { CONSISTENCY_HEADER } from "../../http/consistency";
import { formatGtidPosition } from "../../db/gtid";
import { maskUnexpected } from "../../http/transport-errors";
import { currentSqlTally } from "../../db/sql-counter";
import { isIntrospectionOnly } from "../auth-gate.plugin";
import { readsInOneStatement } from "./one-statement-read";
import type { GraphqlContext } from "../context";
import { requestError } from "../graphql-errors";
import { createUserLoaders } from "../loaders/user-loaders";

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
    let singleStatement: { before: number } | null = null;
    return {
      async didResolveOperation({ contextValue, operation, document, schema, request }) {
        if (!operation || operation.operation !== "query" || isIntrospectionOnly(operation, document)) return;
        if (!contextValue.request.principal && !contextValue.request.registrant) return;
        // One statement is a consistent read by itself (one-statement-read.ts).
        const caller = { registrant: contextValue.request.registrant != null };
        const oneStatement = readsInOneStatement(schema, operation, document, request.variables, caller);
        if (oneStatement) singleStatement = { before: currentSqlTally()?.statements ?? 0 };
        try {
          // A query takes no lock: with replicas it reads on one (src/db/replicas.ts).
          snapshot = await (oneStatement ? openLockFreeRead : openReadSnapshot)(contextValue.request);
        } catch (error) {
          throw requestError(maskUnexpected(error, contextValue.log, contextValue.requestId));
        }
        // Unchanged for a one-statement read on the primary: its loaders stay unmade until used.
        if (snapshot.ctx === contextValue.request) return;
        contextValue.request = snapshot.ctx;
        contextValue.loaders = createUserLoaders(snapshot.ctx.em);
      },
      async willSendResponse({ contextValue, operation, response }) {
        // A write's commit, or the position a read waited for: the client may send it back.
        const position = contextValue.request.consistency?.position;
        if (position) response.http.headers.set(CONSISTENCY_HEADER, formatGtidPosition(position));
        const tally = currentSqlTally();
        if (singleStatement && tally && tally.statements - singleStatement.before > 1) {
          // A resolver read more than its root declared (ONE_STATEMENT_READ is out of date): the
          // answer may mix reads from different moments. (The statement-count tests assert the
          // declared queries cost one statement on MySQL/MariaDB.)
          contextValue.log.error(
            { operationName: operation?.name?.value ?? null, statements: tally.statements - singleStatement.before },
            "a query declared as one statement read more than one without a snapshot",
          );
        }
        const open = snapshot;
        snapshot = null;
        // The answer is already read: the COMMIT of the read-only transaction is sent but not
        // waited for (its connection returns to the pool once it is done), so the answer does not
        // wait one more round trip. A failed COMMIT of a read-only transaction loses nothing.
        if (open) void open.close().catch(() => undefined);
      },
    };
  },
};
