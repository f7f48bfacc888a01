import { assertObjectType, Kind, type GraphQLResolveInfo, type GraphQLSchema, type SelectionSetNode } from "graphql";
import { Args, Ctx, Extensions, FieldResolver, Info, Int, Query, Resolver, Root } from "type-graphql";
import { countUsers, listUsersPage, type SummaryPart, type UserListFilter } from "../../domain/users/user-reads";
import { matchingBucketsOf } from "../../domain/projects/project-counters";
import {
  answeredCoordinates,
  ONE_STATEMENT_READ,
  type AnsweredFields,
  type OneStatementRead,
} from "../one-statement-read";
import type { ListOwners, RegistrationListsWanted } from "../../data/registration-lists.data";
import { getUser } from "../../domain/users/users.service";
import { readOwnRegistration } from "../../domain/sessions/registrant-sessions";
import type { GraphqlContext } from "../context";
import { selectedNamesAt, selectsField, selectsPath } from "../selection";
import { decodeUserCursor, encodeUserCursor } from "../cursor";
import { DEFAULT_PAGE_SIZE, UserArgs, UsersArgs } from "../inputs/user-query.input";
import { validationFailed } from "../../domain/errors";
import { UserFormType } from "../types/form.type";
import { ProjectType } from "../types/project.type";
import { UserConnectionType } from "../types/user-connection.type";
import {
  CartLineType,
  EmailRecordType,
  PaymentType,
  UtmType,
  FieldValueType,
  MetaInfoType,
  presentMetaInfo,
  presentStatus,
  StatusType,
  TagType,
  UserType,
} from "../types/user.type";
import {
  presentCartLine,
  presentEmailRecord,
  presentFieldValue,
  presentPayment,
  presentProjectListing,
  presentTag,
  presentUserForm,
  presentUtm,
  userFromOutcome,
  userFromRef,
} from "./present";

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
    parts: summaryPartsOfOperation(info),
    lists: listsOfSelection(info, withChildren),
  });
  ctx.loaders.summaries.prime(outcome.uid, outcome.summary);
  if (withChildren) {
    for (const child of outcome.children) ctx.loaders.summaries.prime(child.uid, child);
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

// The User fields answered by the summary a root read primes (no statement of their own).
const SUMMARY_FIELDS = ["User.metaInfo", "User.name", "User.status", "User.tags"];
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
const USER_ROOT_READ: OneStatementRead = () => answeredByUserRead;
// `users` reads ownership, the page with its summaries and, when the counters can tell it, the
// matching total in one statement.
const USERS_PAGE_READ: OneStatementRead = (args) => {
  const filter = (args.filter ?? {}) as UserListFilter;
  return answeredCoordinates(
    matchingBucketsOf(filter) ? [...SUMMARY_FIELDS, "UserConnection.totalCount"] : SUMMARY_FIELDS,
  );
};

@Resolver(() => UserType)
export class UserQueryResolver {
  @Extensions({ [ONE_STATEMENT_READ]: USER_ROOT_READ })
  @Query(() => UserType, {
    description: "One user of a project (FORBIDDEN for a foreign project, USER_NOT_FOUND when not registered there).",
  })
  async user(@Args() args: UserArgs, @Ctx() ctx: GraphqlContext, @Info() info: GraphQLResolveInfo): Promise<UserType> {
    return readUserForSelection(ctx, args.groupId, args.cloginId, info);
  }

  @Query(() => UserType, {
    description:
      "The signed-in registrant's own registration (Authorization: Bearer <session token>); FORBIDDEN for an API account.",
  })
  async me(@Ctx() ctx: GraphqlContext): Promise<UserType> {
    const outcome = await readOwnRegistration(ctx.request);
    ctx.loaders.summaries.prime(outcome.uid, outcome.summary);
    return userFromOutcome(outcome);
  }
}

// Which summary parts each MetaInfo member needs; members not listed need none.
const META_INFO_PARTS: Readonly<Record<string, readonly SummaryPart[]>> = {
  name: ["person"],
  totalForms: ["formCount"],
  completedForms: ["forms"],
  totalUserForms: ["forms"],
  totalCompletedUserForms: ["forms"],
  totalUserMandatoryForms: ["forms"],
  totalCompletedUserMandatoryForms: ["forms"],
  totalOrder: ["order"],
  totalPaid: ["paid"],
  totalBalance: ["order", "paid"],
  status: ["status"],
  excluded: ["status"],
  assignedAdmin: ["admin"],
  commentCount: ["comments"],
  totalNonExcludedChildren: ["children"],
  totalUserTags: ["tags"],
  tagIds: ["tags"],
};
const PART_FREE_META_INFO = new Set([
  "__typename",
  "id",
  "applicationDate",
  "updatedAt",
  "groupId",
  "uid",
  "cloginId",
  "connectedTo",
  "star",
]);

// The User fields a page node reads from its summary, and the parts they need. The node's other
// fields either need no summary (ids, cloginId) or read through their own loaders.
const NODE_SUMMARY_PARTS: Readonly<Record<string, readonly SummaryPart[]>> = {
  name: ["person"],
  status: ["status"],
  tags: ["tags"],
};

/**
 * The summary parts a users page's nodes ask for (the node's name, status and tags, the metaInfo
 * members), so the page statement reads only those; null (every part) when a metaInfo member is
 * not known here.
 */
function summaryPartsOfPage(info: GraphQLResolveInfo): Set<SummaryPart> | null {
  const parts = new Set<SummaryPart>();
  for (const [field, needs] of Object.entries(NODE_SUMMARY_PARTS)) {
    if (selectsPath(info, ["edges", "node", field])) for (const part of needs) parts.add(part);
  }
  for (const name of selectedNamesAt(info, ["edges", "node", "metaInfo"]) ?? []) {
    if (!addMetaInfoMemberParts(parts, name)) return null;
  }
  return parts;
}

/** Adds the parts MetaInfo member `name` needs; false when the member is not known here. */
function addMetaInfoMemberParts(parts: Set<SummaryPart>, name: string): boolean {
  if (!Object.hasOwn(META_INFO_PARTS, name)) return PART_FREE_META_INFO.has(name);
  for (const part of META_INFO_PARTS[name]) parts.add(part);
  return true;
}

/**
 * The summary parts a whole operation can read (every `metaInfo` member, and every field named
 * `name`, `status` or `tags`, on whatever type: reading more than needed is harmless), so summaries
 * read for the `user` root hold only those; null (every part) when a metaInfo member is not known
 * here. Any summary consumed in this request is consumed through such a field, so none misses a
 * part it needs.
 */
function summaryPartsOfOperation(info: GraphQLResolveInfo): Set<SummaryPart> | null {
  const parts = new Set<SummaryPart>();
  let unknown = false;
  const seen = new Set<string>();
  const visit = (set: SelectionSetNode | undefined, underMetaInfo: boolean): void => {
    if (!set || unknown) return;
    for (const selection of set.selections) {
      if (selection.kind === Kind.INLINE_FRAGMENT) visit(selection.selectionSet, underMetaInfo);
      else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const key = `${selection.name.value}:${underMetaInfo}`;
        if (seen.has(key)) continue;
        seen.add(key);
        visit(info.fragments[selection.name.value]?.selectionSet, underMetaInfo);
      } else {
        const name = selection.name.value;
        if (underMetaInfo) {
          if (!addMetaInfoMemberParts(parts, name)) unknown = true;
        } else {
          if (Object.hasOwn(NODE_SUMMARY_PARTS, name)) for (const part of NODE_SUMMARY_PARTS[name]) parts.add(part);
        }
        visit(selection.selectionSet, name === "metaInfo");
      }
    }
  };
  visit(info.operation.selectionSet, false);
  return unknown ? null : parts;
}

