import { EVERY_CALLER } from "../execution/registrant-scope";
import { Arg, Ctx, Extensions, ID, Info, Query, Resolver, Authorized } from "type-graphql";
import type { GraphQLResolveInfo } from "graphql";
import { DomainError, validationFailed } from "../../domain/errors";
import { getProjectDefinition, type ProjectDefinitionKey } from "../../domain/projects/project-definitions";
import { getProject } from "../../domain/projects/projects.service";
import { readOwnRegistration } from "../../domain/sessions/registrant-sessions";
import type { UserOutcome } from "../../domain/users/user-commands";
import { getUser } from "../../domain/users/users.service";
import { getWebhookDelivery, getWebhookEndpoint } from "../../domain/webhooks/webhooks.service";
import { ITEMWISE_LIST_ERRORS } from "../execution/compiled-executor";
import type { GraphqlContext } from "../context";
import { MAX_PAGE_SIZE } from "../inputs/user-query.input";
import {
  presentCartLine,
  presentCategory,
  presentEmailRecord,
  presentField,
  presentFieldValue,
  presentForm,
  presentPayment,
  presentProduct,
  presentProjectListing,
  presentTag,
  presentUserForm,
  presentUtm,
  presentWebhookDelivery,
  presentWebhookEndpoint,
  userFromOutcome,
  type UserOwner,
} from "../resolvers/present";
import { ONE_STATEMENT_READ, type OneStatementRead } from "../execution/one-statement-read";
import { answeredByUserRead, readUserForSelection, visibleAnswers, visibleFormSet } from "../resolvers/user-read";
import { selectsField } from "../selection";
import { presentMetaInfo, presentStatus } from "../types/user.type";
import { decodeNodeId, type DecodedNodeId, type NodeKey } from "./node-id";
import { Node } from "./node.interface";

/**
 * The one answer for an id the caller may not read, whatever the reason (another organization's
 * project, a registration or form that does not exist, another registrant's data): the answers
 * must not tell them apart, or ids could be probed.
 */
const notVisible = () => new DomainError("NOT_FOUND", "No object with this id is visible to you.");
const HIDDEN_CODES = new Set(["FORBIDDEN", "USER_NOT_FOUND", "NOT_FOUND"]);

type NodeSource = Node & { __typename: string };

// `node` of a User, for an API account, reads as `user` does: in one statement
// (one-statement-read.ts) when its selection is one that `user` reads so.
const NODE_READ: OneStatementRead = (args, caller) => {
  if (caller.registrant) return null;
  const node = decodeNodeId(String(args.id));
  return node.type === "User" ? { objectType: "User", answered: answeredByUserRead } : null;
};

