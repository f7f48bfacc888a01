import {
  getNamedType,
  GraphQLObjectType,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from "graphql";
import { getArgumentValues } from "graphql/execution/values";

// A GraphQL query reads one snapshot (read-snapshot.plugin.ts). A query answered by a single
// statement is a consistent read by itself: opening a transaction around it costs two more
// statements (START TRANSACTION, COMMIT) and buys nothing. Which queries those are is declared
// by the root fields' resolvers, which know what their one read loads, and checked here against
// the operation before it runs.

/** Extension key of a root Query field whose resolver reads its answer in one statement. */
export const ONE_STATEMENT_READ = "oneStatementRead";

/**
 * What a root field's single statement answers, given the field's arguments: whether the resolver
 * of field coordinate ("Type.field") reads nothing more once the root has read, where `path` is
 * the field names from below the root down to that field (["children", "forms"]). Fields without
 * a resolver (plain properties of the objects the root returns) are always answered.
 */
export type OneStatementRead = (
  args: Record<string, unknown>,
  caller: { registrant: boolean },
) => AnsweredFields | OneStatementAnswer | null;
export type AnsweredFields = (coordinate: string, path: readonly string[]) => boolean;

/** The answer of a root whose declared type is abstract (`node`): the object type these arguments read. */
export interface OneStatementAnswer {
  objectType: string;
  answered: AnsweredFields;
}

/** Answers the same coordinates at any depth. */
export function answeredCoordinates(coordinates: Iterable<string>): AnsweredFields {
  const set = new Set(coordinates);
  return (coordinate) => set.has(coordinate);
}

/**
 * Whether the operation is one root field (besides __typename) whose declared single read
 * answers every field the operation selects under it. Conservative: a fragment on an abstract
 * type, an unknown field or arguments that do not coerce answer false (the snapshot is kept).
 */
export function readsInOneStatement(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  document: DocumentNode,
  variables: Record<string, unknown> | undefined,
  caller: { registrant: boolean } = { registrant: false },
): boolean {
  const declaredRoot = declaredRootOf(schema, operation, document);
  if (!declaredRoot) return false;
  const { root, definition, declared, fragments } = declaredRoot;
  let answer: ReturnType<OneStatementRead>;
  try {
    answer = declared(getArgumentValues(definition, root, variables ?? {}), caller);
  } catch {
    return false;
  }
  if (!answer) return false;
  const answered = typeof answer === "function" ? answer : answer.answered;
  const type = typeof answer === "function" ? getNamedType(definition.type) : schema.getType(answer.objectType);
  if (!(type instanceof GraphQLObjectType) || root.selectionSet === undefined) return false;
  const last = lastWalk.get(root);
  if (last && last.answered === answered && last.type === type) return last.result;
  const result = answeredBy(type, root.selectionSet, fragments, answered, []);
  lastWalk.set(root, { answered, type, result });
  return result;
}

/** The one root field of a query operation that declares its single read, with the document's fragments. */
interface DeclaredRoot {
  root: FieldNode;
  definition: GraphQLField<unknown, unknown>;
  declared: OneStatementRead;
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
}

// What the operation's text alone decides (its one reading root field and the declaration of that
// field), kept per operation node of a parsed document (Apollo keeps those) and schema: only the
// arguments, and so the variables, change from one request to the next.
const declaredRoots = new WeakMap<OperationDefinitionNode, { schema: GraphQLSchema; found: DeclaredRoot | null }>();

function declaredRootOf(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  document: DocumentNode,
): DeclaredRoot | null {
  const kept = declaredRoots.get(operation);
  if (kept && kept.schema === schema) return kept.found;
  const found = findDeclaredRoot(schema, operation, document);
  declaredRoots.set(operation, { schema, found });
  return found;
}

function findDeclaredRoot(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  document: DocumentNode,
): DeclaredRoot | null {
  if (operation.operation !== "query") return null;
  const query = schema.getQueryType();
  if (!query) return null;
  const fragments = new Map(
    document.definitions
      .filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION)
      .map((definition) => [definition.name.value, definition] as const),
  );
  const roots: FieldNode[] = [];
  if (!collectFields(query, operation.selectionSet, fragments, roots)) return null;
  const reading = roots.filter((root) => root.name.value !== "__typename");
  if (reading.length !== 1) return null;
  const [root] = reading;
  const definition = query.getFields()[root.name.value];
  const declared = definition?.extensions?.[ONE_STATEMENT_READ] as OneStatementRead | undefined;
  if (!definition || typeof declared !== "function") return null;
  return { root, definition, declared, fragments };
}

// The walk's answer for a root field node of a parsed document (Apollo keeps those), as long as
// its root read answers with the same function for the same type: the `user` root always does,
// so a repeated nested read skips the walk of its selection; a root whose answer depends on its
// arguments replaces the one entry kept per node.
const lastWalk = new WeakMap<FieldNode, { answered: AnsweredFields; type: GraphQLObjectType; result: boolean }>();

// Every field selected under `type` (through fragments) is a plain property or an answered
// coordinate, and so is everything below it.
function answeredBy(
  type: GraphQLObjectType,
  selectionSet: SelectionSetNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  answered: AnsweredFields,
  above: readonly string[],
): boolean {
  const fields: FieldNode[] = [];
  if (!collectFields(type, selectionSet, fragments, fields)) return false;
  return fields.every((field) => {
    const name = field.name.value;
    if (name === "__typename") return true;
    const definition = type.getFields()[name];
    if (!definition) return false;
    const path = [...above, name];
    if (definition.resolve !== undefined && !answered(`${type.name}.${name}`, path)) return false;
    if (!field.selectionSet) return true;
    const child = getNamedType(definition.type);
    return child instanceof GraphQLObjectType && answeredBy(child, field.selectionSet, fragments, answered, path);
  });
}

// The fields of a selection set on `type`, through inline fragments and spreads; false when a
// fragment names another type (an abstract type's member) or a missing fragment.
function collectFields(
  type: GraphQLObjectType,
  selectionSet: SelectionSetNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  into: FieldNode[],
  seen = new Set<string>(),
): boolean {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      into.push(selection);
      continue;
    }
    const fragment = selection.kind === Kind.INLINE_FRAGMENT ? selection : fragments.get(selection.name.value);
    if (!fragment) return false;
    if (fragment.typeCondition && fragment.typeCondition.name.value !== type.name) return false;
    if (selection.kind === Kind.FRAGMENT_SPREAD) {
      if (seen.has(selection.name.value)) continue;
      seen.add(selection.name.value);
    }
    if (!collectFields(type, fragment.selectionSet, fragments, into, seen)) return false;
  }
  return true;
}
