import { Arg, Ctx, Mutation, Resolver, UseMiddleware } from "type-graphql";
import { addProducts } from "../../domain/carts/add-product";
import { createCategory, createProduct } from "../../domain/products/products.service";
import type { UserOutcome } from "../../domain/users/user-commands";
import { setUserStatus } from "../../domain/users/set-status";
import { createChild } from "../../domain/users/users.service";
import type { GraphqlContext } from "../context";
import { INPUT_PATHS, problemPathsOf } from "../graphql-errors";
import {
  AddProductInput,
  CreateCategoryInput,
  CreateChildInput,
  CreateProductInput,
  SetStatusInput,
} from "../inputs/writes.input";
import {
  AddProductPayloadType,
  CreateCategoryPayloadType,
  CreateProductPayloadType,
  UserPayloadType,
} from "../types/payloads.type";
import type { UserType } from "../types/user.type";
import { userFromOutcome } from "./present";

/** Reads after a write must not see cached rows from before it; the fresh summary primes the loader. */
function afterWrite(ctx: GraphqlContext, outcome: UserOutcome): UserType {
  ctx.loaders.clearAll();
  ctx.loaders.primeSummary(outcome.summary);
  return userFromOutcome(outcome);
}

/** createChild, setStatus, addProduct, createProduct, createCategory: the REST actions' domain commands. */
@Resolver()
export class WritesMutationResolver {
  @Mutation(() => UserPayloadType, {
    description: "Registers a child of a parent (or individual) in a family project (legacy create_child).",
  })
  @UseMiddleware(problemPathsOf(INPUT_PATHS))
  async createChild(
    @Arg("input", () => CreateChildInput) input: CreateChildInput,
    @Ctx() ctx: GraphqlContext,
  ): Promise<UserPayloadType> {
    // REST requires `doc` even when empty; here absent values simply mean none.
    const outcome = await createChild(ctx.request, { ...input, values: input.values ?? {} });
    return { user: afterWrite(ctx, outcome), notices: outcome.notices };
  }

  @Mutation(() => UserPayloadType, {
    description: "Sets (statusId > 0) or removes (0) a user's status; its children keep theirs.",
  })
  @UseMiddleware(problemPathsOf(INPUT_PATHS))
  async setStatus(
    @Arg("input", () => SetStatusInput) input: SetStatusInput,
    @Ctx() ctx: GraphqlContext,
  ): Promise<UserPayloadType> {
    const outcome = await setUserStatus(ctx.request, { ...input });
    return { user: afterWrite(ctx, outcome), notices: outcome.notices };
  }

  @Mutation(() => AddProductPayloadType, {
    description: "Adds products (or private products by name) to a user's cart; all or nothing.",
  })
  @UseMiddleware(problemPathsOf(INPUT_PATHS))
  async addProduct(
    @Arg("input", () => AddProductInput) input: AddProductInput,
    @Ctx() ctx: GraphqlContext,
  ): Promise<AddProductPayloadType> {
    const outcome = await addProducts(ctx.request, {
      groupId: input.groupId,
      cloginId: input.cloginId,
      // Absent members are left out, as a REST client leaves them out of its JSON.
      productList: input.productList.map((entry) =>
        Object.fromEntries(Object.entries({ ...entry }).filter(([, value]) => value !== null && value !== undefined)),
      ),
    });
    return { user: afterWrite(ctx, outcome), cartIds: outcome.cartIds, notices: outcome.notices };
  }

  @Mutation(() => CreateProductPayloadType, { description: "Creates a product (legacy products create)." })
  @UseMiddleware(problemPathsOf(INPUT_PATHS))
  async createProduct(
    @Arg("input", () => CreateProductInput) input: CreateProductInput,
    @Ctx() ctx: GraphqlContext,
  ): Promise<CreateProductPayloadType> {
    const productId = await createProduct(ctx.request, { ...input });
    ctx.loaders.clearAll();
    return { productId };
  }

  @Mutation(() => CreateCategoryPayloadType, {
    description:
      "Creates a product category; a name taken in the project (case-insensitive) is a CONFLICT with extensions.catId.",
  })
  @UseMiddleware(problemPathsOf(INPUT_PATHS))
  async createCategory(
    @Arg("input", () => CreateCategoryInput) input: CreateCategoryInput,
    @Ctx() ctx: GraphqlContext,
  ): Promise<CreateCategoryPayloadType> {
    const categoryId = await createCategory(ctx.request, { ...input });
    ctx.loaders.clearAll();
    return { categoryId };
  }
}
