import {
  getNamedType,
  isAbstractType,
  isObjectType,
  Kind,
  type GraphQLCompositeType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from "graphql";
import { summaryMembers, type SummaryMemberName, type SummaryMembers } from "../domain/users/user-summary";
import { USER_SUMMARY_FIELDS } from "./types/user-summary-fields";
import { META_INFO_FIELDS } from "./types/user.type";

// What a GraphQL operation must read of the user summary, derived from its selection set and the
// fields that present summary members (META_INFO_FIELDS, USER_SUMMARY_FIELDS): a statement then
// reads only the parts of the members selected and decodes only those members (user-projection.ts),
// and the presenters present only the members a summary holds. Walked once per operation
// document (Apollo keeps parsed documents, so a repeated query costs a map lookup), by type:
// whatever root, fragment or depth a User or MetaInfo is selected at.

/** The types whose fields present summary members, each field with the member it reads. */
const SUMMARY_FIELDS_OF_TYPE: Readonly<Record<string, Readonly<Record<string, { member: SummaryMemberName }>>>> = {
  MetaInfo: META_INFO_FIELDS,
  User: USER_SUMMARY_FIELDS,
};
// MetaInfo fields that read no member: anything else there not in the table is read whole.
const MEMBERLESS = new Set(["__typename", "id"]);

const cache = new WeakMap<OperationDefinitionNode, SummaryMembers | null>();

/**
 * The summary members the whole operation reads; null (every member) when a MetaInfo field is
 * not known to the table. Every summary the operation's resolvers present holds at least these.
 */
export function summaryMembersOf(info: GraphQLResolveInfo): SummaryMembers | null {
  const cached = cache.get(info.operation);
  if (cached !== undefined) return cached;
  const parts = walk(info);
  cache.set(info.operation, parts);
  return parts;
}

function walk(info: GraphQLResolveInfo): SummaryMembers | null {
  const schema: GraphQLSchema = info.schema;
  const members = new Set<SummaryMemberName>();
  let whole = false;
  const seen = new Set<string>();
  const visit = (type: GraphQLCompositeType, set: SelectionSetNode | undefined): void => {
    if (!set || whole) return;
    for (const selection of set.selections) {
      if (selection.kind !== Kind.FIELD) {
        const fragment = selection.kind === Kind.INLINE_FRAGMENT ? selection : info.fragments[selection.name.value];
        if (!fragment) continue;
        const key = selection.kind === Kind.FRAGMENT_SPREAD ? `${selection.name.value}@${type.name}` : null;
        if (key !== null) {
          if (seen.has(key)) continue;
          seen.add(key);
        }
        const condition = fragment.typeCondition ? schema.getType(fragment.typeCondition.name.value) : type;
        visit((condition ?? type) as GraphQLCompositeType, fragment.selectionSet);
        continue;
      }
      const name = selection.name.value;
      const table = SUMMARY_FIELDS_OF_TYPE[type.name];
      if (table && Object.hasOwn(table, name)) members.add(table[name].member);
      else if (type.name === "MetaInfo" && !MEMBERLESS.has(name)) whole = true;
      if (!selection.selectionSet || !("getFields" in type)) continue;
      const field = type.getFields()[name];
      if (!field) continue;
      const next = getNamedType(field.type);
      if (isObjectType(next) || isAbstractType(next)) visit(next, selection.selectionSet);
    }
  };
  const root = schema.getRootType(info.operation.operation);
  if (root) visit(root, info.operation.selectionSet);
  return whole ? null : summaryMembers(members);
}