@Resolver(() => UserConnectionType)
export class UserConnectionResolver {
  @Extensions({ [ONE_STATEMENT_READ]: USERS_PAGE_READ })
  @Query(() => UserConnectionType, {
    description:
      "A page of a project's users in uid order: forward with first/after, backward with last/before (Relay connection).",
  })
  async users(
    @Args() args: UsersArgs,
    @Ctx() ctx: GraphqlContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<UserConnectionType> {
    if (args.first != null && args.last != null) {
      throw validationFailed([
        { path: ["last"], message: "cannot be given with first: give first (forward) or last (backward)" },
      ]);
    }
    const afterUid = args.after == null ? null : decodeUserCursor(args.after);
    const beforeUid = args.before == null ? null : decodeUserCursor(args.before, "before");
    const filter: UserListFilter = {
      statusId: args.filter?.statusId,
      excluded: args.filter?.excluded,
      level: args.filter?.level,
      search: args.filter?.search,
      updatedSince: args.filter?.updatedSince,
    };
    const summaryParts = summaryPartsOfPage(info);
    const backward = args.last != null;
    const page = await listUsersPage(ctx.request, {
      groupId: args.groupId,
      size: (backward ? args.last : args.first) ?? DEFAULT_PAGE_SIZE,
      direction: backward ? "backward" : "forward",
      afterUid,
      beforeUid,
      filter,
      summaryParts,
      withTotal: selectsField(info, "totalCount"),
    });
    const edges = page.users.map((ref, i) => {
      const node = userFromRef(ref);
      if (summaryParts === null) ctx.loaders.summaries.prime(ref.uid, page.summaries[i]);
      else node.pageSummary = page.summaries[i];
      return { cursor: encodeUserCursor(ref.uid), node };
    });
    return {
      groupId: args.groupId,
      filter,
      matchingTotal: page.matchingTotal,
      edges,
      pageInfo: {
        hasNextPage: page.hasNextPage,
        hasPreviousPage: page.hasPreviousPage,
        startCursor: edges[0]?.cursor ?? null,
        endCursor: edges.at(-1)?.cursor ?? null,
      },
    };
  }

  @FieldResolver(() => Int, { description: "Users matching the filter, on all pages." })
  async totalCount(@Root() connection: UserConnectionType, @Ctx() ctx: GraphqlContext): Promise<number> {
    return connection.matchingTotal ?? countUsers(ctx.request, connection.groupId, connection.filter);
  }
}

@Resolver(() => UserType)
export class UserFieldsResolver {
  private async summary(user: UserType, ctx: GraphqlContext) {
    const summary = user.pageSummary ?? (await ctx.loaders.summaries.load(user.uid));
    if (!summary) throw new Error(`registration ${user.uid} vanished while its fields were read`);
    return summary;
  }

