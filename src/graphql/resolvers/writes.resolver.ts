import { Arg, Ctx, Info, Mutation, Resolver, UseMiddleware, Authorized } from "type-graphql";
import { addProducts } from "../../domain/carts/add-product";
import { removeCartLine } from "../../domain/carts/remove-cart-line";
import { createCategory, createProduct } from "../../domain/products/products.service";
import type { UserOutcome } from "../../domain/users/user-commands";
import { setUserStatus } from "../../domain/users/set-status";
import { createChild } from "../../domain/users/users.service";
import type { GraphQLResolveInfo } from "graphql";
import type { GraphqlContext } from "../context";
import { INPUT_PATHS, withProblemPaths } from "../graphql-errors";
import type { PathRendering } from "../../http/problem-paths";
import { problemsInPayload } from "../input-problems";
import { eitherSpelling, namesForSpelling, withoutRenamedMembers, type CurrentName } from "../inputs/renamed-members";
import {
  AddProductInput,
  type CartEntryInput,
  CreateCategoryInput,
  CreateChildInput,
  CreateProductInput,
  RemoveCartLineInput,
  SetStatusInput,
} from "../inputs/writes.input";
import {
  AddProductPayloadType,
  CreateCategoryPayloadType,
  CreateProductPayloadType,
  RemoveCartLinePayloadType,
  UserPayloadType,
} from "../types/payloads.type";
import type { UserType } from "../types/user.type";
import { presentProblems, userFromOutcome } from "./present";
import { projectAfterWrite } from "./project.resolver";

/** Reads after a write must not see cached rows from before it; the fresh summary primes the loader. */
function afterWrite(ctx: GraphqlContext, outcome: UserOutcome): UserType {
  ctx.loaders.clearAll();
  ctx.loaders.primeSummary(outcome.summary);
  return userFromOutcome(outcome);
}

/**
 * The cart entries as the domain command takes them (the legacy names), and how its problems
 * name the members: in the spelling the client sent.
 */
export function cartEntriesOf(entries: readonly CartEntryInput[]): {
  productList: Record<string, unknown>[];
  rendering: PathRendering;
} {
  const sentOld = new Set<CurrentName>();
  const productList = entries.map((entry, index) => {
    const product = eitherSpelling(entry, "productId", ["productList", index]);
    const units = eitherSpelling(entry, "quantity", ["productList", index]);
    if (product.sentOld) sentOld.add("productId");
    if (units.sentOld) sentOld.add("quantity");
    // The domain command keeps the legacy names; absent members are left out, as a REST
    // client leaves them out of its JSON.
    return Object.fromEntries(
      Object.entries({ ...withoutRenamedMembers(entry), pId: product.value, q: units.value }).filter(
        ([, value]) => value !== null && value !== undefined,
      ),
    );
  });
  return { productList, rendering: { ...INPUT_PATHS, names: namesForSpelling(sentOld, ["productId", "quantity"]) } };
}

/** createChild, setStatus, addProduct, createProduct, createCategory: the REST actions' domain commands. */
@Resolver()
export class WritesMutationResolver {
  @Authorized("account")
  @Mutation(() => UserPayloadType, {
    description: "Registers a child of a parent (or individual) in a family project (legacy create_child).",
  })
  @UseMiddleware(problemsInPayload(INPUT_PATHS, UserPayloadType.rejected))
  async createChild(
    @Arg("input", () => CreateChildInput, { description: "The child to create and its parent." })
    input: CreateChildInput,
    @Ctx() ctx: GraphqlContext,
  ): Promise<UserPayloadType> {
    // REST requires `doc` even when empty; here absent values simply mean none.
    const outcome = await createChild(ctx.request, { ...input, values: input.values ?? {} });
    return { user: afterWrite(ctx, outcome), notices: outcome.notices, problems: presentProblems(outcome.problems) };
  }

