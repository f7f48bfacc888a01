import type { GatewayInterface } from "@apollo/server-gateway-interface";
import {
  execute,
  getNamedType,
  GraphQLError,
  isEnumType,
  isSpecifiedScalarType,
  typeFromAST,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from "graphql";
import { compileQuery, isCompiledQuery, type CompiledQuery } from "graphql-jit";
import { rootFieldNamesOf } from "../credential-answers";

/**
 * How an operation is executed: compiled by graphql-jit into one function per document (no
 * per-field argument maps, info objects or default-resolver calls: a users page of 50 runs about
 * 250 fields, which graphql-js's `execute` made one of the largest costs of the request), or by
 * graphql-js itself.
 *
 * Only queries whose variables are built-in scalars or enums are compiled. graphql-jit coerces
 * variables on its own and differs from graphql-js there: it does not apply the defaults of input
 * object fields (`submitForms: Boolean! = true`) and would parse a custom scalar (Money, DateTime)
 * its own way. Mutations, input objects and custom scalars therefore stay on graphql-js, which
 * also keeps one error message for one bad input (contract §3). So does a query selecting a root
 * field marked ITEMWISE_LIST_ERRORS (below).
 */
export type ExecutionPath = "compiled" | "graphql-js";

/**
 * Extension key of a root Query field returning a list whose items fail one by one (a null and an
 * error at the item's index, as `nodes` answers an id it cannot show). graphql-jit 0.8 appends
 * such a null at the end of the list instead of at the item's index, so these run on graphql-js.
 */
export const ITEMWISE_LIST_ERRORS = "itemwiseListErrors";

export function executionPathOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
): ExecutionPath {
  const query = schema.getQueryType();
  if (operation.operation !== "query" || !query) return "graphql-js";
  for (const definition of operation.variableDefinitions ?? []) {
    const type = typeFromAST(schema, definition.type);
    const named = type && getNamedType(type);
    if (!named || (!isSpecifiedScalarType(named) && !isEnumType(named))) return "graphql-js";
  }
  const fields = query.getFields();
  for (const name of rootFieldNamesOf(document, operation)) {
    if (fields[name]?.extensions?.[ITEMWISE_LIST_ERRORS]) return "graphql-js";
  }
  return "compiled";
}

// graphql-jit's errors are its own objects with read-only members; Apollo's plugins (and
// graphql-armor's suggestion masking) treat errors as graphql-js's, so each is rebuilt as one.
function asGraphqlJsError(error: GraphQLError): GraphQLError {
  const rebuilt = new GraphQLError(error.message, {
    path: error.path,
    originalError: error.originalError ?? undefined,
    extensions: error.extensions,
  });
  if (error.locations) (rebuilt as { locations?: typeof error.locations }).locations = error.locations;
  return rebuilt;
}

/**
 * A document's operation as the executor runs it: compiled, on graphql-js for good, or on
 * graphql-js until it is seen again (`compileOnRepeat`).
 */
type Prepared = { path: "compiled"; query: CompiledQuery } | { path: "graphql-js"; compileOnRepeat: boolean };

/**
 * Decides how a document's operation runs, once per parsed document (kept as long as the
 * document is, in a WeakMap): graphql-js the first time, compiled from the second if eligible.
 */
function operationPreparer(
  schema: GraphQLSchema,
  options: { compiled: boolean; compileOnFirstRun: boolean },
): (document: DocumentNode, operation: OperationDefinitionNode, operationName: string | null) => Prepared {
  const prepared = new WeakMap<DocumentNode, Map<string, Prepared>>();

  return function prepare(
    document: DocumentNode,
    operation: OperationDefinitionNode,
    operationName: string | null,
  ): Prepared {
    let byName = prepared.get(document);
    if (!byName) prepared.set(document, (byName = new Map()));
    const key = operationName ?? "";
    const seen = byName.get(key);
    if (seen && (seen.path === "compiled" || !seen.compileOnRepeat)) return seen;
    if (!seen) {
      const eligible = options.compiled && executionPathOf(schema, document, operation) === "compiled";
      if (!eligible || !options.compileOnFirstRun) {
        const first: Prepared = { path: "graphql-js", compileOnRepeat: eligible };
        byName.set(key, first);
        return first;
      }
    }
    const compiled = compileQuery(schema, document, operationName ?? undefined);
    const entry: Prepared = isCompiledQuery(compiled)
      ? { path: "compiled", query: compiled }
      : { path: "graphql-js", compileOnRepeat: false };
    byName.set(key, entry);
    return entry;
  };
}

/**
 * Apollo Server 5 takes a custom executor only through its gateway interface (the `executor`
 * option of Apollo Server 3 is gone; its migration guide points there). The schema is fixed: it
 * is announced once. How each operation runs is decided once per parsed document, which Apollo
 * caches (LRU), so the decision lives as long as the document does. An eligible operation is
 * compiled the second time its document is run: compiling costs about as much as running a
 * nested user read (BENCHMARKS.md), so a client sending a new document on every request (or a caller
 * trying to make the server compile) pays graphql-js's price once, not a compilation each time.
 * With `compiled: false` (GRAPHQL_COMPILED_EXECUTION=false) every operation runs on graphql-js;
 * with `compileOnFirstRun` (the tests) an eligible operation is compiled on its first run.
 */
export function compiledExecutorGateway(
  schema: GraphQLSchema,
  options: { compiled: boolean; compileOnFirstRun: boolean },
): GatewayInterface {
  const prepare = operationPreparer(schema, options);

  return {
    async load() {
      return {
        async executor(request) {
          const { document, operationName, context } = request;
          // Typed as always set, but Apollo hands over a document whose operation it could not
          // resolve (an operationName the document does not define, or several operations and no
          // name) and expects the executor's errors to say why. graphql-js says so only when it
          // gets the name the client sent: the resolved `operationName` is null then, and with it
          // graphql-js would run a document's only operation.
          const operation = request.operation as OperationDefinitionNode | undefined;
          const variableValues = request.request.variables ?? {};
          const viaGraphqlJs = () =>
            execute({
              schema,
              document,
              contextValue: context,
              variableValues,
              operationName: request.request.operationName ?? null,
            }) as Promise<ExecutionResult>;
          if (!operation) return viaGraphqlJs();
          const entry = prepare(document, operation, operationName);
          if (entry.path === "graphql-js") return viaGraphqlJs();
          const result = (await entry.query.query(undefined, context, variableValues)) as ExecutionResult;
          // No data: the variables did not coerce. graphql-js answers those, with its own messages.
          if (!("data" in result)) return viaGraphqlJs();
          return result.errors ? { ...result, errors: result.errors.map(asGraphqlJsError) } : result;
        },
      };
    },
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: "" });
      return () => undefined;
    },
    async stop() {},
  };
}