  private async person(user: UserType, ctx: GraphqlContext) {
    const person = await ctx.loaders.persons.load(user.cloginId);
    if (!person) throw new Error(`person ${user.cloginId} of registration ${user.uid} is missing`);
    return person;
  }

  // A page's nodes skip this resolver (withPageMetaInfoShortcut below).
  @FieldResolver(() => MetaInfoType)
  async metaInfo(@Root() user: UserType, @Ctx() ctx: GraphqlContext): Promise<MetaInfoType> {
    return presentMetaInfo(await this.summary(user, ctx));
  }

  @FieldResolver(() => String, { description: "First + last name; else organization name; else username." })
  async name(@Root() user: UserType, @Ctx() ctx: GraphqlContext): Promise<string> {
    return (await this.summary(user, ctx)).name;
  }

  @FieldResolver(() => StatusType, { nullable: true })
  async status(@Root() user: UserType, @Ctx() ctx: GraphqlContext): Promise<StatusType | null> {
    const { status } = await this.summary(user, ctx);
    return status && presentStatus(status, user.groupId);
  }

  @FieldResolver(() => String)
  async username(@Root() user: UserType, @Ctx() ctx: GraphqlContext): Promise<string> {
    return (await this.person(user, ctx)).username;
  }

  @FieldResolver(() => String, { nullable: true })
  async mainEmail(@Root() user: UserType, @Ctx() ctx: GraphqlContext): Promise<string | null> {
    return (await this.person(user, ctx)).mainEmail;
  }

  @FieldResolver(() => String, { nullable: true })
  async firstName(@Root() user: UserType, @Ctx() ctx: GraphqlContext): Promise<string | null> {
    return (await this.person(user, ctx)).firstName;
  }

  @FieldResolver(() => String, { nullable: true })
  async lastName(@Root() user: UserType, @Ctx() ctx: GraphqlContext): Promise<string | null> {
    return (await this.person(user, ctx)).lastName;
  }

