import type { ApolloServerPlugin } from "@apollo/server";
import { Kind, type DocumentNode, type OperationDefinitionNode, type SelectionSetNode } from "graphql";
import { DomainError } from "../domain/errors";
import { maskUnexpected } from "../http/transport-errors";
import type { GraphqlContext } from "./context";
import { requestError } from "./graphql-errors";

// The answer per operation node of a parsed document (Apollo keeps those): the read snapshot asks
// it of every query, and it depends on the text alone.
const introspectionOnly = new WeakMap<OperationDefinitionNode, boolean>();

/** True when every root field is an introspection field (`__schema`, `__type`, `__typename`). */
export function isIntrospectionOnly(operation: OperationDefinitionNode, document: DocumentNode): boolean {
  let answer = introspectionOnly.get(operation);
  if (answer === undefined) introspectionOnly.set(operation, (answer = walkIntrospectionOnly(operation, document)));
  return answer;
}

function walkIntrospectionOnly(operation: OperationDefinitionNode, document: DocumentNode): boolean {
  const fragments = new Map(
    document.definitions
      .filter((d) => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((d) => [d.name.value, d.selectionSet] as const),
  );
  const seen = new Set<string>();
  const onlyIntrospection = (selectionSet: SelectionSetNode): boolean =>
    selectionSet.selections.every((selection) => {
      if (selection.kind === Kind.FIELD) return selection.name.value.startsWith("__");
      if (selection.kind === Kind.INLINE_FRAGMENT) return onlyIntrospection(selection.selectionSet);
      const name = selection.name.value;
      if (seen.has(name)) return true;
      seen.add(name);
      const fragment = fragments.get(name);
      return fragment ? onlyIntrospection(fragment) : false;
    });
  return operation.operation === "query" && onlyIntrospection(operation.selectionSet);
}

/**
 * Unauthenticated requests fail as a whole, before any resolver runs: HTTP 401 with
 * UNAUTHENTICATED or STALE_TIMESTAMP, as on REST. The one exception is an introspection-only
 * query, so the explorer can show the schema before credentials are entered (introspection
 * itself is switched by configuration).
 */
export const authGatePlugin: ApolloServerPlugin<GraphqlContext> = {
  async requestDidStart() {
    return {
      async didResolveOperation({ contextValue, operation, document }) {
        if (contextValue.request.principal || contextValue.request.registrant) return;
        if (operation && isIntrospectionOnly(operation, document)) return;
        const failure = contextValue.authFailure ?? new DomainError("UNAUTHENTICATED", "Authentication failed.");
        throw requestError(
          failure instanceof DomainError ? failure : maskUnexpected(failure, contextValue.log, contextValue.requestId),
        );
      },
    };
  },
};
