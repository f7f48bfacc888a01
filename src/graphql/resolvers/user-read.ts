import type { GraphQLResolveInfo } from "graphql";
import type { ListOwners, RegistrationListsWanted } from "../../data/registration-lists.data";
import { getUser } from "../../domain/users/users.service";
import type { GraphqlContext } from "../context";
import type { AnsweredFields, OneStatementRead } from "../execution/one-statement-read";
import { selectsField, selectsPath } from "../selection";
import { summaryMembersOf } from "../summary-selection";
import { USER_SUMMARY_FIELDS } from "../types/user-summary-fields";
import type { UserType } from "../types/user.type";
import { userFromOutcome } from "./present";

// Reading one user for the `user` and `node` roots: the summary, children and lists its
// selection asks for, in one statement that primes the request's loaders.

/** The form set; a registrant session sees only registrant forms (admin-only forms are internal). */
export async function visibleFormSet(uid: number, ctx: GraphqlContext) {
  const rows = await ctx.loaders.formSets.load(uid);
  return ctx.request.registrant ? rows.filter((row) => row.form.audience !== "admin") : rows;
}

/** The stored answers, without those of admin-only forms for a registrant session. */
export async function visibleAnswers(uid: number, ctx: GraphqlContext) {
  const rows = await ctx.loaders.fieldValues.load(uid);
  if (!ctx.request.registrant) return rows;
  const visible = new Set((await visibleFormSet(uid, ctx)).map((row) => row.form.id));
  return rows.filter((row) => visible.has(row.field.formId));
}

/**
 * One user of a project for an API account (`user`, and `node` of a User): ownership, the user's
 * summary and, when the selection asks for children, theirs, with the lists the selection reads
 * (form sets, their forms' fields, answers, emails; the user's, its children's), all in one
 * statement whose results prime the request's loaders.
 */
export async function readUserForSelection(
  ctx: GraphqlContext,
  groupId: number,
  cloginId: number,
  info: GraphQLResolveInfo,
): Promise<UserType> {
  const withChildren = selectsField(info, "children");
  const outcome = await getUser(ctx.request, groupId, cloginId, {
    withChildren,
    members: summaryMembersOf(info),
    lists: listsOfSelection(info, withChildren),
  });
  ctx.loaders.primeSummary(outcome.summary);
  if (withChildren) {
    for (const child of outcome.children) ctx.loaders.primeSummary(child);
    ctx.loaders.children.prime(
      { groupId, cloginId },
      outcome.children.map((child) => ({
        uid: child.uid,
        groupId: child.groupId,
        cloginId: child.cloginId,
        parentCloginId: child.parentCloginId,
      })),
    );
  }
  for (const [uid, lists] of outcome.lists) {
    if (lists.formSet) {
      ctx.loaders.formSets.prime(uid, lists.formSet);
      // Every form of the set: a form without fields reads as none, not as a miss for the loader.
      if (lists.formFields) {
        for (const { form } of lists.formSet)
          ctx.loaders.fieldsOfForm.prime(form.id, lists.formFields.get(form.id) ?? []);
      }
    }
    if (lists.answers) ctx.loaders.fieldValues.prime(uid, lists.answers);
    if (lists.emails) ctx.loaders.emails.prime(uid, lists.emails);
  }
  return userFromOutcome(outcome);
}

/** The lists a `user` selection reads (for the user, under `children` for its children). */
function listsOfSelection(info: GraphQLResolveInfo, withChildren: boolean): RegistrationListsWanted {
  const at = (path: readonly string[]): ListOwners | undefined => {
    const person = selectsPath(info, path);
    const children = withChildren && selectsPath(info, ["children", ...path]);
    return person && children ? "family" : person ? "person" : children ? "children" : undefined;
  };
  const either = (a: ListOwners | undefined, b: ListOwners | undefined): ListOwners | undefined =>
    a === b ? a : !a ? b : !b ? a : "family";
  // The missing mandatory fields of a form compare its fields with the answers.
  const missing = at(["forms", "missingMandatoryFields"]);
  return {
    formSet: at(["forms"]),
    formFields: either(at(["forms", "form", "fields"]), missing),
    answers: either(at(["fieldValues"]), missing),
    emails: at(["emails"]),
  };
}

// The User fields answered by the summary a root read primes (no statement of their own):
// `metaInfo` and every field that presents a summary member, so a field added to that table
// joins the one-statement reads without a second list to keep.
export const SUMMARY_FIELDS: readonly string[] = [
  "User.metaInfo",
  ...Object.keys(USER_SUMMARY_FIELDS).map((field) => `User.${field}`),
];
// `user` reads ownership, the summaries and the lists its selection asks for in one statement
// (one-statement-read.ts): its own and its children's, not those of its children's children.
const USER_LIST_FIELDS = new Set([
  ...SUMMARY_FIELDS,
  "User.forms",
  "User.fieldValues",
  "User.emails",
  "Form.fields",
  "UserForm.missingMandatoryFields",
]);
export const answeredByUserRead: AnsweredFields = (coordinate, path) =>
  USER_LIST_FIELDS.has(coordinate) || (coordinate === "User.children" && path.length === 1);
export const USER_ROOT_READ: OneStatementRead = () => answeredByUserRead;