@Resolver()
export class NodeResolver {
  @Extensions({ [ONE_STATEMENT_READ]: NODE_READ })
  @Authorized(...EVERY_CALLER)
  @Query(() => Node, {
    nullable: true,
    description:
      "Refetches any object by its Node id, with the authorization of the field that returned it; an id you may not read (another organization's, a missing one, another registrant's) is NOT_FOUND.",
  })
  async node(
    @Arg("id", () => ID, { description: "A Node id, as any object's `id` gives it." }) id: string,
    @Ctx() ctx: GraphqlContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<NodeSource> {
    return resolveNode(decodeNodeId(id), ctx, info);
  }

  @Authorized(...EVERY_CALLER)
  @Query(() => [Node], {
    nullable: "items",
    description: `Refetches up to ${MAX_PAGE_SIZE} objects by Node id, in order; each id you may not read is null with its own NOT_FOUND error.`,
  })
  // Each id fails on its own, at its index: runs on graphql-js (compiled-executor.ts).
  @Extensions({ [ITEMWISE_LIST_ERRORS]: true })
  nodes(
    @Arg("ids", () => [ID], {
      description: "Node ids; the answer keeps their order, null for each that does not resolve.",
    })
    ids: string[],
    @Ctx() ctx: GraphqlContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<NodeSource>[] {
    if (ids.length > MAX_PAGE_SIZE) {
      throw validationFailed([
        { path: ["ids"], reason: "TOO_MANY_ITEMS", message: `lists ${ids.length} ids; at most ${MAX_PAGE_SIZE}` },
      ]);
    }
    const decoded = ids.map((id, index) => decodeNodeId(id, ["ids", index]));
    return decoded.map((node) => resolveNode(node, ctx, info));
  }
}

async function resolveNode(node: DecodedNodeId, ctx: GraphqlContext, info: GraphQLResolveInfo): Promise<NodeSource> {
  try {
    const source = await sourceOf(node, ctx, info);
    if (!source) throw notVisible();
    // Tagged in place, not copied: members such as `id` are getters on the presented object's class.
    return Object.assign(source, { __typename: node.type });
  } catch (error) {
    if (error instanceof DomainError && HIDDEN_CODES.has(error.code)) throw notVisible();
    throw error;
  }
}

/** The registration that owns a user-level object, read with the rules of `user` (or `me` for a registrant). */
async function ownerOf(ctx: GraphqlContext, key: NodeKey<"User">): Promise<UserOutcome> {
  const registrant = ctx.request.registrant;
  if (registrant && (registrant.groupId !== key.groupId || registrant.cloginId !== key.cloginId)) throw notVisible();
  const outcome = registrant
    ? await readOwnRegistration(ctx.request)
    : await getUser(ctx.request, key.groupId, key.cloginId);
  ctx.loaders.primeSummary(outcome.summary);
  return outcome;
}

/** Project-level objects: a registrant session reaches those of its own project that me.project shows it. */
function definitionOf(ctx: GraphqlContext, groupId: number, key: ProjectDefinitionKey) {
  return getProjectDefinition(ctx.request, groupId, key);
}

async function sourceOf(node: DecodedNodeId, ctx: GraphqlContext, info: GraphQLResolveInfo): Promise<Node | null> {
  switch (node.type) {
    case "User":
      // An API account's user reads as `user` does (the same statements for the same selection).
      if (!ctx.request.registrant) return readUserForSelection(ctx, node.key.groupId, node.key.cloginId, info);
      return userFromOutcome(await ownerOf(ctx, node.key));
    case "MetaInfo":
      return presentMetaInfo((await ownerOf(ctx, node.key)).summary);
    case "Utm":
    case "UserForm":
    case "FieldValue":
    case "CartLine":
    case "Payment":
    case "EmailRecord":
      return registrationObjectOf(node, ctx);
    case "Project": {
      // A registrant session's own project only (getProject), as me.project.
      const withGroupTotals = selectsField(info, "groupTotals");
      return presentProjectListing(await getProject(ctx.request, node.key.groupId, { withGroupTotals }));
    }
    case "Form":
    case "FormField":
    case "Status":
    case "Tag":
    case "Product":
    case "ProductCategory":
      return projectDefinitionOf(node, ctx);
    // Webhooks are the organization's, read by its API accounts only (as webhookEndpoints is).
    case "WebhookEndpoint":
      if (ctx.request.registrant) return null;
      return presentWebhookEndpoint(await getWebhookEndpoint(ctx.request, node.key.endpointId));
    case "WebhookDelivery":
      if (ctx.request.registrant) return null;
      return presentWebhookDelivery(await getWebhookDelivery(ctx.request, node.key));
  }
}

type NodeOf<T extends DecodedNodeId["type"]> = Extract<DecodedNodeId, { type: T }>;

/** An object of one registration (a form of its set, an answer, a cart line…), found among its owner's. */
async function registrationObjectOf(
  node: NodeOf<"Utm" | "UserForm" | "FieldValue" | "CartLine" | "Payment" | "EmailRecord">,
  ctx: GraphqlContext,
): Promise<Node | null> {
  switch (node.type) {
    case "Utm": {
      const owner: UserOwner = await ownerOf(ctx, node.key);
      return presentUtm(await ctx.loaders.utm.load(owner.uid), owner);
    }
    case "UserForm": {
      const owner: UserOwner = await ownerOf(ctx, node.key);
      const state = (await visibleFormSet(owner.uid, ctx)).find((row) => row.form.id === node.key.formId);
      return state ? presentUserForm(state, owner) : null;
    }
    case "FieldValue": {
      const owner: UserOwner = await ownerOf(ctx, node.key);
      const answer = (await visibleAnswers(owner.uid, ctx)).find((row) => row.field.id === node.key.identifier);
      return answer ? presentFieldValue(answer, owner) : null;
    }
    case "CartLine": {
      const owner: UserOwner = await ownerOf(ctx, node.key);
      const line = (await ctx.loaders.cartLines.load(owner.uid)).find((row) => row.cartLineId === node.key.cartLineId);
      return line ? presentCartLine(line, owner) : null;
    }
    case "Payment": {
      const owner: UserOwner = await ownerOf(ctx, node.key);
      const payment = (await ctx.loaders.payments.load(owner.uid)).find((row) => row.paymentId === node.key.paymentId);
      return payment ? presentPayment(payment, owner) : null;
    }
    case "EmailRecord": {
      // The email history is the organization's record; User.emails is hidden from registrants too.
      if (ctx.request.registrant) return null;
      const owner: UserOwner = await ownerOf(ctx, node.key);
      const entry = (await ctx.loaders.emails.load(owner.uid)).find((row) => row.id === node.key.emailId);
      return entry ? presentEmailRecord(entry, owner) : null;
    }
  }
}

/** A definition of a project (form, field, status, tag, product, category), as the project shows it to the caller. */
async function projectDefinitionOf(
  node: NodeOf<"Form" | "FormField" | "Status" | "Tag" | "Product" | "ProductCategory">,
  ctx: GraphqlContext,
): Promise<Node | null> {
  switch (node.type) {
    case "Form": {
      const found = await definitionOf(ctx, node.key.groupId, { kind: "form", formId: node.key.formId });
      return found.kind === "form" ? presentForm(found.form) : null;
    }
    case "FormField": {
      const found = await definitionOf(ctx, node.key.groupId, { kind: "field", identifier: node.key.identifier });
      return found.kind === "field" ? presentField(found.field, node.key.groupId) : null;
    }
    case "Status": {
      const found = await definitionOf(ctx, node.key.groupId, { kind: "status", statusId: node.key.statusId });
      return found.kind === "status" ? presentStatus(found.status, node.key.groupId) : null;
    }
    case "Tag": {
      const found = await definitionOf(ctx, node.key.groupId, { kind: "tag", tagId: node.key.tagId });
      return found.kind === "tag" ? presentTag(found.tag, node.key.groupId) : null;
    }
    case "Product": {
      const found = await definitionOf(ctx, node.key.groupId, { kind: "product", pId: node.key.pId });
      return found.kind === "product" ? presentProduct(found.product, node.key.groupId) : null;
    }
    case "ProductCategory": {
      const found = await definitionOf(ctx, node.key.groupId, { kind: "category", catId: node.key.catId });
      return found.kind === "category" ? presentCategory(found.category, node.key.groupId) : null;
    }
  }
}