  @FieldResolver(() => [UserFormType], {
    description: "The user's form set in form order (without admin-only forms for a registrant session).",
  })
  async forms(
    @Root() user: UserType,
    @Ctx() ctx: GraphqlContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<UserFormType[]> {
    if (selectsPath(info, ["form", "fields"]) || selectsPath(info, ["missingMandatoryFields"])) {
      ctx.loaders.wantFormFields();
    }
    return (await visibleFormSet(user.uid, ctx)).map((row) => presentUserForm(row, user));
  }

  @FieldResolver(() => [FieldValueType], {
    description: "Stored answers in form and field order (without admin-only forms for a registrant session).",
  })
  async fieldValues(@Root() user: UserType, @Ctx() ctx: GraphqlContext): Promise<FieldValueType[]> {
    return (await visibleAnswers(user.uid, ctx)).map((row) => presentFieldValue(row, user));
  }

  @FieldResolver(() => [EmailRecordType], { description: "Email history, oldest first." })
  async emails(@Root() user: UserType, @Ctx() ctx: GraphqlContext): Promise<EmailRecordType[]> {
    return (await ctx.loaders.emails.load(user.uid)).map((entry) => presentEmailRecord(entry, user));
  }

  @FieldResolver(() => [CartLineType], { description: "Cart lines, oldest first (legacy _usercart)." })
  async cartLines(@Root() user: UserType, @Ctx() ctx: GraphqlContext): Promise<CartLineType[]> {
    return (await ctx.loaders.cartLines.load(user.uid)).map((line) => presentCartLine(line, user));
  }

  @FieldResolver(() => [PaymentType], { description: "Payments, oldest first (legacy _userpayments)." })
  async payments(@Root() user: UserType, @Ctx() ctx: GraphqlContext): Promise<PaymentType[]> {
    return (await ctx.loaders.payments.load(user.uid)).map((payment) => presentPayment(payment, user));
  }

  @FieldResolver(() => UtmType, { description: "UTM attribution (legacy _utm); every member but id null when none." })
  async utm(@Root() user: UserType, @Ctx() ctx: GraphqlContext): Promise<UtmType> {
    return presentUtm(await ctx.loaders.utm.load(user.uid), user);
  }

  @FieldResolver(() => [TagType])
  async tags(@Root() user: UserType, @Ctx() ctx: GraphqlContext): Promise<TagType[]> {
    // Tags are read with the summary, in the same statement.
    const summary = user.pageSummary ?? (await ctx.loaders.summaries.load(user.uid));
    return (summary?.tags ?? []).map((tag) => presentTag(tag, user.groupId));
  }

  @FieldResolver(() => UserType, { nullable: true, description: "The parent registration of a child; null otherwise." })
  async parent(@Root() user: UserType, @Ctx() ctx: GraphqlContext): Promise<UserType | null> {
    if (user.parentCloginId == null) return null;
    const ref = await ctx.loaders.registrationsByPerson.load({ groupId: user.groupId, cloginId: user.parentCloginId });
    return ref ? userFromRef(ref) : null;
  }

  @FieldResolver(() => [UserType], { description: "Children registered under this user in the same project, by uid." })
  async children(@Root() user: UserType, @Ctx() ctx: GraphqlContext): Promise<UserType[]> {
    const refs = await ctx.loaders.children.load({ groupId: user.groupId, cloginId: user.cloginId });
    return refs.map(userFromRef);
  }

  @FieldResolver(() => ProjectType)
  async project(@Root() user: UserType, @Ctx() ctx: GraphqlContext): Promise<ProjectType> {
    const project = await ctx.loaders.projects.load(user.groupId);
    if (!project) throw new Error(`project ${user.groupId} of registration ${user.uid} is missing`);
    return presentProjectListing(project);
  }
}

/**
 * A users page's nodes carry their summaries (`pageSummary`), so their metaInfo needs neither a
 * loader nor type-graphql's resolver wrapper, which costs an async call, a promise and a
 * parameter list per node of every page. The field's resolver answers them directly and hands
 * every other User to the type-graphql resolver above.
 */
export function withPageMetaInfoShortcut(schema: GraphQLSchema): GraphQLSchema {
  const field = assertObjectType(schema.getType("User")).getFields().metaInfo;
  const viaTypeGraphql = field.resolve;
  if (!viaTypeGraphql) throw new Error("User.metaInfo has no resolver to shortcut");
  field.resolve = (user: UserType, args, context, info) =>
    user.pageSummary ? presentMetaInfo(user.pageSummary) : viaTypeGraphql(user, args, context, info);
  return schema;
}
