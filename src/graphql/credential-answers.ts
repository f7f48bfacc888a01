import type { DocumentNode, GraphQLSchema, OperationDefinitionNode, SelectionSetNode } from "graphql";

// A mutation whose answer holds a credential (createWebhookEndpoint's signing secret) marks its
// root field with this extension, next to its resolver, as REST marks such an action in its
// action table. The transport reads the marks from the built schema, so there is no second list.

/** `@Extensions(HOLDS_CREDENTIAL)` on a mutation whose answer holds a credential. */
export const HOLDS_CREDENTIAL = { answerHoldsCredential: true } as const;

/** The names of the mutation root fields marked HOLDS_CREDENTIAL. */
export function credentialMutationsOf(schema: GraphQLSchema): ReadonlySet<string> {
  const fields = Object.values(schema.getMutationType()?.getFields() ?? {});
  return new Set(fields.filter((field) => field.extensions?.answerHoldsCredential === true).map((field) => field.name));
}

/**
 * The root field names an operation selects (not their aliases), through inline fragments and
 * fragment spreads too: `mutation { a: createWebhookEndpoint(…) }` and
 * `mutation { ...F } fragment F on Mutation { createWebhookEndpoint(…) }` both name it.
 */
export function rootFieldNamesOf(document: DocumentNode, operation: OperationDefinitionNode): Set<string> {
  const fragments = new Map(
    document.definitions.flatMap((definition) =>
      definition.kind === "FragmentDefinition" ? [[definition.name.value, definition.selectionSet] as const] : [],
    ),
  );
  const names = new Set<string>();
  const visited = new Set<string>();
  const collect = (selectionSet: SelectionSetNode) => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === "Field") names.add(selection.name.value);
      else if (selection.kind === "InlineFragment") collect(selection.selectionSet);
      else if (!visited.has(selection.name.value)) {
        visited.add(selection.name.value);
        const fragment = fragments.get(selection.name.value);
        if (fragment) collect(fragment);
      }
    }
  };
  collect(operation.selectionSet);
  return names;
}