  @Authorized("account")
  @Mutation(() => UserPayloadType, {
    description: "Sets (statusId > 0) or removes (0) a user's status; its children keep theirs.",
  })
  @UseMiddleware(problemsInPayload(INPUT_PATHS, UserPayloadType.rejected))
  async setStatus(
    @Arg("input", () => SetStatusInput, { description: "The user and the status." }) input: SetStatusInput,
    @Ctx() ctx: GraphqlContext,
  ): Promise<UserPayloadType> {
    const outcome = await setUserStatus(ctx.request, { ...input });
    return { user: afterWrite(ctx, outcome), notices: outcome.notices, problems: presentProblems(outcome.problems) };
  }

  @Authorized("account")
  @Mutation(() => AddProductPayloadType, {
    description: "Adds products (or private products by name) to a user's cart; all or nothing.",
  })
  @UseMiddleware(problemsInPayload(INPUT_PATHS, AddProductPayloadType.rejected))
  async addProduct(
    @Arg("input", () => AddProductInput, { description: "The user and the products to add." }) input: AddProductInput,
    @Ctx() ctx: GraphqlContext,
  ): Promise<AddProductPayloadType> {
    const { productList, rendering } = cartEntriesOf(input.productList);
    const outcome = await withProblemPaths(rendering, () =>
      addProducts(ctx.request, { groupId: input.groupId, cloginId: input.cloginId, productList }),
    );
    return { user: afterWrite(ctx, outcome), cartIds: outcome.cartIds, notices: outcome.notices, problems: [] };
  }

  @Authorized("account")
  @Mutation(() => RemoveCartLinePayloadType, {
    description:
      "Removes one line from a user's cart (the order total and counters drop by its amount; a cart.product_removed event). Refused (problems) for a line not in the cart, or of a product locked once funds are allocated while the user has payments.",
  })
  @UseMiddleware(problemsInPayload(INPUT_PATHS, RemoveCartLinePayloadType.rejected))
  async removeCartLine(
    @Arg("input", () => RemoveCartLineInput, { description: "The user and the line to remove." })
    input: RemoveCartLineInput,
    @Ctx() ctx: GraphqlContext,
  ): Promise<RemoveCartLinePayloadType> {
    const outcome = await removeCartLine(ctx.request, { ...input });
    return { user: afterWrite(ctx, outcome), removedCartLineId: outcome.removedCartLineId, problems: [] };
  }

  @Authorized("account")
  @Mutation(() => CreateProductPayloadType, { description: "Creates a product (legacy products create)." })
  @UseMiddleware(problemsInPayload(INPUT_PATHS, CreateProductPayloadType.rejected))
  async createProduct(
    @Arg("input", () => CreateProductInput, { description: "The product to create." }) input: CreateProductInput,
    @Ctx() ctx: GraphqlContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<CreateProductPayloadType> {
    const category = eitherSpelling(input, "categoryId", []);
    const parent = eitherSpelling(input, "parentProductId", []);
    const sentOld = new Set<CurrentName>();
    if (category.sentOld) sentOld.add("categoryId");
    if (parent.sentOld) sentOld.add("parentProductId");
    const names = namesForSpelling(sentOld, ["categoryId", "parentProductId"]);
    const productId = await withProblemPaths({ ...INPUT_PATHS, names }, () =>
      createProduct(ctx.request, { ...withoutRenamedMembers(input), catId: category.value, parentPId: parent.value }),
    );
    ctx.loaders.clearAll();
    return { productId, project: await projectAfterWrite(ctx, input.groupId, info), problems: [] };
  }

  @Authorized("account")
  @Mutation(() => CreateCategoryPayloadType, {
    description:
      "Creates a product category; a name taken in the project (case-insensitive) is a CONFLICT with extensions.categoryId (and the deprecated catId).",
  })
  @UseMiddleware(problemsInPayload(INPUT_PATHS, CreateCategoryPayloadType.rejected))
  async createCategory(
    @Arg("input", () => CreateCategoryInput, { description: "The category to create." }) input: CreateCategoryInput,
    @Ctx() ctx: GraphqlContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<CreateCategoryPayloadType> {
    const categoryId = await createCategory(ctx.request, { ...input });
    ctx.loaders.clearAll();
    return { categoryId, project: await projectAfterWrite(ctx, input.groupId, info), problems: [] };
  }
}
